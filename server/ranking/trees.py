"""A learned ranking's trees, scored with numpy: oblivious decision trees (CatBoost's, as
benchmarks/rank_fit.py fits them), each of which compares the same feature with the same
border at every node of a level, so that a candidate's leaf is the bits of its D comparisons.
All the candidates of a list and all the trees are scored in a few array operations
(`python -m benchmarks.rank_cost` times it; docs/benchmarks.md): each distinct (feature, border)
pair is compared once (CatBoost quantizes borders: 150 trees of depth 6 hold ~300 distinct ones
among 900 splits), candidates along the inner axis, and a leaf's index is summed level by level
from the comparisons' bits.

A file holds: ``format``; ``features``, the names of the inputs in order (the server must
compute each of them; it reads them by name among its own, so that trees fitted before a
feature was added still load); ``depth``; per tree, D feature indices and D
borders (``feature``, ``border``, level 0 first: bit 0 of the leaf's index) and 2^D ``leaves``;
``scale`` and ``bias``; ``baseline``, where the trees were fitted on top of one input's values
(the linear scorer's score), that input's name: it is added to their score; ``cases``, where
present, the cases (features.CASES' blocks) the trees rank, the others left to the linear
scorer (those where they were behind it on the fit's folds).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

FORMAT = "treecomplete-oblivious-trees/1"
MAX_BYTES = 2 * 1024 * 1024


class Trees:
    def __init__(self, data: dict):
        import numpy as np

        if data.get("format") != FORMAT:
            raise ValueError(f"not a ranking of format {FORMAT!r}")
        self.features = tuple(data["features"])
        depth = int(data["depth"])
        feature = np.asarray(data["feature"], dtype=np.intp)
        border = np.asarray(data["border"], dtype=np.float64)
        leaves = np.asarray(data["leaves"], dtype=np.float64)
        if depth < 1 or feature.ndim != 1 or len(feature) % depth or len(border) != len(feature):
            raise ValueError("the trees' splits do not match their depth")
        self.count = len(feature) // depth
        if len(leaves) != self.count << depth:
            raise ValueError(f"{len(leaves)} leaf values for {self.count} trees of depth {depth}")
        if len(feature) and (feature.min() < 0 or feature.max() >= len(self.features)):
            raise ValueError("a split reads a feature the file does not name")
        self.depth, self.feature, self.border = depth, feature, border
        self.leaves = leaves
        with np.errstate(over="ignore"):  # a border no input passes (1e300) becomes inf: still none passes
            self.border32 = border.astype(np.float32)
        self.offsets = (np.arange(self.count, dtype=np.intp) << depth)[:, None]
        # each split as one of the distinct (feature, border) pairs; level d's splits of every tree
        pairs = sorted(set(zip(feature.tolist(), self.border32.tolist())))
        where = {pair: i for i, pair in enumerate(pairs)}
        self.pair_feature = np.asarray([f for f, _ in pairs], dtype=np.intp)
        self.pair_border = np.asarray([b for _, b in pairs], dtype=np.float32)[:, None]
        split_pair = np.asarray([where[pair] for pair in zip(feature.tolist(), self.border32.tolist())], dtype=np.intp)
        self.level_pairs = split_pair.reshape(self.count, depth).T.ravel().copy()  # level 0 of every tree, then 1, ...
        self.level_bit = np.repeat((1 << np.arange(depth)).astype(np.uint8), self.count)[:, None]
        # the rows and type of each array scores() fills: the compared inputs, the comparisons, the
        # splits' bits, the leaves' indexes and their values (per candidate: the columns)
        self._shapes = ((len(pairs), np.float32), (len(pairs), np.bool_), (len(split_pair), np.uint8),
                        (self.count, np.intp), (self.count, np.float64))
        self._scratch = threading.local()
        self.scale, self.bias = float(data.get("scale", 1.0)), float(data.get("bias", 0.0))
        # the input the trees were fitted on top of (CatBoost's baseline), added to their score
        baseline = data.get("baseline")
        if baseline is not None and baseline not in self.features:
            raise ValueError(f"the baseline {baseline!r} is not among the features")
        self.baseline = self.features.index(baseline) if baseline is not None else None
        cases = data.get("cases")
        if cases is not None and (not isinstance(cases, list) or not all(isinstance(c, int) and c >= 0 for c in cases)):
            raise ValueError("cases: not a list of case blocks")
        self.cases = frozenset(cases) if cases is not None else None

    def read_from(self, names: tuple[str, ...]) -> None:
        """Score rows of the inputs ``names`` (the server's), which hold every feature the trees
        were fitted on, in any order: those fitted before a feature was added read the rest."""
        import numpy as np

        where = np.asarray([names.index(name) for name in self.features], dtype=np.intp)
        self.feature, self.pair_feature = where[self.feature], where[self.pair_feature]
        if self.baseline is not None:
            self.baseline = int(where[self.baseline])
        self.features = names

    def _arrays(self, n: int):
        """This thread's arrays (``_shapes``) for ``n`` candidates, kept from call to call."""
        import numpy as np

        kept = getattr(self._scratch, "arrays", None)
        if kept is None or kept[0] < n:
            size = max(n, 256)
            kept = (size, *(np.empty(rows * size, dtype) for rows, dtype in self._shapes))
            self._scratch.arrays = kept
        return tuple(array[:rows * n].reshape(rows, n) for array, (rows, _) in zip(kept[1:], self._shapes))

    def serves(self, block: int) -> bool:
        """Whether the trees rank case ``block`` (else the linear scorer does)."""
        return self.cases is None or block in self.cases

    def scores(self, x) -> list[float]:
        """The scores of the rows of ``x`` (candidates x features, in ``self.features``' order)."""
        import numpy as np

        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or not len(x):
            return []
        n = len(x)
        # each distinct split compared once, in float32 as CatBoost compares (its borders are
        # float32); features x candidates, so that each comparison reads one contiguous row.
        # The large arrays are this thread's, reused: fresh ones cost page faults at each call.
        columns = np.ascontiguousarray(x.T, dtype=np.float32)
        compared, passed, bits, leaf, values = self._arrays(n)
        np.take(columns, self.pair_feature, axis=0, out=compared, mode="wrap")
        passed = np.greater(compared, self.pair_border, out=passed).view(np.uint8)
        np.take(passed, self.level_pairs, axis=0, out=bits, mode="wrap")  # each split's, level by level
        np.multiply(bits, self.level_bit, out=bits)  # the bit it sets in its tree's leaf index
        bits = bits.reshape(self.depth, self.count, n)
        np.add(bits[0], self.offsets, out=leaf)  # a leaf's index in ``leaves``: its tree's first, plus its bits
        for level in range(1, self.depth):
            np.add(leaf, bits[level], out=leaf)
        np.take(self.leaves, leaf, out=values, mode="wrap")
        out = values.sum(axis=0) * self.scale + self.bias
        if self.baseline is not None:
            out += x[:, self.baseline]
        return out.tolist()


def load(path: Path, features: tuple[str, ...]) -> Trees:
    """The trees in ``path``; a ValueError where the file is no such ranking, is too large, or
    was fitted on other features than ``features``."""
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"{path.stat().st_size} bytes, more than a ranking's {MAX_BYTES}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise ValueError("not a ranking")
    try:
        trees = Trees(data)
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a ranking: {error!r}") from None
    missing = [name for name in trees.features if name not in features]
    if missing:
        raise ValueError(f"fitted on other features than the server computes (missing: {missing[:3]})")
    trees.read_from(tuple(features))
    return trees
