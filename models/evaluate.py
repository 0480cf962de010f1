"""Teacher-forced next-node metrics (../shared/BENCHMARKS.md §2) on a corpus split.

Every element of every file is a query except each file's first (nothing precedes it); padding
never counts; an UNK target (OoV and not in the window, or OoV for a model without a pointer)
counts wrong. Reported: type accuracy, top-5 and MRR@10, with the two bits and without them (a
node kind's probability summed over its variants); the same for values, split into
in-vocabulary and OoV targets, leaf values (all but ``EMPTY``) and leaf categories (attribute,
name, parameter, literal); OoV rate and localness of the same queries beside them.

With ``partial``, the run can stop anywhere and go on: the counts so far, the lane states and
the segment reached are written there every ``save_minutes`` and when SIGTERM / SIGINT stops
it (``Stopped``); a later call with the same ``partial`` continues from that segment and gives
the unbroken run's figures (tests/test_evaluate.py).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from .architectures import tree_positions
from .batches import NONE, CorpusVocabulary, Targets, lanes, segments
from .checkpoint import Loaded
from .flatten import EMPTY
from .resume import Interrupt, atomic_save, lanes_from, lanes_to_tensors
from .scoring import ranks, type_ranks, value_scores, window_values
from .store import Split
from .vocab import PAD_ID, node_kinds

CATEGORIES = ("attribute", "name", "parameter", "literal")
LITERALS = frozenset({"string", "template_string", "concatenated_string", "integer", "float", "number", "true",
                      "false", "none", "null", "undefined", "regex", "ellipsis"})
NAMES = frozenset({"identifier", "property_identifier", "shorthand_property_identifier", "type_identifier",
                   "private_property_identifier", "shorthand_property_identifier_pattern", "statement_identifier"})
PARAMETER_PARENTS = frozenset({"parameters", "lambda_parameters", "default_parameter", "typed_parameter",
                               "typed_default_parameter", "formal_parameters", "list_splat_pattern",
                               "dictionary_splat_pattern", "keyword_separator"})


def category(annotated: str, parent: str) -> str | None:
    """The leaf category of a target of type ``annotated`` (``name|bits``) under ``parent``."""
    base, _, bits = annotated.partition("|")
    parent_base = parent.partition("|")[0]
    if base in LITERALS:
        return "literal"
    if base not in NAMES or bits[:1] == "1":
        return None
    if base == "property_identifier" or (parent_base == "attribute" and bits == "00"):
        return "attribute"  # JavaScript's member property; Python's attribute is the last child
    if parent_base in PARAMETER_PARENTS:
        return "parameter"
    return "name"


class Stopped(Exception):
    """An evaluation stopped before its end; its counts so far are in ``partial``."""

    def __init__(self, partial: Path, step: int, total: int):
        super().__init__(f"stopped at segment {step} of {total}; the counts so far are in {partial}, "
                         "and the same command with --resume goes on")
        self.partial, self.step, self.total = partial, step, total


class Tally:
    def __init__(self) -> None:
        self.n = 0
        self.top1 = 0
        self.top5 = 0
        self.rr = 0.0

    def add(self, rank: torch.Tensor) -> None:
        self.n += rank.numel()
        self.top1 += int((rank == 1).sum())
        self.top5 += int((rank <= 5).sum())
        self.rr += float(torch.where(rank <= 10, 1.0 / rank.float(), 0.0).sum())

    def as_dict(self) -> dict:
        n = max(self.n, 1)
        return {"queries": self.n, "accuracy": self.top1 / n, "top5": self.top5 / n, "mrr10": self.rr / n}


@torch.no_grad()
def evaluate(loaded: Loaded, split: Split, corpus: CorpusVocabulary, batch: int = 64, segment: int = 100,
             max_elements: int | None = None, progress: bool = False, partial: Path | None = None,
             save_minutes: float = 5.0, stop_after: int | None = None) -> dict:
    """Metrics of ``loaded`` on ``split`` (whose ids are ``corpus``'s, mapped to the model's).
    ``stop_after``: stop (saving to ``partial``) before that segment, as a signal would."""
    model = loaded.model.eval()
    config = model.config
    device = next(model.parameters()).device
    bound = model.n_values
    # pointer targets double as the localness statistic, for every model that attends
    targets = Targets(split, bound, config.window, config.attends, corpus.mapping(loaded.types, loaded.values),
                      tree_positions(config))
    laid = lanes(targets, batch, segment, max_elements=max_elements)
    empty_id = loaded.values.index(EMPTY) if EMPTY in loaded.values else -1
    table = torch.full((len(loaded.types), len(loaded.types)), -1, dtype=torch.long)
    for t, name in enumerate(loaded.types):
        for p, parent in enumerate(loaded.types):
            c = category(name, parent)
            if c is not None:
                table[t, p] = CATEGORIES.index(c)
    kinds, kind_of = node_kinds(loaded.types)
    tallies: dict[str, Tally] = defaultdict(Tally)
    local = 0  # OoV targets that occurred earlier in the window
    state = model.initial_state(batch, device)
    memory_raw = torch.full((batch, config.window), PAD_ID, dtype=torch.long)
    total = laid["types"].shape[1] // segment
    key = {"split": str(split.directory), "max_elements": max_elements, "batch": batch, "segment": segment,
           "total": total, "model": loaded.model.config.to_dict()}
    start = 0
    if partial is not None and partial.exists():
        saved = torch.load(partial, map_location="cpu", weights_only=True)
        if saved.get("key") == key:
            start, local, memory_raw = saved["step"], saved["local"], saved["memory_raw"]
            state = lanes_from(state, saved["lanes"])
            for name, counts in saved["tallies"].items():
                tallies[name].n, tallies[name].top1, tallies[name].top5, tallies[name].rr = counts
        elif progress:
            print(f"{partial}: from another evaluation; starting over", file=sys.stderr)
    started = last_save = time.monotonic()
    with Interrupt(active=partial is not None) as interrupt:
        for step, b in enumerate(segments(laid, segment)):
            if step < start:
                continue
            if partial is not None and (interrupt.asked or step == stop_after
                                        or time.monotonic() - last_save > save_minutes * 60):
                atomic_save({"key": key, "step": step, "local": local, "memory_raw": memory_raw,
                             "lanes": lanes_to_tensors(state),
                             "tallies": {name: [t.n, t.top1, t.top5, t.rr] for name, t in tallies.items()}}, partial)
                last_save = time.monotonic()
                if interrupt.asked or step == stop_after:
                    raise Stopped(partial, step, total)
            out = model(**b.to(device).inputs(), state=state)
            state = out.state
            slots = window_values(memory_raw, b.raw_values, config.window)
            memory_raw = torch.cat([memory_raw, b.raw_values], dim=1)[:, -config.window:]
            scored = b.scored
            if not scored.any():
                continue
            type_logits = out.type_logits[scored].float().cpu()
            tallies["type"].add(type_ranks(type_logits, b.target_type[scored]))
            # the node kind alone: a kind's probability is the sum over its has-child / has-sibling variants
            kind_probs = torch.zeros(len(type_logits), len(kinds)).index_add_(1, kind_of, type_logits.softmax(1))
            tallies["type (without the bits)"].add(type_ranks(kind_probs, kind_of[b.target_type[scored]]))
            alpha = out.alpha[scored].float().cpu() if out.alpha is not None else None
            switch = out.switch[scored].float().cpu() if out.switch is not None else None
            # slots of other files carry no weight (alpha is 0 there) but must not name a value
            slot_values = slots[scored] if alpha is not None else None
            if slot_values is not None:
                slot_values = torch.where(alpha > 0, slot_values, PAD_ID)
            vocab, oov, distinct = value_scores(model, out.g[scored].float().cpu(), switch, alpha, slot_values)
            target = b.target_raw[scored]
            rank = ranks(vocab, oov, distinct, slot_values, target)
            tallies["value"].add(rank)
            in_vocab = target < bound
            tallies["value (in vocabulary)"].add(rank[in_vocab])
            tallies["value (OoV)"].add(rank[~in_vocab])
            leaf = target != empty_id
            tallies["value (leaves)"].add(rank[leaf])
            cats = table[b.target_type[scored], b.parent_type[scored]]
            for i, name in enumerate(CATEGORIES):
                tallies[f"value ({name})"].add(rank[cats == i])
            local += int((b.target_pointer[scored] != NONE).sum())
            if progress and step % 20 == 0:
                elapsed = time.monotonic() - started
                print(f"\revaluate {step + 1}/{total} segments, {elapsed:.0f}s", end="", flush=True, file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    if partial is not None:
        partial.unlink(missing_ok=True)
    result = {name: tally.as_dict() for name, tally in tallies.items()}
    queries = tallies["value"].n
    oov = tallies["value (OoV)"].n
    result["statistics"] = {"queries": queries, "oov_rate": oov / max(queries, 1),
                            "localness": local / oov if oov and config.attends else None,
                            "vocabulary": bound, "window": config.window}
    return result


def markdown(result: dict, title: str) -> str:
    lines = [f"### {title}", "", "| target | queries | accuracy | top-5 | MRR@10 |", "|---|---:|---:|---:|---:|"]
    for name, row in result.items():
        if name == "statistics":
            continue
        lines.append(f"| {name} | {row['queries']:,} | {row['accuracy']:.2%} | {row['top5']:.2%} | {row['mrr10']:.3f} |")
    s = result["statistics"]
    local = f"{s['localness']:.1%}" if s["localness"] is not None else "n/a"
    lines += ["", f"OoV rate {s['oov_rate']:.1%}, localness {local} (K = {s['vocabulary'] - 3:,}, window {s['window']})."]
    return "\n".join(lines)


def write(result: dict, out: Path, title: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(result, title) + "\n", encoding="utf-8")
