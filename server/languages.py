"""The languages treecomplete understands: grammars, identifier syntax, keywords.

A language is chosen by the LSP ``languageId``; the file extension is the fallback for clients
that send an id we do not know. Everything else gets no language, and so no completions.
"""

from __future__ import annotations

import functools
import keyword
import re
import sys
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript

from . import grammars

# Definitions, as tree-sitter queries: the capture name is the completion kind.
PY_DEFINITIONS = """
(function_definition name: (identifier) @function)
(class_definition name: (identifier) @class)
(import_statement name: (dotted_name . (identifier) @module))
(import_statement name: (aliased_import alias: (identifier) @module))
(import_from_statement module_name: (dotted_name . (identifier) @module))
(import_from_statement name: (dotted_name . (identifier) @module))
(import_from_statement name: (aliased_import alias: (identifier) @module))
"""
JS_DEFINITIONS = """
(function_declaration name: (identifier) @function)
(generator_function_declaration name: (identifier) @function)
(method_definition name: (property_identifier) @function)
(variable_declarator name: (identifier) @function value: [(arrow_function) (function_expression)])
(class_declaration name: (_) @class)
(import_clause (identifier) @module)
(namespace_import (identifier) @module)
(import_specifier name: (identifier) @module)
"""

# What a module offers to its importers: the names it defines at the top level (and, in
# JavaScript, exports by name, or by assigning to `exports.x`).
PY_EXPORTS = """
(module (function_definition name: (identifier) @name))
(module (class_definition name: (identifier) @name))
(module (decorated_definition definition: (_ name: (identifier) @name)))
(module (expression_statement (assignment left: (identifier) @name)))
"""
JS_EXPORTS = """
(program (function_declaration name: (identifier) @name))
(program (generator_function_declaration name: (identifier) @name))
(program (class_declaration name: (_) @name))
(program (lexical_declaration (variable_declarator name: (identifier) @name)))
(program (variable_declaration (variable_declarator name: (identifier) @name)))
(export_statement declaration: (function_declaration name: (identifier) @name))
(export_statement declaration: (generator_function_declaration name: (identifier) @name))
(export_statement declaration: (class_declaration name: (_) @name))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name)))
(export_specifier name: (identifier) @name)
(assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  (#eq? @_exports "exports"))
"""

# The names that a file's imports take from a module (``from m import a``, ``import { a } from``,
# ``const { a } = require(...)``, and a re-export's ``export { a } from``): how many of the
# project's files import a name says what an import being written will take.
PY_TAKEN = """
(import_from_statement name: (dotted_name . (identifier) @name))
(import_from_statement name: (aliased_import name: (dotted_name . (identifier) @name)))
"""
JS_TAKEN = """
(import_specifier name: (identifier) @name)
(export_statement (export_clause (export_specifier name: (identifier) @name)) source: (string))
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name)
  value: (call_expression function: (identifier) @_require (#eq? @_require "require")))
"""

# The same with the module each is taken from (its last dotted part, a JavaScript module's path):
# what the project's files want a module to define (server/sources/project.py, Snapshot.wanted_from).
PY_TAKEN_FROM = """
(import_from_statement
  module_name: [(dotted_name (identifier) @module .) (relative_import (dotted_name (identifier) @module .))]
  name: [(dotted_name . (identifier) @name) (aliased_import name: (dotted_name . (identifier) @name))])
"""
JS_TAKEN_FROM = """
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name)))
  source: (string (string_fragment) @module))
(export_statement (export_clause (export_specifier name: (identifier) @name)) source: (string (string_fragment) @module))
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name)
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @module)))
  (#eq? @_require "require"))
"""

# What the buffer imports: Python's import statements (every name in them may be a module), and
# the module strings of JavaScript's imports and require() calls.
PY_IMPORTS = "[(import_statement) (import_from_statement)] @import"
JS_IMPORTS = """
(import_statement source: (string) @source)
(call_expression function: (identifier) @_require arguments: (arguments . (string) @source) (#eq? @_require "require"))
"""

# Text that holds no code: identifiers in it are not offered.
PY_SKIP = "[(comment) (string)] @skip"
JS_SKIP = "[(comment) (string) (regex)] @skip"

JS_KEYWORDS = (
    "async await break case catch class const continue debugger default delete do else export "
    "extends false finally for from function get if import in instanceof let new null of return "
    "set static super switch this throw true try typeof undefined var void while with yield"
).split()
TS_KEYWORDS = JS_KEYWORDS + (
    "abstract any as asserts boolean declare enum implements interface keyof namespace never "
    "number object private protected public readonly satisfies string symbol type unique unknown"
).split()
PY_BUILTINS = (
    "abs all any bool bytes callable chr classmethod dict dir enumerate Exception filter float "
    "format frozenset getattr hasattr hash isinstance issubclass iter len list map max min next "
    "object open ord print property range repr reversed round set setattr slice sorted "
    "staticmethod str sum super tuple type zip self cls __init__ __name__ KeyError ValueError "
    "TypeError RuntimeError NotImplementedError AttributeError IndexError OSError"
).split()
JS_BUILTINS = (
    "console log document window module exports require Object Array String Number Boolean "
    "JSON Math Promise Error TypeError Map Set Symbol Date RegExp parseInt parseFloat "
    "setTimeout clearTimeout setInterval process Buffer length push prototype then"
).split()

# Members of the standard types and modules, offered after a dot (where the builtins above are
# not members of anything).
PY_MEMBERS = (
    "append extend insert pop remove index count sort reverse copy clear items keys values get "
    "setdefault update add discard union intersection difference split rsplit join strip lstrip "
    "rstrip replace startswith endswith lower upper format encode decode find rfind partition "
    "splitlines path exists isfile isdir dirname basename abspath environ getcwd listdir makedirs "
    "match search sub compile findall group groups getLogger debug info warning error exception "
    "read write close open readlines seek name args kwargs result"
).split()
JS_MEMBERS = (
    "length push pop shift unshift slice splice concat join reverse sort indexOf lastIndexOf "
    "includes find findIndex filter map forEach reduce some every flat flatMap fill keys values "
    "entries at charAt charCodeAt startsWith endsWith trim trimStart trimEnd padStart padEnd "
    "repeat replace replaceAll split substring toLowerCase toUpperCase match test exec "
    "hasOwnProperty toString valueOf constructor prototype call apply bind name assign create "
    "defineProperty freeze getPrototypeOf setPrototypeOf getOwnPropertyNames fromEntries then "
    "catch finally resolve reject all allSettled race log error warn info debug floor ceil round "
    "max min abs random parse stringify toFixed isArray isInteger env argv exit cwd stdout stderr "
    "stdin nextTick platform on once emit removeListener write end pipe readFileSync "
    "writeFileSync existsSync readFile writeFile stat mkdirSync readdirSync dirname basename "
    "extname relative sep normalize isAbsolute get set has delete clear add size now getTime "
    "toISOString message stack code default"
).split()


@dataclass(frozen=True)
class LanguageSpec:
    """One tree-sitter grammar plus what completion needs to know about its language."""

    name: str
    grammar: object = field(repr=False)  # the grammar wheel's language() capsule
    identifier_chars: str  # a regex character class body for identifier characters
    keywords: tuple[str, ...]
    builtins: tuple[str, ...]
    definitions_query: str
    skip_query: str
    imports_query: str
    exports_query: str
    taken_query: str = ""  # the names imports take (PY_TAKEN); none in a grammar served alone
    taken_from_query: str = ""  # those with the module each is taken from (PY_TAKEN_FROM)
    exports_depth: int = 3  # how deep the exports query's patterns start (JavaScript's `export { a }`: 3)
    # the keywords never offered as identifiers (Python's hard ones: the soft `match`, `case`,
    # `type`, `_` are names too); None: all of them (JavaScript's contextual `get`, `of`,
    # `async` are keywords far more often than names)
    reserved: tuple[str, ...] | None = None
    members_any: bool = False  # a member name may be any word, reserved or not (JavaScript's `promise.catch`)
    # keywords that are names too, offered with their import where the project imports them
    # (JavaScript's `import { get, set } from './sources.js'`, rxjs' `of`)
    importable_keywords: frozenset[str] = frozenset()
    members: tuple[str, ...] = ()  # the standard types' and modules' members: offered after a dot
    modules: tuple[str, ...] = ()  # the standard library's modules: offered where an import names one
    # the cursor's line, read as text (context.py): what opens a comment to the line's end and a
    # string on it, and whether a `/` may open a regular expression (JavaScript)
    line_comments: tuple[str, ...] = ("//",)
    quotes: str = "'\"`"
    regex_literals: bool = True
    member_operators: tuple[str, ...] = (".",)  # between a receiver and its member's name
    # node types, beside context.py's, at which the cursor is in a comment or a string
    comment_types: frozenset[str] = frozenset()
    string_types: frozenset[str] = frozenset()
    grammar_only: bool = False  # served from its grammar wheel alone (server/grammars.py)
    padding: bytes = b""  # read after the text by every parse (grammars.Wheel.padding)

    @cached_property
    def language(self) -> tree_sitter.Language:
        if isinstance(self.grammar, tree_sitter.Language):  # server/grammars.py's, read already
            return self.grammar
        return tree_sitter.Language(self.grammar)

    @cached_property
    def scan(self) -> tree_sitter.Query:
        """Comments and strings (capture ``skip``) and definitions (captures named by kind), in
        one query: one pass over a range of the tree instead of two."""
        return tree_sitter.Query(self.language, self.skip_query + "\n" + self.definitions_query)

    @cached_property
    def imports(self) -> tree_sitter.Query:
        return tree_sitter.Query(self.language, self.imports_query)

    @cached_property
    def exports(self) -> tree_sitter.Query:
        return tree_sitter.Query(self.language, self.exports_query)

    @cached_property
    def taken(self) -> tree_sitter.Query:
        return tree_sitter.Query(self.language, self.taken_query)

    @cached_property
    def taken_from(self) -> tree_sitter.Query:
        return tree_sitter.Query(self.language, self.taken_from_query)

    @cached_property
    def identifier_pattern(self) -> re.Pattern[bytes]:
        # Any byte >= 0x80 belongs to a non-ASCII character: good enough for identifiers,
        # since comments and strings (where other non-ASCII text lives) are masked out.
        chars = self.identifier_chars.encode() + rb"\x80-\xff"
        first = chars.replace(b"0-9", b"")
        return re.compile(rb"(?<![" + chars + rb"])[" + first + rb"][" + chars + rb"]*")

    def parser(self) -> tree_sitter.Parser:
        return tree_sitter.Parser(self.language)

    def parse(self, parser: tree_sitter.Parser, data: bytes, old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
        """``data``'s tree (incrementally from ``old``), the language's padding read after it."""
        if self.padding:
            data += self.padding
        return parser.parse(data, old) if old is not None else parser.parse(data)

    @cached_property
    def keyword_set(self) -> frozenset[str]:
        return frozenset(self.keywords)

    @cached_property
    def member_set(self) -> frozenset[str]:
        return frozenset(self.members)

    @cached_property
    def reserved_set(self) -> frozenset[str]:
        return self.keyword_set if self.reserved is None else frozenset(self.reserved)

    def not_identifiers(self, after_dot: bool) -> frozenset[str]:
        """The words never offered as identifiers at a cursor: the reserved words, none after a
        dot where any word names a member."""
        return frozenset() if after_dot and self.members_any else self.reserved_set

    @cached_property
    def identifier(self) -> re.Pattern[str]:
        """A whole identifier, as text (fullmatch)."""
        return re.compile(r"(?!\d)[" + self.identifier_chars + r"\w]+")

    @cached_property
    def _prefix_pattern(self) -> re.Pattern[str]:
        return re.compile(r"[" + self.identifier_chars + r"\w]*\Z")

    def typed_prefix(self, line_before_cursor: str) -> str:
        """The identifier characters immediately before the cursor."""
        match = self._prefix_pattern.search(line_before_cursor)
        prefix = match.group(0) if match else ""
        # An identifier cannot start with a digit: "3.14" or "0x1f" types no identifier.
        return "" if prefix[:1].isdigit() else prefix


PYTHON = LanguageSpec(
    name="python",
    grammar=tree_sitter_python.language(),
    identifier_chars=r"A-Za-z0-9_",
    keywords=tuple(keyword.kwlist + keyword.softkwlist),
    reserved=tuple(keyword.kwlist),
    builtins=tuple(PY_BUILTINS),
    members=tuple(PY_MEMBERS),
    definitions_query=PY_DEFINITIONS,
    skip_query=PY_SKIP,
    imports_query=PY_IMPORTS,
    exports_query=PY_EXPORTS,
    exports_depth=0,  # every pattern starts at the module
    taken_query=PY_TAKEN,
    taken_from_query=PY_TAKEN_FROM,
    modules=tuple(sorted(m for m in sys.stdlib_module_names if not m.startswith("_") and m not in ("antigravity", "this"))),
    line_comments=("#",),
    quotes="'\"",
    regex_literals=False,
)
JAVASCRIPT = LanguageSpec(
    name="javascript",
    grammar=tree_sitter_javascript.language(),
    identifier_chars=r"A-Za-z0-9_$",
    keywords=tuple(JS_KEYWORDS),
    members_any=True,  # `app.get`, `promise.catch`, `obj.delete`
    importable_keywords=frozenset({"async", "from", "get", "of", "set", "static"}),
    builtins=tuple(JS_BUILTINS),
    members=tuple(JS_MEMBERS),
    definitions_query=JS_DEFINITIONS,
    skip_query=JS_SKIP,
    imports_query=JS_IMPORTS,
    exports_query=JS_EXPORTS,
    taken_query=JS_TAKEN,
    taken_from_query=JS_TAKEN_FROM,
)
TYPESCRIPT = replace(
    JAVASCRIPT,
    name="typescript",
    grammar=tree_sitter_typescript.language_typescript(),
    keywords=tuple(TS_KEYWORDS),
)
TSX = replace(TYPESCRIPT, name="typescriptreact", grammar=tree_sitter_typescript.language_tsx())

BY_LANGUAGE_ID = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    "javascriptreact": JAVASCRIPT,  # tree-sitter-javascript parses JSX
    "typescript": TYPESCRIPT,
    "typescriptreact": TSX,
}
BY_EXTENSION = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".js": JAVASCRIPT,
    ".mjs": JAVASCRIPT,
    ".cjs": JAVASCRIPT,
    ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT,
    ".mts": TYPESCRIPT,
    ".cts": TYPESCRIPT,
    ".tsx": TSX,
}


def operator_regex(operators: tuple[str, ...]) -> bytes:
    """A regular expression for any of a language's member operators (``.``, ``->``, ``::``);
    one that never matches for a language without any (Bash)."""
    if not operators:
        return b"(?!)"
    return b"(?:" + b"|".join(re.escape(op.encode()) for op in sorted(operators, key=len, reverse=True)) + b")"


GRAMMAR_IDS = {language_id: name for name, wheel in grammars.WHEELS.items() for language_id in wheel.ids}
GRAMMAR_EXTENSIONS = {extension: name for name, wheel in grammars.WHEELS.items() for extension in wheel.extensions}


def language_for(language_id: str | None, uri_or_path: str) -> LanguageSpec | None:
    """The language of a document, or None when treecomplete does not support it."""
    if language_id in BY_LANGUAGE_ID:
        return BY_LANGUAGE_ID[language_id]
    if language_id in GRAMMAR_IDS:
        return grammar_language(GRAMMAR_IDS[language_id])
    extension = PurePosixPath(uri_or_path.split("?")[0]).suffix.lower()
    if extension in BY_EXTENSION:
        return BY_EXTENSION[extension]
    return grammar_language(GRAMMAR_EXTENSIONS[extension]) if extension in GRAMMAR_EXTENSIONS else None


def by_name(name: str) -> LanguageSpec | None:
    """A language by its name (``python``, ``go``), or None where it has no grammar here."""
    for spec in BY_LANGUAGE_ID.values():
        if spec.name == name:
            return spec
    return grammar_language(name) if name in grammars.WHEELS else None


@functools.cache
def grammar_language(name: str) -> LanguageSpec | None:
    """A language served from its grammar wheel alone (server/grammars.py), or None where the
    wheel is not installed."""
    if not grammars.available(name):
        return None
    wheel, read = grammars.WHEELS[name], grammars.read(name)
    return LanguageSpec(
        name=name,
        grammar=grammars.grammar(name),
        identifier_chars=r"A-Za-z0-9_",
        keywords=read.keywords,
        builtins=(),
        definitions_query=read.definitions,
        skip_query="[" + " ".join(f"({t})" for t in read.skip_types) + "] @skip" if read.skip_types else "",
        imports_query="",
        exports_query="",
        members_any=True,  # a keyword may name a member (`.type`, `.default`) where a grammar allows it
        line_comments=wheel.comments,
        quotes=wheel.quotes,
        regex_literals=False,
        member_operators=wheel.members,
        comment_types=read.comment_types,
        string_types=read.string_types,
        grammar_only=True,
        padding=wheel.padding.encode(),
    )


# Member chains and statement containers, per language that has a model (sources/chains.py,
# snippets).
@dataclass(frozen=True)
class Grammar:
    """The node types of a member chain in one language's tree-sitter grammar."""

    call: str
    member: str
    args: str
    leaves: frozenset[str]


CHAINS = {
    "python": Grammar("call", "attribute", "argument_list", frozenset({"identifier"})),
    "javascript": Grammar("call_expression", "member_expression", "arguments",
                          frozenset({"identifier", "property_identifier"})),
}
# Nodes whose children are statements: a statement starts where one of their children starts.
BLOCKS = {"python": ("module", "block"), "javascript": ("program", "statement_block")}
# Names that a function's code binds (assignment targets, loop variables, `as` names,
# declarations), read from its text before the cursor (ranking/ranker.py).
LOCALS = {
    "python": re.compile(rb"^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)|\bfor[ \t]+([A-Za-z_]\w*)|\bas[ \t]+([A-Za-z_]\w*)",
                         re.MULTILINE),
    "javascript": re.compile(rb"\b(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)|^[ \t]*([A-Za-z_$][\w$]*)[ \t]*=(?!=)", re.MULTILINE),
}
# Functions and classes a file defines by name, and functions' parameter lists (groups in pairs:
# name, parameters): names an import in the file does not take.
DEFINES = {
    "python": re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*)\)"
                         rb"|^[ \t]*class[ \t]+([A-Za-z_]\w*)()|\blambda\b()([^:]*):", re.MULTILINE),
    "javascript": re.compile(rb"\b(?:function\*?|class)[ \t]*([A-Za-z_$][\w$]*)?[ \t]*(?:\(([^)]*)\))?"
                             rb"|()(?:\(([^()]*)\)|([A-Za-z_$][\w$]*))[ \t]*=>"),
}
PARAMETER_NAME = re.compile(rb"(?:^|,)[\s*.]*([A-Za-z_$][\w$]*)")
# Functions, whose parameters are likely names inside them (ranking/ranker.py).
FUNCTIONS = {
    "python": ("function_definition", "lambda"),
    "javascript": ("function_declaration", "function_expression", "arrow_function", "method_definition",
                   "generator_function_declaration", "generator_function"),
}
