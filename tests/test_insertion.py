"""The insertion decoder (models/insertion.py, infill_*.py): tokens, the places a word can go,
searched orders, training that learns, decoding, checkpoints and resuming."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from treecomplete.languages import PYTHON
from treecomplete.models.infill_batches import (
    TokenVocabulary,
    inputs,
    left_to_right,
    loss,
    make_batch,
    model_ids,
    searched_order,
)
from treecomplete.models.infill_data import NAMED, NEWLINE, SPACE, Examples, flags_of, leaves, tokens
from treecomplete.models.infill_decode import InsertionDecoder
from treecomplete.models.insertion import InsertionConfig, InsertionTransformer, key_mask, place_targets, relations
from treecomplete.engines.base import Candidate, Kind
from treecomplete.engines.neural import _with_infills
from treecomplete.sources.chains import Chain
from treecomplete.sources.infill import Infiller

from .toy_infill import TINY, toy_streams, toy_text

@pytest.fixture(scope="module")
def toy_data(tmp_path_factory) -> Path:
    return toy_streams(tmp_path_factory.mktemp("infill"))


def test_tokens_and_flags():
    data = b'x = f("a b")  # note\nif x:\n    y.z += 1\n'
    toks = tokens(PYTHON.parser().parse(data))
    assert [t.text for t in toks] == ["x", "=", "f", "(", '"a b"', ")", "if", "x", ":", "y", ".", "z", "+=", "1"]
    flags = flags_of(toks, data)
    assert flags[0] & NEWLINE and flags[6] & NEWLINE and flags[9] & NEWLINE
    assert flags[1] & SPACE and not flags[3] & SPACE and not flags[10] & SPACE and flags[12] & SPACE
    assert flags[4] & NAMED and not flags[3] & NAMED


def test_leaves_skip_keywords_and_punctuation():
    assert leaves("return self.join(a, 'x', 2) if not b else None", "python") == ["self", "join", "a", "'x'", "2", "b", "None"]
    assert leaves("const y = await fetch(url)", "javascript") == ["y", "fetch", "url"]


def test_places_of_an_insertion():
    # inputs: <s> (place -1), </s> (place 3), then span tokens 1 and 0 were generated in that order
    places = torch.tensor([[-1, 3, 1, 0]])
    placed = torch.tensor([[[True, True, True, False]]])  # when token 0 is chosen: <s>, </s>, token 1
    targets = place_targets(places, placed, torch.tensor([[0]]))
    assert torch.nonzero(targets[0, 0]).flatten().tolist() == [1, 4]  # right of <s>, left of token 1
    rel = relations(places)
    assert rel[0, 2].tolist() == [0, 2, 1, 0]  # seen from token 1: <s> left, </s> right, token 0 left
    assert key_mask(placed)[0, 0].tolist() == [False, True, True, False, True, True, False, False]


def test_searched_order_is_a_permutation_and_loss_has_gradients(toy_data):
    examples = Examples(toy_data, "train")
    vocab = TokenVocabulary.from_examples(examples, 200)
    model = InsertionTransformer(InsertionConfig(**{**TINY.to_dict(), "vocab": len(vocab.texts) - 6}))
    rng = np.random.default_rng(0)
    batch = make_batch([examples.example(int(i)) for i in rng.choice(examples.cursors, 8)], model_ids(vocab, examples.texts), 96, 32)
    order = searched_order(model, batch)
    for b in range(8):
        n = int(batch.span_len[b])
        assert sorted(order[b, :n].tolist()) == list(range(n)) and (order[b, n:] == -1).all()
    words, places, steps = loss(model, batch, order)
    (words + places).backward()
    assert steps == int(batch.span_len.sum()) + 8 and torch.isfinite(words) and torch.isfinite(places)
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    x = inputs(batch, left_to_right(batch))
    assert (x.ids[:, 2:][~x.pad[:, 2:]] == batch.span[batch.span != 0]).all()


@pytest.fixture
def trained(toy_decoder) -> tuple[Path, dict, dict]:
    return toy_decoder


def toy_cursor() -> tuple[bytes, int, int]:
    """A new file of the toy patterns, the cursor at the start of its third block's second line
    (whose rest is ``print(new_name_2, total)``): the data, the token index, the next line's."""
    data = toy_text("new_name")
    toks = tokens(PYTHON.parser().parse(data))
    i = [k for k, t in enumerate(toks) if t.text == "print"][2]
    j = next(k for k, t in enumerate(toks) if t.line == toks[i].line + 1)
    return data, i, j


def test_training_learns_the_toy_lines_and_decodes_them(trained):
    out, first, last = trained
    assert last["word_loss"] < first["word_loss"]
    saved = torch.load(out, weights_only=True)
    assert saved["notes"]["steps"] > saved["notes"]["history"][0]["step"] > 0  # the second run went on from the first
    decoder = InsertionDecoder.load(out)
    data, i, j = toy_cursor()
    toks = tokens(PYTHON.parser().parse(data))
    flags = flags_of(toks, data)
    found = decoder.fill([(t.text, f) for t, f in zip(toks[:i], flags[:i])],
                         [(t.text, f) for t, f in zip(toks[j:], flags[j:])], beam=4, results=3)
    # new_name_2 is outside the vocabulary: copied (among the best three: a tiny model's order of
    # close hypotheses may vary with the machine's arithmetic)
    assert "print(new_name_2, total)" in [f.text for f in found]


def test_the_server_source_fills_a_new_line_only(trained):
    out, _, _ = trained
    infiller = Infiller.load(out, "cpu", budget=5.0)
    data, i, _ = toy_cursor()
    tree = PYTHON.parser().parse(data)
    cursor = tokens(tree)[i].start
    line_end = data.index(b"\n", cursor)
    blank = data[:cursor] + data[line_end:]  # the line's rest removed, as one writes it anew
    context = context_for(blank, cursor)
    found = infiller.chains(context)
    assert any(f.text == "print(new_name_2, total)" and f.first == "print" for f in found)
    assert infiller.chains(context) is found  # kept: the next keystroke reads the same tokens
    idle = Infiller.load(out, "cpu", budget=5.0)
    assert idle.chains(context, wait=False) is None and idle.wanted is not None  # wanted, for the worker's idle time
    idle.fill_wanted(stop=lambda: True)  # a message came in: nothing decoded, nothing kept
    assert idle.chains(context, wait=False) is None
    idle.fill_wanted(stop=lambda: False)
    assert [c.text for c in idle.chains(context, wait=False)] == [c.text for c in found]
    assert infiller.chains(context_for(data, cursor)) == []  # the line goes on after the cursor
    end = len(blank.rstrip())
    assert infiller.chains(context_for(blank[:end] + b"\n", end)) == []  # nothing follows the line


def context_for(data: bytes, cursor: int):
    from treecomplete.context import CompletionContext

    return CompletionContext(PYTHON, "file:///toy.py", data, cursor, "", cursor, "name", (),
                             tree=PYTHON.parser().parse(data))


def test_infills_go_after_the_item_of_their_first_token():
    items = [Candidate(t, Kind.VARIABLE, -k) for k, t in enumerate(["total", "print", "a", "b", "c", "d", "value"])]
    infills = [Chain("print(x, total)", 0.4, "print"), Chain("value = 1", 0.3, "value"), Chain("total += 1", 0.1, "total")]
    out = [c.text for c in _with_infills(items, infills, "")]
    # the second item's text starts one; the item of the third starts after the first five
    assert out == ["total", "print", "print(x, total)", "a", "b", "c", "d", "value"]
    assert [c.text for c in _with_infills(items, infills, "t")][:2] == ["total", "print"]  # `t` typed: none starts so


def test_an_unlikely_rest_of_the_line_is_left_out():
    from treecomplete.engines.neural import INFILL_FLOOR

    items = [Candidate(t, Kind.VARIABLE, -k) for k, t in enumerate(["total", "print", "a", "b", "c", "d"])]
    below, above = Chain("total += 1", INFILL_FLOOR * 0.9, "total"), Chain("print(total)", INFILL_FLOOR * 1.1, "print")
    assert [c.text for c in _with_infills(items, [below], "")] == [c.text for c in items]
    assert [c.text for c in _with_infills(items, [below, above], "")][:4] == ["total", "print", "print(total)", "a"]


def test_a_likely_rest_of_the_line_goes_before_its_first_token():
    from treecomplete.engines.neural import INFILL_LEAD

    items = [Candidate(t, Kind.VARIABLE, -k) for k, t in enumerate(["total", "print", "a", "b", "c", "d"])]
    sure, unsure = Chain("total += 1", INFILL_LEAD, "total"), Chain("print(total)", INFILL_LEAD * 0.9, "print")
    out = [c.text for c in _with_infills(items, [sure, unsure], "")]
    assert out[:5] == ["total += 1", "total", "print", "print(total)", "a"]


def test_a_checkpoint_that_is_not_a_decoder_is_refused(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"format": "treecomplete-pointer-lstm/1"}, path)
    with pytest.raises(ValueError, match="not an insertion decoder"):
        InsertionDecoder.load(path)


def test_the_registry_reads_a_users_decoder_and_survives_a_broken_one(trained, tmp_path, monkeypatch, caplog):
    from treecomplete.engines import registry

    users, shipped = tmp_path / "users", tmp_path / "shipped"
    users.mkdir(), shipped.mkdir()
    monkeypatch.setattr(registry, "user_models", lambda: users)
    monkeypatch.setattr(registry, "SHIPPED", shipped)
    assert registry._infiller("python", "cpu") is None  # none: the engine offers no such items
    (users / "python-insertion.pt").write_bytes(trained[0].read_bytes())
    assert isinstance(registry._infiller("python", "cpu"), Infiller)
    assert isinstance(registry._infiller("typescript", "cpu"), type(None))  # read as JavaScript: none here
    (users / "python-insertion.pt").write_bytes(b"not a checkpoint")
    assert registry._infiller("python", "cpu") is None
    assert "insertion decoder" in caplog.text
