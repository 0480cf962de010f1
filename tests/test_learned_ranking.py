"""The learned ranking: its trees as the server scores them, the rules as its features with
nothing reordered after it, and a broken ranking file reported with the linear scorer used."""

from __future__ import annotations

import json
import math
import sys

import pytest
from treecomplete.ranking import ranker, features, trees
from treecomplete.engines.predictor import Answer, Prediction
from treecomplete.engines.registry import Registry

from .test_neural_ranking import complete

ECHO = features.INPUTS.index(features.RULES[4])  # the name across the `=`


def ranking(splits: list[list[tuple[int, float]]], leaves: list[list[float]], **extra) -> dict:
    """A ranking file's content: trees of equal depth, each given as its splits and leaf values."""
    depth = len(splits[0])
    return {"format": trees.FORMAT, "features": list(features.INPUTS), "depth": depth,
            "feature": [f for tree in splits for f, _ in tree], "border": [b for tree in splits for _, b in tree],
            "leaves": [v for tree in leaves for v in tree], **extra}


def test_a_candidates_leaf_is_the_bits_of_its_levels_comparisons():
    # tree 1: level 0 on feature 0 > 0.5 (bit 0), level 1 on feature 1 > 2.0 (bit 1)
    # tree 2: level 0 on feature 1 > 0.0, level 1 on feature 0 > 10
    model = trees.Trees(ranking([[(0, 0.5), (1, 2.0)], [(1, 0.0), (0, 10.0)]],
                                [[1, 2, 3, 4], [10, 20, 30, 40]], scale=2.0, bias=0.5))
    row = [0.0] * len(features.INPUTS)
    a, b, c = list(row), list(row), list(row)
    a[0], a[1] = 1.0, 3.0  # tree 1: bits 1,1 -> 4; tree 2: bits 1,0 -> 20
    b[0], b[1] = 0.0, -1.0  # tree 1: 0,0 -> 1; tree 2: 0,0 -> 10
    c[0], c[1] = 11.0, 1.0  # tree 1: 1,0 -> 2; tree 2: 1,1 -> 40
    assert model.scores([a, b, c]) == pytest.approx([2 * 24 + 0.5, 2 * 11 + 0.5, 2 * 42 + 0.5])
    assert model.scores([]) == []


def test_trees_fitted_before_a_feature_was_added_read_theirs_by_name(tmp_path):
    # fitted on two inputs, written in another order than the server's: the second named is the
    # server's first, and the baseline is the linear score
    fitted = ["model lists it", "log p", features.LINEAR_SCORE]
    path = tmp_path / "python.json"
    path.write_text(json.dumps({**ranking([[(1, 0.5)]], [[1.0, 3.0]]), "features": fitted,
                                "baseline": features.LINEAR_SCORE}))
    model = trees.load(path, features.INPUTS)
    row = [0.0] * len(features.INPUTS)
    row[features.INPUTS.index("log p")] = 1.0
    row[features.INPUTS.index("model lists it")] = 0.0
    row[-1] = 10.0
    other = list(row)
    other[features.INPUTS.index("log p")] = 0.0
    assert model.scores([row, other]) == pytest.approx([3.0 + 10.0, 1.0 + 10.0])


@pytest.mark.parametrize("content, says", [
    ("{not json", "not JSON"),
    (json.dumps({"format": "other"}), "format"),
    (json.dumps({**ranking([[(0, 0.5)]], [[1, 2]]), "features": ["log p", "a feature no longer computed"]}),
     "other features"),
    (json.dumps(ranking([[(0, 0.5)]], [[1, 2, 3]])), "leaf values"),
    (json.dumps(ranking([[(len(features.INPUTS), 0.5)]], [[1, 2]])), "does not name"),
])
def test_a_broken_ranking_is_refused_with_its_reason_and_the_linear_scorer_ranks(tmp_path, content, says):
    path = tmp_path / "python.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=says):
        trees.load(path, features.INPUTS)
    broken, linear = ranker.Ranker("python", ranking=path), ranker.Ranker("python")
    assert broken.trees is None and "did not load" in broken.problem and says.split()[0] in broken.problem
    x = features.of(0.3, False, 2, None, -1.0) + features.NO_RULES.flags("")
    assert broken.scores([x], 2) == linear.scores([x], 2)


@pytest.fixture
def rankings(tmp_path, monkeypatch):
    """A folder of rankings that the server reads in place of the shipped ones."""
    monkeypatch.setattr(ranker, "RANKINGS", tmp_path)
    ranker.for_language.cache_clear()
    yield tmp_path
    ranker.for_language.cache_clear()


ECHOING = "cookies = 1\ncache = 2\nclear = 3\nf(cookies=c"


@pytest.mark.learned_rankings
def test_a_rule_is_a_feature_and_nothing_reorders_the_rankers_list(rankings):
    """`f(cookies=c|`: the linear scorer puts the name across the `=` first by the rule's weight;
    a ranking whose trees score that rule down is served as it ranks, the name not moved back."""
    answer = Answer([Prediction("cache", 0.5, False), Prediction("clear", 0.3, False)])
    linear = [c for c in complete(answer, ECHOING) if c.snippet is None]
    assert linear[0].text == "cookies" and linear[0].features[ECHO] == 1.0
    (rankings / "python.json").write_text(json.dumps(ranking([[(ECHO, 0.5)]], [[0.0, -100.0]])))
    ranker.for_language.cache_clear()  # as a server started with it
    learned = [c for c in complete(answer, ECHOING) if c.snippet is None]
    assert learned[-1].text == "cookies"  # the trees' order: last, though a rule holds for it
    assert [c.score for c in learned] == sorted((c.score for c in learned), reverse=True)


@pytest.mark.learned_rankings
def test_a_broken_shipped_ranking_is_reported_once_and_completion_goes_on(rankings):
    (rankings / "python.json").write_text("{broken")
    said = []
    registry = Registry(on_error=said.append)
    registry._load_ranking("python")
    registry._load_ranking("python")
    assert len(said) == 1 and "python ranking python.json did not load" in said[0] and "linear scorer" in said[0]
    ranked = complete(Answer([Prediction("cache", 0.5, False)]), ECHOING)
    assert ranked and ranked[0].text == "cookies"  # the linear scorer's order, rules weighed in


def test_the_rules_weigh_as_they_once_ordered_under_the_linear_scorer():
    """Later rules above earlier ones, the wrong kind below a plain name, what cannot name a
    module below everything."""
    firsts = features.RULE_LINEAR[1:-1]
    assert list(firsts) == sorted(firsts) and min(firsts) > -features.RULE_LINEAR[0] > 0
    assert features.RULE_LINEAR[-1] < -sum(firsts) and len(features.RULE_LINEAR) == features.RULE_COUNT
    assert not math.isnan(sum(features.RULE_LINEAR))


def test_trees_fitted_on_top_of_the_linear_score_add_it():
    model = trees.Trees(ranking([[(0, 0.5)]], [[1.0, 2.0]], baseline=features.LINEAR_SCORE))
    row = [0.0] * len(features.INPUTS)
    row[0], row[-1] = 1.0, -3.5  # the leaf of value 2, the linear score -3.5
    assert model.scores([row]) == pytest.approx([-1.5])
    with pytest.raises(ValueError, match="baseline"):
        trees.Trees(ranking([[(0, 0.5)]], [[1.0, 2.0]], baseline="no such input"))


def test_the_rows_the_trees_read_are_the_features_the_case_and_the_linear_score():
    scorer = ranker.Ranker("python")
    x = features.of(0.3, False, 2, None, -1.0) + features.NO_RULES.flags("")
    x[features.SIZE + 4] = 1.0  # the rule of the name across the `=`: not in the linear score
    row = scorer.tree_inputs([x], 5)[0]
    assert len(row) == len(features.INPUTS) and list(row[:len(x)]) == x
    assert list(row[len(x):len(x) + 3]) == features.case_inputs(5) == [1.0, 1.0, 1.0]
    assert row[-1] == pytest.approx(scorer.scores([x[:features.SIZE] + [0.0] * features.RULE_COUNT], 5)[0])


def test_the_fit_reports_ranks_per_mode_and_k_and_folds_by_package():
    import numpy as np
    from benchmarks.rank_fit import Ranks, inputs
    from benchmarks.rank_lists import CompletionList

    width = features.SIZE + features.RULE_COUNT
    lists = [CompletionList("alpha", 0, 2, "prefix", np.zeros((3, width), np.float32), 1),
             CompletionList("beta", 1, 3, "middle", np.zeros((2, width), np.float32), -1)]
    assert {c.fold for c in lists} <= {0, 1} and CompletionList("alpha", 2, 2, "prefix", lists[0].x, 0).fold == lists[0].fold
    x, group, label = inputs("python", lists)
    assert x.shape == (5, len(features.INPUTS)) and list(group) == [0, 0, 0, 1, 1]
    assert list(label) == [0, 1, 0, 0, 0]  # the truth's row; a list without it has none
    ranks = Ranks()
    ranks.add(lists[0], [0.1, 0.5, 0.9])  # the truth second
    ranks.add(lists[1], [0.3, 0.2])  # not among the candidates: a miss
    assert ranks.cell("prefix", 0) == (0.0, 1.0, 0.5, 1)
    assert ranks.cell("middle", 1) == (0.0, 0.0, 0.0, 1)
    from benchmarks.rank_fit import by_case

    dot = CompletionList("gamma", 0, 4, "middle", lists[0].x, 0)  # case 4: after a dot, k=0, code after
    dropped = CompletionList("delta", 1, 3, "prefix", lists[0].x, 0, dropped=True)  # gathered with --drop-imports
    split = by_case([*lists, dot, dropped])
    assert split["after a dot"] == [dot] and split["elsewhere"] == [*lists, dropped]  # cases 2 and 3 are elsewhere
    assert split["imports removed"] == [dropped]


def test_importances_are_shares_of_their_total_however_small():
    from benchmarks.rank_fit import shares

    assert shares([1e-5, 3e-5, -1e-5]) == [20.0, 60.0, -20.0]  # a ranking loss's changes, signed
    assert shares([0.0, 0.0]) == [0.0, 0.0]


def test_a_shallower_tree_is_exported_at_the_ranking_s_depth_with_the_same_scores():
    from benchmarks.rank_fit import export

    # CatBoost's JSON: a tree of one split (input 1 > 0.5) among trees of depth 2
    raw = {"oblivious_trees": [
        {"splits": [{"float_feature_index": 1, "border": 0.5}], "leaf_values": [-1.0, 3.0]},
        {"splits": [{"float_feature_index": 0, "border": 0.0}, {"float_feature_index": 1, "border": 0.5}],
         "leaf_values": [0.0, 1.0, 2.0, 4.0]},
    ], "scale_and_bias": [1.0, [0.25]]}
    exported = export(raw, 2)
    model = trees.Trees(exported)
    assert len(exported["leaves"]) == 8 and model.count == 2
    width = len(features.INPUTS)
    rows = [[0.0] * width, [0.0] * width, [0.0] * width]
    rows[1][1] = 1.0  # passes the first tree's split and the second's level 1
    rows[2][0], rows[2][1] = 1.0, 1.0
    assert model.scores(rows) == pytest.approx([-1.0 + 0.0 + 0.25, 3.0 + 2.0 + 0.25, 3.0 + 4.0 + 0.25])



def test_many_trees_score_as_each_tree_read_alone_and_alike_from_several_threads():
    """Splits sharing a (feature, border) pair, lists longer than the arrays kept so far, and
    threads scoring at once: each score is the sum of the leaves each tree reaches."""
    import random
    import threading

    rng = random.Random(7)
    width, depth = len(features.INPUTS), 4
    borders = [-1.0, 0.0, 0.5, 2.0]
    splits = [[(rng.randrange(6), rng.choice(borders)) for _ in range(depth)] for _ in range(40)]
    leaves = [[rng.uniform(-1, 1) for _ in range(1 << depth)] for _ in splits]
    model = trees.Trees(ranking(splits, leaves, scale=1.5, bias=-0.25))

    def expected(row):
        total = 0.0
        for tree, values in zip(splits, leaves):
            leaf = sum(1 << level for level, (f, b) in enumerate(tree) if row[f] > b)
            total += values[leaf]
        return total * 1.5 - 0.25

    lists = [[[rng.choice([-2.0, 0.0, 0.5, 1.0, 3.0]) for _ in range(width)] for _ in range(n)] for n in (3, 300, 40)]
    for rows in lists:
        assert model.scores(rows) == pytest.approx([expected(r) for r in rows])
    got, errors = {}, []

    def score(i):
        try:
            for _ in range(50):
                got[i] = model.scores(lists[i % 3])
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=score, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(6):
        assert got[i] == pytest.approx([expected(r) for r in lists[i % 3]])

def test_trees_rank_only_the_cases_they_serve(tmp_path):
    """A ranking that serves some cases (those where its folds had it ahead): the linear scorer
    ranks the others, rules and all."""
    path = tmp_path / "python.json"
    path.write_text(json.dumps(ranking([[(0, 0.5)]], [[5.0, 7.0]], cases=[2, 3])))
    served, linear = ranker.Ranker("python", ranking=path), ranker.Ranker("python")
    x = features.of(0.3, False, 2, None, -1.0) + features.NO_RULES.flags("")
    assert served.trees.serves(2) and not served.trees.serves(0)
    assert served.scores([x], 2) != linear.scores([x], 2)  # the trees' score
    assert served.scores([x], 0) == linear.scores([x], 0)  # after a dot, k=0: the linear scorer's
    path.write_text(json.dumps(ranking([[(0, 0.5)]], [[5.0, 7.0]], cases="all")))
    with pytest.raises(ValueError, match="cases"):
        trees.load(path, features.INPUTS)


@pytest.mark.learned_rankings
def test_typescript_serves_javascripts_ranking_and_go_keeps_the_linear_scorer(rankings):
    (rankings / "javascript.json").write_text(json.dumps(ranking([[(0, 0.5)]], [[1.0, 2.0]])))
    assert ranker.ranking_path("javascript") == ranker.ranking_path("typescript") == rankings / "javascript.json"
    assert ranker.ranking_path("go") is None and ranker.weights_of("go") == ranker.weights_of("javascript")
    assert ranker.for_language("typescript").trees is not None and ranker.for_language("go").trees is None


def test_a_gathered_list_holds_a_name_offered_from_several_modules_once(tmp_path):
    from benchmarks.editing import PREFIX, Sample
    from benchmarks.ranking import complete_list
    from treecomplete.service import CompletionService

    from .test_auto_import import _project
    from .test_neural_ranking import StubPredictor

    files = {"pkg/__init__.py": "", "pkg/nodes.py": "class Counter:\n    pass\n", "pkg/a.py": "from .nodes import Counter\n"}
    service = CompletionService(models=StubPredictor(Answer([Prediction("Counter", 0.5, False)])),  # type: ignore[arg-type]
                                project=_project(tmp_path, files))
    service.open("untitled:kept-open.py", "python", 1, "")  # as the gatherers keep one: no close is the last
    path = tmp_path / "pkg" / "b.py"
    data = b"import os\n\n\nclass V(Counter):\n    pass\n"
    sample = Sample(path, data, data.index(b"Counter"), "Counter", "name")
    service.open(path.as_uri(), "python", 1, "import os\n\n\nclass V(Cou")
    listed = [c.text for c in service.complete(path.as_uri(), 3, 9, 1000).candidates]
    assert listed.count("Counter") == 2  # from .nodes and from collections, each an item
    kept, truth, _ = complete_list(service, sample, 3, PREFIX, "python")
    assert [c.text for c in kept].count("Counter") == 1 and kept[truth].text == "Counter"


def test_rank_fit_without_catboost_says_how_to_install_it_before_reading_any_list(tmp_path, monkeypatch):
    from benchmarks import rank_fit

    monkeypatch.setitem(sys.modules, "catboost", None)  # an import of it fails, installed or not
    monkeypatch.setattr(rank_fit.rank_lists, "load", lambda folders: pytest.fail("lists read before the check"))
    with pytest.raises(SystemExit, match=r"catboost is not installed \(pip install -e '\.\[rank\]'\)"):
        rank_fit.main(["--lang", "python", "--lists", str(tmp_path)])


def test_lists_gathered_from_package_folders_sample_their_own_files_never_their_dependencies(tmp_path):
    from benchmarks.ranking import samples_in_folders
    from treecomplete.languages import JAVASCRIPT

    code = "const dep = require('dep')\n" + "".join(f"function f{i}(value) {{ return dep(value) + {i} }}\n" for i in range(80))
    files = {"web-1.0.0/package/lib/a.js": code, "web-1.0.0/package/node_modules/dep/index.js": code,
             "web-1.0.0/package/test/a.js": code, "web-1.0.0/package/lib/small.js": "const tiny = 1\n",
             "cli-2.0.0/package/.venv/x.js": code}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = samples_in_folders(tmp_path, JAVASCRIPT, "javascript", ".js", None)
    assert list(found) == ["web-1.0.0"]  # cli's only file is in its .venv
    assert {s.path for s in found["web-1.0.0"]} == {(tmp_path / "web-1.0.0/package/lib/a.js").resolve()}
    dropped = samples_in_folders(tmp_path, JAVASCRIPT, "javascript", ".js", None, drop_imports=True)
    assert {s.name for s in dropped["web-1.0.0"]} == {"dep"}  # the name the file's import binds
    assert all(b"require" not in s.data for s in dropped["web-1.0.0"])  # its import removed from the buffer
