"""Languages served from their tree-sitter grammar alone: Go, Rust, Java, C, C++, C#, Ruby, PHP,
Kotlin, Lua, Bash.

Nothing here is written per language but a row of ``WHEELS``: the grammar wheel's module, the
LSP language ids and file extensions, how a line comment starts and which quotes open a string
(for the cursor's line, where error recovery can hide an unclosed one), and the operators before
a member's name. The rest is read from the wheel:

- keywords: the grammar's anonymous word tokens that its ``queries/highlights.scm`` captures as
  keywords (all of its word tokens where it ships no highlights);
- comments and strings, whose words are not code: the node types highlights.scm captures as
  ``@comment`` or ``@string``, and the named node types called so (``line_comment``,
  ``string_literal``);
- definitions and their kinds: the patterns of ``queries/tags.scm`` that capture a
  ``@definition.*`` (``@name`` is the defined name).

A grammar wheel that is not installed leaves its language unsupported, as before.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tree_sitter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Wheel:
    """One grammar wheel and the little its queries do not say about its language."""

    module: str  # the wheel's Python module
    ids: tuple[str, ...]  # LSP language ids (the first names the language)
    extensions: tuple[str, ...]
    comments: tuple[str, ...] = ("//",)  # what starts a comment to the line's end
    quotes: str = "\"'"  # what opens a string or character literal on one line
    members: tuple[str, ...] = (".",)  # what comes between a receiver and its member's name
    function: str = "language"  # the wheel's function that returns the grammar
    inherits: str | None = None  # a language whose highlights this grammar's extend
    padding: str = ""  # what every parse reads after the text, where the grammar needs it to end


WHEELS = {
    "go": Wheel("tree_sitter_go", ("go",), (".go",), quotes="\"'`"),
    "rust": Wheel("tree_sitter_rust", ("rust",), (".rs",), quotes='"', members=(".", "::")),  # 'a: a lifetime
    "java": Wheel("tree_sitter_java", ("java",), (".java",)),
    "c": Wheel("tree_sitter_c", ("c",), (".c", ".h"), members=(".", "->")),
    "cpp": Wheel("tree_sitter_cpp", ("cpp", "c++"), (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"),
                 members=(".", "->", "::"), inherits="c"),
    "csharp": Wheel("tree_sitter_c_sharp", ("csharp", "cs", "c-sharp", "c#"), (".cs",)),
    "ruby": Wheel("tree_sitter_ruby", ("ruby",), (".rb", ".rake", ".gemspec"), comments=("#",), members=(".", "::", "&.")),
    "php": Wheel("tree_sitter_php", ("php",), (".php",), comments=("//", "#"), members=("->", "?->", "::"),
                 function="language_php"),
    # tree-sitter-kotlin 1.0 and 1.1 loop forever where the text ends in an annotation after a
    # declaration (`val x = 1\n@A`: the text before the cursor, or the cursor's probe): a newline ends it
    "kotlin": Wheel("tree_sitter_kotlin", ("kotlin",), (".kt", ".kts"), members=(".", "?."), padding="\n"),
    "lua": Wheel("tree_sitter_lua", ("lua",), (".lua",), comments=("--",), members=(".", ":")),
    "bash": Wheel("tree_sitter_bash", ("shellscript", "bash", "sh", "zsh"), (".sh", ".bash", ".zsh"), comments=("#",),
                  members=()),
}

# What tags.scm's definitions are, as completion kinds (others are variables).
DEFINITION_KINDS = {"function": "function", "method": "function", "macro": "function", "class": "class",
                    "interface": "class", "type": "class", "struct": "class", "enum": "class", "module": "module",
                    "namespace": "module"}
KEYWORD_CAPTURES = ("keyword", "conditional", "repeat", "include", "exception", "storageclass", "type.qualifier")
NAME_TYPES = frozenset({"identifier", "simple_identifier", "name", "constant", "variable_name"})  # and any *_identifier
_WORD = re.compile(r"[A-Za-z_]\w+")  # two characters at least: `r` of a Ruby number suffix is no keyword
_QUOTED_TYPES = re.compile(r"comment|(^|_)(string|char|character|rune)(_literal)?$|^heredoc_body$|^regex$")


def queries(wheel: Wheel, name: str) -> str:
    """A query file the wheel ships (``queries/<name>``), or "" where it ships none."""
    module = importlib.import_module(wheel.module)
    folder = Path(module.__file__).parent
    # tree-sitter-c-sharp installs its queries beside its module, under the grammar's dashed name
    places = [folder] + [d for d in folder.parent.glob(folder.name.replace("_", "[_-]")) if d != folder]
    for place in places:
        if (place / "queries" / name).is_file():
            return (place / "queries" / name).read_text(encoding="utf-8")
    return ""


def _patterns(language: tree_sitter.Language, text: str) -> list[str]:
    """The patterns of a query file, each as its text (comments and predicates included)."""
    if not text:
        return []
    query = tree_sitter.Query(language, text)
    raw = text.encode("utf-8")
    return [raw[query.start_byte_for_pattern(i):query.end_byte_for_pattern(i)].decode("utf-8")
            for i in range(query.pattern_count)]


def _captures(pattern: str) -> list[str]:
    return re.findall(r"@([\w.]+)", re.sub(r";[^\n]*", "", pattern))


@dataclass(frozen=True)
class Read:
    """What a grammar's wheel says of its language."""

    keywords: tuple[str, ...]
    skip_types: tuple[str, ...]  # comments and strings
    comment_types: frozenset[str]
    string_types: frozenset[str]
    definitions: str  # tags.scm's definition patterns, and a keyword written as a name (capture ``name_keyword``)


@cache
def read(name: str) -> Read:
    """Read a grammar wheel's node types and queries (once per language)."""
    wheel = WHEELS[name]
    language = grammar(name)
    kinds = [(language.node_kind_for_id(i), language.node_kind_is_named(i))
             for i in range(language.node_kind_count) if language.node_kind_is_visible(i)]
    words = {kind for kind, named in kinds if not named and kind and _WORD.fullmatch(kind)}
    named = {kind for kind, is_named in kinds if is_named and kind}
    keywords, comments, strings = set(), set(), set()
    patterns = _patterns(language, queries(wheel, "highlights.scm"))
    if wheel.inherits:
        patterns += _texts(queries(WHEELS[wheel.inherits], "highlights.scm"))
    for pattern in patterns:
        captures = _captures(pattern)
        if any(c.startswith(KEYWORD_CAPTURES) for c in captures):
            keywords.update(w for w in re.findall(r'"([A-Za-z_]\w*)"', pattern) if w in words)
        types = {t for t in re.findall(r"\((\w+)", pattern) if t in named}
        if any(c.startswith("comment") for c in captures):
            comments |= types
        elif any(c.startswith("string") for c in captures):
            strings |= types
    if not keywords:
        keywords = words
    comments |= {t for t in named if "comment" in t}
    strings |= {t for t in named if _QUOTED_TYPES.search(t) and "comment" not in t}
    # only the outermost (a string's content lies inside the string), and no symbol: Ruby's
    # `:name` and `name:` are the names of methods and arguments
    skip = sorted(t for t in comments | strings if not t.endswith(("_content", "_fragment", "_sequence", "_marker"))
                  and "symbol" not in t)
    tags = [p for p in _patterns(language, queries(wheel, "tags.scm")) if "@definition." in p]
    # a contextual keyword written as a name (Kotlin's `value`, Rust's `union`) is a name in that file
    names = sorted(t for t in named if t in NAME_TYPES or t.endswith("_identifier"))
    if names and keywords:
        quoted = " ".join(f'"{k}"' for k in sorted(keywords))
        tags.append(f"([{' '.join(f'({t})' for t in names)}] @name_keyword (#any-of? @name_keyword {quoted}))")
    return Read(tuple(sorted(keywords)), tuple(skip), frozenset(comments), frozenset(strings), "\n".join(tags))


def _texts(text: str) -> list[str]:
    """An inherited grammar's highlight patterns, split without compiling them against this
    grammar (whose node types may differ): at each line that starts a pattern."""
    return re.split(r"\n(?=[(\[\"])", text)


@cache
def grammar(name: str) -> tree_sitter.Language:
    wheel = WHEELS[name]
    module = importlib.import_module(wheel.module)
    return tree_sitter.Language(getattr(module, wheel.function)())


def available(name: str) -> bool:
    """Whether the language's grammar wheel is installed (logged once where it is not)."""
    try:
        grammar(name)
    except (ImportError, AttributeError, ValueError) as error:
        log.warning("no grammar for %s (%s): pip install %s", name, error, WHEELS[name].module.replace("_", "-"))
        return False
    return True


def definition_kind(capture: str) -> str | None:
    """The completion kind of a tags.scm capture ``definition.X``; None for any other."""
    if not capture.startswith("definition."):
        return None
    return DEFINITION_KINDS.get(capture.split(".", 1)[1])
