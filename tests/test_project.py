"""The project index (server/sources/project.py): which files it reads, what it counts, and how the
fallback engine offers its words without reading the open document's future from disk."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from treecomplete.ranking import features

from treecomplete.sources import buffer
from treecomplete.engines.predictor import Answer, Prediction
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from treecomplete.sources.project import Snapshot
from treecomplete.sources.project_index import MAX_FILE_BYTES, ProjectIndex
from treecomplete.service import CompletionService

from .test_neural_ranking import StubPredictor


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _at_end(service: CompletionService, uri: str, language: str, text: str) -> list:
    """Open ``text`` and complete at its end: the candidates."""
    service.open(uri, language, 1, text)
    line, col = text.count("\n"), len(text) - text.rfind("\n") - 1
    return service.complete(uri, line, col, 50).candidates


def _indexed(root: Path, **kwargs) -> ProjectIndex:
    index = ProjectIndex(**kwargs)
    index.add_root(root)
    assert index.wait(30)
    return index


def test_it_counts_the_files_using_each_word_in_code(tmp_path):
    _tree(tmp_path, {
        "pkg/a.py": "def frobnicate(widget):\n    return widget.colour  # quoted_word\n",
        "pkg/b.py": "from pkg.a import frobnicate\nframe = frobnicate(None)\ns = 'in_a_string'\n",
        "web/c.js": "const frobnicate = require('x');\nfrobnicate.colour = 1;\n",
    })
    snapshot = _indexed(tmp_path).snapshot(PYTHON)
    assert snapshot.counts("frobnicate", None) == (2, 0)
    assert snapshot.counts("colour", None) == (1, 1)  # written after a dot
    assert snapshot.counts("quoted_word", None) == (0, 0) and snapshot.counts("in_a_string", None) == (0, 0)
    assert snapshot.counts("def", None) == (0, 0)  # keywords are not words
    words = snapshot.words("FR", None, 10)  # any case, most files first
    assert [w for w, _, _ in words] == ["frobnicate", "frame"]
    assert _indexed(tmp_path).snapshot(JAVASCRIPT).counts("frobnicate", None) == (1, 0)  # per language


def test_hidden_vendored_built_and_huge_files_are_skipped(tmp_path):
    _tree(tmp_path, {
        "keep.py": "kept_name = 1\n",
        ".venv/lib.py": "hidden_name = 1\n",
        "node_modules/dep/x.js": "vendored_name = 1\n",
        "build/lib/gen.py": "built_name = 1\n",
        "pkg/__pycache__/x.py": "cached_name = 1\n",
    })
    (tmp_path / "huge.py").write_text("huge_name = 1\n" + "#" * MAX_FILE_BYTES)
    index = _indexed(tmp_path)
    py, js = index.snapshot(PYTHON), index.snapshot(JAVASCRIPT)
    assert py.counts("kept_name", None) == (1, 0)
    for word in ("hidden_name", "built_name", "cached_name", "huge_name"):
        assert py.counts(word, None) == (0, 0), word
    assert js.counts("vendored_name", None) == (0, 0)
    assert index.file_count == 1


def test_it_stops_at_its_file_limit(tmp_path):
    _tree(tmp_path, {f"m{i}.py": f"name_{i} = 1\n" for i in range(10)})
    assert _indexed(tmp_path, max_files=4).file_count == 4


def test_a_saved_file_is_read_again(tmp_path):
    _tree(tmp_path, {"a.py": "old_name = 1\n"})
    index = _indexed(tmp_path)
    (tmp_path / "a.py").write_text("new_name = 2\n")
    index.refresh(tmp_path / "a.py")
    assert index.wait(30)
    snapshot = index.snapshot(PYTHON)
    assert snapshot.counts("new_name", None) == (1, 0) and snapshot.counts("old_name", None) == (0, 0)


def test_the_index_waits_while_a_completion_runs(tmp_path):
    _tree(tmp_path, {"a.py": "alpha_name = 1\n"})
    index = ProjectIndex()
    with index.paused():
        index.add_root(tmp_path)
        assert not index.wait(0.3)  # held before its first parse
        assert index.snapshot(PYTHON).counts("alpha_name", None) == (0, 0)
    assert index.wait(30)
    assert index.snapshot(PYTHON).counts("alpha_name", None) == (1, 0)


def test_files_created_changed_or_deleted_on_disk_are_read_again_where_a_walk_would(tmp_path):
    _tree(tmp_path, {"ws/a.py": "alpha_name = 1\n", "lone/doc.py": "x = 1\n"})
    index = _indexed(tmp_path / "ws")
    index.add_document(tmp_path / "lone" / "doc.py")  # its folder only
    _tree(tmp_path, {
        "ws/new.py": "created_name = 1\n", "ws/a.py": "changed_name = 1\n",
        "ws/node_modules/m.py": "vendored_name = 1\n", "ws/.hidden/h.py": "hidden_name = 1\n",
        "lone/sub/deep.py": "deep_name = 1\n", "elsewhere/e.py": "outside_name = 1\n",
    })
    for name in ("ws/new.py", "ws/a.py", "ws/node_modules/m.py", "ws/.hidden/h.py", "lone/sub/deep.py", "elsewhere/e.py"):
        index.refresh(tmp_path / name)
    assert index.wait(30)
    counts = {w: index.snapshot(PYTHON).counts(w, None)[0] for w in (
        "created_name", "changed_name", "alpha_name", "vendored_name", "hidden_name", "deep_name", "outside_name")}
    assert counts == {"created_name": 1, "changed_name": 1, "alpha_name": 0, "vendored_name": 0, "hidden_name": 0,
                      "deep_name": 0, "outside_name": 0}
    (tmp_path / "ws" / "new.py").unlink()
    index.refresh(tmp_path / "ws" / "new.py")
    assert index.wait(30)
    assert index.snapshot(PYTHON).counts("created_name", None) == (0, 0) and index.file_count == 2
    # a folder moved in, then deleted, reported as the folder alone
    _tree(tmp_path, {"ws/pkg/x.py": "moved_name = 1\n", "ws/pkg/deeper/y.py": "deeper_name = 1\n"})
    index.refresh(tmp_path / "ws" / "pkg")
    assert index.wait(30)
    assert [index.snapshot(PYTHON).counts(w, None)[0] for w in ("moved_name", "deeper_name")] == [1, 1]
    shutil.rmtree(tmp_path / "ws" / "pkg")
    index.refresh(tmp_path / "ws" / "pkg")
    assert index.wait(30)
    assert [index.snapshot(PYTHON).counts(w, None)[0] for w in ("moved_name", "deeper_name")] == [0, 0]
    assert index.file_count == 2


def test_many_changes_at_once_rebuild_the_snapshot_once(tmp_path, monkeypatch):
    _tree(tmp_path, {f"m{i}.py": f"name_{i} = 1\n" for i in range(20)})
    index = _indexed(tmp_path)
    built = []
    of = Snapshot.of.__func__
    monkeypatch.setattr(Snapshot, "of", classmethod(lambda cls, files: built.append(len(files)) or of(cls, files)))
    with index.paused():  # the server busy: the changes queue up meanwhile
        for i in range(20):
            index.refresh(tmp_path / f"m{i}.py")
    assert index.wait(30)
    assert built == [20]


def test_a_workspace_folder_removed_takes_its_files_but_not_those_another_holds(tmp_path):
    _tree(tmp_path, {"one/a.py": "one_name = 1\n", "two/b.py": "two_name = 1\n", "two/sub/c.py": "sub_name = 1\n"})
    index = ProjectIndex()
    for folder in ("one", "two", "two/sub"):  # two/sub is inside two: it adds nothing
        index.add_root(tmp_path / folder)
    assert index.wait(30) and index.file_count == 3
    index.remove_root(tmp_path / "two")
    assert index.wait(30)
    snapshot = index.snapshot(PYTHON)
    assert [snapshot.counts(w, None)[0] for w in ("one_name", "two_name", "sub_name")] == [1, 0, 0]
    index.add_root(tmp_path / "two" / "sub")  # now a root of its own
    assert index.wait(30) and index.snapshot(PYTHON).counts("sub_name", None)[0] == 1


def test_a_file_s_project_follows_the_workspace_folders_as_they_come_and_go(tmp_path):
    _tree(tmp_path, {"one/a.py": "one_name = 1\n", "two/sub/c.py": "sub_name = 1\n"})
    index = ProjectIndex()
    index.add_root(tmp_path / "one")
    index.add_root(tmp_path / "two" / "sub")
    assert index.wait(30)
    c = (tmp_path / "two" / "sub" / "c.py").resolve()
    assert index.snapshot(PYTHON, str(c)).counts("sub_name", None)[0] == 1  # its folder's words, not one's
    assert index.snapshot(PYTHON, str(c)).counts("one_name", None)[0] == 0
    index.add_root(tmp_path / "two")  # the outer folder opened: the file's project now
    assert index.wait(30) and index._root_of(c) == (tmp_path / "two").resolve()
    index.remove_root(tmp_path / "two")
    assert index.wait(30) and index._root_of(c) == (tmp_path / "two" / "sub").resolve()  # its own folder again


def test_a_document_outside_the_workspace_brings_its_own_folder_only(tmp_path):
    _tree(tmp_path, {"lone/doc.py": "x = 1\n", "lone/sibling.py": "sibling_name = 1\n", "lone/sub/deep.py": "deep_name = 1\n"})
    index = ProjectIndex()
    index.add_document(tmp_path / "lone" / "doc.py")
    assert index.wait(30)
    snapshot = index.snapshot(PYTHON)
    assert snapshot.counts("sibling_name", None) == (1, 0) and snapshot.counts("deep_name", None) == (0, 0)


def test_each_workspace_folder_is_a_project_of_its_own(tmp_path):
    _tree(tmp_path, {"shop/cart.py": "def checkout_basket():\n    pass\n", "shop/main.py": "x = 1\n",
                     "blog/post.py": "def checkout_draft():\n    pass\n", "loose/script.py": "loose_name = 1\n"})
    index = ProjectIndex()
    for folder in ("shop", "blog"):
        index.add_root(tmp_path / folder)
    index.add_document(tmp_path / "loose" / "script.py")  # outside both: its folder is a root of its own
    assert index.wait(30)
    shop, everything = index.snapshot(PYTHON, str((tmp_path / "shop" / "main.py").resolve())), index.snapshot(PYTHON)
    assert shop.counts("checkout_basket", None) == (1, 0) and shop.counts("checkout_draft", None) == (0, 0)
    assert shop.counts("loose_name", None) == (0, 0)
    assert everything.counts("checkout_draft", None) == (1, 0) and everything.counts("loose_name", None) == (1, 0)
    loose = index.snapshot(PYTHON, str((tmp_path / "loose" / "new.py").resolve()))
    assert loose.counts("loose_name", None) == (1, 0) and loose.counts("checkout_basket", None) == (0, 0)
    # what the fallback engine offers in a document of one folder
    service = CompletionService(project=index)
    uri = (tmp_path / "shop" / "main.py").resolve().as_uri()
    words = {c.text for c in _at_end(service, uri, "python", "x = 1\ncheck")}
    assert "checkout_basket" in words and "checkout_draft" not in words
    index.remove_root(tmp_path / "blog")  # one root left beside the loose folder: still scoped
    assert index.wait(30)
    assert index.snapshot(PYTHON, str((tmp_path / "shop" / "main.py").resolve())).counts("loose_name", None) == (0, 0)


@pytest.mark.parametrize("folders", [("shop", "built"), ("shop", "blog", "built")])
def test_a_workspace_folder_with_no_file_read_gets_no_other_folders_words(tmp_path, folders):
    # built/ holds its code under build/, which the index never reads: the other folders' names
    # (and imports of their files) are not this folder's, with one other folder or several
    _tree(tmp_path, {"shop/cart.py": "def checkout_basket():\n    pass\n", "blog/post.py": "def checkout_draft():\n    pass\n",
                     "built/build/lib.py": "def checkout_built():\n    pass\n"})
    index = ProjectIndex()
    for folder in folders:
        index.add_root(tmp_path / folder)
    assert index.wait(30)
    built = index.snapshot(PYTHON, str((tmp_path / "built" / "build" / "lib.py").resolve()))
    assert built.counts("checkout_basket", None) == (0, 0) and not built.definers
    shop = index.snapshot(PYTHON, str((tmp_path / "shop" / "cart.py").resolve()))
    assert shop.counts("checkout_basket", None) == (1, 0)
    assert index.snapshot(PYTHON).counts("checkout_basket", None) == (1, 0)  # every root's, asked without a file


def test_the_fallback_offers_project_words_but_not_the_open_files_future(tmp_path):
    # On disk, main.py already holds what the buffer has not been written up to yet.
    _tree(tmp_path, {
        "helpers.py": "def compute_checksum_total(data):\n    return data.digest_value\n",
        "main.py": "import helpers\nresult = helpers.compute_checksum_total(b'')\ncompute_future_only = 1\n",
    })
    service = CompletionService(project=_indexed(tmp_path))
    uri = (tmp_path / "main.py").resolve().as_uri()
    service.open(uri, "python", 1, "import helpers\nresult = comp")
    found = {c.text: c for c in service.complete(uri, 1, 13, 50).candidates}
    assert "compute_checksum_total" in found and "compute_future_only" not in found
    tier, *_, project, imported, member_files, defined, defined_at_import, _ = found["compute_checksum_total"].features[:13]
    assert tier == buffer.PROJECT and project == math.log1p(1)  # helpers.py alone: main.py's disk copy does not count
    assert imported == 1  # `import helpers` names helpers.py
    assert member_files == 0 and defined == 1 and defined_at_import == 0  # helpers.py defines it; this is no import
    x = features.of(0.0, False, 1, found["compute_checksum_total"], -3.0)
    assert x[25:31] == [1.0, math.log1p(1), 1.0, 0.0, 1.0, 0.0]
    # after a dot, a word the project writes after a dot ranks above one it never does
    service.open(uri, "python", 2, "import helpers\nresult = helpers.d")
    after_dot = {c.text: c for c in service.complete(uri, 1, 17, 50).candidates}
    assert after_dot["digest_value"].features[4] == 1
    assert after_dot["digest_value"].score > after_dot["data"].score


IMPORTED, DEFINED_AT_IMPORT, SAME_RECEIVER_FILES = 8, 11, 12  # in the fallback engine's features, after the tier and the six signals
TAKEN_AT_IMPORT = 20  # the last: ln(1+files importing it), where an import names what it takes


def test_the_files_a_buffer_imports_are_found_by_module_name(tmp_path):
    _tree(tmp_path, {
        "app/core.py": "def build_widget():\n    pass\n",
        "app/other.py": "def build_other():\n    pass\n",
        "app/__init__.py": "def bootstrap_app():\n    pass\n",
        "web/lib/router/index.js": "function routeRequest() {}\n",
        "web/lib/util.js": "function unrelatedHelper() {}\n",
    })
    service = CompletionService(project=_indexed(tmp_path))

    def imported(uri, language, text):
        return {c.text for c in _at_end(service, uri, language, text) if c.features[IMPORTED] == 1}

    py = (tmp_path / "app" / "main.py").as_uri()
    assert imported(py, "python", "from .core import (\n    x)\nb") == {"build_widget"}
    assert imported(py, "python", "import app\nb") == {"bootstrap_app"}
    assert imported(py, "python", "b") == set()
    js = (tmp_path / "web" / "main.js").as_uri()
    assert imported(js, "javascript", "const r = require('./lib/router');\nr") == {"routeRequest"}
    assert imported(js, "javascript", "import u from './lib/util.js';\nu") == {"unrelatedHelper"}


def test_the_imported_files_words_are_those_most_files_use_first_ties_in_lower_case_order():
    from collections import Counter

    from treecomplete.sources.imports import Imported

    counts = Counter({"Build": 2, "build": 2, "builder": 3, "bar": 1, "Bz": 2, "zeta": 5, "état": 2})
    imported = Imported(counts)
    assert imported.best("b", 10) == [("builder", 3), ("Build", 2), ("build", 2), ("Bz", 2), ("bar", 1)]
    assert imported.best("bu", 2) == [("builder", 3), ("Build", 2)]
    assert imported.best("é", 10) == [("état", 2)] and imported.best("q", 10) == []
    assert imported.best("", 4) == [("zeta", 5), ("builder", 3), ("Build", 2), ("build", 2)]


def test_where_an_import_names_what_it_takes_the_projects_definitions_come_first(tmp_path):
    _tree(tmp_path, {
        # the files define few names, but use many others starting with the same letters
        "app/core.py": "import sys\nCOLOUR_TABLE = 1\nclass ColourMap:\n    def colour_of(self, cell):\n        return cell\n"
                       + "".join(f"print(colour_{i}, coloured_{i}, cold_{i})\n" for i in range(40)),
        "web/lib/paint.js": "export function colourRows() {}\nexport const COLOUR_ALPHA = 1;\nexports.colourSheet = 2;\n"
                            + "".join(f"use(colour{i}, coloured{i}, cold{i});\n" for i in range(40)),
    })
    service = CompletionService(project=_indexed(tmp_path))

    def defined_at_import(uri, language, text):
        found = _at_end(service, uri, language, text)
        return {c.text for c in found if c.features[DEFINED_AT_IMPORT] == 1}, [c.text for c in found]

    def first(order, expected, other):
        return max(map(order.index, expected)) < order.index(other)

    py = (tmp_path / "app" / "main.py").as_uri()
    expected = {"COLOUR_TABLE", "ColourMap"}  # the methods and the words it only uses are no module's names
    found, order = defined_at_import(py, "python", "from .core import co")
    assert found == expected and first(order, expected, "cold_0")  # a word the module only uses comes later
    assert defined_at_import(py, "python", "import os\nfrom .core import (\n    sys,\n    co")[0] == expected
    assert defined_at_import(py, "python", "x = co")[0] == set()  # no import: defined, but not at an import's name
    js = (tmp_path / "web" / "main.js").as_uri()
    expected = {"colourRows", "COLOUR_ALPHA", "colourSheet"}
    assert defined_at_import(js, "javascript", "import { co")[0] == expected
    assert defined_at_import(js, "javascript", "import { a,\n  co")[0] == expected
    found, order = defined_at_import(js, "javascript", "import co")  # the default import
    assert found == expected and set(order[:3]) == expected  # before the words the project only uses
    assert defined_at_import(js, "javascript", "const x = co")[0] == set()


def test_an_import_never_offers_a_name_the_buffer_imports_already_or_a_keyword(tmp_path):
    _tree(tmp_path, {"core.py": "Config = 1\nConnection = 2\n", "visitors.js": "export const CallExpression = 1, ClassBody = 2;\n"})
    service = CompletionService(project=_indexed(tmp_path))

    def offered(name, language, text):
        return [c.text for c in _at_end(service, (tmp_path / name).as_uri(), language, text)]

    for text in ("from .core import Config, Co", "from .core import (\n    Config,\n    Co", "from .core import Config\nfrom .core import Co"):
        found = offered("main.py", "python", text)
        assert "Connection" in found and "Config" not in found and "continue" not in found, text
    assert "Config" in offered("main.py", "python", "from .core import Config\nx = Co")  # not an import: offered
    for text in ("import { CallExpression, C", "import {\n  CallExpression,\n  C", "import { CallExpression } from './visitors.js';\nimport { C"):
        found = offered("main.js", "javascript", text)
        assert "ClassBody" in found and "CallExpression" not in found and "class" not in found, text


def test_where_an_import_names_what_it_takes_the_files_importing_each_name_are_counted(tmp_path):
    users = {f"ops/op{i}.ts": f"import {{ operate{', Observer' if i < 2 else ''} }} from '../util/lift';\nexport const op{i} = operate;\n"
             for i in range(5)}
    _tree(tmp_path, {"util/lift.ts": "export function operate() {}\nexport const options = 1;\nexport class Observer {}\n",
                     "index.ts": "export { op0, op1 } from './ops/op0';\n", **users})
    index = _indexed(tmp_path)
    snapshot = index.snapshot(TYPESCRIPT)
    assert snapshot.taken_by("operate", None) == 5 and snapshot.taken_by("Observer", None) == 2
    assert snapshot.taken_by("op1", None) == 1 and snapshot.taken_by("options", None) == 0  # a re-export takes it too
    own = snapshot.files[str((tmp_path / "ops" / "op0.ts").resolve())]
    assert snapshot.taken_by("operate", own) == 4  # the open file's own imports never count
    service = CompletionService(project=index)

    def importing(text):
        return {c.text: c.features[TAKEN_AT_IMPORT] for c in _at_end(service, (tmp_path / "ops" / "op9.ts").as_uri(), "typescript", text)}

    found = importing("import { o")
    assert found["operate"] == math.log1p(5) and found["options"] == 0
    assert importing("import {\n  O")["Observer"] == math.log1p(2)
    assert importing("const x = o")["operate"] == 0  # not an import's name


def test_an_export_clause_never_offers_a_name_the_file_exports_already(tmp_path):
    _tree(tmp_path, {"ops.ts": "export const concatAll = 1, concatMap = 2, combineAll = 3;\n"})
    service = CompletionService(project=_indexed(tmp_path))
    uri = (tmp_path / "index.ts").as_uri()
    for text in ("export { concatAll } from './ops';\nexport { c", "export {\n  combineAll,\n  concatAll,\n  c"):
        found = [c.text for c in _at_end(service, uri, "typescript", text)]
        assert "concatMap" in found and "concatAll" not in found and "const" not in found, text


def test_a_barrel_s_next_export_is_the_next_file_named_after_what_it_defines(tmp_path):
    operators = {"audit": "", "auditTime": "", "buffer": "", "bufferCount": "", "config": "export const configure = 1;\n"}
    _tree(tmp_path, {f"operators/{name}.ts": f"export function {name}() {{}}\n{extra}" for name, extra in operators.items()}
          | {"operators/helpers.ts": "export const bufferA = 1;\n"})
    model = StubPredictor(Answer([Prediction("other", 0.9, True), Prediction("bufferA", 0.05, True)]))
    for service in (CompletionService(project=_indexed(tmp_path)),
                    CompletionService(models=model, project=_indexed(tmp_path))):  # type: ignore[arg-type]
        uri = (tmp_path / "index.ts").as_uri()
        barrel = "export { audit } from './operators/audit';\nexport { "
        assert _at_end(service, uri, "typescript", barrel)[0].text == "auditTime"
        assert _at_end(service, uri, "typescript", barrel + "b")[0].text == "buffer"
        after = "export { buffer } from './operators/buffer';\nexport { b"  # bufferA sorts between: no file is named so
        assert _at_end(service, uri, "typescript", after)[0].text == "bufferCount"
        listed = "export { audit, auditTime } from './operators/audit';\nexport { buffer, "
        assert _at_end(service, uri, "typescript", listed)[0].text == "bufferCount"
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import next_export

    snapshot = _indexed(tmp_path).snapshot(TYPESCRIPT)
    for text, expected in (("export { audit } from './operators/audit';\nexport { ", "auditTime"),
                           ("export { audit };\nexport { ", None),  # no re-export before: no barrel
                           ("import { audit } from './operators/audit';\nimport { ", None)):  # an import
        context = context_at(Document("file:///index.ts", text, 1, TYPESCRIPT), len(text))
        assert next_export(context, snapshot, None, {"audit"}) == expected, text


def test_in_a_file_of_megabytes_an_export_clause_reads_a_bounded_stretch_before_it():
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import EXPORTS_READ, listed_names

    text = "".join(f"export {{ name{i} }} from './m{i}';\n" for i in range(60_000)) + "export { na"  # 2.2 MB
    listed = listed_names(context_at(Document("file:///index.ts", text, 1, TYPESCRIPT), len(text)))
    assert "name59999" in listed and "name0" not in listed and 0 < len(listed) <= EXPORTS_READ // 20


def test_after_a_dot_what_the_project_writes_after_the_same_receiver_comes_first(tmp_path):
    _tree(tmp_path, {
        "a.py": "def f(context):\n    return context.state.scope_chain\n",
        **{f"b{i}.py": "def g(other):\n    return other.scope_other, other.scope_more\n" for i in range(3)},
    })
    service = CompletionService(project=_indexed(tmp_path))
    snapshot = service.project.snapshot(PYTHON)
    assert snapshot.members_of("state", "SC", None, 10) == [("scope_chain", 1)]  # any case
    assert snapshot.members_of("other", "", None, 1) == [("scope_more", 3)]  # most files first, then by name
    assert snapshot.members_of("other", "", str((tmp_path / "b0.py").resolve()), 10) == [("scope_more", 2), ("scope_other", 2)]
    uri = (tmp_path / "main.py").as_uri()
    service.open(uri, "python", 1, "def h(context):\n    context.state.sc")
    found = [c for c in service.complete(uri, 1, 22, 50).candidates]
    assert found[0].text == "scope_chain" and found[0].features[SAME_RECEIVER_FILES] == math.log1p(1)
    assert {c.text: c.features[SAME_RECEIVER_FILES] for c in found}["scope_other"] == 0  # the project writes it after another receiver


def test_without_an_index_nothing_changes(tmp_path):
    _tree(tmp_path, {"helpers.py": "compute_checksum_total = 1\n"})
    service = CompletionService()
    uri = (tmp_path / "main.py").as_uri()
    service.open(uri, "python", 1, "result = comp")
    assert all(c.text != "compute_checksum_total" for c in service.complete(uri, 0, 13, 50).candidates)


def test_from_a_module_import_offers_what_that_module_defines_first(tmp_path):
    # The project defines many `ge...` names; the module the import names defines one of them.
    _tree(tmp_path, {
        **{f"pkg/other{i}.py": "".join(f"def get_{i}_{j}():\n    pass\n" for j in range(20)) for i in range(3)},
        "pkg/utils/_headers.py": "def get_token_to_send():\n    pass\nHEADER = 1\n",
        "pkg/utils/__init__.py": "def get_session():\n    pass\n",
        "elsewhere/_headers.py": "def get_unrelated():\n    pass\n",
    })
    service = CompletionService(project=_indexed(tmp_path))

    def offered(text):
        return [c.text for c in _at_end(service, (tmp_path / "pkg" / "main.py").as_uri(), "python", text)]

    assert offered("from .utils._headers import ge")[0] == "get_token_to_send"  # not get_unrelated: another folder's
    assert offered("from pkg.utils._headers import (\n    HEADER,\n    ge")[0] == "get_token_to_send"
    assert offered("from .utils import ge")[0] == "get_session"  # a package: its __init__.py
    assert "get_token_to_send" not in offered("from .utils._headers import get_token_to_send, ge")  # imported already


def test_a_javascript_import_offers_what_the_module_named_after_the_cursor_defines_first(tmp_path):
    # JavaScript names the module after the names it takes: `import { ge| } from './utils/headers.js'`.
    _tree(tmp_path, {
        **{f"src/other{i}.js": "".join(f"export function get_{i}_{j}() {{}}\n" for j in range(20)) for i in range(3)},
        "src/utils/headers.js": "export function getTokenToSend() {}\nexport const HEADER = 1\n",
        "src/utils/index.js": "export function getSession() {}\n",
        "lib/headers.js": "export function getUnrelated() {}\n",
    })
    service = CompletionService(project=_indexed(tmp_path))
    uri = (tmp_path / "src" / "main.js").as_uri()

    def offered(before, after):
        service.open(uri, "javascript", 1, before + after)
        line, col = before.count("\n"), len(before) - before.rfind("\n") - 1
        return [c.text for c in service.complete(uri, line, col, 50).candidates]

    assert offered("import { ge", " } from './utils/headers.js'\n")[0] == "getTokenToSend"  # not lib/'s getUnrelated
    assert offered("import { HEADER, ge", " } from './utils/headers'\n")[0] == "getTokenToSend"  # no extension
    assert offered("import {\n  ge", ",\n} from './utils'\n")[0] == "getSession"  # a folder: its index.js
    assert offered("import { ge", " } from '../lib/headers.js'\n")[0] == "getUnrelated"
    assert offered("const { HEADER, ge", " } = require('./utils/headers')\n")[0] == "getTokenToSend"  # CommonJS
    assert "HEADER" not in offered("const { HEADER, ", " } = require('./utils/headers')\n")  # not taken twice
    assert offered("const { ge", " } = load('./utils')\n")[0] != "getSession"  # no require, no module


def test_from_a_module_import_a_name_as_another_offers_what_that_module_defines(tmp_path):
    _tree(tmp_path, {"pkg/tests.py": "TESTS = {}\ndef test_odd(n):\n    pass\n", "pkg/other.py": "TRIM = 1\nTASKS = 2\n"})
    service = CompletionService(project=_indexed(tmp_path))
    uri = (tmp_path / "pkg" / "defaults.py").as_uri()
    text = "from .tests import T as DEFAULT_TESTS\n"  # the name retyped in place, its alias after it
    service.open(uri, "python", 1, text)
    found = [c.text for c in service.complete(uri, 0, len("from .tests import T"), 50).candidates]
    assert found[0] == "TESTS"


def test_it_knows_what_the_project_takes_from_each_module(tmp_path):
    _tree(tmp_path, {
        "pkg/a.py": "from .nodes import Concat, Other as O\nfrom pkg.nodes import Helper\n",
        "pkg/b.py": "from . import nodes\nx = nodes.Concat(nodes.Const)\nnodes.append(1)\n",
        "web/a.js": "import { join } from './lib/nodes';\nconst { split } = require('../nodes/index.js');\n",
        "web/b.js": "export { join } from './nodes.js';\nimport nodes from './nodes';\nimport { x } from './other';\n",
    })
    index = _indexed(tmp_path)
    python = index.snapshot(PYTHON)
    assert python.wanted_from("nodes", "", None, frozenset({"append"})) == {"Concat": 2, "Other": 1, "Helper": 1, "Const": 1}
    assert "append" in python.wanted_from("nodes", "", None)  # a list named nodes: a common member, left out above
    assert python.wanted_from("nodes", "co", None) == {"Concat": 2, "Const": 1}  # any case
    own = python.files[str((tmp_path / "pkg" / "a.py").resolve())]
    assert python.wanted_from("nodes", "", own, frozenset({"append"})) == {"Concat": 1, "Const": 1}  # not the file itself
    assert python.wanted_from("other", "", None) == {}
    assert index.snapshot(JAVASCRIPT).wanted_from("nodes", "", None) == {"join": 2, "split": 1}


def _middle(service: CompletionService, uri: str, language: str, text: str) -> list[str]:
    """Open ``text`` without its ``|`` and complete there: the candidates' words."""
    cursor = text.index("|")
    service.open(uri, language, 1, text.replace("|", ""))
    line, col = text.count("\n", 0, cursor), cursor - text.rfind("\n", 0, cursor) - 1
    return [c.text for c in service.complete(uri, line, col, 50).candidates]


def test_at_a_top_level_declaration_what_other_files_take_from_the_module_and_it_lacks_comes_first(tmp_path):
    _tree(tmp_path, {
        "pkg/parser.py": "from . import nodes\ndef parse(a):\n    return nodes.Concat(a, nodes.Const(1))\n",
        "pkg/compiler.py": "from .nodes import Compare, Const\nCompare\nCorrection = Compare\nCounter = 1\n",
    })
    model = StubPredictor(Answer([Prediction("Compare", 0.6, True), Prediction("Concat", 0.1, True)]))
    uri = (tmp_path / "pkg" / "nodes.py").as_uri()
    inside = "class Expr:\n    pass\n\n\nclass C|(Expr):\n    pass\n\n\nclass Const(Expr):\n    pass\n\n\nclass Compare(Expr):\n    pass\n"
    for service in (CompletionService(project=_indexed(tmp_path)),
                    CompletionService(models=model, project=_indexed(tmp_path))):  # type: ignore[arg-type]
        assert _middle(service, uri, "python", inside)[0] == "Concat"  # Const, Compare: defined here already
        assert _middle(service, uri, "python", inside.replace("class C|", "    c|"))[0] != "Concat"  # not a declaration
        assert _middle(service, uri, "python", "class Expr:\n    C|\n")[0] != "Concat"  # nor at the top level
        at_end = _middle(service, uri, "python", "class Expr:\n    pass\n\n\nclass C|")
        assert "Concat" in at_end  # at a buffer's end, what is defined further down is not known: lifted, not first
    fallback = CompletionService(project=_indexed(tmp_path))
    assert _middle(fallback, uri, "python", "x = 1\n|C = 2\nConst = 3\nCompare = 4\n")[0] == "Concat"  # an assignment
    assert _middle(fallback, (tmp_path / "pkg" / "other.py").as_uri(), "python", inside)[0] != "Concat"  # another module


def test_the_top_level_s_definitions_are_read_without_descending_into_the_code():
    from treecomplete.words import exported_names

    source = (b"import { x } from './x';\nexport { a, b as c };\nexports.d = 1;\nexport function e() {\n"
              b"  exports.notTop = 1;\n}\nnamespace N {\n  export function inner() {}\n}\n")
    tree = TYPESCRIPT.parser().parse(source)
    assert exported_names(tree, TYPESCRIPT, top=True) == {b"a", b"b", b"d", b"e"}
    assert exported_names(tree, TYPESCRIPT) == {b"a", b"b", b"d", b"e", b"notTop", b"inner"}  # the index reads them all
    source = b"def f():\n    class Inner:\n        pass\nclass Outer:\n    x = 1\nY = 2\n"
    assert exported_names(PYTHON.parser().parse(source), PYTHON, top=True) == {b"f", b"Outer", b"Y"}


def test_from_a_module_being_named_the_one_that_defines_what_it_takes_comes_first(tmp_path):
    _tree(tmp_path, {
        "pkg/_client.py": "class Client:\n    pass\nclass AsyncClient:\n    pass\n",
        "pkg/_config.py": "class Config:\n    pass\n",
        "pkg/_compat.py": "Client = None\n",  # defines one of them only
        "pkg/_models.py": "x = 1\n",
    })
    model = StubPredictor(Answer([Prediction("_config", 0.6, True), Prediction("_models", 0.3, True)]))
    uri = (tmp_path / "pkg" / "__init__.py").as_uri()
    for service in (CompletionService(project=_indexed(tmp_path)),
                    CompletionService(models=model, project=_indexed(tmp_path))):  # type: ignore[arg-type]
        assert _middle(service, uri, "python", "import sys\nfrom ._c| import AsyncClient, Client as C\n")[0] == "_client"
        assert _middle(service, uri, "python", "from ._| import (\n    Client,\n    AsyncClient,\n)\n")[0] == "_client"
        assert _middle(service, uri, "python", "from ._c| import Config\n")[0] == "_config"
        assert "_client" not in _middle(service, uri, "python", "from ._| import Unknown\n")[:1]  # nobody defines it


def test_a_relative_import_s_first_name_is_a_module_position():
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import module_position

    for text, cursor, expected in (("from ._c import A\n", 8, True), ("from .._c", 9, True), ("from .a.b import c\n", 7, True),
                                   ("from .a.b import c\n", 9, False), ("from .a import bc\n", 17, False)):
        context = context_at(Document("file:///t.py", text, 1, PYTHON), cursor)
        assert module_position(context) is expected, text


def test_after_from_dot_a_sibling_module_imported_before_keeps_its_place():
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import not_modules

    text = "from . import nodes\nimport typing as t\nfrom .n"
    assert not_modules(context_at(Document("file:///t.py", text, 1, PYTHON), len(text))) == frozenset()
    text = "from . import nodes\nimport typing as t\nfrom n"  # absolute: what the imports bind cannot be a module
    assert {"nodes", "t", "len"} <= not_modules(context_at(Document("file:///t.py", text, 1, PYTHON), len(text)))


def test_with_the_model_what_the_imported_module_defines_still_comes_first(tmp_path):
    _tree(tmp_path, {"pkg/__version__.py": "__title__ = 'x'\n__description__ = 'y'\n__version__ = '1'\n",
                     "pkg/_api.py": "def __all_things():\n    pass\n", "web/headers.js": "export function getToken() {}\n"})
    model = StubPredictor(Answer([Prediction("__all__", 0.7, True), Prediction("_api", 0.2, True), Prediction("getTime", 0.5, True)]))
    service = CompletionService(models=model, project=_indexed(tmp_path))  # type: ignore[arg-type]
    uri = (tmp_path / "pkg" / "__init__.py").as_uri()
    found = _middle(service, uri, "python", "from .__version__ import _|, __title__, __version__\n__all__ = []\n")
    assert found[0] == "__description__"  # the other two are imported already
    js = _middle(service, (tmp_path / "web" / "main.js").as_uri(), "javascript", "import { get| } from './headers';\n")
    assert js[0] == "getToken"


def test_at_a_from_import_s_name_between_two_in_order_what_sorts_between_them_comes_first(tmp_path):
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import sorted_between

    _tree(tmp_path, {"pkg/__init__.py": "", "pkg/kinds.py": "class Aardvark: pass\nclass Alpha: pass\nclass Beta: pass\nclass Delta: pass\n"
                                                    "class Gamma: pass\nclass Zeta: pass\n"})
    before, after = "from .kinds import Alpha, ", ", Gamma\n\nx = Beta() + Delta() + Zeta() + Zeta() + Aardvark()\n"
    uri = (tmp_path / "pkg" / "use.py").as_uri()
    answer = Answer([Prediction("Zeta", 0.6, False), Prediction("Aardvark", 0.2, False), Prediction("Delta", 0.1, False),
                     Prediction("Beta", 0.05, False)])
    for service in (CompletionService(project=_indexed(tmp_path)),
                    CompletionService(models=StubPredictor(answer), project=_indexed(tmp_path))):  # type: ignore[arg-type]
        service.open(uri, "python", 1, before + after)
        texts = [c.text for c in service.complete(uri, 0, len(before), 50).candidates]
        assert {"Beta", "Delta"} == set(texts[:2]), texts[:5]  # between Alpha and Gamma
    doc = Document(uri, before + after, 1, PYTHON)
    assert sorted_between(context_at(doc, len(before))) == ("alpha", "gamma")
    unsorted = Document(uri, "from .kinds import Gamma, " + ", Alpha\n", 1, PYTHON)
    assert sorted_between(context_at(unsorted, len("from .kinds import Gamma, "))) is None  # not in order: nothing said


def test_at_an_import_s_module_before_its_alias_the_module_the_alias_abbreviates_comes_first():
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.sources.imports import abbreviates, alias_after

    assert abbreviates("te", "typing_extensions") and abbreviates("t", "typing") and not abbreviates("te", "template_name")
    assert not abbreviates("te", "te") and not abbreviates("np", "numpy")
    before, after = "import typing\nimport t", " as te\n\nx: te.Protocol\ntemplate_name = types = 1\nprint(typing_extensions)\n"
    doc = Document("file:///t.py", before + after, 1, PYTHON)
    assert alias_after(context_at(doc, len(before))) == "te"
    assert alias_after(context_at(doc, len("import t"))) is None  # no alias after it
    answer = Answer([Prediction("template_name", 0.5, False), Prediction("types", 0.3, False), Prediction("typing_extensions", 0.01, False)])
    for service in (CompletionService(), CompletionService(models=StubPredictor(answer))):  # type: ignore[arg-type]
        texts = _at_end_of(service, "file:///t.py", before, after)
        assert texts[0] == "typing_extensions", texts[:4]


def _at_end_of(service: CompletionService, uri: str, before: str, after: str) -> list[str]:
    service.open(uri, "python", 1, before + after)
    line, col = before.count("\n"), len(before) - before.rfind("\n") - 1
    return [c.text for c in service.complete(uri, line, col, 50).candidates]
