"""The neural engine: the language model's candidates first, by probability, then the fallback
engine's to fill the list. Only identifier-like values are offered (the predicted node is an
identifier). Knows nothing of torch: predictions come from a ``predictor.Predictor``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..models.flatten import EMPTY
from .base import Candidate, Engine, Kind

MODEL_WEIGHT = 0.5  # how much the model's log-probability counts against the fallback's rank
FLOOR = 1e-4  # a candidate the model gives less (or nothing) counts as this
FALLBACK_ABSENT = 100  # rank given to a model candidate the fallback engine did not list


class NeuralEngine:
    """The model's candidates and the fallback engine's, ranked together.

    A candidate's score is MODEL_WEIGHT * log p + log(1 / (r + 1)): p the model's probability
    among the candidates that match the typed prefix (at least FLOOR), r its rank in the
    fallback engine's list (recency, frequency, members after the same receiver). Both signals
    matter: the model knows the structure, the fallback engine knows this buffer."""

    def __init__(self, fallback: Engine, predictor_for: Callable[[str], object | None]):
        self.fallback = fallback
        self.predictor_for = predictor_for  # language name -> Predictor | None
        self.name = "neural"

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        others = self.fallback.complete(context, max(limit, 50))
        predictor = self.predictor_for(context.language.name) if context.category in (ATTRIBUTE, NAME) else None
        if predictor is None:
            return others[:limit]
        prefix = context.prefix.lower()
        identifier = _identifier(context.language.identifier_chars)
        keywords = context.language.keyword_set
        model: dict[str, tuple[float, bool]] = {}
        for p in predictor.predict(context):
            text = p.value
            if text in model or text == EMPTY or not identifier.fullmatch(text) or not text.lower().startswith(prefix):
                continue
            if text in keywords and context.category == ATTRIBUTE:
                continue
            model[text] = (p.probability, p.copied)
        total = sum(p for p, _ in model.values()) or 1.0
        ranks = {c.text: r for r, c in enumerate(others)}
        kinds = {c.text: c.kind for c in others}
        scored: list[Candidate] = []
        for text in model.keys() | ranks.keys():
            p, copied = model.get(text, (0.0, False))
            p /= total
            score = MODEL_WEIGHT * math.log(max(p, FLOOR)) - math.log(ranks.get(text, FALLBACK_ABSENT) + 1)
            kind = kinds.get(text, Kind.KEYWORD if text in keywords else Kind.VARIABLE)
            if text in model:
                detail = f"{p:.1%} ({'copied from the context' if copied else 'model vocabulary'})"
            else:
                detail = next(c.detail for c in others if c.text == text)
            scored.append(Candidate(text, kind, score, detail))
        scored.sort(key=lambda c: (-c.score, c.text))
        return scored[:limit]


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _identifier(chars: str) -> re.Pattern[str]:
    pattern = _PATTERNS.get(chars)
    if pattern is None:
        allowed = r"\w" + ("$" if "$" in chars else "")
        pattern = _PATTERNS[chars] = re.compile(rf"(?!\d)[{allowed}]+")
    return pattern
