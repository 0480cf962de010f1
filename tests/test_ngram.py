"""The buffer's cache n-gram model (engines/ngram.py): counts, smoothing, the longer context."""

from __future__ import annotations

import pytest

from treecomplete.engines.ngram import Continuations, Tokenizer


def tokenize(data: bytes, chars: str) -> list[str]:
    return Tokenizer(chars).tokens(data)


def model(text: str) -> Continuations:
    return Continuations(tokenize(text.encode(), "A-Za-z0-9_$"))


def test_tokens_are_identifiers_numbers_and_single_characters():
    assert tokenize(b"self.x_1 = f($a, 20)", "A-Za-z0-9_$") == ["self", ".", "x_1", "=", "f", "(", "$a", ",", "20", ")"]
    assert tokenize("é = 'ü'".encode(), "A-Za-z0-9_") == ["é", "=", "'", "ü", "'"]


def test_what_followed_more_often_is_more_probable_and_the_unseen_least():
    m = model("f(x); f(y); f(x); z = 1; f(")
    assert m.probability("x") > m.probability("y") > m.probability("z") > 0


def test_a_longer_matching_context_outweighs_the_shorter_one():
    # after "." alone, a and b are alike (and b more frequent); after "p ." only a occurred
    m = model("p.a = 1; q.b = 2; r.b = 3; p.")
    assert m.probability("a") > m.probability("b")
    shorter = model("p.a = 1; q.b = 2; r.b = 3; s.")
    assert shorter.probability("b") > shorter.probability("a")


@pytest.mark.parametrize("text", ["", "x", "a b a b a", "for x in xs: for y in ys: for"])
def test_probabilities_sum_to_one_over_the_tokens_and_the_rest(text):
    tokens = tokenize(text.encode(), "A-Za-z0-9_")
    m = Continuations(tokens)
    # every word never seen in the window shares the floor's one slot
    assert sum(m.probability(t) for t in set(tokens)) + m.probability("never seen") == pytest.approx(1.0)


def test_nothing_after_the_last_token_before_leaves_the_uniform_floor():
    m = model("a b c d")
    assert m.probability("a") == m.probability("zzz") == pytest.approx(1 / 5)


def test_the_line_memo_stays_bounded_and_never_changes_the_tokens(monkeypatch):
    from treecomplete.engines import ngram

    monkeypatch.setattr(ngram, "MEMO_LINES", 5)
    tokenizer = Tokenizer("A-Za-z0-9_")
    for i in range(40):
        window = "\n".join(f"x{j} = f({j})" for j in range(i, i + 4)).encode()
        assert tokenizer.tokens(window) == Tokenizer("A-Za-z0-9_").tokens(window)
        assert len(tokenizer._lines) <= 5 + 4


def test_the_followers_are_those_a_non_overlapping_scan_of_the_tokens_finds():
    """Each context's followers, counted where its occurrences do not overlap (a regular
    expression's matches, as the counts were first written), on random token sequences."""
    import random
    import re
    from collections import Counter

    from treecomplete.engines.ngram import ORDER, SEP

    rng = random.Random(7)
    for _ in range(300):
        alphabet = ["a", "b"] if rng.random() < 0.5 else ["a", "ab", "(", ".", "x", "="]  # repeats that overlap
        tokens = [rng.choice(alphabet) for _ in range(rng.randrange(1, 60))]
        joined = SEP + SEP.join(tokens) + SEP
        orders = Continuations(tokens).orders
        for n, (found, total) in enumerate(orders, start=1):
            context = re.escape(SEP + SEP.join(tokens[-n:]))
            expected = Counter(re.findall(context + "(?=" + SEP + "([^" + SEP + "]+))", joined))
            assert list(found.items()) == list(expected.items()) and total == expected.total()
        assert len(orders) == ORDER or len(orders) == len(tokens) or not Counter(
            re.findall(re.escape(SEP + SEP.join(tokens[-len(orders) - 1:])) + "(?=" + SEP + "([^" + SEP + "]+))", joined))
