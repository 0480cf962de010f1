"""Where several project files define a name the file has not imported (server/sources/auto_import.py):
the nearest first, and before another module's importers where it is nearer than all of them."""

from __future__ import annotations

from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.sources.auto_import import offers

from .test_project import _indexed, _tree

_VISITOR = "export function Component(node) {\n  return node;\n}\n"


def _offered(tmp_path, files, language, name, here):
    _tree(tmp_path, files)
    index = _indexed(tmp_path)
    path = str((tmp_path / here).resolve())
    return [(o.module, o.imported) for o in offers(name, language, index.snapshot(language, path), path)]


def test_of_the_files_defining_a_name_none_imports_the_nearest_comes_first(tmp_path):
    files = {f"src/{part}/visitors/Component.js": _VISITOR for part in ("analyze", "client", "server")}
    found = _offered(tmp_path, files, JAVASCRIPT, "Component", "src/server/transform.js")
    assert found[0] == ("./visitors/Component", "Component")
    files = {"pkg/__init__.py": "", "pkg/a/__init__.py": "", "pkg/b/__init__.py": "",
             "pkg/a/nodes.py": "class Node:\n    pass\n", "pkg/b/nodes.py": "class Node:\n    pass\n"}
    found = _offered(tmp_path / "py", files, PYTHON, "Node", "pkg/b/new.py")
    assert found[0][0].endswith("b.nodes") and found[1][0].endswith("a.nodes")


def test_a_definer_nearer_than_every_file_importing_another_module_comes_first(tmp_path):
    # the client's and the analysis' visitors are imported there; the server's, below the new
    # file's folder, by no other file: it comes first beside it, the client's in the client
    files = {f"src/{part}/visitors/Component.js": _VISITOR for part in ("analyze", "client", "server")}
    files["src/client/transform.js"] = "import { Component } from './visitors/Component.js';\n"
    files["src/analyze/index.js"] = "import { Component } from './visitors/Component.js';\n"
    found = _offered(tmp_path, files, JAVASCRIPT, "Component", "src/server/transform.js")
    assert found[0] == ("./visitors/Component", "Component")
    assert {m for m, _ in found[1:]} == {"../client/visitors/Component.js", "../analyze/visitors/Component.js"}
    found = _offered(tmp_path, files, JAVASCRIPT, "Component", "src/client/other.js")
    assert found[0] == ("./visitors/Component.js", "Component")  # the client's, imported beside it


def test_a_definer_no_nearer_than_an_importing_file_stays_after_it(tmp_path):
    # a file beside the new one imports `set` from the runtime: that, not the nearer builder
    files = {"src/runtime/sources.js": "export function set(a, b) {}\n",
             "src/builders.js": "export function set(a, b) {}\n",
             "src/reactive/map.js": "import { set } from '../runtime/sources.js';\n",
             "src/compiler/x.js": "import { set } from '../builders.js';\n"}
    found = _offered(tmp_path, files, JAVASCRIPT, "set", "src/reactive/date.js")
    assert found[0] == ("../runtime/sources.js", "set")


def test_an_index_relaying_a_name_is_never_put_before_an_importer(tmp_path):
    # index.js re-exports Range, nearer to classes/comparator.js than the files importing range.js
    files = {"classes/range.js": "export class Range {}\n",
             "classes/index.js": "export { Range } from './range.js';\n",
             "ranges/outside.js": "import { Range } from '../classes/range.js';\n",
             "ranges/valid.js": "import { Range } from '../classes/range.js';\n",
             "lib/x.js": "import { Range } from 'other-ranges';\n"}
    found = _offered(tmp_path, files, JAVASCRIPT, "Range", "classes/comparator.js")
    assert found[0] == ("./range.js", "Range")
