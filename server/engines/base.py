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


@dataclass(frozen=True)
class Candidate:
    text: str  # what gets inserted
    kind: Kind = Kind.VARIABLE
    score: float = 0.0  # engine-specific; only the order of candidates matters
    detail: str = ""  # shown on completionItem/resolve
    documentation: str = ""  # markdown, shown on completionItem/resolve
    snippet: str | None = None  # a structure template's body (server/sources/snippets.py); ``text`` is its keyword
    # what an engine ranked it by, for the neural engine's ranker and the tool that fits it
    # (ranking/ranker.py): the fallback engine's Signals, the neural engine's feature vector
    features: tuple[float, ...] | None = None


class Engine(Protocol):
    name: str

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        """At most ``limit`` candidates, best first, each starting with ``context.prefix``
        (case-insensitively)."""
        ...
