"""Names the file has not imported yet (server/sources/auto_import.py, import_edits.py): where
the import comes from, whether the buffer binds the name already, and the edit that adds it in
the file's own style."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import pytest
from treecomplete.context import context_at
from treecomplete.items import ClientSupport, completion_list
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from treecomplete.service import CompletionService
from treecomplete.sources import auto_import, import_edits
from treecomplete.sources.auto_import import Offer, offers
from treecomplete.sources.bound import MAX_OCCURRENCES, bound_in
from treecomplete.sources.project_index import ProjectIndex

from .test_project import _indexed, _tree


@pytest.mark.parametrize("code, bound", [
    ("x = 1\nprint(Path)\n", False),
    ("from pathlib import Path\n", True),
    ("from a import (b,\n    Path)\n", True),
    ("import Path as P\n", False),
    ("def f(a, Path=1):\n    pass", True),  # the cursor is in f
    ("def g(a, Path):\n    return 1\n\n\nx = 2\n", False),  # a parameter of another function
    ("def f(a, b=Path):\n    pass\n", False),
    ("def f(value: t.Union[t.Mapping[K, V], Path]) -> int:\n    pass\n", False),
    ("for i, Path in x:\n    pass\n", True),
    ("with a as Path:\n    pass\n", True),
    ("Path: int = 3\n", True),
    ("a, Path = 1, 2\n", True),
    ("Path == 3\nx.Path = 1\n", False),
    ("class A:\n    Path = 1\n\n\nx = 2\n", False),  # a class attribute, not seen outside
    ("def Path():\n    pass\n", True),
    ("# the Path = of a comment\n'''for Path in'''\n", False),
])
def test_what_binds_a_python_name(code, bound):
    data = code.encode()
    tree = PYTHON.parser().parse(data)
    assert bound_in(data, PYTHON, "Path", (len(data), len(data) + 1), tree) is bound


@pytest.mark.parametrize("code, bound", [
    ("const { join } = require('path')\n", True),
    ("import {\n  a,\n  join\n} from 'x'\n", True),
    ("join(a)\nfoo(join, 2)\nitems.map((x) => join(x))\n", False),
    ("const f = (a, join) => 1\n", False),
    ("function f(join) {\n  x", True),
    ("let join = 1\n", True),
    ("const [a, join] = x\n", True),
    ("join === 1\n", False),
    ("const { join: joined, b } = x\n", False),  # a key: `joined` is bound
    ("const {\n  join: joined,\n} = x\n", False),
    ("const { a: join } = x\n", True),
    ("promise.catch(join)\n", False),  # a method named catch, not a catch clause
    ("try {\n} catch (join) {\n  x", True),
])
def test_what_binds_a_javascript_name(code, bound):
    data = code.encode()
    tree = JAVASCRIPT.parser().parse(data)
    assert bound_in(data, JAVASCRIPT, "join", (len(data), len(data) + 1), tree) is bound


@pytest.mark.parametrize("language, code, bound", [
    (PYTHON, "class A:\n    Name = 1\n\n    def f(self):\n        return Na + 1\n", False),  # a class body is not seen in its methods
    (PYTHON, "class A:\n    Name = 1\n    key = lambda: Na\n", False),
    (PYTHON, "class A:\n    Name = 1\n    other = Na\n", True),
    (PYTHON, "class A:\n    def f(self):\n        Name = 1\n        return Na\n", True),
    (JAVASCRIPT, "class T {\n  static Name = Name;\n  #Name = 1;\n  f() { return Na; }\n}\n", False),  # fields name no variable
    (TYPESCRIPT, "class T {\n  static readonly Name = Name;\n  f(): number { return Na; }\n}\n", False),
    (JAVASCRIPT, "const Name = 1;\nclass T {\n  f() { return Na; }\n}\n", True),
])
def test_what_a_class_body_binds_and_where(language, code, bound):
    data = code.encode()
    cursor = data.index(b"Na;" if b"Na;" in data else b"Na\n" if b"Na\n" in data else b"Na ")
    tree = language.parse(language.parser(), data)
    assert bound_in(data, language, "Name", (cursor, cursor + 2), tree) is bound


def _project(tmp_path: Path, files: dict[str, str]):
    _tree(tmp_path, files)
    index = _indexed(tmp_path)
    return index


def test_the_projects_imports_say_where_a_name_comes_from_most_files_first(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/nodes.py": "class Name:\n    pass\n", "pkg/other.py": "class Name:\n    pass\n",
             "pkg/sub/__init__.py": ""}
    files.update({f"pkg/user{i}.py": "from .nodes import Name\n" for i in range(3)})
    files["pkg/odd.py"] = "from pkg.other import Name\n"
    index = _project(tmp_path, files)
    here = str((tmp_path / "pkg" / "sub" / "new.py").resolve())
    snapshot = index.snapshot(PYTHON, here)
    found = offers("Name", PYTHON, snapshot, here)
    # written relative where the importers write it so, from this file's folder
    assert [(o.module, o.imported, o.files) for o in found[:2]] == [("..nodes", "Name", 3), ("pkg.other", "Name", 1)]
    assert offers("Name", PYTHON, snapshot, str((tmp_path / "pkg" / "x.py").resolve()))[0].module == ".nodes"


def test_the_imports_of_the_files_nearest_count_most(tmp_path):
    # three files import Page from async_api, one from sync_api: beside that one, sync_api first
    files = {"app/__init__.py": "", "app/sync_api.py": "class Page:\n    pass\n", "app/async_api.py": "class Page:\n    pass\n",
             "tests/sync/test_a.py": "from app.sync_api import Page\n"}
    files.update({f"tests/async/test_{i}.py": "from app.async_api import Page\n" for i in range(3)})
    index = _project(tmp_path, files)
    for folder, first in (("sync", "app.sync_api"), ("async", "app.async_api"), ("other", "app.async_api")):
        here = str((tmp_path / "tests" / folder / "test_new.py").resolve())
        found = offers("Page", PYTHON, index.snapshot(PYTHON, here), here)
        assert [o.module for o in found[:2]] == [first, ({"app.sync_api", "app.async_api"} - {first}).pop()], folder
    # the file's own saved import counts for nothing: beside it, the other files decide
    here = str((tmp_path / "tests" / "sync" / "test_a.py").resolve())
    assert offers("Page", PYTHON, index.snapshot(PYTHON, here), here)[0].module == "app.async_api"


def test_nearness_chooses_the_module_and_most_files_how_to_import_it(tmp_path):
    # src/bson.ts: imported by name in three files far off, as a namespace in one beside the
    # new file; the package bson by name in one file a folder up
    files = {"src/bson.ts": "export const BSON = {};\n", "src/deep/near/a.ts": "import * as BSON from '../../bson';\n",
             "src/deep/b.ts": "import { BSON } from 'bson';\n"}
    files.update({f"src/far/c{i}.ts": "import { BSON } from '../bson';\n" for i in range(3)})
    index = _project(tmp_path, files)
    here = str((tmp_path / "src" / "deep" / "near" / "new.ts").resolve())
    found = offers("BSON", TYPESCRIPT, index.snapshot(TYPESCRIPT, here), here)
    assert [(o.module, o.imported) for o in found[:2]] == [("../../bson", "BSON"), ("bson", "BSON")]


def test_a_name_exported_by_fifty_modules_is_offered_from_three(tmp_path):
    files = {f"m{i}.py": "def helper():\n    pass\n" for i in range(50)}
    files.update({f"u{i}.py": "from m7 import helper\n" for i in range(2)})
    index = _project(tmp_path, files)
    here = str((tmp_path / "new.py").resolve())
    found = offers("helper", PYTHON, index.snapshot(PYTHON, here), here)
    assert len(found) == auto_import.OFFERS == 3
    assert found[0].module == "m7" and found[0].files == 2  # the project's own imports first


def test_a_module_outside_any_package_is_written_as_the_projects_files_write_it(tmp_path):
    # tests/ has no __init__.py: its files import each other as `tests.helpers`, run from the root
    files = {"tests/helpers.py": "def get_package():\n    pass\n", "tests/unit/test_a.py": "from tests.helpers import get_package\n",
             "tests/unit/test_b.py": "from tests.helpers import get_package\n",
             # a namespace package: src/app/ has no __init__.py, src/app/plugins/ has one
             "src/app/plugins/__init__.py": "", "src/app/plugins/manager.py": "class Manager:\n    pass\n",
             "tests/unit/test_m.py": "from app.plugins.manager import Manager\n"}
    index = _project(tmp_path, files)
    here = str((tmp_path / "tests" / "other" / "test_c.py").resolve())
    found = offers("get_package", PYTHON, index.snapshot(PYTHON, here), here)
    assert (found[0].module, found[0].imported, found[0].files) == ("tests.helpers", "get_package", 2)
    assert offers("Manager", PYTHON, index.snapshot(PYTHON, here), here)[0].module == "app.plugins.manager"  # not plugins.manager


def test_a_submodule_and_the_standard_library(tmp_path):
    index = _project(tmp_path, {"pkg/__init__.py": "", "pkg/nodes.py": "x = 1\n", "pkg/a.py": "from . import nodes\n"})
    here = str((tmp_path / "pkg" / "b.py").resolve())
    assert offers("nodes", PYTHON, index.snapshot(PYTHON, here), here)[0] == Offer("nodes", ".", "nodes", "project", 1)
    assert offers("OrderedDict", PYTHON, None, here)[0].module == "collections"
    assert ("fs", "readFileSync") in [(o.module, o.imported) for o in offers("readFileSync", JAVASCRIPT, None, here)]


def _edit(language, code: str, offer: Offer) -> str:
    data = code.encode()
    doc = CompletionService().open("file:///t/m." + ("py" if language is PYTHON else "js"), language.name, 1, code)
    context = context_at(doc, len(data))
    found = import_edits.Editor(context).edit(offer)
    return (data[:found.start] + found.text.encode() + data[found.end:]).decode()


def test_python_imports_are_written_in_the_files_style():
    path = Offer("path", "os", "path")
    assert _edit(PYTHON, "from os import sep\n\npa", path) == "from os import sep, path\n\npa"
    assert _edit(PYTHON, "from os import (\n    sep,\n)\n\npa", path) == "from os import (\n    sep, path,\n)\n\npa"
    sorted_imports = "import abc\nimport zlib\nfrom json import dumps\nfrom sys import argv\n\npa"
    assert _edit(PYTHON, sorted_imports, path) == "import abc\nimport zlib\nfrom json import dumps\nfrom os import path\nfrom sys import argv\n\npa"
    assert _edit(PYTHON, "import zlib\nimport abc\n\npa", path) == "import zlib\nimport abc\nfrom os import path\n\npa"
    assert _edit(PYTHON, '"""Doc."""\n\npa', path) == '"""Doc."""\nfrom os import path\n\npa'
    assert _edit(PYTHON, "#!/usr/bin/env python\nx = 1\npa", path) == "#!/usr/bin/env python\nfrom os import path\nx = 1\npa"
    assert _edit(PYTHON, "x = 1\nn", Offer("np", "numpy")) == "import numpy as np\nx = 1\nn"


def test_javascript_imports_are_written_in_the_files_style():
    join = Offer("join", "path", "join")
    assert _edit(JAVASCRIPT, "const { sep } = require('path');\n\njo", join) == "const { sep, join } = require('path');\n\njo"
    assert _edit(JAVASCRIPT, 'const fs = require("fs")\n\njo', join) == 'const fs = require("fs")\nconst { join } = require("path")\n\njo'
    assert _edit(JAVASCRIPT, "import fs from 'fs';\n\njo", join) == "import fs from 'fs';\nimport { join } from 'path';\n\njo"
    assert _edit(JAVASCRIPT, "import { sep } from 'path';\njo", join) == "import { sep, join } from 'path';\njo"
    assert _edit(JAVASCRIPT, "'use strict';\nmodule.exports = 1;\njo", Offer("context", "./context")) \
        == "'use strict';\nconst context = require('./context');\nmodule.exports = 1;\njo"
    # Node's own modules with the node: scheme where the file writes them so (not a package's)
    read = Offer("readFile", "fs/promises", "readFile")
    assert _edit(JAVASCRIPT, "import fs from 'node:fs';\n\nrea", read) == "import fs from 'node:fs';\nimport { readFile } from 'node:fs/promises';\n\nrea"
    assert _edit(JAVASCRIPT, "import { stat } from 'node:fs/promises';\nrea", read) == "import { stat, readFile } from 'node:fs/promises';\nrea"
    assert _edit(JAVASCRIPT, "const fs = require('node:fs');\nfo", Offer("fo", "fo")) == "const fs = require('node:fs');\nconst fo = require('fo');\nfo"
    assert _edit(JAVASCRIPT, "import fs from 'fs';\n\nrea", read) == "import fs from 'fs';\nimport { readFile } from 'fs/promises';\n\nrea"


def test_a_package_named_like_a_node_module_is_imported_by_its_own_name(tmp_path):
    _node_modules(tmp_path, ("punycode",))  # npm's punycode, which replaces Node's deprecated one
    (tmp_path / "package.json").write_text('{"dependencies": {"punycode": "^2.3.0"}}')
    code = "import fs from 'node:fs';\nto"
    uri = (tmp_path / "m.js").as_uri()
    doc = CompletionService().open(uri, "javascript", 1, code)
    found = import_edits.Editor(context_at(doc, len(code))).edit(Offer("toASCII", "punycode", "toASCII"))
    assert found.text == "import { toASCII } from 'punycode';\n"
    found = import_edits.Editor(context_at(doc, len(code))).edit(Offer("EventEmitter", "events", "EventEmitter"))
    assert found.text == "import { EventEmitter } from 'node:events';\n"  # Node's own, no package of that name


def _complete(service: CompletionService, uri: str, text: str):
    doc = service.open(uri, "python", 1, text)
    line, column = text.count("\n"), len(text) - text.rfind("\n") - 1
    items = completion_list(doc, service.complete(uri, line, column, 50), 50).items
    first: dict = {}
    for item in items:
        first.setdefault(item.label, item)
    return first


def _complete_all(service: CompletionService, uri: str, text: str) -> list:
    doc = service.open(uri, "python", 1, text)
    line, column = text.count("\n"), len(text) - text.rfind("\n") - 1
    return completion_list(doc, service.complete(uri, line, column, 50), 50).items


def test_an_item_carries_its_import_where_the_file_does_not_bind_the_name(tmp_path):
    index = _project(tmp_path, {"pkg/__init__.py": "", "pkg/nodes.py": "class Counter:\n    pass\n",
                                "pkg/a.py": "from .nodes import Counter\n"})
    service = CompletionService(project=index)
    uri = (tmp_path / "pkg" / "b.py").as_uri()
    items = _complete(service, uri, "import os\n\n\nclass V(Count")
    edits = items["Counter"].additional_text_edits
    assert [(e.range.start.line, e.new_text) for e in edits] == [(1, "from .nodes import Counter\n")]
    again = [item for item in _complete_all(service, uri, "import os\n\n\nclass V(Count") if item.label == "Counter"]
    assert [item.label_details for item in again][:1] == [None]  # the client did not ask for label details,
    assert [item.detail for item in again] == ["auto-import from .nodes", "auto-import from collections"]  # so the list says
    shown = completion_list(service.documents[uri], service.complete(uri, 3, 13, 50), 50, ClientSupport(label_details=True)).items
    assert [(item.label_details.description, item.detail) for item in shown if item.label == "Counter"] \
        == [(".nodes", None), ("collections", None)]
    assert [item.additional_text_edits[0].new_text for item in again] == ["from .nodes import Counter\n",
                                                                           "from collections import Counter\n"]
    assert "auto-import from .nodes" in items["Counter"].data["detail"]
    bound = _complete(service, uri, "from .nodes import Counter\n\n\nclass V(Count")
    assert not bound["Counter"].additional_text_edits  # bound already: no import, no second item
    declared = _complete(service, uri, "import os\n\n\nclass Count")
    assert all(not item.additional_text_edits for item in declared.values())  # a name being declared
    service.auto_import.enabled = False
    assert all(not item.additional_text_edits for item in _complete(service, uri, "import os\n\n\nclass V(Count").values())


def test_a_module_far_less_likely_comes_a_few_items_after_the_names_first(tmp_path):
    # three files import Counter from .nodes, none from collections: collections' item comes
    # DEFER candidates later, not right after, so that it takes no other name's place
    files = {"pkg/__init__.py": "", "pkg/nodes.py": "class Counter:\n    pass\n",
             "pkg/words.py": "Cache = Cell = Chain = Channel = Check = Choice = Circle = Client = 1\n"}
    files.update({f"pkg/a{i}.py": "from .nodes import Counter\n" for i in range(3)})
    service = CompletionService(project=_project(tmp_path, files))
    uri = (tmp_path / "pkg" / "b.py").as_uri()
    text = "import os\nfrom .words import Cache, Cell, Chain, Channel, Check, Choice, Circle, Client\n\n\nclass V(C"
    items = [(i.label, i.additional_text_edits[0].new_text if i.additional_text_edits else "")
             for i in _complete_all(service, uri, text)]
    first, other = items.index(("Counter", "from .nodes import Counter\n")), items.index(("Counter", "from collections import Counter\n"))
    assert other - first > auto_import.DEFER > 0
    assert len(items) == len(set(items))  # each once


def test_where_a_name_would_be_imported_from_is_a_ranking_signal(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/nodes.py": "class Widget:\n    pass\n\n\nLIMIT = 3\n"}
    files.update({f"pkg/a{i}.py": "from .nodes import Widget\n" for i in range(3)})
    files["pkg/b.py"] = "from .nodes import Widget\n"  # this file's saved version: not counted
    service = CompletionService(project=_project(tmp_path, files))
    uri = (tmp_path / "pkg" / "b.py").as_uri()

    def signals(text: str, version: int) -> dict:
        context = context_at(service.open(uri, "python", version, text), len(text))
        return service.auto_import.signals(context, ["Widget", "LIMIT", "OrderedDict", "nothing_knows_it"])

    found = signals("x = 1\nW", 1)
    assert found["Widget"] == pytest.approx((math.log(4), 1.0, 0.0, 0.0))  # three other files, and nodes.py defines it
    assert found["LIMIT"] == (0.0, 1.0, 0.0, 0.0)
    assert found["OrderedDict"][:2] == (0.0, 0.0) and found["OrderedDict"][2] > 0  # real code imports it from collections
    assert "nothing_knows_it" not in found
    assert signals("x = 1\nclass W", 2) == {}  # a name being declared
    assert signals("from .nodes import W", 3) == {}  # in an import
    service.auto_import.enabled = False  # the same ranking with the setting off (its items carry no import)
    assert signals("x = 1\nW", 4) == found


def test_a_name_that_an_installed_package_has_or_exports_is_a_ranking_signal(tmp_path):
    from treecomplete.sources.installed import EXPORTS

    modules = tmp_path / "node_modules"
    (modules / "http-errorz" / "lib").mkdir(parents=True)
    (modules / "http-errorz" / "package.json").write_text('{"main": "lib/main.js"}')
    (modules / "http-errorz" / "lib" / "main.js").write_text("module.exports = create;\nmodule.exports.HttpError = class {};\n")
    (modules / "on-finished").mkdir()
    files = {"src/a.js": "const path = require('path')\nfunction local() {}\nmodule.exports = { local }\n"}
    service = CompletionService(project=_project(tmp_path, files))
    assert EXPORTS.wait(str(tmp_path / "src"), False)  # read on a thread: a request would find none yet
    uri = (tmp_path / "src" / "b.js").as_uri()
    context = context_at(service.open(uri, "javascript", 1, "let x = 1\nh"), len("let x = 1\nh"))
    found = service.auto_import.signals(context, ["HttpError", "create", "onFinished", "httpErrorz", "local", "hidden"])
    for name in ("HttpError", "create", "onFinished", "httpErrorz"):  # exported by name, the default, packages
        assert found[name][3] == 1.0, name
    assert found["local"][1] == 1.0 and found["local"][3] == 0.0  # a project file's, not a package's
    assert "hidden" not in found


def _node_modules(root, names):
    for name in names:
        (root / "node_modules" / name).mkdir(parents=True)
        (root / "node_modules" / name / "package.json").write_text('{"main": "main.js"}')
        (root / "node_modules" / name / "main.js").write_text(f"exports.{name.replace('@scope/', '')}Thing = 1;\n")


def test_only_the_packages_a_package_json_depends_on_are_offered(tmp_path):
    from treecomplete.sources import installed

    _node_modules(tmp_path, ("aaa", "bbb", "@scope/wanted"))  # aaa and bbb: what the dependencies depend on
    (tmp_path / "package.json").write_text('{"dependencies": {"@scope/wanted": "^1.0.0"}, "devDependencies": {"bbb": "1"}}')
    found = installed.EXPORTS.wait(str(tmp_path / "src"), False)
    assert found == {"wantedThing": [("@scope/wanted", "wantedThing")], "bbbThing": [("bbb", "bbbThing")]}
    assert installed.installed(str(tmp_path / "src"), False) == {"wanted": "@scope/wanted", "bbb": "bbb"}


@pytest.mark.parametrize("manifest, marker", [
    ('{"workspaces": ["packages/*"], "devDependencies": {"@scope/wanted": "1"}}', None),
    ('{"devDependencies": {"@scope/wanted": "1"}}', "lerna.json"),  # a root that a file beside package.json marks
])
def test_a_monorepo_root_offers_every_package_its_dependencies_read_first(tmp_path, monkeypatch, manifest, marker):
    from treecomplete.sources import installed

    monkeypatch.setattr(installed, "MAX_PACKAGES", 2)  # a tree of 700 packages, read 400
    _node_modules(tmp_path, ("aaa", "bbb", "ccc", "@scope/wanted"))
    (tmp_path / "package.json").write_text(manifest)
    if marker:
        (tmp_path / marker).write_text('{"packages": ["packages/*"]}')
    found = installed.EXPORTS.wait(str(tmp_path / "packages" / "app"), False)
    assert found["wantedThing"] == [("@scope/wanted", "wantedThing")]  # scoped, so listed last, but depended on
    assert "aaaThing" in found and "bbbThing" not in found and "cccThing" not in found  # then the first others


@pytest.mark.parametrize("marker", ["REQUESTED", "conda"])
def test_a_python_environments_packages_the_user_asked_for_are_read_first(tmp_path, monkeypatch, marker):
    from treecomplete.sources import installed

    monkeypatch.setattr(installed, "MAX_PACKAGES", 2)  # a conda environment of 600 modules, read 400
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    for module in ("aaa", "bbb", "zzz"):  # zzz: what the user installed, after the cut by name
        (site / module).mkdir(parents=True)
        (site / module / "__init__.py").write_text(f"class {module.title()}Thing:\n    pass\n")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    info = site / "Zzz_Tools-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: Zzz_Tools\nVersion: 1.0\n")
    (info / "RECORD").write_text("zzz/__init__.py,,\nZzz_Tools-1.0.dist-info/METADATA,,\n../../../bin/zzz,,\n")
    if marker == "REQUESTED":  # pip and uv: named on their command line
        (info / "REQUESTED").write_text("")
    else:  # conda: in its history's specs
        (tmp_path / ".venv" / "conda-meta").mkdir()
        (tmp_path / ".venv" / "conda-meta" / "history").write_text(
            "==> 2026-11-01 <==\n# cmd: conda install zzz-tools\n+conda-forge::zzz-tools-1.0-py_0\n"
            "# update specs: ['python=3.11', \"conda-forge::zzz.tools[version='>=1']\"]\n")
    found = installed.EXPORTS.wait(str(tmp_path / "src"), True)
    assert set(found) == {"AaaThing", "ZzzThing"}  # then the first of the others


def test_a_package_installed_or_removed_while_the_server_runs_is_read_again(tmp_path, monkeypatch):
    import os
    import shutil

    from treecomplete.sources import installed

    monkeypatch.setattr(installed, "CHECK", 0.0)  # look at the folders at every request
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"

    def package(folder: Path, module: str, text: str, later: int) -> None:
        (folder / module).mkdir(parents=True)
        (folder / module / text.split(":")[0]).write_text(text.split(":", 1)[1])
        os.utime(folder, (time.time() + later,) * 2)  # as an install does, in a later tick than the read

    folder = str(tmp_path / "src")
    assert installed.installed(folder, True) == {} and installed.EXPORTS.wait(folder, True) == {}
    package(site, "aaa", "__init__.py:def aaa_run():\n    pass\n", 0)  # python -m venv .venv && pip install aaa
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    assert "aaa_run" in installed.EXPORTS.wait(folder, True)
    package(site, "bbb", "__init__.py:def bbb_run():\n    pass\n", 10)  # pip install bbb
    assert set(installed.installed(folder, True)) == {"aaa", "bbb"}
    assert set(installed.EXPORTS.wait(folder, True)) == {"aaa_run", "bbb_run"}
    shutil.rmtree(site / "aaa")  # pip uninstall aaa
    os.utime(site, (time.time() + 20,) * 2)
    assert set(installed.EXPORTS.wait(folder, True)) == {"bbb_run"} and set(installed.installed(folder, True)) == {"bbb"}

    project = tmp_path / "web"  # npm install: a folder in node_modules (or in a scope's), package.json's dependencies
    _node_modules(project, ("aaa", "@scope/bbb"))
    assert set(installed.EXPORTS.wait(str(project), False)) == {"aaaThing", "bbbThing"}
    _node_modules(project, ("@scope/ccc",))  # node_modules' own entries are unchanged
    os.utime(project / "node_modules" / "@scope", (time.time() + 10,) * 2)
    assert set(installed.EXPORTS.wait(str(project), False)) == {"aaaThing", "bbbThing", "cccThing"}
    (project / "package.json").write_text('{"dependencies": {"aaa": "1", "@scope/ccc": "1"}}')
    assert set(installed.EXPORTS.wait(str(project), False)) == {"aaaThing", "cccThing"}
    assert installed.installed(str(project), False) == {"aaa": "aaa", "ccc": "@scope/ccc"}


def test_unimported_library_names_are_offered_with_their_import():
    service = CompletionService(project=ProjectIndex())
    items = _complete(service, "file:///t/new.py", "x = 1\nOrderedD")
    assert [e.new_text for e in items["OrderedDict"].additional_text_edits] == ["from collections import OrderedDict\n"]


def test_a_standard_member_is_offered_from_a_module_never_from_a_receiver(tmp_path):
    # real code reads os.environ.get, sys.modules.get and datetime.datetime: no `from os.environ import get`
    here = str((tmp_path / "new.py").resolve())
    modules = {name: [o.module for o in offers(name, PYTHON, None, here)] for name in ("get", "datetime", "find_spec")}
    assert modules["get"] == []
    assert modules["datetime"] == ["datetime"]  # `import datetime`, `from datetime import datetime`
    assert modules["find_spec"] == ["importlib.util"]  # a submodule's file


def test_what_a_standard_module_declares_is_offered_where_nothing_else_knows_the_name(tmp_path):
    here = str((tmp_path / "new.py").resolve())
    modules = {name: [o.module for o in offers(name, PYTHON, None, here)] for name in ("cast", "field", "TYPE_CHECKING", "operator")}
    assert modules["cast"][0] == "typing" and modules["field"] == ["dataclasses"] and modules["TYPE_CHECKING"] == ["typing"]
    assert modules["operator"] == ["operator"]  # known from real code's imports: not ast's class as well


def test_a_node_submodules_names_are_offered_from_it_and_a_globals_name_only_as_real_code_imports_it(tmp_path):
    here = str((tmp_path / "new.js").resolve())
    modules = {name: [o.module for o in offers(name, JAVASCRIPT, None, here)] for name in ("readFile", "mkdir", "setTimeout", "Buffer")}
    assert modules["readFile"] == ["fs/promises", "fs"]  # real code imports it from fs/promises, reads fs.readFile
    assert modules["mkdir"][0] == "fs/promises"
    assert modules["setTimeout"] == []  # the global, though code reads timers/promises' setTimeout
    assert modules["Buffer"] == ["buffer"]  # the global, which real code imports from buffer too


def test_a_python_builtin_comes_without_an_import():
    service = CompletionService(project=ProjectIndex())
    for typed, name in (("x = le", "len"), ("x = op", "open"), ("pri", "print")):
        items = [i for i in _complete_all(service, "file:///t/new.py", "x = 1\n" + typed) if i.label == name]
        assert len(items) == 1 and not items[0].additional_text_edits, (name, items)  # not `from builtins import len`


def test_a_javascript_name_a_project_file_exports_with_the_extension_the_file_writes(tmp_path):
    index = _project(tmp_path, {"lib/command.js": "export class Command {}\nclass Hidden {}\n",
                                "lib/option.js": "exports.Option = class {};\n",
                                "index.js": "import { Option } from './lib/option.js';\n",
                                "lib/helpers.js": "function isFunction(x) {}\nconst helpers = { isFunction };\n"
                                                  "module.exports = helpers;\n",
                                "other.js": "const x = 1;\n"})
    here = str((tmp_path / "index.js").resolve())
    snapshot = index.snapshot(JAVASCRIPT, here)
    assert offers("Command", JAVASCRIPT, snapshot, here)[0] == Offer("Command", "./lib/command.js", "Command", "project")
    assert offers("Hidden", JAVASCRIPT, snapshot, here) == []  # not exported
    other = str((tmp_path / "other.js").resolve())
    assert offers("Command", JAVASCRIPT, snapshot, other)[0].module == "./lib/command"  # no extension written there
    # an object's keys, the object exported as the module
    assert offers("isFunction", JAVASCRIPT, snapshot, other)[0] == Offer("isFunction", "./lib/helpers", "isFunction", "project")


def test_one_file_written_two_ways_is_one_offer(tmp_path):
    # src/constants.js imported through package.json's `imports` by two files, relative by one,
    # without its extension by another: one offer of it, then the other module that binds the name
    index = _project(tmp_path, {"package.json": '{"imports": {"#client/*": "./src/*.js"}}',
                                "src/constants.js": "export const RAN = 1;\n", "src/other.js": "export const RAN = 2;\n",
                                "src/a.js": "import { RAN } from '#client/constants';\n",
                                "src/b.js": "import { RAN } from '#client/constants';\n",
                                "src/c.js": "import { RAN } from './constants.js';\n",
                                "src/d.js": "import { RAN } from './constants';\n",
                                "src/e.js": "import { RAN } from './other.js';\n"})
    here = str((tmp_path / "src" / "new.js").resolve())
    found = offers("RAN", JAVASCRIPT, index.snapshot(JAVASCRIPT, here), here)
    assert [o.module for o in found] == ["#client/constants", "./other.js"]


def test_a_typescript_file_is_imported_with_the_extension_its_importer_writes(tmp_path):
    index = _project(tmp_path, {"src/router.ts": "export class Router {}\n", "src/b.ts": "export const x = 1;\n",
                                "src/a.ts": "import { x } from './b.js';\n",  # Node's resolution: .js for b.ts
                                "src/c.ts": "import { x } from './b.ts';\n"})  # allowImportingTsExtensions
    for importer, module in (("a.ts", "./router.js"), ("c.ts", "./router.ts")):
        here = str((tmp_path / "src" / importer).resolve())
        assert offers("Router", TYPESCRIPT, index.snapshot(TYPESCRIPT, here), here)[0].module == module


def test_a_scoped_package_is_written_as_its_name_and_a_default_export_is_imported_as_the_default(tmp_path):
    index = _project(tmp_path, {"js/a.js": "import Popper from '@popperjs/core';\n",
                                "js/b.js": "import Popper from '@popperjs/core';\n",
                                "helpers/fromURI.js": "export default function fromURI(uri) {}\n"})
    here = str((tmp_path / "js" / "new.js").resolve())
    snapshot = index.snapshot(JAVASCRIPT, here)
    assert offers("Popper", JAVASCRIPT, snapshot, here)[0] == Offer("Popper", "@popperjs/core", "", "project", 2)
    # the file's default export: `import fromURI from`, not `import { fromURI } from`
    assert [(o.module, o.imported) for o in offers("fromURI", JAVASCRIPT, snapshot, here)] == [("../helpers/fromURI", "")]


def test_a_javascript_default_export_is_offered_under_the_name_it_has_in_its_file(tmp_path):
    index = _project(tmp_path, {"lib/request.js": "var req = Object.create(null);\nmodule.exports = req;\n",
                                "lib/express.js": "exports = module.exports = createApplication;\nfunction createApplication() {}\n",
                                "lib/router.js": "class Router {}\nexport default Router;\n",
                                "lib/two.js": "module.exports = a;\nmodule.exports = b;\n",
                                "lib/traverse.js": "var traverse = module.exports = function (schema, cb) {};\n",
                                "lib/application.js": "var app = exports = module.exports = {};\napp.init = function () {};\n",
                                "lib/app.js": "const x = 1;\n"})
    here = str((tmp_path / "lib" / "app.js").resolve())
    snapshot = index.snapshot(JAVASCRIPT, here)
    assert offers("req", JAVASCRIPT, snapshot, here) == [Offer("req", "./request", "", "project")]
    assert offers("createApplication", JAVASCRIPT, snapshot, here)[0] == Offer("createApplication", "./express", "", "project")
    assert offers("Router", JAVASCRIPT, snapshot, here)[0] == Offer("Router", "./router", "", "project")
    assert offers("a", JAVASCRIPT, snapshot, here) == []  # two default exports: neither name is the module's
    assert offers("traverse", JAVASCRIPT, snapshot, here) == [Offer("traverse", "./traverse", "", "project")]
    assert offers("app", JAVASCRIPT, snapshot, here) == [Offer("app", "./application", "", "project")]
    mine = str((tmp_path / "lib" / "request.js").resolve())
    assert offers("req", JAVASCRIPT, snapshot, mine) == []  # not from itself


def test_a_packages_own_main_file_is_offered_under_the_packages_name(tmp_path):
    # `const semver = require('../')` in the package's bin script: its main file exports an
    # object (no name of its own), which the package's own files import under the package's name
    index = _project(tmp_path, {"package.json": '{"name": "@acme/semver-tools", "main": "lib/main.js"}',
                                "lib/main.js": "module.exports = { parse, valid };\n",
                                "lib/parse.js": "module.exports = function parse() {};\n",
                                "bin/cli.js": "const x = 1;\n"})
    here = str((tmp_path / "bin" / "cli.js").resolve())
    snapshot = index.snapshot(JAVASCRIPT, here)
    assert offers("semverTools", JAVASCRIPT, snapshot, here) == [Offer("semverTools", "../lib/main", "", "project")]
    assert offers("semver", JAVASCRIPT, snapshot, here) == []
    main = str((tmp_path / "lib" / "main.js").resolve())
    assert offers("semverTools", JAVASCRIPT, snapshot, main) == []  # not from itself
    # the folder above's index, as its own files write it
    index = _project(tmp_path / "b", {"package.json": '{"name": "tool"}', "index.js": "module.exports = {};\n",
                                      "lib/a.js": "const tool = require('..');\n", "lib/b.js": "const y = 1;\n"})
    here = str((tmp_path / "b" / "lib" / "b.js").resolve())
    assert [o.module for o in offers("tool", JAVASCRIPT, index.snapshot(JAVASCRIPT, here), here)] == [".."]


def test_a_file_is_never_offered_as_an_import_of_itself(tmp_path):
    # two files import lib/platform/index.js' default export as `platform`, written with and
    # without its `/index.js`: in that file the name has no import (`./index.js` is itself)
    index = _project(tmp_path, {"lib/platform/index.js": "import platform from './node/index.js';\n"
                                                         "export default { ...platform };\n",
                                "lib/platform/node/index.js": "export default {};\n",
                                "lib/a.js": "import platform from './platform/index.js';\n",
                                "lib/b.js": "import platform from './platform';\n"})
    mine = str((tmp_path / "lib" / "platform" / "index.js").resolve())
    assert offers("platform", JAVASCRIPT, index.snapshot(JAVASCRIPT, mine), mine) == []
    here = str((tmp_path / "lib" / "c.js").resolve())
    found = [(o.module, o.imported) for o in offers("platform", JAVASCRIPT, index.snapshot(JAVASCRIPT, here), here)]
    assert found[0] in (("./platform", ""), ("./platform/index.js", "")) and found[1:] == [("./platform/node/index.js", "")]
    # Python: a package's __init__.py imports no name from the package it makes, but its submodules
    index = _project(tmp_path, {"pkg/__init__.py": "from .core import Thing\n", "pkg/core.py": "class Thing:\n    pass\n",
                                "pkg/a.py": "from pkg import Thing\n", "pkg/b.py": "from . import Thing, core\n",
                                "pkg/sub/__init__.py": "", "pkg/sub/m.py": "from pkg.sub import helper\n"})
    init = str((tmp_path / "pkg" / "__init__.py").resolve())
    snapshot = index.snapshot(PYTHON, init)
    assert [(o.module, o.imported) for o in offers("Thing", PYTHON, snapshot, init)] == [(".core", "Thing")]
    assert [(o.module, o.imported) for o in offers("core", PYTHON, snapshot, init)][0] == (".", "core")
    sub = str((tmp_path / "pkg" / "sub" / "__init__.py").resolve())
    assert offers("helper", PYTHON, index.snapshot(PYTHON, sub), sub) == []
    assert [(o.module, o.imported) for o in offers("Thing", PYTHON, index.snapshot(PYTHON, sub), sub)][0] == ("pkg", "Thing")


def test_a_file_that_defines_a_name_is_offered_before_an_index_that_exports_it_again(tmp_path):
    # runtime.js after index.js: read first, the index would be offered first
    index = _project(tmp_path, {"src/index.js": "export { next, reset } from './runtime.js';\n"
                                                "import Status from './status.js';\nimport { tag } from './tag.js';\n"
                                                "export { Status, tag };\nexport const own = 1;\n",
                                "src/runtime.js": "export function next() {}\nexport function reset() {}\n",
                                "src/status.js": "const Status = {};\nexport default Status;\n",
                                "src/tag.js": "export const tag = 1;\n",
                                "src/blocks/html.js": "const x = 1;\n",
                                # what it takes from its imports: destructured, and a member under a key
                                "all.js": "import client from './src/client.js';\nconst { Axios } = client;\n"
                                          "const ids = require('./src/ids');\n"
                                          "module.exports = { Axios, compare: ids.compare };\n",
                                "src/client.js": "export default {};\n", "src/ids.js": "exports.compare = () => 0;\n",
                                "src/core/Axios.js": "export default Axios;\n"})
    here = str((tmp_path / "src" / "blocks" / "html.js").resolve())
    snapshot = index.snapshot(JAVASCRIPT, here)
    assert [(o.module, o.imported) for o in offers("next", JAVASCRIPT, snapshot, here)] == \
        [("../runtime", "next"), ("../index", "next")]
    assert [(o.module, o.imported) for o in offers("Axios", JAVASCRIPT, snapshot, here)] == \
        [("../core/Axios", ""), ("../../all", "Axios")]
    assert [o.module for o in offers("compare", JAVASCRIPT, snapshot, here)] == ["../ids", "../../all"]
    # the index imports it from a file's default export: as the index imports it, then from the index
    assert [(o.module, o.imported) for o in offers("Status", JAVASCRIPT, snapshot, here)] == \
        [("../status.js", ""), ("../index", "Status")]
    assert [o.module for o in offers("tag", JAVASCRIPT, snapshot, here)] == ["../tag.js", "../index"]
    assert [o.module for o in offers("own", JAVASCRIPT, snapshot, here)] == ["../index"]  # defined there


def test_a_keyword_that_is_a_name_too_is_offered_with_its_import_where_the_project_imports_it(tmp_path):
    files = {"runtime.js": "export function get(s) {}\nexport function set(s, v) {}\n",
             "a.js": "import { get, set } from './runtime.js';\n", "b.js": "import { get } from './runtime.js';\n"}
    index = _project(tmp_path, files)
    service = CompletionService(project=index)
    uri = (tmp_path / "new.js").as_uri()
    text = "function f(s) {\n  return ge"
    doc = service.open(uri, "javascript", 1, text)
    items = completion_list(doc, service.complete(uri, 1, 11, 50), 50).items
    got = [i for i in items if i.label == "get"]
    assert [e.new_text for i in got for e in i.additional_text_edits or ()] == ["import { get } from './runtime.js';\n"]
    # `static` is imported nowhere: the keyword stays a keyword, with no import
    doc = service.open(uri, "javascript", 2, "class A {\n  sta")
    items = completion_list(doc, service.complete(uri, 1, 5, 50), 50).items
    assert all(not i.additional_text_edits for i in items if i.label == "static")


def test_a_name_written_past_the_limit_is_taken_as_bound_at_a_bounded_cost():
    data = ("print(Path)\n" * (MAX_OCCURRENCES + 5)).encode()
    assert not bound_in(data[:2000], PYTHON, "Path", tree=PYTHON.parser().parse(data[:2000]))
    assert bound_in(data, PYTHON, "Path")  # read no further: no import offered


def test_what_an_installed_package_exports_is_offered_once_read(tmp_path):
    from treecomplete.sources.installed import Exports

    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "markupx").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (site / "markupx" / "__init__.py").write_text("from .core import Markup as Markup\nfrom typing import Any\n\ndef escape(s):\n    pass\n")
    (site / "pip").mkdir()
    (site / "pip" / "__init__.py").write_text("def main():\n    pass\n")
    modules = tmp_path / "web" / "node_modules" / "http-errorz"
    modules.mkdir(parents=True)
    (modules / "package.json").write_text('{"main": "lib/main.js"}')
    (modules / "lib").mkdir()
    (modules / "lib" / "main.js").write_text("module.exports = create;\nmodule.exports.HttpError = class {};\nfunction hidden() {}\n")
    exports = Exports()
    assert exports.of(str(tmp_path / "src"), True) == {}  # read on a thread: nothing yet, no wait
    python = exports.wait(str(tmp_path / "src"), True)  # what the tools that gather lists wait for
    assert exports.wait(str(tmp_path / "web"), False) and exports.of(str(tmp_path / "src"), True) is python
    assert python == {"Markup": [("markupx", "Markup")], "escape": [("markupx", "escape")]}  # not typing's Any, not pip's
    # by name, and the default export under the name it has in the package (`const create = require('http-errorz')`)
    assert exports.of(str(tmp_path / "web"), False) == {"HttpError": [("http-errorz", "HttpError")], "create": [("http-errorz", "")]}
    assert exports.starting(str(tmp_path / "src"), True, "ma", 5) == ["Markup"]


def test_a_python_files_packages_come_from_its_environment_as_the_libraries_find_it(tmp_path, monkeypatch):
    from treecomplete.sources import installed

    def env(prefix: Path, module: str) -> Path:
        (prefix / "lib" / "python3.11" / "site-packages" / module).mkdir(parents=True)
        (prefix / "lib" / "python3.11" / "site-packages" / module / "__init__.py").write_text("def run():\n    pass\n")
        (prefix / "pyvenv.cfg").write_text("home = /usr\n")
        return prefix

    folder = str(tmp_path / "project" / "src")
    outside = env(tmp_path / "poetry" / "project-py3.11", "outsidex")  # a virtualenv outside the project
    conda = env(tmp_path / "conda", "condax")
    assert installed.installed(folder, True) == {}  # none named: not the server's own packages
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # nor where a shell names them (its venv active)
    installed.forget_environments()
    assert installed.installed(folder, True) == {}
    monkeypatch.setenv("CONDA_PREFIX", str(conda))
    installed.forget_environments()
    assert installed.installed(folder, True) == {"condax": "condax"}
    installed.set_python_path(str(outside / "bin" / "python"))  # the pythonPath setting comes first
    try:
        assert installed.installed(folder, True) == {"outsidex": "outsidex"}
        assert offers("outsidex", PYTHON, None, folder + "/a.py") == [Offer("outsidex", "outsidex", "", "library")]
        env(tmp_path / "project" / ".venv", "venvx")
        installed.forget_environments()
        assert installed.installed(folder, True) == {"outsidex": "outsidex"}
    finally:
        installed.set_python_path("")
    assert installed.installed(folder, True) == {"venvx": "venvx"}  # else a .venv above the file


def test_a_packages_exports_are_read_from_its_exports_entry_and_the_files_it_exports_everything_of(tmp_path):
    from treecomplete.sources.package_exports import javascript_exports

    modules = tmp_path / "node_modules"
    files = {
        # no `main`: the entry for `.` under `require` (a types file is not a script)
        "walker/package.json": '{"exports": {".": {"require": {"types": "./t.d.ts", "default": "./dist/index.js"}}}}',
        "walker/dist/index.js": "export * from './walk.js';\nexport { print } from './print.js';\n",
        "walker/dist/walk.js": "export function walk() {}\nexport * from './deep/index.js';\nexport * from '../../other/x.js';\n",
        "walker/dist/deep/index.js": "export const Visitor = 1;\n",
        "other/x.js": "export const outside = 1;\n",  # another package's file: never read
        # TypeScript compiled to CommonJS
        "builder/package.json": '{"main": "./build/index.js"}',
        "builder/build/index.js": 'Object.defineProperty(exports, "__esModule", { value: true });\n'
                                  'Object.defineProperty(exports, "Kind", { enumerable: true, get: function () { return k.Kind; } });\n'
                                  '__exportStar(require("./type"), exports);\n',
        "builder/build/type.js": "exports.TypeBuilder = exports.Type = void 0;\n",
    }
    for name, text in files.items():
        (modules / name).parent.mkdir(parents=True, exist_ok=True)
        (modules / name).write_text(text)
    assert [n for n, _ in javascript_exports(modules / "walker")] == ["Visitor", "print", "walk"]
    assert [n for n, _ in javascript_exports(modules / "builder")] == ["Kind", "Type", "TypeBuilder"]
    (modules / "builder" / "build" / "index.js").write_text("module.exports = Builder;\n")
    assert javascript_exports(modules / "builder") == [("Builder", "")]  # the default, under its name there
    assert javascript_exports(modules / "missing") == []


def test_a_python_package_exports_what_it_imports_everything_of_from_its_own_modules(tmp_path):
    from treecomplete.sources.package_exports import python_exports

    files = {"itertoolz/__init__.py": "from .more import *\nfrom .recipes import *\nfrom os import *\n__version__ = '1'\n",
             "itertoolz/more.py": "__all__ = ['chunked', 'windowed']\ndef chunked(): pass\ndef _hidden(): pass\n",
             "itertoolz/recipes/__init__.py": "def take(n): pass\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    # os's names are another package's; a module's __all__ is what it exports
    assert [n for n, _ in python_exports(tmp_path / "itertoolz")] == ["chunked", "take", "windowed"]


def test_a_scoped_package_is_offered_under_the_name_after_its_scope(tmp_path):
    from treecomplete.sources.installed import installed

    modules = tmp_path / "node_modules"
    for package in ("@sinonjs/samsam", "@types/samsam", "@babel/core", "core"):
        (modules / package).mkdir(parents=True)
    (tmp_path / "src").mkdir()
    here = str(tmp_path / "src" / "a.js")
    # the unscoped package keeps its name; a type package is no import
    assert installed(str(tmp_path / "src"), False) == {"samsam": "@sinonjs/samsam", "core": "core"}
    assert offers("samsam", JAVASCRIPT, None, here) == [Offer("samsam", "@sinonjs/samsam", "", "library")]


def test_the_folders_of_one_environment_share_one_read_of_its_exports(tmp_path):
    from treecomplete.sources.installed import Exports

    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "markupx").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (site / "markupx" / "__init__.py").write_text("def escape(s):\n    pass\n")
    exports = Exports()
    for _ in range(200):
        if exports.of(str(tmp_path / "src"), True):
            break
        time.sleep(0.02)
    read = exports.of(str(tmp_path / "src"), True)
    assert read == {"escape": [("markupx", "escape")]}
    assert exports.of(str(tmp_path / "src" / "deep" / "er"), True) is read  # no second read, no wait
    assert exports.starting(str(tmp_path / "docs"), True, "es", 5) == ["escape"]
    assert exports.of(str(tmp_path.parent), True) == {}  # no environment above: nothing read
    exports.clear()
    assert exports.of(str(tmp_path / "src"), True) == {}  # forgotten: read again on a thread


def test_a_binding_read_in_one_function_is_read_again_in_another(tmp_path):
    index = _project(tmp_path, {"a.py": "from os import path\n"})
    service = CompletionService(project=index)
    uri = (tmp_path / "b.py").as_uri()
    head = "def f(path):\n    return pat"
    inside = _complete(service, uri, head)
    assert not inside["path"].additional_text_edits  # f's parameter
    elsewhere = _complete(service, uri, head + "x\n\n\ndef g():\n    return pat")  # "path" not typed between
    assert [e.new_text for e in elsewhere["path"].additional_text_edits] == ["from os import path\n"]


def test_a_module_read_before_a_dot_however_often_is_not_taken_as_bound():
    data = ("x: t.Any = t.cast(int, 1)\n" * (MAX_OCCURRENCES + 50)).encode()
    assert not bound_in(data, PYTHON, "t", (len(data), len(data) + 1), PYTHON.parser().parse(data))


def test_a_name_of_another_workspace_package_is_imported_by_the_package_s_name(tmp_path: Path):
    # a monorepo (npm, yarn or pnpm workspaces): packages/* linked into node_modules by name
    _tree(tmp_path, {"package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"]}',
                     "packages/core/package.json": '{"name": "@org/core", "main": "src/index.js"}',
                     "packages/core/src/index.js": "export function formatMoney(x) {}\nexport class Ledger {}\n",
                     "packages/core/src/extra.js": "export function parseMoney(x) {}\n",
                     "packages/core/src/local.js": "export const here = 1\n",
                     "packages/ui/package.json": '{"name": "@org/ui", "exports": {".": "./index.js"}}',
                     "packages/ui/index.js": "export function drawButton() {}\n",
                     "packages/ui/theme.js": "export function themeColor() {}\n",
                     "packages/app/package.json": '{"name": "@org/app"}',
                     "packages/app/src/other.js": "import { Ledger } from '@org/core'\n",
                     "packages/app/src/util.js": "export function appUtil() {}\n"})
    (tmp_path / "node_modules" / "@org").mkdir(parents=True)
    for name in ("core", "ui"):
        (tmp_path / "node_modules" / "@org" / name).symlink_to(tmp_path / "packages" / name)
    index = _indexed(tmp_path)
    page = str((tmp_path / "packages" / "app" / "src" / "main.js").resolve())

    def modules(name: str, path: str = page) -> list[str]:
        return [o.module for o in offers(name, JAVASCRIPT, index.snapshot(JAVASCRIPT, path), path)]

    assert modules("formatMoney") == ["@org/core"]  # its entry: by name, not '../../core/src/index'
    assert modules("Ledger") == ["@org/core"]  # one offer: another file imports it so
    assert modules("parseMoney") == ["@org/core/src/extra"]  # a file beside the entry, no `exports` to forbid it
    assert modules("drawButton") == ["@org/ui"]
    assert modules("themeColor") == ["../../ui/theme"]  # `exports` has no such subpath: as before
    assert modules("appUtil") == ["./util"]  # the same package: relative
    beside = str((tmp_path / "packages" / "core" / "src" / "new.js").resolve())
    assert modules("here", beside) == ["./local"]


def test_no_relative_import_climbs_out_of_a_python_package(tmp_path: Path):
    # a uv workspace: core's __init__.py imports Ledger relatively, which app's files cannot do
    _tree(tmp_path, {"pyproject.toml": "[tool.uv.workspace]\nmembers = ['packages/*']\n",
                     "packages/core/pyproject.toml": "[project]\nname = 'core'\n",
                     "packages/core/src/core/__init__.py": "from .ledger import Ledger\n",
                     "packages/core/src/core/ledger.py": "class Ledger:\n    pass\n",
                     "packages/core/src/core/audit.py": "",
                     "packages/app/pyproject.toml": "[project]\nname = 'app'\n",
                     "packages/app/src/app/__init__.py": ""})
    index = _indexed(tmp_path)

    def modules(name: str, path: Path) -> list[str]:
        path = str(path.resolve())
        return [o.module for o in offers(name, PYTHON, index.snapshot(PYTHON, path), path)]

    assert modules("Ledger", tmp_path / "packages" / "app" / "src" / "app" / "main.py") == ["core.ledger"]  # not '....core.src.core.ledger'
    assert modules("Ledger", tmp_path / "packages" / "core" / "src" / "core" / "audit.py") == [".ledger"]  # within the package, as its files write it


def test_a_package_installed_editable_offers_its_modules_and_exports(tmp_path: Path):
    from treecomplete.sources import installed
    from treecomplete.sources.installed import Exports

    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    core = tmp_path / "packages" / "core" / "src" / "ledgerx"  # a workspace member, `pip install -e packages/core`
    core.mkdir(parents=True)
    (core / "__init__.py").write_text("from .books import Ledger as Ledger\n")
    (core / "books.py").write_text("class Ledger:\n    pass\n")
    (site / "_ledgerx.pth").write_text(str(core.parent) + "\n")
    folder = str(tmp_path / "app")
    installed.forget_environments()
    assert installed.installed(folder, True) == {"ledgerx": "ledgerx"}
    assert Exports().wait(folder, True) == {"Ledger": [("ledgerx", "Ledger")]}
    assert offers("ledgerx", PYTHON, None, folder + "/a.py") == [Offer("ledgerx", "ledgerx", "", "library")]


@pytest.mark.parametrize("language", ["python", "javascript", "typescript"])
def test_an_untitled_buffer_lists_its_own_names(language):
    """A buffer never saved (an editor's untitled:Untitled-1) lies in no folder: no installed
    package is looked for, and a name of its own is listed with no import."""
    service = CompletionService()
    code = "value = 1\nprint(va" if language == "python" else "const value = 1\nconsole.log(va"
    service.open("untitled:Untitled-1", language, 1, code)
    found = {c.text: c for c in service.complete("untitled:Untitled-1", 1, len(code.splitlines()[1]), 50).candidates}
    assert "value" in found and found["value"].auto_import is None
