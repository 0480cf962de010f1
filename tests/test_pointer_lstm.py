"""The pointer-mixture LSTM on tiny random models: shapes, the attention band and file masking,
the pointer and its switch, and the parent inputs."""

from __future__ import annotations

import pytest
import torch

from treecomplete.models.pointer_lstm import ModelConfig, PointerLSTM
from treecomplete.models.scoring import ranks, value_scores

B, T, L = 2, 7, 4


def _model(**kw) -> PointerLSTM:
    torch.manual_seed(0)
    cfg = ModelConfig(**{"type_dim": 8, "value_dim": 8, "hidden": 16, "window": L, "vocab": 20, "cutoffs": (), **kw})
    return PointerLSTM(cfg, n_types=12, n_values=23).eval()


def _inputs(files: torch.Tensor | None = None):
    g = torch.Generator().manual_seed(1)
    types = torch.randint(3, 12, (B, T), generator=g)
    values = torch.randint(3, 23, (B, T), generator=g)
    files = files if files is not None else torch.zeros(B, T, dtype=torch.long)
    return types, values, files, torch.ones(B, T, dtype=torch.long), types.clone()


@pytest.mark.parametrize("arch", ["vanilla", "attention", "pointer", "pointer-random"])
@pytest.mark.parametrize("parent", ["none", "hidden", "type"])
def test_shapes(arch, parent):
    model = _model(arch=arch, parent=parent)
    out = model(*_inputs(), model.initial_state(B))
    assert out.type_logits.shape == (B, T, 12)
    assert out.g.shape == (B, T, 16)
    assert out.state.memory.shape == (B, L, 16) and out.state.h.shape == (1, B, 16)
    assert (out.alpha is None) == (arch in ("vanilla",))
    assert (out.switch is None) == (arch in ("vanilla", "attention"))
    if out.alpha is not None:
        assert out.alpha.shape == (B, T, L)


@pytest.mark.parametrize("arch", ["vanilla", "attention", "pointer"])
@pytest.mark.parametrize("parent", ["none", "hidden", "type"])
@torch.no_grad()
def test_outputs_for_the_last_input_only_equal_the_last_row_of_all(arch, parent):
    model = _model(arch=arch, parent=parent)
    types, values, _, _, parent_type = _inputs()
    files = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [5, 5, 5, 5, 5, 5, 5]])
    distance = torch.tensor([[1, 2, 1, 3, 1, 2, 4], [1, 1, 2, 2, 3, 3, 6]])  # 6: past the window
    start = model(types[:, :2], values[:, :2], files[:, :2], distance[:, :2], parent_type[:, :2], model.initial_state(B)).state
    args = (types[:, 2:], values[:, 2:], files[:, 2:], distance[:, 2:], parent_type[:, 2:], start)
    every, last = model(*args), model(*args, last=True)
    assert last.type_logits.shape == (B, 1, 12)
    torch.testing.assert_close(last.type_logits, every.type_logits[:, -1:])
    torch.testing.assert_close(last.g, every.g[:, -1:])
    for name in ("alpha", "switch"):
        a, b = getattr(last, name), getattr(every, name)
        assert (a is None) == (b is None)
        if a is not None:
            torch.testing.assert_close(a, b[:, -1:])
    for a, b in zip(vars(last.state).values(), vars(every.state).values()):  # the whole segment's either way
        torch.testing.assert_close(a, b)


@torch.no_grad()
def test_attention_sees_only_its_window_and_its_file():
    model = _model()
    files = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [5, 5, 5, 5, 5, 5, 5]])
    out = model(*_inputs(files), model.initial_state(B))
    alpha = out.alpha  # (B, T, L): slots oldest first, the last slot is the current input
    # From an empty memory, query t has t + 1 keys: slots before that carry nothing.
    for t in range(T):
        assert torch.all(alpha[1, t, : max(0, L - 1 - t)] == 0)
        assert float(alpha[1, t].sum()) == pytest.approx(1.0, abs=1e-5)
    # Lane 0: query 3 starts file 1, so it sees only itself.
    assert alpha[0, 3, :-1].sum() == 0 and float(alpha[0, 3, -1]) == pytest.approx(1.0, abs=1e-5)
    assert alpha[0, 4, :-2].sum() == 0


def test_state_carries_the_memory_into_the_next_segment():
    model = _model()
    inputs = _inputs()
    whole = model(*inputs, model.initial_state(B))
    first = model(*(x[:, :4] for x in inputs), model.initial_state(B))
    second = model(*(x[:, 4:] for x in inputs), first.state)
    torch.testing.assert_close(torch.cat([first.type_logits, second.type_logits], 1), whole.type_logits)
    torch.testing.assert_close(torch.cat([first.alpha, second.alpha], 1), whole.alpha)


@torch.no_grad()
def test_stepping_the_lstm_by_hand_equals_the_fused_kernel():
    """Inference on a few inputs steps the LSTM by hand (pointer_lstm._stepwise); training and
    longer inputs use nn.LSTM. Both give the same outputs and the same carried state."""
    from treecomplete.models.pointer_lstm import SHORT

    model = _model()
    inputs = _inputs()
    assert T <= SHORT
    stepped = model(*inputs, model.initial_state(B))  # eval mode: by hand
    fused = model.train()(*inputs, model.initial_state(B))
    model.eval()
    for a, b in ((stepped.type_logits, fused.type_logits), (stepped.g, fused.g), (stepped.alpha, fused.alpha),
                 (stepped.state.h, fused.state.h), (stepped.state.c, fused.state.c), (stepped.state.memory, fused.state.memory)):
        torch.testing.assert_close(a, b)
    assert not torch.equal(stepped.state.c, model.initial_state(B).c)  # the cell state moved


def test_parent_hidden_reads_the_parents_state():
    model = _model(parent="hidden")
    types, values, files, distance, parent_type = _inputs()
    far = model(types, values, files, torch.full_like(distance, 3), parent_type, model.initial_state(B))
    near = model(types, values, files, distance, parent_type, model.initial_state(B))
    beyond = model(types, values, files, torch.full_like(distance, L + 5), parent_type, model.initial_state(B))
    assert not torch.allclose(far.g, near.g)
    torch.testing.assert_close(beyond.g, near.g)  # farther than the window: the current input


@torch.no_grad()
def test_mixture_is_a_distribution_and_switch_weighs_it():
    model = _model()
    out = model(*_inputs(), model.initial_state(B))
    g, s, a = out.g[0, -1:], out.switch[0, -1:], out.alpha[0, -1:]
    slots = torch.tensor([[30, 31, 32, 33]])  # distinct OoV values
    vocab, oov, distinct = value_scores(model, g, s, a, slots)
    assert float(vocab.sum() + oov.sum()) == pytest.approx(1.0, abs=1e-5)
    assert float(oov.sum()) == pytest.approx(1 - float(s), abs=1e-5)
    # Two slots holding one value are one candidate with their summed mass.
    same = torch.tensor([[30, 30, 32, 33]])
    _, oov2, distinct2 = value_scores(model, g, s, a, same)
    assert distinct2.tolist() == [[True, False, True, True]]
    assert float(oov2[0, 0]) == pytest.approx(float(oov[0, 0] + oov[0, 1]), abs=1e-6)
    # A slot holding an in-vocabulary value adds to that value's score.
    mixed = torch.tensor([[5, 31, 32, 33]])
    vocab3, _, distinct3 = value_scores(model, g, s, a, mixed)
    assert float(vocab3[0, 5]) == pytest.approx(float(vocab[0, 5] + oov[0, 0]), abs=1e-6)
    assert not distinct3[0, 0]


def test_ranks_by_hand():
    vocab = torch.tensor([[0.1, 0.4, 0.2, 0.0], [0.1, 0.1, 0.1, 0.1]])
    oov = torch.tensor([[0.3, 0.0], [0.6, 0.0]])
    distinct = torch.tensor([[True, False], [True, False]])
    slots = torch.tensor([[9, 9], [8, 0]])
    target = torch.tensor([9, 2])
    assert ranks(vocab, oov, distinct, slots, target).tolist() == [2, 2]  # 0.3 < 0.4; 0.1 < 0.6
    # An UNK target (no mass anywhere) is never ranked.
    assert ranks(vocab, oov, distinct, slots, torch.tensor([7, 3]))[0] >= 1 << 30


@torch.no_grad()
def test_fast_reads_run_the_recurrence_in_bfloat16_and_packed_states_keep_their_answers(monkeypatch):
    """fast_reads (where the CPU has bfloat16; forced here): a read longer than SHORT gives
    float32's outputs to bfloat16's rounding, the checkpoint's weights untouched; a packed state
    holds its memory in half the bytes and a read from it equals one from the unpacked state."""
    from treecomplete.models import pointer_lstm

    model = _model()
    g = torch.Generator().manual_seed(2)
    n = pointer_lstm.SHORT + 12
    types, values = torch.randint(3, 12, (1, n), generator=g), torch.randint(3, 23, (1, n), generator=g)
    inputs = (types, values, torch.zeros_like(types), torch.ones_like(types), types.clone())
    exact = model(*inputs, model.initial_state(1))
    monkeypatch.setattr(pointer_lstm, "native_bfloat16", lambda: False)
    assert not model.fast_reads()  # no native bfloat16: float32 stays
    monkeypatch.setattr(pointer_lstm, "native_bfloat16", lambda: True)
    keys = set(model.state_dict())
    assert model.fast_reads()
    assert set(model.state_dict()) == keys and model.lstm.weight_hh_l0.dtype == torch.float32
    fast = model(*inputs, model.initial_state(1))
    assert not torch.equal(fast.g, exact.g)  # read in bfloat16
    torch.testing.assert_close(fast.g, exact.g, atol=0.03, rtol=0)
    torch.testing.assert_close(fast.type_logits.softmax(-1), exact.type_logits.softmax(-1), atol=0.02, rtol=0)
    packed = fast.state.packed()
    assert packed.memory.dtype == torch.bfloat16
    assert fast.state.nbytes() - packed.nbytes() == packed.memory.nelement() * 2  # the memory's half
    more = tuple(x[:, :3] for x in inputs)
    torch.testing.assert_close(model(*more, packed).g, model(*more, fast.state).g)  # its memory was bfloat16 already
    assert not model.fast_reads(False)
    torch.testing.assert_close(model(*inputs, model.initial_state(1)).g, exact.g)
