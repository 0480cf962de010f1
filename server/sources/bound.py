"""Whether the buffer binds a name where the cursor sees it (sources/auto_import.py offers an
import only for a name it does not): read around the name's occurrences rather than from a
query over the whole tree, which would cost milliseconds of a large file at every keystroke
(docs/decisions.md). The text around an occurrence says whether it may bind (``def name``,
``name =``, ``import … name``, ``for name in``, ``as name``, ``const { name }``, a parameter);
the tree then rules out comments, strings and the functions or classes that do not hold the
cursor.
"""

from __future__ import annotations

import re

from ..languages import FUNCTIONS, LanguageSpec

_BINDS = {  # the text before a binding occurrence (on its line), and after it
    "python": (re.compile(rb"(?:\b(?:def|class|as|global|nonlocal|import)[ \t]+|\bfor[ \t]+[\w \t,()]*"
                          rb"|^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*[(,][ \t]*[*]{0,2}|\blambda[ \t][^:]*"
                          rb"|^[ \t]*from[ \t].*\bimport\b.*)$"),
               re.compile(rb"[ \t]*(?:,[\w \t,]*)?(?::[^=\n]*)?(?:=(?!=)|:=)|[\w \t,]*[ \t]in\b")),
    "javascript": (re.compile(rb"(?:(?<![.$])\b(?:const|let|var|function|class|catch)[ \t]*\(?[ \t]*|^[ \t]*import\b[^;]*"
                              rb"|\b(?:const|let|var)[ \t]*[{\[][^;=]*)$"),
                   re.compile(rb"[ \t]*(?:=(?![=>])|=>)")),
}
_VALUE = re.compile(rb"(?:[:=(\[.]|->|\b(?:return|in|is|not|and|or|if|else|yield|await))[ \t]*$")  # a value or a type follows
_JS_PARAMETER = (re.compile(rb"\([ \t]*(?:[\w$]+[ \t]*(?:=[^,()]*)?,[ \t]*)*$"),
                 re.compile(rb"[ \t]*(?:=[^,()]*)?(?:,[\w$ \t=,]*)?\)[ \t]*(?:=>|\{)"))
# inside a from-import's parentheses, an import's or a destructuring's braces over several lines
_OPEN = {"python": re.compile(rb"\bimport\s*\([^)]*$"),
         "javascript": re.compile(rb"(?:\bimport\s*(?:[\w$]+\s*,\s*)?|\b(?:const|let|var)\s*)\{[^{}]*$")}
_KEY = re.compile(rb"[ \t]*:(?!:)")
_DESTRUCTURING = re.compile(rb"\b(?:const|let|var)[ \t]*\{[^;=]*$")
_TEXT = frozenset({"comment", "string", "string_content", "string_fragment", "template_string", "regex"})
_PROPERTY = frozenset({"property_identifier", "private_property_identifier"})


PARAMETERS = frozenset({"parameters", "lambda_parameters", "default_parameter", "typed_parameter", "typed_default_parameter",
                        "list_splat_pattern", "dictionary_splat_pattern", "formal_parameters", "required_parameter",
                        "optional_parameter", "assignment_pattern", "rest_pattern"})
SCOPES = frozenset({"function_definition", "lambda", "class_definition", "function_declaration", "function_expression",
                    "arrow_function", "method_definition", "generator_function_declaration", "class_declaration", "class"})


MAX_OCCURRENCES = 300  # occurrences of a name read at most (a huge file's common words)
OWN_NAME = frozenset({"function_expression", "function", "class"})  # `res.send = function send() {...}`


def bound_in(data: bytes, language: LanguageSpec, name: str, skip: tuple[int, int] = (0, 0), tree=None) -> bool:
    """Whether the buffer binds ``name`` where the cursor (``skip``: the word at it) sees it,
    as far as the text around each occurrence in code says (``def name``, ``name =``, ``import …
    name``, ``for name in``, ``as name``, ``const { name }``, a parameter). With the buffer's
    ``tree``, occurrences in comments and strings are not read, and a binding inside a function
    or class counts only where that function or class holds the cursor."""
    python = language.name == "python"
    before, after = _BINDS["python" if python else "javascript"]
    for seen, (start, end) in enumerate(_occurrences(data, name.encode())):
        if seen == MAX_OCCURRENCES:
            return True  # a name written this often is the file's own, or costs too much to read: no import
        if skip[0] <= start < skip[1] or _ALIASED.match(data, end):
            continue  # the word typed; `import m as x` binds x
        line = data[data.rfind(b"\n", 0, start) + 1:start]
        if not python and _KEY.match(data, end, end + 160) and (
                _DESTRUCTURING.search(line) or _OPEN["javascript"].search(data[max(0, start - 2048):start])):
            continue  # `const { https: agent } = …`: a key; what it is renamed to is bound
        # what the text says, read before the tree (a use, the common case, costs no node)
        written = (before.search(line) and (tree is None or not _PARAMETER_LINE.search(line))
                   or after.match(data, end, end + 160) and not _VALUE.search(line))
        listed = _LISTED.match(data, end, end + 160)  # a parameter, or a name in a list over several lines
        if not written and not listed:
            continue
        node = tree.root_node.descendant_for_byte_range(start, end) if tree is not None else None
        if node is not None and (node.type in _TEXT or node.type in _PROPERTY or not _in_scope(node, skip[0])):
            continue  # a comment or string; a class field's or an object's key (`static X = X`) names no variable
        if written:
            return True
        if node is not None and node.parent is not None and node.parent.type in PARAMETERS and node.prev_named_sibling is None:
            return True  # a parameter of a function around the cursor
        if _OPEN["python" if python else "javascript"].search(data[max(0, start - 2048):start]):
            return True
        if node is None and not python and _JS_PARAMETER[0].search(line) and _JS_PARAMETER[1].match(data, end, end + 160):
            return True
    return False


_LISTED = re.compile(rb"[ \t]*(?:[,)}:=]|\r?\n|$)")


def _occurrences(data: bytes, word: bytes):
    """Where ``word`` stands alone in ``data`` and may bind it: not part of a longer name, not
    after a dot, not before one (``t.Any`` reads t)."""
    start = data.find(word)
    size = len(data)
    while start >= 0:
        end = start + len(word)
        if not (start and (_WORD_BYTE[data[start - 1]] or data[start - 1] == 46)) \
                and not (end < size and (_WORD_BYTE[data[end]] or data[end] == 46)):
            yield start, end
        start = data.find(word, end)


_WORD_BYTE = [chr(b).isalnum() or chr(b) in "_$" or b >= 128 for b in range(256)]
_ALIASED = re.compile(rb"[ \t]+as[ \t]")
_PARAMETER_LINE = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*[(,][ \t]*[*]{0,2}$|\blambda[ \t][^:]*$")


def _in_scope(node, cursor: int) -> bool:
    """Whether a binding at ``node`` is seen at ``cursor``: the innermost function or class
    around it (not the one it names, but a function expression, whose name is its own) holds
    the cursor, or there is none. A Python class's body is not seen from the functions in it."""
    child, scope = node, node.parent
    while scope is not None:
        if scope.type in SCOPES and (scope.child_by_field_name("name") != child or scope.type in OWN_NAME):
            if not scope.start_byte <= cursor <= scope.end_byte:
                return False
            return scope.type != "class_definition" or not _in_function(scope, cursor)
        child, scope = scope, scope.parent
    return True


def _in_function(scope, cursor: int) -> bool:
    """Whether a function or lambda inside the Python class ``scope`` holds ``cursor``."""
    inner = scope.descendant_for_byte_range(cursor, cursor)
    while inner is not None and inner != scope:
        if inner.type in FUNCTIONS["python"]:  # a class body's names are not seen inside them
            return True
        inner = inner.parent
    return False
