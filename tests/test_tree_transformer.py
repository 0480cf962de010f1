"""The tree-transformer on tiny random models: causality and file masking, the KV cache (a
sequence read in pieces equals it read whole), the tree positions reaching the output, the
pointer's distribution, and training, checkpoints and evaluation through the shared tooling."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from treecomplete.models import checkpoint
from treecomplete.models.batches import CorpusVocabulary
from treecomplete.models.evaluate import evaluate
from treecomplete.models.store import Split
from treecomplete.models.train import train
from treecomplete.models.tree_positions import ROOT, PositionConfig, push
from treecomplete.models.tree_transformer import TransformerConfig, TreeTransformer

from .toy import TRAIN, toy_corpus

B, T, L = 2, 9, 4
TINY = {"arch": "tree-transformer", "d_model": 16, "layers": 2, "heads": 2, "ff": 32, "memory": 6, "window": L,
        "vocab": 20, "cutoffs": ()}


def _model(**kw) -> TreeTransformer:
    torch.manual_seed(0)
    return TreeTransformer(TransformerConfig(**{**TINY, **kw}), n_types=12, n_values=23).eval()


def _inputs(files: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    config = PositionConfig()
    codes = [ROOT]
    for i in range(1, T + 1):
        codes.append(push(codes[(i - 1) // 2], i % 2, config))  # a small binary tree
    positions = torch.tensor(codes[:T]).expand(B, T)
    return {"types": torch.randint(3, 12, (B, T), generator=g), "values": torch.randint(3, 23, (B, T), generator=g),
            "files": files if files is not None else torch.zeros(B, T, dtype=torch.long),
            "parent_distance": torch.ones(B, T, dtype=torch.long), "parent_type": torch.zeros(B, T, dtype=torch.long),
            "positions": positions, "next_positions": torch.tensor(codes[1:T + 1]).expand(B, T)}


@pytest.mark.parametrize("positions", ["tree", "sequential", "both"])
@torch.no_grad()
def test_shapes_and_no_look_ahead(positions):
    model = _model(positions=positions)
    x = _inputs()
    out = model(**x, state=model.initial_state(B))
    assert out.type_logits.shape == (B, T, 12) and out.g.shape == (B, T, 16)
    assert out.alpha.shape == (B, T, L) and out.switch.shape == (B, T)
    changed = dict(x, values=x["values"].clone())
    changed["values"][:, 5] = 3
    later = model(**changed, state=model.initial_state(B))
    torch.testing.assert_close(later.g[:, :5], out.g[:, :5])  # the future is not read
    assert not torch.allclose(later.g[:, 5:], out.g[:, 5:])


@torch.no_grad()
def test_other_files_are_not_read():
    files = torch.tensor([[0] * 4 + [1] * 5] * B)
    model = _model()
    x = _inputs(files)
    out = model(**x, state=model.initial_state(B))
    changed = dict(x, types=x["types"].clone())
    changed["types"][:, :4] = 3
    again = model(**changed, state=model.initial_state(B))
    torch.testing.assert_close(again.g[:, 4:], out.g[:, 4:])
    assert float(out.alpha[:, 4].sum(-1).min()) == pytest.approx(1.0)  # the pointer: the new file's first element only
    assert torch.all(out.alpha[:, 4, :-1] == 0)


@pytest.mark.parametrize("positions", ["tree", "both"])
@torch.no_grad()
def test_the_kv_cache_reads_a_sequence_in_pieces_as_a_whole(positions):
    model = _model(positions=positions, memory=T)
    x = _inputs()
    whole = model(**x, state=model.initial_state(B))
    first = model(**{k: v[:, :4] for k, v in x.items()}, state=model.initial_state(B))
    second = model(**{k: v[:, 4:] for k, v in x.items()}, state=first.state)
    torch.testing.assert_close(torch.cat([first.type_logits, second.type_logits], 1), whole.type_logits)
    torch.testing.assert_close(torch.cat([first.alpha, second.alpha], 1), whole.alpha)
    torch.testing.assert_close(torch.cat([first.switch, second.switch], 1), whole.switch)


@torch.no_grad()
def test_outputs_for_the_last_input_only_equal_the_last_row_of_all():
    model = _model()
    x = dict(_inputs(torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1, 1], [2] * T])))
    start = model(**{k: v[:, :3] for k, v in x.items()}, state=model.initial_state(B)).state
    rest = {k: v[:, 3:] for k, v in x.items()}
    every, last = model(**rest, state=start), model(**rest, state=start, last=True)
    assert last.type_logits.shape == (B, 1, 12)
    for name in ("type_logits", "g", "alpha", "switch"):
        torch.testing.assert_close(getattr(last, name), getattr(every, name)[:, -1:])
    for a, b in zip(vars(last.state).values(), vars(every.state).values()):  # the whole segment's either way
        torch.testing.assert_close(a, b)


@torch.no_grad()
def test_the_predicted_nodes_position_is_read():
    model = _model()
    x = _inputs()
    out = model(**x, state=model.initial_state(B))
    moved = model(**dict(x, next_positions=torch.full((B, T), ROOT)), state=model.initial_state(B))
    assert not torch.allclose(moved.type_logits, out.type_logits)
    with pytest.raises(ValueError, match="tree positions"):
        model(**dict(x, positions=None), state=model.initial_state(B))


@pytest.mark.parametrize("parent", [False, True])
@torch.no_grad()
def test_the_parents_type_is_read_when_configured(parent):
    model = _model(parent=parent)
    x = _inputs()
    out = model(**x, state=model.initial_state(B))
    other = dict(x, parent_type=x["parent_type"].clone())
    other["parent_type"][:, 6] = 5
    changed = model(**other, state=model.initial_state(B))
    torch.testing.assert_close(changed.g[:, :6], out.g[:, :6])  # an input reaches no earlier output
    assert torch.allclose(changed.g[:, 6:], out.g[:, 6:]) != parent


@pytest.mark.parametrize("combine", [False, True])
@torch.no_grad()
def test_the_heads_read_the_pointers_context_when_configured(combine):
    model = _model(combine=combine)
    x = _inputs()
    out = model(**x, state=model.initial_state(B))
    model.pointer.query.weight.mul_(-3.0)  # other pointer weights, other contexts
    moved = model(**x, state=model.initial_state(B))
    assert not torch.allclose(moved.alpha, out.alpha)
    assert torch.allclose(moved.type_logits, out.type_logits) != combine
    assert torch.allclose(moved.g, out.g) != combine


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="positions"):
        TransformerConfig(positions="diagonal")
    with pytest.raises(ValueError, match="window"):
        TransformerConfig(memory=10, window=50)
    with pytest.raises(ValueError, match="tree positions"):
        TransformerConfig(tree={"kind": "ternary", "degree": 3, "depth": 8})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return toy_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.mark.parametrize("tree", [{"kind": "binary", "degree": 2, "depth": 32}, {"kind": "nary", "degree": 8, "depth": 16}])
def test_trains_saves_loads_and_learns_to_copy(corpus: Path, tmp_path: Path, tree: dict):
    """On the toy corpus (returning the variable assigned just before, a name unique to its
    file) the trained model copies with the pointer; the checkpoint loads as the same model."""
    out = tmp_path / "tt.pt"
    model = {**TINY, "d_model": 32, "ff": 64, "memory": 40, "window": 30, "vocab": 40, "tree": tree}
    meta, trained = train(corpus, out, "python", model, {**TRAIN, "lr": 0.005, "warmup": 20, "epochs": 3}, quiet=True)
    loaded = checkpoint.load(out)
    assert isinstance(loaded.model, TreeTransformer) and loaded.model.config == trained.config
    corpus_vocabulary = CorpusVocabulary.load(corpus)
    result = evaluate(loaded, Split(corpus / "test"), corpus_vocabulary)
    assert result["type"]["accuracy"] > 0.6
    assert result["value (OoV)"]["accuracy"] > 0.2  # only the pointer can get these
    assert meta["valid"]["value"] > 0.3


def test_a_checkpoint_whose_format_and_configuration_disagree_is_refused(tmp_path: Path):
    model = _model()
    good = tmp_path / "tt.pt"
    checkpoint.save(good, model, "python", [f"t{i}" for i in range(12)], [f"v{i}" for i in range(23)])
    payload = torch.load(good, weights_only=True)
    payload["format"] = checkpoint.FORMAT  # the pointer LSTM's
    torch.save(payload, tmp_path / "mixed.pt")
    with pytest.raises(checkpoint.CheckpointError, match="mixed.pt: checkpoint does not match"):
        checkpoint.load(tmp_path / "mixed.pt")


def test_fine_tuning_starts_from_a_tree_transformer(corpus: Path, tmp_path: Path, toy_transformer: Path):
    start = checkpoint.load(toy_transformer)
    meta, tuned = train(corpus, tmp_path / "tuned.pt", "python", None, {**TRAIN, "epochs": 1, "lr": 1e-3}, init=toy_transformer,
                        quiet=True)
    assert isinstance(tuned, TreeTransformer) and tuned.config == start.model.config
    assert meta["init"] == str(toy_transformer)
    moved = [name for name, t in tuned.state_dict().items() if not torch.allclose(t, start.model.state_dict()[name], atol=1e-3)]
    assert moved  # it trained from there
