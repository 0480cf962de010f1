"""Settings: defaults in one place, each bad value reported and replaced by its default."""

from __future__ import annotations

from treecomplete.options import Options, parse_options


def test_defaults_and_both_shapes():
    assert parse_options(None) == (Options(), [])
    assert parse_options({"maxItems": 5})[0].max_items == 5
    assert parse_options({"treecomplete": {"maxItems": 7}})[0].max_items == 7


def test_each_bad_value_falls_back_alone():
    options, problems = parse_options({"maxItems": "lots", "maxFileSize": -1, "unknownSetting": 1})
    assert options == Options()
    assert len(problems) == 2
    assert "treecomplete.maxItems must be an integer" in problems[0]
    assert "maxFileSize must be between" in problems[1]


def test_booleans_are_not_numbers_and_ranges_are_checked():
    options, problems = parse_options({"maxItems": True, "maxFileSize": 1000})
    assert options == Options(max_file_size=1000)
    assert problems == ["Setting treecomplete.maxItems must be an integer (got True); using 50."]
    assert "between 1 and 1000" in parse_options({"maxItems": 0})[1][0]


def test_not_an_object():
    options, problems = parse_options(["x"])
    assert options == Options() and "must be an object" in problems[0]


def test_later_settings_keep_earlier_ones():
    first, _ = parse_options({"maxItems": 9})
    second, _ = parse_options({"maxFileSize": 10}, first)
    assert (second.max_items, second.max_file_size) == (9, 10)


def test_device_takes_one_of_its_choices():
    options, problems = parse_options({"device": "cuda"})
    assert options.device == "cuda" and not problems
    options, problems = parse_options({"device": "tpu"})
    assert options.device == "auto"
    assert problems and "must be one of auto, cpu, cuda" in problems[0]


def test_multi_token_is_a_boolean():
    options, problems = parse_options({"multiToken": False})
    assert options.multi_token is False and problems == []
    options, problems = parse_options({"multiToken": "no", "maxItems": True})
    assert options.multi_token is True and options.max_items == 50
    assert len(problems) == 2 and any("multiToken must be a bool" in p for p in problems)


def test_the_readme_lists_every_setting_with_its_default():
    import json
    import re
    from dataclasses import fields
    from pathlib import Path

    from treecomplete.options import _camel

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", section, re.MULTILINE))
    assert rows == {_camel(f.name): json.dumps(f.default) for f in fields(Options)}
