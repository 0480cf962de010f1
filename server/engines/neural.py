"""The neural engine: the language model's candidates first, by probability, then the fallback
engine's to fill the list. Only identifier-like values are offered (the predicted node is an
identifier). Knows nothing of torch: predictions come from a ``predictor.Predictor``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..models.flatten import EMPTY
from .base import Candidate, Engine, Kind

MIN_PROBABILITY = 1e-4  # below this a model candidate is noise; the fallback's order is better


class NeuralEngine:
    """Model candidates first, then the fallback engine's."""

    def __init__(self, fallback: Engine, predictor_for: Callable[[str], object | None]):
        self.fallback = fallback
        self.predictor_for = predictor_for  # language name -> Predictor | None
        self.name = "neural"

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        others = self.fallback.complete(context, max(limit, 50))
        predictor = self.predictor_for(context.language.name) if context.category in (ATTRIBUTE, NAME) else None
        if predictor is None:
            return others[:limit]
        kinds = {c.text: c.kind for c in others}
        prefix = context.prefix.lower()
        identifier = _identifier(context.language.identifier_chars)
        keywords = context.language.keyword_set
        out: list[Candidate] = []
        seen: set[str] = set()
        for p in predictor.predict(context):
            if len(out) >= limit or p.probability < MIN_PROBABILITY:
                break
            text = p.value
            if text in seen or text == EMPTY or not identifier.fullmatch(text) or not text.lower().startswith(prefix):
                continue
            if text in keywords and context.category == ATTRIBUTE:
                continue
            seen.add(text)
            kind = kinds.get(text, Kind.KEYWORD if text in keywords else Kind.VARIABLE)
            source = "copied from the context" if p.copied else "model vocabulary"
            out.append(Candidate(text, kind, 1.0 + p.probability, f"{p.probability:.1%} ({source})"))
        for c in others:
            if len(out) >= limit:
                break
            if c.text not in seen:
                seen.add(c.text)
                out.append(c)
        return out


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _identifier(chars: str) -> re.Pattern[str]:
    pattern = _PATTERNS.get(chars)
    if pattern is None:
        allowed = r"\w" + ("$" if "$" in chars else "")
        pattern = _PATTERNS[chars] = re.compile(rf"(?!\d)[{allowed}]+")
    return pattern
