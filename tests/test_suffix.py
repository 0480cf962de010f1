"""The suffix pointer (models/suffix.py): the elements after the cursor as training reads them,
its pair features, training onto a frozen model, and what it changes at a cursor."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import torch
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines.predictor import Predictor
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.models import checkpoint
from treecomplete.models.flatten import flatten, flatten_after
from treecomplete.models.lru import SizedLRU
from treecomplete.models.suffix import (
    SuffixPointer,
    distance_buckets,
    first_occurrence,
    pair_features,
)
from treecomplete.models.suffix_train import with_suffix as suffix_model

from .syntax import identifier_leaves
from .toy import toy_source

JS = """const fs = require('fs');
class Store extends Base {
  constructor(root) { super(); this.root = root; this.items = [1, 2 + 3]; }
  load(name) {
    const text = fs.readFileSync(`${this.root}/${name}`, 'utf8');
    return JSON.parse(text).map((x) => x * 2);
  }
}
module.exports = { Store };
"""


@pytest.mark.parametrize("language, source", [(PYTHON, toy_source(random.Random(3), members=True)), (JAVASCRIPT, JS)])
def test_the_elements_after_a_leaf_are_the_whole_sequence_after_it(language, source: str):
    tree = language.parser().parse(source.encode())
    whole = flatten(tree)
    types = whole.annotated_types()
    leaves = list(identifier_leaves(tree.root_node))
    assert len(leaves) > 10
    memo = SizedLRU(4096)  # subtrees read for one leaf, copied for the others
    for leaf in leaves:
        i = next(k for k, s in enumerate(whole.starts) if s == leaf.start_byte and whole.values[k] == leaf.text.decode())
        for read in (flatten_after(leaf, 10_000), flatten_after(leaf, 10_000, memo)):
            assert read.values == whole.values[i + 1:]
            assert read.annotated_types() == types[i + 1:]
            assert read.starts == whole.starts[i + 1:]
        for cut in (flatten_after(leaf, 7), flatten_after(leaf, 7, memo)):
            assert cut.values == whole.values[i + 1:i + 8]
            assert cut.starts == whole.starts[i + 1:i + 8]
    assert len(memo)


def test_the_elements_after_the_cursor_are_bounded_in_a_huge_file():
    source = "x = 1\n" + "y = x + 1\n" * 200_000
    tree = PYTHON.parser().parse(source.encode())
    assert len(flatten_after(tree.root_node.named_descendant_for_byte_range(0, 1), 200)) == 200


def test_first_occurrence_is_the_first_place_of_a_value_in_its_file():
    rng = random.Random(0)
    values = torch.tensor([rng.randrange(5) for _ in range(300)])
    files = torch.tensor(sorted(rng.randrange(4) for _ in range(300)))
    first = first_occurrence(values, files)
    for i in range(300):
        expected = next(j for j in range(300) if values[j] == values[i] and files[j] == files[i])
        assert first[i] == expected


def test_pair_features_mark_the_band_the_file_the_values_seen_and_the_same_receiver():
    empty, pad = 3, 0
    # one lane: inputs at t = 0, 1; the elements k, query t's slot s being element t + 1 + s
    values = torch.tensor([[10, 11, empty, 12, 10, 11, 13]])
    first = torch.tensor([[0, 5, 2, 3, 0, 1, 6]])  # value 11 first at 5: seen only by a later query
    previous = torch.tensor([[pad, 10, 11, empty, 12, 10, 11]])
    files = torch.tensor([[0, 0, 0, 0, 0, 0, 1]])
    allowed, seen, same, buckets = pair_features(torch.tensor([[10, 12]]), torch.tensor([[0, 1]]), torch.tensor([[0, 0]]),
                                                 values, first, previous, files, 1, 4, empty, pad)
    assert allowed[0, 0].tolist() == [False, True, False, True, True, False, False]  # slots 0-3; no EMPTY
    assert allowed[0, 1].tolist() == [False, False, False, True, True, True, False]  # element 6: another file
    assert seen[0, 0, 4] and not seen[0, 0, 1]  # 10 is the input itself; 11 comes later
    # element 5 (11) follows a 10, the input at t = 0, and is not slot 0
    assert same[0, 0, 5] and not same[0, 0, 1]  # element 1 follows 10 but is slot 0: the predicted node's
    assert buckets[0, 0, 1:5].tolist() == distance_buckets(torch.arange(4)).tolist()


def test_nothing_after_the_cursor_leaves_the_model_as_it_was():
    torch.manual_seed(0)
    pointer = SuffixPointer(8, 6)
    g, embedded = torch.randn(1, 2, 8), torch.randn(1, 5, 6)
    none = torch.zeros(1, 2, 5, dtype=torch.bool)
    beta, gate = pointer(g, embedded, none, none, none, torch.zeros(1, 2, 5, dtype=torch.long))
    assert torch.all(beta == 0) and torch.all(gate == 0)


def test_training_changes_the_suffix_pointer_only_and_helps_inside_files(toy_checkpoint, toy_suffix):
    base, trained = checkpoint.load(toy_checkpoint), checkpoint.load(toy_suffix)
    assert trained.model.config.suffix == 64 and base.model.config.suffix == 0
    own = base.model.state_dict()
    for name, tensor in trained.model.state_dict().items():
        if not name.startswith("suffix."):
            assert torch.equal(tensor, own[name].half().float()), name
    valid = trained.meta["suffix"]["valid"]
    assert valid["with suffix"]["queries"] > 100
    assert valid["with suffix"]["mrr10"] > valid["model alone"]["mrr10"] + 0.02


def test_training_a_suffix_pointer_onto_a_model_that_has_one_goes_on_from_it(toy_suffix):
    loaded = checkpoint.load(toy_suffix)
    had = {k: v for k, v in loaded.model.state_dict().items() if k.startswith("suffix.")}
    same = suffix_model(loaded, loaded.model.config.suffix).state_dict()
    assert had and all(torch.equal(same[k], v) for k, v in had.items())
    other = suffix_model(loaded, 16)
    assert other.config.suffix == 16
    assert all(not p.requires_grad for n, p in other.named_parameters() if not n.startswith("suffix."))


def _predict(predictor: Predictor, text: str, offset: int):
    return predictor.predict(context_at(Document("file:///t.py", text, 1, PYTHON), offset))


def test_a_parameter_is_offered_from_the_body_below_and_the_end_of_a_buffer_is_unchanged(toy_checkpoint, toy_suffix):
    base, with_suffix = Predictor.load(toy_checkpoint, "cpu"), Predictor.load(toy_suffix, "cpu")
    head = "def blend_quorx("
    text = head + "):\n    zibble_total = left_vhal + right_vhal\n    return zibble_total\n"
    found = {p.value: p for p in _predict(with_suffix, text, len(head))}
    assert "left_vhal" not in {p.value for p in _predict(base, text, len(head))}  # out of vocabulary, not above
    assert found["left_vhal"].copied and found["left_vhal"].origin == text.index("left_vhal")
    ranked = [p.value for p in _predict(with_suffix, text, len(head))]
    assert ranked.index("left_vhal") < 3
    end = "def blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n    return "
    alone = [(p.value, round(p.probability, 6)) for p in _predict(base, end, len(end))]
    assert [(p.value, round(p.probability, 6)) for p in _predict(with_suffix, end, len(end))] == alone


def test_the_cli_trains_a_suffix_pointer_onto_a_model_only(toy_checkpoint, tmp_path):
    corpus = toy_checkpoint.parent / "corpus"
    out = tmp_path / "s.pt"
    run = [sys.executable, "-m", "treecomplete.cli", "train", "--data", str(corpus), "--out", str(out), "--minutes", "0.1"]
    refused = subprocess.run([*run, "--lang", "python", "--suffix", "16"], capture_output=True, text=True, check=False)
    assert refused.returncode == 2 and "--init" in refused.stderr
    done = subprocess.run([*run, "--init", str(toy_checkpoint), "--suffix", "16"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert checkpoint.load(out).model.config.suffix == 16
    evaluated = subprocess.run([sys.executable, "-m", "treecomplete.cli", "evaluate", "--lang", "python", "--data", str(corpus),
                                "--model", str(out), "--split", "valid", "--max-elements", "3000"], capture_output=True, text=True, check=False)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "Leaf values inside files" in evaluated.stdout and "->" in evaluated.stdout
