"""The neural engine: the language model's candidates and the fallback engine's, ranked
together. Only identifier-like values are offered (the predicted node is an identifier). Knows
nothing of torch: predictions come from a ``predictor.Predictor``.
"""

from __future__ import annotations

import math
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
        identifier = context.language.identifier
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
        listed = {c.text: (r, c) for r, c in enumerate(others)}
        scored: list[Candidate] = []
        for text in model.keys() | listed.keys():
            p, copied = model.get(text, (0.0, False))
            p /= total
            rank, fallback = listed.get(text, (FALLBACK_ABSENT, None))
            score = MODEL_WEIGHT * math.log(max(p, FLOOR)) - math.log(rank + 1)
            kind = fallback.kind if fallback else Kind.KEYWORD if text in keywords else Kind.VARIABLE
            if text in model:
                detail = f"{p:.1%} ({'copied from the context' if copied else 'model vocabulary'})"
            else:
                detail = fallback.detail
            scored.append(Candidate(text, kind, score, detail))
        scored.sort(key=lambda c: (-c.score, c.text))
        return scored[:limit]

