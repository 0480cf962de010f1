"""benchmarks.editing's `--select imported-member`: members of what the file imports, not of a
local object that takes an imported name's place."""

from __future__ import annotations

from benchmarks.editing import collect
from treecomplete.languages import JAVASCRIPT, PYTHON

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
