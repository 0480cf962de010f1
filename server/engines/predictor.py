"""A model at a completion context: the next-value distribution of a pointer-mixture LSTM or a
tree-transformer.

The context is the last ``CONTEXT`` elements before the predicted node, flattened by the same
rules as training (``models.flatten.flatten_before``, O(CONTEXT) whatever the file size), with
their tree positions and the predicted node's (``models.tree_positions.context_codes``) for a
model that reads them. The model reads them from an empty state and its last step gives the
distribution over the next value:
the vocabulary's share plus the pointer's, whose window slots are read as the identifiers they
hold, so an identifier the vocabulary has never seen is offered when it occurs nearby.

Imports torch: only the registry's loading thread imports this module.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import torch

from ..context import CompletionContext
from ..models import checkpoint
from ..models.architectures import tree_positions
from ..models.flatten import flatten_before
from ..models.tree_positions import context_codes
from ..models.vocab import PAD_ID, UNK_ID

CONTEXT = 400  # elements the model reads before the cursor
RECENT = 32  # contexts whose answers are kept


@dataclass(frozen=True)
class Prediction:
    value: str
    probability: float
    copied: bool  # offered by the pointer, not the vocabulary


class Predictor:
    """A loaded checkpoint, turned into next-value predictions at a completion context."""

    def __init__(self, loaded: checkpoint.Loaded, device: torch.device):
        self.model = loaded.model
        self.language = loaded.language
        self.values = loaded.values
        self.type_ids = {s: i for i, s in enumerate(loaded.types)}
        self.value_ids = {s: i for i, s in enumerate(loaded.values)}
        self.device = device
        self.tree = tree_positions(self.model.config)
        # the last contexts' answers: typing an identifier leaves the context before it
        # unchanged, so every keystroke after its first is answered without the model
        self._recent: OrderedDict[tuple, list[Prediction]] = OrderedDict()

    @classmethod
    def load(cls, path: Path, device: str | None = None) -> Predictor:
        chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        return cls(checkpoint.load(path, chosen), chosen)

    @torch.no_grad()
    def predict(self, context: CompletionContext) -> list[Prediction]:
        """Next-value candidates at the cursor, most probable first."""
        if context.target is None:
            return []
        flat, target_parent = flatten_before(context.target, CONTEXT)
        n = len(flat)
        if n == 0:
            return []
        types = [self.type_ids.get(t, UNK_ID) for t in flat.annotated_types()]
        values = [self.value_ids.get(v, UNK_ID) for v in flat.values]
        # the parent of the node after input i is element i + 1's parent; after the last input,
        # the predicted node's
        distance = flat.parents[1:] + [target_parent]
        distance = [d if d > 0 else 1 for d in distance]
        parent_type = [types[i + 1 - d] if 0 <= i + 1 - d < n else PAD_ID for i, d in enumerate(distance)]
        dev = self.device

        def row(xs: list[int]) -> torch.Tensor:
            return torch.tensor([xs], dtype=torch.long, device=dev)

        model = self.model
        extra = {}
        codes: tuple = ()
        if self.tree is not None:
            here, predicted = context_codes(flat, context.target, target_parent, self.tree)
            codes = (*here, predicted)
            extra = {"positions": row(here), "next_positions": row([*here[1:], predicted])}
        key = (tuple(types), tuple(flat.values), tuple(distance), codes)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        state = model.initial_state(1, dev)
        out = model(row(types), row(values), row([0] * n), row(distance), row(parent_type), state, **extra)
        g = out.g[:, -1]  # (1, H)
        probs = model.value_log_probs(g.float()).exp()[0]  # (V,)
        scores: dict[str, list] = {}
        if out.switch is not None and out.alpha is not None:
            s = float(out.switch[0, -1])
            probs = probs * s
            L = model.config.window
            alpha = (out.alpha[0, -1].float() * (1 - s)).tolist()
            for slot, mass in enumerate(alpha):
                i = n - L + slot
                if i >= 0 and mass > 0:
                    entry = scores.setdefault(flat.values[i], [0.0, True])
                    entry[0] += mass
        top = torch.topk(probs, min(200, probs.numel()))
        for p, index in zip(top.values.tolist(), top.indices.tolist()):
            entry = scores.setdefault(self.values[index], [0.0, False])
            entry[0] += p
        ranked = sorted(scores.items(), key=lambda kv: -kv[1][0])
        predictions = [Prediction(v, p, copied) for v, (p, copied) in ranked]
        self._recent[key] = predictions
        if len(self._recent) > RECENT:
            self._recent.popitem(last=False)
        return predictions
