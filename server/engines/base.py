"""The engine interface: a completion context in, ranked candidates out.

The fallback engine implements it today; neural engines implement the same interface, so the
server, the CLI and the benchmarks never care which one answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from ..context import CompletionContext


class Kind(str, Enum):
    VARIABLE = "variable"
    FUNCTION = "function"
    CLASS = "class"
    MODULE = "module"
    KEYWORD = "keyword"
    SNIPPET = "snippet"
    # what a library or class member is, as the list shows it; ranked as its ``base``
    METHOD = "method"
    PROPERTY = "property"
    FIELD = "field"
    CONSTANT = "constant"
    ENUM_MEMBER = "enum member"
    ARGUMENT = "argument"  # a parameter's name in a call, offered as ``name=``

    @property
    def base(self) -> Kind:
        """The kind it ranks as: a method as a function, a property, field or constant as a variable."""
        return _BASE.get(self, self)


_BASE = {Kind.METHOD: Kind.FUNCTION, Kind.PROPERTY: Kind.VARIABLE, Kind.FIELD: Kind.VARIABLE, Kind.CONSTANT: Kind.VARIABLE,
         Kind.ENUM_MEMBER: Kind.VARIABLE, Kind.ARGUMENT: Kind.VARIABLE}


@dataclass(frozen=True)
class Candidate:
    text: str  # what gets inserted
    kind: Kind = Kind.VARIABLE
    score: float = 0.0  # engine-specific; only the order of candidates matters
    detail: str = ""  # shown on completionItem/resolve
    documentation: str = ""  # markdown, shown on completionItem/resolve
    signature: str = ""  # shown after the label: a function's parameters, ``(a, /, *paths)``
    origin: str = ""  # shown beside it: the module or class it comes from, ``os.path``
    doc_of: tuple[str, str] | None = None  # where the documentation is read on resolve (sources/libraries/python_docs.py)
    snippet: str | None = None  # a structure template's body (server/sources/snippets.py); ``text`` is its keyword
    # what an engine ranked it by, for the neural engine's ranker and the tool that fits it
    # (ranking/ranker.py): the fallback engine's Signals, the neural engine's feature vector
    features: tuple[float, ...] | None = None
    auto_import: object | None = None  # the import it needs, written on acceptance (sources/auto_import.py Offer)


class Engine(Protocol):
    name: str

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        """At most ``limit`` candidates, best first, each starting with ``context.prefix``
        (case-insensitively)."""
        ...
