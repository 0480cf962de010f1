"""benchmarks.editing's `--select imported-member`: members of what the file imports, not of a
local object that takes an imported name's place; `--select imported-name`: its positions, and
which import edits count as right."""

from __future__ import annotations

from benchmarks.editing import collect
from benchmarks.imported_names import edit_binding, right_edit
from lsprotocol import types
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.receivers import Target

JS = """const context = require('./context');
context.inspect();
function createContext(app) {
  const context = Object.create(app.context);
  context.state = {};
  return context;
}
context.toJSON();
"""

PY = """import os
os.getcwd()
def f(os):
    return os.sep
def g():
    for os in []:
        os.name
    return os.path
"""


def test_imported_members_leave_out_receivers_a_function_binds_again(tmp_path):
    js = tmp_path / "app.js"
    js.write_text(JS)
    assert [s.name for s in collect([js], JAVASCRIPT, "javascript", "imported-member")] == ["inspect", "toJSON"]
    py = tmp_path / "app.py"
    py.write_text(PY)
    assert [s.name for s in collect([py], PYTHON, "python", "imported-member")] == ["getcwd"]


def test_called_members_are_those_after_a_call_of_a_project_function(tmp_path):
    js = tmp_path / "app.js"
    js.write_text("import { current } from './batch.js';\nimport fs from 'fs';\n"
                  "current().flush();\nconst b = current();\nb.settle();\nfs.readFileSync('x').length;\n")
    assert [s.name for s in collect([js], JAVASCRIPT, "javascript", "called-member")] == ["flush", "settle"]


def test_imported_names_leave_out_import_statements_and_names_another_import_binds(tmp_path):
    # `argument` of the nested import's module is no use of the name; Config stays bound by the
    # import under TYPE_CHECKING once the top-level imports are dropped
    py = tmp_path / "app.py"
    py.write_text("from cleo.helpers import argument\nfrom poetry.config import Config\nimport os\n"
                  "if TYPE_CHECKING:\n    from cleo.io.inputs.argument import Argument\n    from tests.conftest import Config\n"
                  "x = argument('a')\ny: Config = os.getcwd()\n")
    found = collect([py], PYTHON, "python", "imported-name", drop_imports=True)
    assert sorted(s.name for s in found) == ["argument", "os"]
    assert all(b"from cleo.helpers" not in s.data and b"from cleo.io" in s.data for s in found)


def test_an_import_edit_is_right_where_it_binds_the_name_to_the_same_file(tmp_path):
    # `#client/constants` is the file package.json's `imports` maps it to: ./src/constants.js
    (tmp_path / "package.json").write_text('{"imports": {"#client/*": "./src/*.js"}}')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "constants.js").write_text("export const RAN = 1;\n")
    here = tmp_path / "src" / "runtime.js"

    def item(text: str) -> types.CompletionItem:
        edit = types.TextEdit(types.Range(types.Position(0, 0), types.Position(0, 0)), text)
        return types.CompletionItem("RAN", additional_text_edits=[edit])

    target = Target("./constants.js", ("RAN",))
    assert right_edit(item("import { RAN } from '#client/constants';\n"), "RAN", target, here, False)
    assert right_edit(item("import { RAN } from './constants';\n"), "RAN", target, here, False)
    assert not right_edit(item("import { RAN } from '#client/other';\n"), "RAN", target, here, False)
    wrong = item("import { RAN } from './flags.js';\n")
    assert not right_edit(wrong, "RAN", target, here, False) and edit_binding(wrong, "RAN", False) == ("./flags.js", "RAN")
    assert edit_binding(item("import { OTHER } from './flags.js';\n"), "RAN", False) is None


def test_python_called_members_follow_a_call_of_a_function_a_relative_import_binds(tmp_path):
    py = tmp_path / "app.py"
    py.write_text("import os\nfrom .batch import current\nfrom pkg.other import made\n\n"
                  "current().flush()\nb = current()\nb.settle()\nc = current().again()\nc.skip\n"
                  "made().skip\nos.getcwd().skip\nd = current() + 1\nd.skip\n")
    assert [s.name for s in collect([py], PYTHON, "python", "called-member")] == ["flush", "settle", "again"]
