"""The fallback engine's ranking, filtering and kinds, on small buffers."""

from __future__ import annotations

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines.base import Kind
from treecomplete.engines.fallback import FallbackEngine
from treecomplete.sources.buffer import defined_in
from treecomplete.languages import JAVASCRIPT, PYTHON


def _complete(language, source, others=(), limit=20):
    doc = Document("file:///main", source, 1, language)
    engine = FallbackEngine(lambda: [doc, *others])
    return engine.complete(context_at(doc, len(doc.data)), limit)


def test_recent_identifiers_rank_first_and_prefix_filters():
    source = "alpha = 1\nbeta = 2\nalpine = 3\nprint(alpha)\nal"
    names = [c.text for c in _complete(PYTHON, source)]
    assert names[:2] == ["alpha", "alpine"]  # alpha was used last
    assert "beta" not in names and all(n.lower().startswith("al") for n in names)


def test_kinds_come_from_the_tree():
    source = "import json\nclass Store:\n    pass\ndef save(x):\n    pass\nsaved = 1\n"
    by_name = {c.text: c.kind for c in _complete(PYTHON, source + "s")}
    assert by_name["Store"] == Kind.CLASS
    assert by_name["save"] == Kind.FUNCTION
    assert by_name["saved"] == Kind.VARIABLE
    assert {c.text: c.kind for c in _complete(PYTHON, source + "j")}["json"] == Kind.MODULE


def test_attributes_of_the_same_receiver_come_first():
    source = "import os\nos.path.join(a)\nself.items = []\nos.getcwd()\nitems = 1\nos."
    names = [c.text for c in _complete(PYTHON, source)]
    assert set(names[:2]) == {"getcwd", "path"}
    assert names.index("items") > 1


def test_member_only_names_sink_outside_attributes():
    source = "const el = document.getElementById('x');\nel.addEventListener('click', go);\nlet elapsed = 0;\n"
    names = [c.text for c in _complete(JAVASCRIPT, source + "e")]
    assert names[0] == "elapsed"
    assert names.index("el") < names.index("addEventListener") if "addEventListener" in names else True


def test_words_of_comments_and_strings_rank_below_code_and_nothing_inside_them():
    source = "# see hereafter\nhelp_text = 'hello'\nhelper = 1\nprint(help_text)\nhe"
    names = [c.text for c in _complete(PYTHON, source)]
    assert names.index("helper") < names.index("hereafter")
    assert names.index("help_text") < names.index("hello")
    assert _complete(PYTHON, "x = 1\n# commen") == []
    assert _complete(JAVASCRIPT, "const s = 'abc de") == []


def test_keywords_and_other_open_documents():
    other = Document("file:///other", "def helper_from_other_file():\n    pass\n", 1, PYTHON)
    names = [c.text for c in _complete(PYTHON, "x = 1\nhe", others=[other])]
    assert "helper_from_other_file" in names
    kinds = {c.text: c.kind for c in _complete(PYTHON, "x = 1\nwhi")}
    assert kinds["while"] == Kind.KEYWORD


def test_limit_is_respected():
    source = "".join(f"name{i} = {i}\n" for i in range(100)) + "name"
    assert len(_complete(PYTHON, source, limit=7)) == 7


def test_where_an_import_names_a_module_the_standard_library_is_offered_not_builtins():
    for source in ("import os\nimport c", "from c", "import os, c"):
        names = [c.text for c in _complete(PYTHON, source, limit=100)]
        assert {"collections", "contextlib", "copy"} <= set(names), (source, names)
        assert "callable" not in names and "class" not in names  # a builtin, a keyword
    elsewhere = [c.text for c in _complete(PYTHON, "x = c", limit=100)]
    assert "collections" not in elsewhere and "callable" in elsewhere
    imported = [c.text for c in _complete(PYTHON, "from os import pa", limit=100)]  # a name in os, not a module
    assert "pathlib" not in imported


def test_soft_keywords_and_member_names_that_are_keywords_are_identifiers():
    # Python's soft keywords are names; JavaScript members may be any word (`app.get`)
    found = {c.text: c for c in _complete(PYTHON, "import re\nmatch = re.match(p, s)\nkind = type(match)\nty")}
    assert found["type"].kind == Kind.VARIABLE and found["type"].features[0] == 0  # code before the cursor
    assert "match" in [c.text for c in _complete(PYTHON, "import re\nm = re.match(p, s)\nre.ma")]
    assert [c.text for c in _complete(PYTHON, "x = 1\nx.whi")] == []  # a hard keyword is never a member
    members = [c.text for c in _complete(JAVASCRIPT, "app.get('/', h);\npromise.catch(f);\napp.")]
    assert {"get", "catch"} <= set(members)
    names = {c.text: c.kind for c in _complete(JAVASCRIPT, "const v = await f();\naw")}
    assert names["await"] == Kind.KEYWORD  # elsewhere, JavaScript's keywords stay keywords


def test_where_an_import_names_a_module_builtins_and_what_imports_bind_come_last():
    source = "import typing as tp\nfrom markupsafe import Markup\nrv = isinstance(tp, int)\nintern_me = Markup\n"
    names = [c.text for c in _complete(PYTHON, source + "import i")]
    assert names.index("intern_me") < names.index("inspect") < names.index("isinstance")  # a word may be a package
    assert {"isinstance", "int"}.isdisjoint(names[:10])
    names = [c.text for c in _complete(PYTHON, source + "from m")]
    assert names[0] == "markupsafe" and names.index("Markup") > names.index("math")  # the package, not what it gave
    names = [c.text for c in _complete(PYTHON, source + "x = i")]
    assert {"int", "isinstance"} <= set(names[:3])  # elsewhere as before


def _complete_inside(language, before: str, after: str, limit: int = 20):
    """Complete with the cursor between ``before`` and ``after``: inside a file."""
    doc = Document("file:///main", before + after, 1, language)
    engine = FallbackEngine(lambda: [doc])
    return engine.complete(context_at(doc, len(before.encode())), limit)


def test_a_name_read_below_and_nowhere_above_is_what_is_being_declared():
    before = "def f(items, count):\n    n = len(items)\n    "
    found = _complete_inside(PYTHON, before, " = sum(items) + n\n    print(total)\n    return total\n")
    assert found[0].text == "total"
    js = _complete_inside(JAVASCRIPT, "function f(items) {\n  const n = items.length;\n  const ", " = n * 2;\n  log(total);\n}\n")
    assert js[0].text == "total"
    # the same buffer without the code below: nothing says so
    assert "total" not in [c.text for c in _complete(PYTHON, before)]


def test_a_parameter_being_typed_is_what_the_body_below_reads():
    after = "):\n    with open(path) as handle:\n        return handle.read()\n"
    found = [c.text for c in _complete_inside(PYTHON, "import os\nDEFAULT = 1\ndef load(", after)]
    assert found[0] == "path"
    # bound below (``as handle``), a builtin (``open``), a member (``read``): not what the parameter is
    assert found.index("handle") > 2 and found.index("open") > 2


def test_an_import_being_typed_takes_what_the_code_below_reads_and_does_not_define():
    after = "\n\n\ndef run(x, *rest):\n    return zorbify(x) + quux_value\n\n\nclass Later(Base):\n    pass\n"
    found = [c.text for c in _complete_inside(PYTHON, "from helpers import ", after)]
    assert set(found[:2]) == {"zorbify", "quux_value"}
    # defined below (``def run``, ``class Later``, the parameters ``x``, ``rest``): never imported
    assert all(found.index(name) >= 2 for name in ("run", "Later", "x", "rest") if name in found)
    js = [c.text for c in _complete_inside(JAVASCRIPT, "import { ", " } from './helpers';\n\nfunction run(x) {\n"
                                           "  return zorbify(x) + quuxValue;\n}\nconst f = (y) => y;\n")]
    assert set(js[:2]) == {"zorbify", "quuxValue"}
    assert all(js.index(name) >= 2 for name in ("run", "x", "y", "f") if name in js)


def test_an_import_s_alias_is_what_the_code_below_reads_and_nothing_binds():
    after = "\n\n\ndef run(frame):\n    return pdx.concat(frame)\n"
    found = [c.text for c in _complete_inside(PYTHON, "import os\npath_a = os.path\npath_b = path_a\nimport pandas as p", after)]
    assert found[0] == "pdx"
    plain = [c.text for c in _complete_inside(PYTHON, "import os\npath_a = os.path\npath_b = path_a\nx = p", after)]
    assert plain[0] != "pdx"  # a value: what the code below reads is no hint there
    js = [c.text for c in _complete_inside(JAVASCRIPT, "const joinA = 1;\nimport { join as j", " } from 'path';\nconst p = joinPaths(a);\n")]
    assert js[0] == "joinPaths"  # not what the module defines: an alias is no import's name
    star = [c.text for c in _complete_inside(JAVASCRIPT, "const pathA = 1;\nimport * as p", " from 'path';\nconst q = pathLib.join(a);\n")]
    assert star[0] == "pathLib"


def test_what_code_defines_by_name():
    assert defined_in("python", b"def run(x, *args, y=3, **kw):\n    pass\nclass Foo(Base):\n    g = lambda a, b: a\n") == \
        {"run", "x", "args", "y", "kw", "Foo", "a", "b"}
    assert defined_in("javascript", b"function run(x, ...rest) {}\nclass Foo extends B {}\nconst f = (p, q) => p, g = r => r;") == \
        {"run", "x", "rest", "Foo", "p", "q", "r"}


def test_a_member_used_below_on_the_same_receiver_comes_above_the_code_before():
    before = "import sqlite3\ndef save(conn, rows):\n    total = len(rows)\n    conn."
    found = [c.text for c in _complete_inside(PYTHON, before, "\n    conn.commit()\n    other.flush()\n")]
    assert found[0] == "commit"
    assert found.index("flush") > found.index("total")  # after another receiver: no lift


def test_the_suffix_features_say_what_the_code_after_the_cursor_does():
    from treecomplete.ranking.features import NAMES, of as features

    before = "def f(items, count):\n    n = len(items)\n    "
    found = {c.text: features(0.0, False, 0, c, 0.0) for c in _complete_inside(PYTHON, before, " = n\n    print(total, count)\n")}
    used, distance = NAMES.index("used after the cursor"), NAMES.index("ln(1+words after the cursor before its first use there)")
    declared = NAMES.index("read after the cursor and not before it, where a name is declared (an assignment's target, a parameter)")
    assert found["total"][used] == 1 and found["total"][declared] == 1
    assert found["count"][used] == 1 and found["count"][declared] == 0  # used before the cursor too
    assert found["total"][distance] < found["count"][distance]
    assert found["items"][used] == 0 and found["items"][distance] == 0


def test_a_suffix_that_does_not_parse_or_is_huge_is_read_within_bounds():
    before = "def f(items):\n    n = len(items)\n    "
    broken = _complete_inside(PYTHON, before, " = ((( [ } print(total)\n  ]]] def def\n")
    assert "total" in [c.text for c in broken]  # read, though the tree there is an error
    huge = " = 1\n    print(total)\n" + "x_filler = 1\n" * 400_000 + "far_below_word = 1\n"
    found = [c.text for c in _complete_inside(PYTHON, before, huge, limit=1000)]
    assert found[0] == "total"
    assert "far_below_word" not in found  # several megabytes below: outside the window read after the cursor


def test_no_keyword_after_a_dot_in_any_language():
    from treecomplete.languages import TYPESCRIPT

    source = "interface User { name: string; age: number }\nfunction greet(user: User) {\n  return user."
    found = [c.text for c in _complete(TYPESCRIPT, source)]
    assert {"name", "age"} <= set(found[:5])
    assert "return" not in found and "function" not in found and "interface" not in found
    js = [c.text for c in _complete(JAVASCRIPT, "p.then(f).catch(g);\nconst done = 1;\nq.")]
    assert "catch" in js and "const" not in js  # written after a dot: a member


def test_a_member_being_declared_is_what_the_code_below_reads_after_a_dot():
    before = "class Cart {\n  add(item) { this.items.push(item); }\n  "
    after = "() {\n    this.total = 0;\n  }\n  checkout() {\n    this.reset();\n    const sum = total;\n  }\n}\n"
    found = [c.text for c in _complete_inside(JAVASCRIPT, before, after)]
    assert {"reset", "total"} <= set(found[:3])  # with `items`, which this. reads above
    assert found.index("sum") > 3  # a local of the code below, no member
