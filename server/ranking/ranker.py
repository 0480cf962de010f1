"""The one ranker: every candidate of a list scored from its named features (ranking/features.py).

Where a learned ranking is shipped for the language (rankings/LANG.json, fitted by
benchmarks/rank_fit.py on lists of valid-split packages), its oblivious trees
(ranking/trees.py) score every feature (features.INPUTS). Where none loads, the linear scorer
does: a linear score over the linear features with weights fitted on valid-split files
(benchmarks/ranking.py --write; ranking/linear_weights.py), one set per language and per case
(features.CASES: which signal matters how much differs after a dot and elsewhere, with and
without a typed prefix, with and without code after the cursor; weights fitted on both kinds of
lists at once lowered the figures at a buffer's end, benchmarks/ranking.py), plus the rules'
features weighed by features.RULE_LINEAR. A weight vector is laid out as eight blocks, and a
candidate fills the block of its case.

A language without fitted weights takes another's (BORROWED), or else DEFAULT: the hand-set
score that came before, 0.5 log p - 0.5 log(r + 1) + f + 1.25 log c.
"""

from __future__ import annotations

import functools
import itertools
import logging
import operator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from . import linear_weights, trees
from .features import CASE_INPUTS, CASES, INPUTS, NAMES, NOT_A_MEMBER, ROW, RULE_LINEAR, SIZE, case_inputs

KNOWN_WEIGHT, USES_WEIGHT = 3.0, 0.5  # the known-member features' weights until a fit sets them (benchmarks/ranking.py)
_HAND_SET = {"log p": 0.5, "log(rank+1)": -0.5, "cache log c": 1.25, "fallback score": 1.0,
             NAMES[NOT_A_MEMBER]: KNOWN_WEIGHT, "ln(1+files of real code using that member)": USES_WEIGHT}
DEFAULT = tuple(_HAND_SET.get(name, 0) for name in NAMES) * len(CASES)
# A language with no weights fitted for it takes another's (TypeScript JavaScript's until a fit
# writes its own). Go's model ranks with JavaScript's weights (held-out Go, the model after two
# epochs: k=0 top-1 56.0% at a buffer's end and 65.0% inside a file, against 55.7% and 59.0% with
# DEFAULT; docs/benchmarks.md).
BORROWED = {"go": "javascript", "typescript": "javascript"}
# The learned ranking a language without its own serves: JavaScript's trees raised TypeScript's
# validation figures and lowered Go's at a buffer's end (docs/decisions.md), so Go keeps the
# linear scorer.
RANKING_BORROWED = {"typescript": "javascript"}
RANKINGS = Path(__file__).with_name("rankings")  # LANG.json: the learned rankings shipped
log = logging.getLogger(__name__)


def ranking_path(language: str) -> Path | None:
    """The learned ranking shipped for ``language``, or for the language it borrows from."""
    for name in (language, RANKING_BORROWED.get(language)):
        if name and (RANKINGS / f"{name}.json").exists():
            return RANKINGS / f"{name}.json"
    return None


class Ranker:
    """Scores candidates (rows of INPUTS less the case: the linear features, then the rules'):
    with the learned ranking's trees where one loaded, else the linear score of their case's
    weights plus the rules' (RULE_LINEAR) plus, where the language has one
    (linear_weights.HIDDEN), a small hidden layer over the linear features and the case, fitted
    with the weights: score = w_case . x + r . rules + v . tanh(W [x; case] + b).
    ``problem`` says why a ranking shipped for the language did not load."""

    def __init__(self, language: str, weights: tuple[float, ...] | list[float] | None = None, layer: dict | None = None,
                 ranking: Path | None = None):
        """The language's fitted weights and layer (linear_weights), or the ``weights`` and
        ``layer`` given (benchmarks/ranking.py scores a fit with them); the learned ranking in
        ``ranking``, if given."""
        import numpy as np  # with the model, on the loading thread: not at the server's start

        self.trees = None
        self.problem = ""
        if ranking is not None:
            try:
                self.trees = trees.load(ranking, INPUTS)
            except (OSError, ValueError, ImportError) as error:
                self.problem = (f"treecomplete: the {language} ranking {ranking.name} did not load ({error}); "
                                "ranking with the linear scorer")
                log.error("%s", self.problem)
        if weights is None:
            weights, layer = weights_of(language)
        self.weights = tuple(weights)
        if len(self.weights) != SIZE * len(CASES):
            raise ValueError(f"ranking weights for {language}: {len(self.weights)} numbers, expected {SIZE * len(CASES)}")
        self.matrix = np.asarray(self.weights, dtype=np.float64).reshape(len(CASES), SIZE)
        self.rule_weights = np.asarray(RULE_LINEAR, dtype=np.float64)
        self.hidden = None
        if layer is not None:
            w = np.asarray(layer["w"], dtype=np.float64)
            if w.ndim != 2 or w.shape[1] != SIZE + len(CASES) or len(layer["b"]) != len(w) or len(layer["v"]) != len(w):
                raise ValueError(f"ranking hidden layer for {language}: shape {w.shape}, expected (H, {SIZE + len(CASES)})")
            # the case's one-hot input is a bias per case
            bias = np.asarray(layer["b"], dtype=np.float64)[None, :] + w[:, SIZE:].T
            self.hidden = (np.ascontiguousarray(w[:, :SIZE].T), bias, np.asarray(layer["v"], dtype=np.float64))

    def score(self, x: list[float], block: int) -> float:
        return self.scores([x], block)[0]

    def linear(self, x: list[float], block: int) -> float:
        """The linear part of the score alone (the linear features, not the rules')."""
        import numpy as np

        return float(np.dot(self.matrix[block], np.asarray(x[:SIZE], dtype=np.float64)))

    def rules_part(self, x: list[float], block: int) -> float:
        """What the rules add to the linear scorer's score in case ``block`` (nothing apart where
        trees rank it)."""
        trees_rank = self.trees is not None and self.trees.serves(block)
        return 0.0 if trees_rank else sum(map(operator.mul, RULE_LINEAR, x[SIZE:]))

    def base(self, x: np.ndarray, block: int) -> np.ndarray:
        """The linear scorer's scores of the rows of ``x`` (candidates x the linear features), the
        rules' left out: the weights of case ``block`` and the hidden layer."""
        import numpy as np

        out = x @ self.matrix[block]
        if self.hidden is not None:
            w, bias, v = self.hidden
            out = out + np.tanh(x @ w + bias[block]) @ v
        return out

    def tree_inputs(self, xs, block: int) -> np.ndarray:
        """The rows the learned ranking reads (INPUTS) for candidates ``xs`` (rows of the linear
        features and the rules') in case ``block``: the server's and benchmarks/rank_fit.py's."""
        import numpy as np

        if isinstance(xs, np.ndarray):
            x = xs.astype(np.float64, copy=False).reshape(-1, ROW)
        else:  # rows of floats: read once, without a list of arrays between
            if any(len(row) != ROW for row in xs):
                raise ValueError(f"a candidate's row is not {ROW} features long")
            x = np.fromiter(itertools.chain.from_iterable(xs), dtype=np.float64, count=len(xs) * ROW).reshape(-1, ROW)
        base = self.base(x[:, :SIZE], block)
        case = np.broadcast_to(np.asarray(case_inputs(block), dtype=np.float64), (len(x), len(CASE_INPUTS)))
        return np.hstack([x, case, base[:, None]])

    def tensor_scores(self, x, block: int):
        """The scores of the rows of ``x`` (a float64 tensor, candidates x features, the rules'
        after the linear ones or none) in case ``block``, as a tensor: benchmarks/ranking.py
        scores many lists at once and fits with them."""
        import torch

        x, flags = x[:, :SIZE], x[:, SIZE:]
        out = x @ torch.from_numpy(self.matrix[block])
        if flags.shape[1]:
            out = out + flags @ torch.from_numpy(self.rule_weights[:flags.shape[1]])
        if self.hidden is not None:
            w, bias, v = (torch.from_numpy(a) for a in self.hidden)
            out = out + torch.tanh(x @ w + bias[block]) @ v
        return out

    def scores(self, xs: list[list[float]], block: int) -> list[float]:
        """The scores of candidates of one list (features ``xs``, the rules' after the linear
        ones) in case ``block``."""
        import numpy as np

        if not len(xs):
            return []
        if self.trees is not None and self.trees.serves(block):
            return self.trees.scores(self.tree_inputs(xs, block))
        x = np.asarray(xs, dtype=np.float64)
        out = self.base(x[:, :SIZE], block)
        if x.shape[1] > SIZE:
            out = out + x[:, SIZE:] @ self.rule_weights[:x.shape[1] - SIZE]
        return out.tolist()


def weights_of(language: str) -> tuple[tuple[float, ...], dict | None]:
    """The weights and hidden layer fitted for ``language``; where none are, those of the
    language it borrows from (BORROWED), else DEFAULT."""
    fitted = language if language in linear_weights.WEIGHTS else BORROWED.get(language, language)
    layer = linear_weights.HIDDEN.get(fitted)
    if isinstance(layer, str):  # the layer of the language named (weights fitted on top of its)
        layer = linear_weights.HIDDEN.get(layer)
    return linear_weights.WEIGHTS.get(fitted, DEFAULT), layer


@functools.cache
def for_language(language: str) -> Ranker:
    """The ranker the server uses for ``language``: its learned ranking where one is shipped."""
    return Ranker(language, ranking=ranking_path(language))
