"""Evaluation and the targets it scores, on corpora small enough to count by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from treecomplete.models.batches import NONE, CorpusVocabulary, Targets
from treecomplete.models.checkpoint import Loaded
from treecomplete.models.evaluate import Stopped, category, evaluate
from treecomplete.models.pointer_lstm import ModelConfig, PointerLSTM
from treecomplete.models.store import Split, SplitWriter
from treecomplete.models.vocab import EOF_ID, Vocabulary

TYPES = ["<PAD>", "<UNK>", "<EOF>", "a|00", "b|00"]
VALUES = ["<PAD>", "<UNK>", "<EOF>", "x", "y", "z", "w"]  # K = 2: x, y in vocabulary


def _corpus(root: Path, files: list[tuple[list[int], list[int]]]) -> Path:
    Vocabulary(TYPES, 2).save(root / "types.json")
    Vocabulary(VALUES, 2).save(root / "values.json")
    with SplitWriter(root / "test") as writer:
        for i, (types, values) in enumerate(files):
            writer.add(types, values, [0] + [1] * (len(types) - 1), package="p", path=f"f{i}")
    return root


def test_pointer_targets(tmp_path: Path):
    root = _corpus(tmp_path, [([3] * 5, [5, 3, 5, 6, 5])])  # z x z w z
    t = Targets(Split(root / "test"), bound=5, window=50, pointer=True)
    # next values: x, z, w, z, EOF
    assert t.target_value.tolist() == [3, NONE, NONE, NONE, EOF_ID]
    # z at 2 was seen at 0, z at 4 at 2 (2 back: slot 50 - 2); w is new
    assert t.target_pointer.tolist() == [NONE, 48, NONE, 48, NONE]
    assert t.values.tolist() == [1, 3, 1, 1, 1]  # OoV inputs read as UNK
    narrow = Targets(Split(root / "test"), bound=5, window=1, pointer=True)
    assert narrow.target_pointer.tolist() == [NONE] * 5  # 2 back is outside a window of 1


def test_metrics_by_hand(tmp_path: Path):
    # file 1: a/x b/y a/z a/x -> targets b/y a/z a/x EOF; file 2: b/y a/x -> targets a/x EOF
    root = _corpus(tmp_path, [([3, 4, 3, 3], [3, 4, 5, 3]), ([4, 3], [4, 3])])
    config = ModelConfig(arch="vanilla", parent="none", type_dim=4, value_dim=4, hidden=8, window=4, vocab=2, cutoffs=())
    model = PointerLSTM(config, len(TYPES), 5)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.type_head.bias[3] = 5.0  # always predicts type a
        model.value_head.bias[3] = 5.0  # always predicts value x
    loaded = Loaded(model, "python", TYPES, VALUES[:5])
    result = evaluate(loaded, Split(root / "test"), CorpusVocabulary.load(root))
    # 6 queries; types: a right 3 times, the rest rank 2
    assert result["type"] == pytest.approx({"queries": 6, "accuracy": 3 / 6, "top5": 1.0, "mrr10": (3 + 3 * 0.5) / 6})
    # values: x right twice; y, EOF, EOF rank 2; z is OoV, so wrong and unranked
    assert result["value"] == pytest.approx({"queries": 6, "accuracy": 2 / 6, "top5": 5 / 6, "mrr10": (2 + 3 * 0.5) / 6})
    assert result["value (OoV)"] == pytest.approx({"queries": 1, "accuracy": 0.0, "top5": 0.0, "mrr10": 0.0})
    assert result["value (in vocabulary)"]["accuracy"] == pytest.approx(2 / 5)
    assert result["statistics"]["oov_rate"] == pytest.approx(1 / 6)


def test_type_without_the_bits_sums_a_kinds_variants(tmp_path: Path):
    # kinds a (two variants) and b; targets after a|00 a|10 b|00 a|10: a|10 b|00 a|10 EOF
    types = ["<PAD>", "<UNK>", "<EOF>", "a|00", "a|10", "b|00"]
    Vocabulary(types, 3).save(tmp_path / "types.json")
    Vocabulary(VALUES, 2).save(tmp_path / "values.json")
    with SplitWriter(tmp_path / "test") as writer:
        writer.add([3, 4, 5, 4], [3, 3, 3, 3], [0, 1, 1, 1], package="p", path="f")
    config = ModelConfig(arch="vanilla", parent="none", type_dim=4, value_dim=4, hidden=8, window=4, vocab=2, cutoffs=())
    model = PointerLSTM(config, len(types), 5)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.type_head.bias[3] = 2.0  # a|00 first, a|10 and b|00 level behind it
        model.type_head.bias[5] = 1.5
        model.type_head.bias[4] = 1.5
    result = evaluate(Loaded(model, "python", types, VALUES[:5]), Split(tmp_path / "test"), CorpusVocabulary.load(tmp_path))
    # with the bits: a|10 and b|00 rank 2 (ties do not count against), EOF ranks 4: none right
    assert result["type"]["accuracy"] == 0.0
    # without: kind a carries a|00 + a|10, first for both a|10 targets; b second; EOF third
    assert result["type (without the bits)"] == pytest.approx(
        {"queries": 4, "accuracy": 2 / 4, "top5": 1.0, "mrr10": (1 + 1 + 1 / 2 + 1 / 3) / 4})


def test_leaf_categories():
    assert category("identifier|00", "attribute|11") == "attribute"
    assert category("identifier|01", "attribute|11") == "name"  # the object of obj.attr
    assert category("property_identifier|00", "member_expression|10") == "attribute"
    assert category("identifier|01", "parameters|10") == "parameter"
    assert category("integer|00", "argument_list|10") == "literal"
    assert category("call|10", "module|10") is None


def test_long_files_are_cut_into_overlapping_pieces_scored_once(tmp_path: Path):
    from treecomplete.models.batches import lanes

    long_file = ([3] * 500, [5, 6] * 250)  # OoV values repeating: pointer targets everywhere
    root = _corpus(tmp_path, [long_file] + [([4] * 10, [3] * 10)] * 4)
    t = Targets(Split(root / "test"), bound=5, window=8, pointer=True)
    laid = lanes(t, lanes_count=4, segment=10)
    assert laid["types"].shape[1] < 200  # not one lane of 500 with three idle
    scored = laid["target_type"] != 0
    assert int(scored.sum()) == len(t)  # every target once, overlaps only read
    assert sorted(laid["target_raw"][scored].tolist()) == sorted(t.target_raw.tolist())
    # a scored pointer target's slot lies within its piece: the window before it is there
    for lane in range(4):
        for j in range(laid["types"].shape[1]):
            slot = int(laid["target_pointer"][lane, j])
            if slot >= 0:
                source = j - (8 - 1 - slot)
                assert source >= 0 and laid["file_ids"][lane, source] == laid["file_ids"][lane, j]


@pytest.mark.parametrize("arch", ["pointer", "pointer-subtrees"])
def test_an_evaluation_stopped_and_resumed_gives_the_unbroken_figures(tmp_path: Path, arch: str):
    g = torch.Generator().manual_seed(0)
    files = [(torch.randint(3, 5, (n,), generator=g).tolist(), torch.randint(3, 7, (n,), generator=g).tolist())
             for n in (9, 14, 6, 11, 8)]
    root = _corpus(tmp_path, files)
    torch.manual_seed(0)
    config = ModelConfig(arch=arch, parent="type", type_dim=4, value_dim=4, hidden=8, window=4, vocab=2, cutoffs=(),
                         subtree_dim=4, subtree_heads=2, subtree_window=4)
    loaded = Loaded(PointerLSTM(config, len(TYPES), 5), "python", TYPES, VALUES[:5])
    split, corpus = Split(root / "test"), CorpusVocabulary.load(root)
    unbroken = evaluate(loaded, split, corpus, batch=2, segment=3)
    partial = tmp_path / "run.partial"
    with pytest.raises(Stopped, match="--resume"):
        evaluate(loaded, split, corpus, batch=2, segment=3, partial=partial, stop_after=4)
    assert partial.exists()
    resumed = evaluate(loaded, split, corpus, batch=2, segment=3, partial=partial)
    assert resumed.keys() == unbroken.keys() and unbroken["value"]["queries"] > 20
    for name, row in unbroken.items():
        assert resumed[name] == pytest.approx(row), name
    assert not partial.exists()  # done: nothing left to resume
