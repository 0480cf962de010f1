"""Training the insertion decoder (models/insertion.py) on token streams (models/infill_data.py).

Orders (``--order``): ``l2r``, or ``sao`` (the model's own, searched greedily under dropout each
batch) after ``--bootstrap`` minutes of left to right, as the paper's sec. 4.2 (searched orders
from an untrained model collapse onto punctuation first). AdamW, linear warm-up, then a constant
rate; the time budget is wall time. The checkpoint (fp16 weights, config, vocabulary, spacing)
is written every ``--save-minutes`` with the run's state beside it (``OUT.state``: optimizer,
step, minutes spent, the sampler's generator), so ``--resume`` goes on where a stopped run was.
Validation: loss per step and exact match of the whole span, greedy and left to right alike,
on the valid split's first cursors in a fixed sample. ``named``: cursors before named tokens
only (identifiers and literals), where completion is asked for.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from .infill_batches import TokenVocabulary, language_of, left_to_right, loss, make_batch, model_ids, searched_order
from .infill_data import Examples
from .infill_decode import FORMAT, InsertionDecoder
from .insertion import InsertionConfig, InsertionTransformer
from .resume import Interrupt, atomic_save


def save(model: InsertionTransformer, vocab: TokenVocabulary, language: str, path: Path, notes: dict) -> None:
    state = {k: v.detach().to("cpu", torch.float16) for k, v in model.state_dict().items()}
    atomic_save({"format": FORMAT, "config": model.config.to_dict(), "vocabulary": vocab.to_dict(),
                 "language": language, "state": state, "notes": notes}, path)


def sample(examples: Examples, rng: np.random.Generator, n: int) -> list[tuple]:
    return [examples.example(int(i)) for i in rng.choice(examples.cursors, n)]


@torch.no_grad()
def validate(model, vocab, language, valid: Examples, ids: np.ndarray, device, n: int = 300, searched: bool = False) -> dict:
    """Loss per step over ``n`` fixed valid cursors, in left-to-right order or (``searched``)
    the model's own, and the share of a third of them whose span a greedy decode gets exactly."""
    model.eval()
    rng = np.random.default_rng(1)
    contexts = sample(valid, rng, n)
    decoded = contexts[:max(1, n // 3)]
    words = places = steps = 0.0
    for i in range(0, n, 100):
        batch = make_batch(contexts[i:i + 100], ids, model.config.left, model.config.right).to(device)
        w, p, s = loss(model, batch, searched_order(model, batch) if searched else left_to_right(batch))
        words, places, steps = words + float(w), places + float(p), steps + s
    decoder = InsertionDecoder(model, vocab, language, device)
    exact = 0
    for left_ids, left_flags, span_ids, _f, right_ids, right_flags in decoded:
        left = [(valid.texts[t], int(f)) for t, f in zip(left_ids, left_flags)]
        right = [(valid.texts[t], int(f)) for t, f in zip(right_ids, right_flags)]
        found = decoder.fill(left, right, beam=1, results=1)
        exact += bool(found) and found[0].tokens == [valid.texts[t] for t in span_ids]
    model.train()
    return {"word_loss": words / steps, "place_loss": places / steps, "exact": exact / len(decoded)}


def train(data: Path, out: Path, minutes: float, *, order: str = "sao", bootstrap: float = 0.0,
          config: InsertionConfig | None = None, batch_size: int = 64, lr: float = 1e-3, warmup: int = 300,
          save_minutes: float = 5.0, resume: bool = False, device: str | None = None, seed: int = 0,
          valid_examples: int = 300, max_steps: int | None = None, bootstrap_steps: int | None = None,
          named: bool = False, log=print) -> dict:
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    train_examples, valid = Examples(data, "train", named=named), Examples(data, "valid", named=named)
    language = language_of(data)
    state_path = out.with_name(out.name + ".state")
    if resume and state_path.exists():
        saved = torch.load(out, map_location="cpu", weights_only=True)
        config = InsertionConfig.from_dict(saved["config"])
        vocab = TokenVocabulary.from_dict(saved["vocabulary"])
    else:
        config = config or InsertionConfig()
        vocab = TokenVocabulary.from_examples(train_examples, config.vocab)
        config.vocab = len(vocab.texts) - 6
    torch.manual_seed(seed)
    model = InsertionTransformer(config).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = np.random.default_rng(seed)
    step, spent = 0, 0.0
    if resume and state_path.exists():
        model.load_state_dict({k: v.float() for k, v in saved["state"].items()})
        run = torch.load(state_path, map_location=device, weights_only=False)
        optimizer.load_state_dict(run["optimizer"])
        step, spent = run["step"], run["minutes"]
        rng.bit_generator.state = run["rng"]
        log(f"resumed at step {step}, {spent:.1f} minutes in")
    ids = model_ids(vocab, train_examples.texts)
    valid_ids = model_ids(vocab, valid.texts)
    started, last_save = time.monotonic() - spent * 60, time.monotonic()
    history = list(saved["notes"].get("history", [])) if resume and state_path.exists() else []

    def checkpoint():
        notes = {"steps": step, "minutes": round((time.monotonic() - started) / 60, 2), "order": order,
                 "bootstrap": bootstrap, "batch": batch_size, "lr": lr, "history": history}
        save(model, vocab, language, out, notes)
        atomic_save({"optimizer": optimizer.state_dict(), "step": step, "rng": rng.bit_generator.state,
                     "minutes": (time.monotonic() - started) / 60}, state_path)

    model.train()
    searching = False
    with Interrupt() as interrupt:
        while (elapsed := (time.monotonic() - started) / 60) < minutes and not interrupt.asked \
                and (max_steps is None or step < max_steps):
            for group in optimizer.param_groups:
                group["lr"] = lr * min(1.0, (step + 1) / warmup)
            batch = make_batch(sample(train_examples, rng, batch_size), ids, config.left, config.right).to(device)
            memory = None
            searching = order == "sao" and (elapsed >= bootstrap if bootstrap_steps is None else step >= bootstrap_steps)
            if searching:
                memory = model.encode(batch.src, batch.src_flags, batch.src_pad)
                chosen = searched_order(model, batch, memory)
            else:
                chosen = left_to_right(batch)
            words, places, steps = loss(model, batch, chosen, memory)
            optimizer.zero_grad(set_to_none=True)
            ((words + places) / steps).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            if step % 200 == 0:
                log(f"step {step} {elapsed:.1f} min: word {words.item() / steps:.3f} place {places.item() / steps:.3f}")
            if time.monotonic() - last_save > save_minutes * 60:
                metrics = validate(model, vocab, language, valid, valid_ids, device, valid_examples, searched=searching)
                history.append({"step": step, "minutes": round(elapsed, 2), **metrics})
                log(f"validation at step {step}: {metrics}")
                checkpoint()
                last_save = time.monotonic()
    metrics = validate(model, vocab, language, valid, valid_ids, device, valid_examples, searched=searching)
    history.append({"step": step, "minutes": round((time.monotonic() - started) / 60, 2), **metrics})
    log(f"validation at step {step}: {metrics}")
    checkpoint()
    return metrics
