"""How the neural engine ranks a candidate: a linear score over its features, with weights fitted
on valid-split files (benchmarks/ranking.py --write), one set per language.

The features of a candidate: the model's log-probability among the candidates that match the
prefix (at least FLOOR), whether the model lists it and whether the pointer copied it, the log
of its rank in the fallback engine's list, where that engine found it (tiers of
engines/window.py: code before the cursor, comments and strings, far back, after the cursor,
other documents, builtins, keywords, other files of the project, nowhere), its recency and count
there, how many files of the project use it (after a dot), whether a file the buffer imports
uses it, whether one defines it at its top level (where an import names what it takes, too, and
there how many of them import it) and how many write it after the same receiver
(``state.scope``), the member signals after a dot (a known member of the receiver's library or
class, how much real code uses it), what the code
after the cursor says of it (used there, how soon, after the same receiver, read there and
nowhere before it where a name is declared or where a statement starts), whether it starts with
the prefix in the case typed, the log-probability of the buffer's cache n-gram model
(engines/ngram.py), the fallback engine's own score, the word's kind (a function, class or
imported module defined in the file), the model's probability of it as a multi-token chain's
first leaf, and whether it is a parameter of the function around the cursor or a name that
function binds before the cursor. Which signal matters how much differs after a dot and
elsewhere, with and without a typed prefix, and with and without code after the cursor (inside a
file the code below speaks, and the other signals weigh differently there: weights fitted on
both kinds of lists at once lowered the figures at a buffer's end, benchmarks/ranking.py), so
each of those eight cases has its own weights: a vector is laid out as eight blocks, and a
candidate fills the block of its case.

A language without fitted weights takes another's (BORROWED), or else DEFAULT: the hand-set
score that came before, 0.5 log p - 0.5 log(r + 1) + f + 1.25 log c.

Beside these, each candidate carries the rules' features (engines/rules.py: what a position says
of particular names). Where a learned ranking is shipped for the language (rankings/LANG.json,
fitted by benchmarks/rank_fit.py on lists of valid-split packages), it scores every feature
(INPUTS: the linear features, the rules', and the case) with its trees (engines/trees.py); the
linear scorer, with the rules weighed as engines/rules.py says, is what ranks where none loads.
"""

from __future__ import annotations

import functools
import logging
import math
import operator
import re
from pathlib import Path

from ..context import ATTRIBUTE
from . import ranking_weights, rules, trees
from .base import Candidate, Kind
from .window import KEYWORD, OTHER, PROJECT

KNOWN_WEIGHT, USES_WEIGHT = 3.0, 0.5  # the known-member features' weights until a fit sets them (benchmarks/ranking.py)
FLOOR = 1e-4  # a candidate the model gives less (or nothing) counts as this
ABSENT = 100  # the rank of a candidate the fallback engine did not list
NAMES = (
    "log p", "model lists it", "pointer copy", "log(rank+1)",
    "in code before", "in comments/strings", "far back", "after cursor", "other document", "builtin", "keyword",
    "ln(1+d)", "ln(1+c)", "after same receiver", "after a dot", "only after dots", "case matches", "cache log c",
    "fallback score", "a function's name", "a class's name", "an imported module's name", "model's first leaf",
    "a parameter of the function around the cursor", "bound in that function before the cursor",
    "project file", "ln(1+project files)", "in an imported file", "ln(1+project files after a dot)",
    "defined at a project file's top level", "that, where an import names what it takes",
    "ln(1+project files writing it after the same receiver)",
    "a known member of the receiver (+1), or not one of a receiver whose members are all known (-1)",
    "ln(1+files of real code using that member)",
    "used after the cursor", "ln(1+words after the cursor before its first use there)",
    "written after the same receiver after the cursor",
    "read after the cursor and not before it, where a name is declared (an assignment's target, a parameter)",
    "read after the cursor and not before it, where a statement starts",
    "ln(1+project files importing it), where an import names what it takes",
)
SIZE = len(NAMES)
NOT_A_MEMBER = NAMES.index("a known member of the receiver (+1), or not one of a receiver whose members are all known (-1)")
CASES = ("after a dot, k=0", "after a dot, k>0", "elsewhere, k=0", "elsewhere, k>0",
         "after a dot, k=0, code after", "after a dot, k>0, code after", "elsewhere, k=0, code after",
         "elsewhere, k>0, code after")
_CODE = re.compile(rb"\S")
DEFAULT = tuple([0.5, 0, 0, -0.5] + [0] * 13 + [1.25, 1.0] + [0] * 13 + [KNOWN_WEIGHT, USES_WEIGHT] + [0] * 6) * len(CASES)
KINDS = {Kind.FUNCTION: 19, Kind.CLASS: 20, Kind.MODULE: 21}
# A language with no weights fitted for it takes another's (TypeScript JavaScript's until a fit
# writes its own). Go's model ranks with JavaScript's weights (held-out Go, the model after two
# epochs: k=0 top-1 56.0% at a buffer's end and 65.0% inside a file, against 55.7% and 59.0% with
# DEFAULT; docs/benchmarks.md).
BORROWED = {"go": "javascript", "typescript": "javascript"}
# What a learned ranking reads: the linear features, the rules', the case as three inputs, and
# the score the linear scorer gives without the rules (its weights and hidden layer: a summary
# the trees refine, which fits in fewer trees than the features alone; docs/decisions.md).
ROW = SIZE + rules.COUNT  # a candidate's features as the neural engine computes them
CASE_INPUTS = ("after a dot", "a prefix typed", "code after the cursor")
LINEAR_SCORE = "the linear scorer's score, less the rules"
INPUTS = NAMES + rules.NAMES + CASE_INPUTS + (LINEAR_SCORE,)
RANKINGS = Path(__file__).with_name("rankings")  # LANG.json: the learned rankings shipped
log = logging.getLogger(__name__)


def case(category: str, prefix: str, code_after: bool = False) -> int:
    """The block of the weight vector for a context."""
    return (0 if category == ATTRIBUTE else 2) + (1 if prefix else 0) + (4 if code_after else 0)


def code_after(data: bytes, cursor: int) -> bool:
    """Whether anything but white space follows the cursor (completing inside a file, where the
    features of the code after it speak), without copying the rest of the buffer."""
    return _CODE.search(data, cursor) is not None


def features(p: float, copied: bool, rank: int, fallback: Candidate | None, cache_log_p: float,
             first: float = 0.0, parameter: bool = False, bound: bool = False) -> list[float]:
    """A candidate's features (NAMES): ``fallback`` is the fallback engine's candidate, if it
    listed it, whose ``features`` are its signals (engines/window.py); ``first`` the model's
    probability of the word as a multi-token chain's first leaf (engines/chains.py);
    ``parameter`` whether it is a parameter of the function around the cursor, ``bound`` whether
    that function's code binds it before the cursor."""
    x = [math.log(max(p, FLOOR)), 1.0 if p > 0 else 0.0, 1.0 if copied else 0.0, math.log(rank + 1)] + [0.0] * (SIZE - 4)
    if fallback is not None and fallback.features is not None:
        tier, recency, count, same, member, only_member, case_matches, project, imported, *rest = fallback.features
        if tier == OTHER:  # never in the fitted lists (one buffer open at a time): as another file of the project
            tier, recency, count = PROJECT, 0.0, 0.0
        if tier <= KEYWORD:
            x[4 + int(tier)] = 1.0
        elif tier == PROJECT:
            x[25] = 1.0
        x[11:17] = recency, count, same, member, only_member, case_matches
        x[26], x[27] = project, imported
        x[28:32] = rest[:4]  # ln(1+files after a dot), defined, defined at an import's name, ln(1+files after obj.)
        x[32:39] = (rest[4:11] + [0.0] * 7)[:7]  # a known member, ln(1+its uses) (server/libraries/); the code after the cursor
        x[39] = rest[11] if len(rest) > 11 else 0.0  # ln(1+files importing it), at an import's name
        x[18] = fallback.score
        if fallback.kind in KINDS:
            x[KINDS[fallback.kind]] = 1.0
    x[17] = cache_log_p
    x[22] = math.log(max(first, FLOOR))
    x[23] = 1.0 if parameter else 0.0
    x[24] = 1.0 if bound else 0.0
    return x


def case_inputs(block: int) -> list[float]:
    """The case of weight block ``block`` as the learned ranking reads it (CASE_INPUTS)."""
    return [1.0 if block % 4 < 2 else 0.0, float(block % 2), 1.0 if block >= 4 else 0.0]


def ranking_path(language: str) -> Path | None:
    """The learned ranking shipped for ``language``, or for the language it borrows from."""
    for name in (language, BORROWED.get(language)):
        if name and (RANKINGS / f"{name}.json").exists():
            return RANKINGS / f"{name}.json"
    return None


class Ranker:
    """Scores candidates (rows of INPUTS less the case: the linear features, then the rules'):
    with the learned ranking's trees where one loaded, else the linear score of their case's
    weights plus the rules' (rules.LINEAR) plus, where the language has one
    (ranking_weights.HIDDEN), a small hidden layer over the linear features and the case, fitted
    with the weights: score = w_case . x + r . rules + v . tanh(W [x; case] + b).
    ``problem`` says why a ranking shipped for the language did not load."""

    def __init__(self, language: str, weights: tuple[float, ...] | list[float] | None = None, layer: dict | None = None,
                 ranking: Path | None = None):
        """The language's fitted weights and layer (ranking_weights), or the ``weights`` and
        ``layer`` given (benchmarks/ranking.py scores a fit with them); the learned ranking in
        ``ranking``, if given."""
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
        self.blocks = [self.weights[i * SIZE:(i + 1) * SIZE] for i in range(len(CASES))]
        self.hidden = None
        if layer is not None:
            import torch  # only once a model answers: the server starts without torch

            w = torch.tensor(layer["w"], dtype=torch.float64)
            if w.dim() != 2 or w.shape[1] != SIZE + len(CASES) or len(layer["b"]) != len(w) or len(layer["v"]) != len(w):
                raise ValueError(f"ranking hidden layer for {language}: shape {tuple(w.shape)}, expected (H, {SIZE + len(CASES)})")
            # the case's one-hot input is a bias per case
            bias = torch.tensor(layer["b"], dtype=torch.float64)[None, :] + w[:, SIZE:].T
            self.hidden = (w[:, :SIZE].T.contiguous(), bias, torch.tensor(layer["v"], dtype=torch.float64),
                           torch.tensor(self.weights, dtype=torch.float64).view(len(CASES), SIZE))

    def score(self, x: list[float], block: int) -> float:
        return self.scores([x], block)[0]

    def linear(self, x: list[float], block: int) -> float:
        """The linear part of the score alone (the linear features, not the rules')."""
        return sum(map(operator.mul, self.blocks[block], x))

    def rules_part(self, x: list[float]) -> float:
        """What the rules add to the linear scorer's score (nothing apart under the trees)."""
        return 0.0 if self.trees is not None else sum(map(operator.mul, rules.LINEAR, x[SIZE:]))

    def tree_inputs(self, xs, block: int):
        """The rows the learned ranking reads (INPUTS) for candidates ``xs`` (rows of the linear
        features and the rules') in case ``block``: the server's and benchmarks/rank_fit.py's."""
        import numpy as np
        import torch

        x = np.asarray(xs, dtype=np.float64).reshape(-1, ROW)
        base = self.tensor_scores(torch.from_numpy(x[:, :SIZE]), block).numpy()
        case = np.broadcast_to(np.asarray(case_inputs(block), dtype=np.float64), (len(x), len(CASE_INPUTS)))
        return np.hstack([x, case, base[:, None]])

    def tensor_scores(self, x, block: int):
        """The scores of the rows of ``x`` (a float64 tensor, candidates x features) in case
        ``block``: benchmarks/ranking.py scores many lists at once."""
        import torch

        x, flags = x[:, :SIZE], x[:, SIZE:]
        out = x @ torch.tensor(self.blocks[block], dtype=torch.float64)
        if flags.shape[1]:
            out = out + flags @ torch.tensor(rules.LINEAR[:flags.shape[1]], dtype=torch.float64)
        if self.hidden is not None:
            w, bias, v, _ = self.hidden
            out = out + torch.tanh(x @ w + bias[block]) @ v
        return out

    def scores(self, xs: list[list[float]], block: int) -> list[float]:
        """The scores of candidates of one list (features ``xs``, the rules' after the linear
        ones) in case ``block``."""
        if self.trees is not None:
            return self.trees.scores(self.tree_inputs(xs, block)) if xs else []
        if self.hidden is None or not xs:
            return [self.linear(x, block) + self.rules_part(x) for x in xs]
        import torch

        w, bias, v, linear = self.hidden
        x = torch.tensor([x[:SIZE] for x in xs], dtype=torch.float64)
        extra = [self.rules_part(x) for x in xs]
        out = (x @ linear[block] + torch.tanh(x @ w + bias[block]) @ v).tolist()
        return [a + b for a, b in zip(out, extra)]


def weights_of(language: str) -> tuple[tuple[float, ...], dict | None]:
    """The weights and hidden layer fitted for ``language``; where none are, those of the
    language it borrows from (BORROWED), else DEFAULT."""
    fitted = language if language in ranking_weights.WEIGHTS else BORROWED.get(language, language)
    layer = ranking_weights.HIDDEN.get(fitted)
    if isinstance(layer, str):  # the layer of the language named (weights fitted on top of its)
        layer = ranking_weights.HIDDEN.get(layer)
    return ranking_weights.WEIGHTS.get(fitted, DEFAULT), layer


@functools.cache
def for_language(language: str) -> Ranker:
    """The ranker the server uses for ``language``: its learned ranking where one is shipped."""
    return Ranker(language, ranking=ranking_path(language))
