"""The keystrokes benchmark's counting (benchmarks/keystrokes.py): keys pressed by a user who
accepts a completion once it is first, and by one who accepts it within the first five."""

from __future__ import annotations

from benchmarks.keystrokes import Keys, keys_pressed


def test_the_first_user_accepts_at_rank_one_and_the_top_five_user_earlier():
    # `config`, 6 characters: rank 3 after one typed character, first after two
    assert keys_pressed({1: 3, 2: 1}, 6) == (3, 4)  # first: 2 typed + 1 key; top-5: 1 typed + 2 arrows + 1 key


def test_a_list_before_the_first_character_counts_from_zero():
    assert keys_pressed({0: 1}, 4) == (1, 1)  # after a dot, first at once: one key
    assert keys_pressed({0: 5, 1: 1}, 4) == (2, 2)  # 4 arrows + 1 key cost more than typing it: the next list


def test_an_identifier_never_offered_costs_its_characters_and_accepting_never_costs_more():
    assert keys_pressed({1: None, 2: None}, 3) == (3, 3)
    assert keys_pressed({2: 4}, 3) == (3, 3)  # 2 typed + 3 arrows + 1 > 3 characters: typed out


def test_saved_is_one_less_keys_over_characters_per_category():
    keys = Keys()
    keys.add("attribute", 6, 3, 4)
    keys.add("name", 4, 4, 4)
    summary = keys.summary()
    assert summary["all"]["saved_first"] == 1 - 7 / 10 and summary["all"]["saved_top5"] == 1 - 8 / 10
    assert summary["attribute"]["n"] == 1 and summary["name"]["saved_first"] == 0.0
