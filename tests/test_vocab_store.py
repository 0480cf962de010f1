"""Vocabularies, pointer labels and the corpus' binary format."""

from __future__ import annotations

from collections import Counter

import pytest

from treecomplete.models.store import Split, SplitWriter
from treecomplete.models.vocab import NO_POINTER, SPECIALS, UNK_ID, Vocabulary, pointer_labels


def test_vocabulary_orders_by_training_frequency_then_adds_other_splits():
    vocab = Vocabulary.from_counts(Counter({"self": 9, "x": 5, "my_salary": 1, "a": 5}), extra=["zeta", "x"])
    assert vocab.symbols == list(SPECIALS) + ["self", "a", "x", "my_salary", "zeta"]
    assert vocab.encode(["x", "never"]) == [5, UNK_ID]
    assert vocab.ids["a"] < vocab.bound(2) <= vocab.ids["x"]
    # A symbol seen only outside training is never in vocabulary, whatever K.
    assert vocab.bound(1000) == len(SPECIALS) + 4 <= vocab.ids["zeta"]


def test_vocabulary_round_trip(tmp_path):
    vocab = Vocabulary.from_counts(Counter({"é": 2, "b": 1}))
    vocab.save(tmp_path / "values.json")
    loaded = Vocabulary.load(tmp_path / "values.json")
    assert (loaded.symbols, loaded.trained) == (vocab.symbols, vocab.trained)


def test_pointer_labels_point_to_the_nearest_earlier_occurrence_within_the_window():
    # ids 3, 4 are below the bound (in vocabulary); 10 and 11 are not.
    values = [10, 3, 11, 10, 4, 10, 11, 3]
    assert pointer_labels(values, bound=5, window=50) == [NO_POINTER, 0, 0, 3, 0, 2, 4, 0]
    assert pointer_labels(values, bound=5, window=2) == [NO_POINTER, 0, 0, 0, 0, 2, 0, 0]
    assert pointer_labels(values, bound=20, window=50) == [0] * len(values)  # everything in vocabulary


def test_split_round_trip(tmp_path):
    with SplitWriter(tmp_path / "train") as writer:
        writer.add([5, 6, 7], [1, 2, 3], [0, 1, 1], package="a", path="a/x.py")
        writer.add([], [], [], package="b", path="b/empty.py")
        writer.add([8], [-1], [0], package="b", path="b/y.py")
    split = Split(tmp_path / "train")
    assert len(split) == 3 and split.elements == 4
    assert list(split[0].types) == [5, 6, 7] and list(split[0].parents) == [0, 1, 1]
    assert list(split[1].values) == [] and split[1].meta == {"package": "b", "path": "b/empty.py"}
    assert list(split[2].values) == [-1]


def test_inconsistent_split_is_refused(tmp_path):
    with SplitWriter(tmp_path / "s") as writer:
        writer.add([1], [1], [0], package="a", path="p")
    (tmp_path / "s" / "files.json").write_text("[]")
    with pytest.raises(ValueError, match="rebuild the corpus"):
        Split(tmp_path / "s")
    with pytest.raises(ValueError, match="one entry per element"):
        SplitWriter(tmp_path / "t").add([1, 2], [1], [0])
