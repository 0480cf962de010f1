"""The receiver's known members in the fallback engine's list, and the loader that reads them
off the request path."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from treecomplete.context import context_at
from treecomplete.engines.base import Kind
from treecomplete.sources.libraries import loader as loader_module
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.libraries.loader import Loader
from treecomplete.sources.libraries.members import Members
from treecomplete.service import CompletionService

from .libraries_fixtures import make_node_modules, make_venv


def test_the_loader_answers_at_once_and_reads_in_the_background(tmp_path: Path, monkeypatch):
    release = threading.Event()
    source = tmp_path / "m.py"
    source.write_text("x")

    def read():
        release.wait(5)
        return Members("m", complete=True), [str(source)]

    loader = Loader()
    assert loader.get("m", read) is None  # not read yet: the request does not wait
    release.set()
    assert loader.wait(5)
    assert loader.get("m", read).where == "m"
    calls = []

    def read_again():
        calls.append(1)
        return Members("m2"), [str(source)]

    monkeypatch.setattr(loader_module, "REFRESH", 0.0)
    loader.get("m", read_again)  # old enough: its file is checked, unchanged, so not read again
    loader.wait(5)
    assert not calls and loader.get("m", read_again).where == "m"
    time.sleep(0.01)
    os.utime(source, (time.time() + 5, time.time() + 5))
    loader.get("m", read_again)  # changed on disk: read again
    loader.wait(5)
    assert calls and loader.get("m", read_again).where == "m2"


def test_a_failing_read_is_logged_and_answers_nothing():
    loader = Loader()

    def broken():
        raise RuntimeError("a library that breaks the reader")

    assert loader.get("x", broken) is None
    assert loader.wait(5)
    assert loader.get("x", broken) is None


def _readers(order: list[str]):
    """reader(name): a read of ``name`` that records, in ``order``, that it ran."""

    def reader(name):
        def read():
            order.append(name)
            return Members(name), []
        return read

    return reader


def test_a_read_a_request_waits_for_goes_first_past_the_gate():
    """The server never quiet: queued reads wait, but the one a request waits for is read at
    once, before those queued earlier."""
    order: list[str] = []
    reader = _readers(order)
    loader = Loader(quiet=lambda: False)
    for name in ("a", "b", "c"):
        assert loader.get(name, reader(name)) is None
    time.sleep(0.05)
    assert order == []  # held back while the server works
    with loader.asked() as missed:
        assert loader.get("d", reader("d")) is None
        assert loader.get("a", reader("a"), ask=False) is None  # a read ahead: not waited for
    assert missed == {"d"}
    assert loader.wait_for(missed, 2)
    assert order == ["d"] and loader.get("d", reader("d")).where == "d"
    assert loader.pending(["a", "b", "c", "d"]) == {"a", "b", "c"}


def test_reads_queued_while_the_server_works_are_bounded_and_cleared(monkeypatch):
    """A busy server queues reads ahead; past PENDING the oldest goes, and clear() drops those
    nothing waits for (a document closed long ago is not read once the server is quiet)."""
    monkeypatch.setattr(loader_module, "PENDING", 3)
    quiet = False
    loader = Loader(quiet=lambda: quiet)
    read: list[str] = []
    reader = _readers(read)
    for name in "abcde":
        loader.get(name, reader(name), ask=False)
    assert loader.pending("abcde") == {"c", "d", "e"}  # the newest three
    loader.clear()
    assert not loader.pending("abcde") and loader.wait(1)
    quiet = True
    loader.get("f", reader("f"))
    assert loader.wait(5) and read == ["f"]  # nothing cleared was read


def test_what_was_read_is_bounded_in_bytes_least_recently_used_first(monkeypatch):
    """Entries go by their estimated size, not their count: a large module pushes out several
    small ones, the least recently used first, and the count of bytes follows."""
    def module(name: str, members: int):
        def read():
            out = Members(name)
            for i in range(members):
                out.add(f"{name}_member_{i}", Kind.FUNCTION, f"def {name}_member_{i}(a, b) ")
            return out, []
        return read

    small = module("a", 10)()[0].footprint()  # each of a-d's: their names are as long
    monkeypatch.setattr(loader_module, "BUDGET", 5 * small)
    loader = Loader()
    for name in "abcd":
        loader.get(name, module(name, 10))
        assert loader.wait(5)
    assert loader.bytes == 4 * small
    loader.get("a", module("a", 10))  # used: now the most recently used
    loader.get("big", module("big", 25))  # about two and a half small ones
    assert loader.wait(5)
    kept = {key for key in "abcd" if key in loader._entries}
    assert kept == {"a", "d"}, "not the least recently used that went"
    assert loader.get("big", module("big", 25)).where == "big" and loader.bytes <= 5 * small
    loader.clear()
    assert loader.bytes == 0


def test_a_members_footprint_is_near_its_objects_size():
    """The estimate the loader counts, against a deep count of the objects it holds."""
    import sys

    out = Members("m")
    for i in range(200):
        out.add(f"name_{i}", Kind.METHOD, f"def name_{i}(self, value, /, *rest) ", signature="(self, value, /, *rest)",
                origin="m.Class", doc=f"What {i} does, in a sentence or two of documentation.")

    def deep(o, seen: set[int]) -> int:
        if id(o) in seen or isinstance(o, Kind):
            return 0
        seen.add(id(o))
        size = sys.getsizeof(o)
        if isinstance(o, dict):
            size += sum(deep(k, seen) + deep(v, seen) for k, v in o.items())
        elif isinstance(o, (list, tuple)):
            size += sum(deep(x, seen) for x in o)
        elif hasattr(o, "__dict__"):
            size += deep(vars(o), seen)
        return size

    counted = deep(out, set())
    assert 0.7 * counted <= out.footprint() <= 1.3 * counted


def test_a_list_that_waits_for_its_module_is_computed_once(tmp_path: Path, monkeypatch):
    """The receiver's module is asked for before the list is computed: after the wait, one list,
    with its members; a second wait, for what the list itself asks, only within the same bound."""
    from treecomplete import service as service_module

    libraries = Libraries(quiet=lambda: False)  # a busy server: nothing is read ahead
    service = CompletionService(libraries=libraries)
    computed = []
    compute = service._complete

    def counted(context, limit):
        computed.append(context.cursor)
        return compute(context, limit)

    monkeypatch.setattr(service, "_complete", counted)
    uri = (tmp_path / "a.py").as_uri()
    service.open(uri, "python", 1, "import json\njson.")
    monkeypatch.setattr(service_module, "MEMBER_WAIT", 5.0)  # however slow this machine: the wait lets the read through
    completion = service.complete(uri, 1, 5, 50)
    assert {"dumps", "loads"} <= {c.text for c in completion.candidates[:4]} and not completion.incomplete
    assert computed == [len("import json\njson.")]
    computed.clear()
    service.open(uri, "python", 2, "import json\njs")  # no library at a plain name here: one list, no wait
    service.complete(uri, 1, 2, 50)
    assert computed == [len("import json\njs")]


def test_a_dot_waits_a_moment_for_its_module_and_else_says_the_list_is_incomplete(tmp_path: Path, monkeypatch):
    from treecomplete import service as service_module
    from treecomplete.items import completion_list
    from treecomplete.sources.libraries.python import PythonLibraries

    libraries = Libraries(quiet=lambda: False)  # a busy server: nothing is read ahead
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.py").as_uri()
    service.open(uri, "python", 1, "import json\njson.")
    monkeypatch.setattr(service_module, "MEMBER_WAIT", 5.0)  # however slow this machine: the wait lets the read through
    completion = service.complete(uri, 1, 5, 50)  # the first request after the open
    monkeypatch.undo()
    assert {"dumps", "loads"} <= {c.text for c in completion.candidates[:4]} and not completion.incomplete
    assert not completion_list(service.get(uri), completion, 1000).is_incomplete  # a whole list

    assert service_module.MEMBER_WAIT <= 0.05
    slow = PythonLibraries.read

    def read(self, dotted):
        time.sleep(0.3)
        return slow(self, dotted)

    monkeypatch.setattr(PythonLibraries, "read", read)
    uri = (tmp_path / "b.py").as_uri()
    service.open(uri, "python", 1, "import csv\ncsv.")
    started = time.perf_counter()
    completion = service.complete(uri, 1, 4, 50)
    assert time.perf_counter() - started < 0.25  # bounded: MEMBER_WAIT, not the read's 0.3 s
    assert "DictReader" not in [c.text for c in completion.candidates] and completion.incomplete
    assert completion_list(service.get(uri), completion, 1000).is_incomplete  # the next keystroke asks again
    deadline = time.perf_counter() + 10  # the read takes 0.3 s and more on a loaded machine
    while completion.incomplete and time.perf_counter() < deadline:
        time.sleep(0.1)
        completion = service.complete(uri, 1, 4, 50)
    assert "DictReader" in [c.text for c in completion.candidates[:8]] and not completion.incomplete


def test_the_projects_own_modules_as_python_finds_them(tmp_path: Path):
    """A script's sibling module, a package under src/ imported from tests/, its submodule under
    an alias, a class's attributes; a project file named as a standard module does not hide it."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "helpers.py").write_text("def shout(text):\n    return text\nLIMIT = 3\n")
    (tmp_path / "app" / "json.py").write_text("def not_the_standard_one():\n    pass\n")
    package = tmp_path / "src" / "kit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "strings.py").write_text("def is_quoted(s):\n    pass\n")
    (package / "screen.py").write_text("class Screen:\n    COLOUR_WHITE = 7\n    def draw(self, x):\n        pass\n")
    (tmp_path / "tests").mkdir()
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)

    def first(path: str, text: str) -> dict:
        uri = (tmp_path / path).as_uri()
        service.open(uri, "python", 1, text)
        line, character = text.count("\n"), len(text.rsplit("\n", 1)[-1])
        return {c.text: c for c in service.complete_read(uri, line, character, 20, timeout=10).candidates[:4]}

    assert {"shout", "LIMIT"} <= set(first("app/main.py", "import helpers\nhelpers."))
    assert "dumps" in first("app/main.py", "import json\njson.")  # the standard library's, as before
    assert "is_quoted" in first("tests/test_a.py", "import kit.strings as su\nsu.")
    screen = first("tests/test_a.py", "from kit.screen import Screen\nScreen.")
    assert screen["COLOUR_WHITE"].kind == Kind.CONSTANT and screen["draw"].kind == Kind.METHOD
    assert screen["draw"].signature == "(x)"
    # a namespace package (no __init__.py, PEP 420) at the root, imported from tests/
    (tmp_path / "tools" / "text").mkdir(parents=True)
    (tmp_path / "tools" / "text" / "slug.py").write_text("class Slugger:\n    def slugify(self):\n        pass\n")
    assert "slugify" in first("tests/test_b.py", "from tools.text.slug import Slugger\nSlugger.")


def complete(service: CompletionService, libraries: Libraries, uri: str, text: str, language: str) -> list:
    service.open(uri, language, 1, text)
    lines = text.split("\n")
    position = (len(lines) - 1, len(lines[-1]))
    service.complete(uri, *position, 50)
    libraries.loader.wait(10)
    return service.complete(uri, *position, 50).candidates


def test_module_members_first_with_kind_and_detail(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.py").as_uri()
    text = "import os\nimport json\npath = 'x'\nhelper = 1\nvalue = os.path."
    candidates = complete(service, libraries, uri, text, "python")
    texts = [c.text for c in candidates]
    assert texts[0] == "join"  # the member real code uses most
    join = candidates[0]
    assert join.kind == Kind.FUNCTION and "os.path" in join.detail
    assert texts.index("helper") > texts.index("splitext")  # a buffer word that os.path lacks: down, not out
    assert {"dumps", "loads"} <= {c.text for c in complete(service, libraries, uri, "import json\njson.", "python")[:5]}
    assert "join" in [c.text for c in complete(service, libraries, uri, "from os.path import jo", "python")]
    assert "join" in [c.text for c in complete(service, libraries, uri, "from os.path import (dirname,\n    jo", "python")]
    instance = complete(service, libraries, uri, "from pathlib import Path\nhere = Path('.')\nhere.wi", "python")
    assert {"with_suffix", "with_name"} <= {c.text for c in instance[:4]}  # a name bound to Class(...)
    assert "with_suffix" in [c.text for c in complete(service, libraries, uri, "import pathlib\npathlib.Path.wi", "python")]


def test_the_whole_member_list_follows_the_ranked_items(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.py").as_uri()
    service.open(uri, "python", 1, "import os\nos.")
    service.complete(uri, 1, 3, 50)
    libraries.loader.wait(10)
    texts = [c.text for c in service.complete(uri, 1, 3, 50).candidates]
    assert len(texts) > 300 and {"getcwd", "listdir", "walk", "environ"} <= set(texts)  # all of os, as a static completer lists it
    assert len(texts) == len(set(texts))


def test_class_members_at_self_and_this(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    text = ("class Store:\n    def load(self):\n        pass\n    def save(self):\n        self.\n"
            "    def flush(self):\n        pass\n")
    service.open((tmp_path / "s.py").as_uri(), "python", 1, text)
    result = service.complete((tmp_path / "s.py").as_uri(), 4, 13, 50)
    assert {"flush", "load", "save"} == {c.text for c in result.candidates[:3]}
    js = "class Cart {\n  add(item) {}\n  total() {\n    return this."
    candidates = complete(service, libraries, (tmp_path / "c.js").as_uri(), js, "javascript")
    assert {"add"} <= {c.text for c in candidates[:2]}


def test_a_fake_environment_and_node_modules(tmp_path: Path):
    make_venv(tmp_path)
    make_node_modules(tmp_path)
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    python = complete(service, libraries, (tmp_path / "app.py").as_uri(), "import fakepkg\nfakepkg.", "python")
    assert {"make_polygon", "Polygon", "units"} <= {c.text for c in python[:8]}
    js = complete(service, libraries, (tmp_path / "app.js").as_uri(), "const typed = require('typed');\ntyped.", "javascript")
    assert {"parseThing", "DEFAULT_THING", "ThingMaker"} <= {c.text for c in js[:5]}


@pytest.mark.parametrize("separate", [False, True])  # Python's read in the server's process, or in its reader process
def test_a_package_installed_after_its_import_was_read_has_its_members_soon(tmp_path: Path, monkeypatch, separate):
    monkeypatch.setattr(loader_module, "MISSING", 0.0)  # else 5 s after the read that found nothing
    site = make_venv(tmp_path)
    modules = make_node_modules(tmp_path)
    libraries = Libraries(separate=separate)
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    asks = {"python": ((tmp_path / "app.py").as_uri(), "import latepkg\nlatepkg."),
            "javascript": ((tmp_path / "app.js").as_uri(), "const late = require('@scope/late');\nlate.")}

    def members(language: str) -> set[str]:
        uri, text = asks[language]
        found = {c.text for c in complete(service, libraries, uri, text, language)}
        libraries.loader.wait(5)  # the check that the ask queued
        return found

    assert "late_function" not in members("python") and "lateFunction" not in members("javascript")
    (site / "latepkg").mkdir()  # pip install latepkg
    (site / "latepkg" / "__init__.py").write_text("def late_function():\n    pass\n")
    (modules / "@scope" / "late").mkdir()  # npm install @scope/late: @scope was there, node_modules unchanged
    (modules / "@scope" / "late" / "index.js").write_text("exports.lateFunction = function () {};\n")
    for folder in (site, modules / "@scope"):
        os.utime(folder, (time.time() + 5,) * 2)
    assert "late_function" in members("python") and "lateFunction" in members("javascript")
    if libraries.reader is not None:
        libraries.reader.stop()


@pytest.mark.parametrize("separate", [False, True])
def test_a_project_module_written_after_its_import_was_read_has_its_members_soon(tmp_path: Path, monkeypatch, separate):
    monkeypatch.setattr(loader_module, "MISSING", 0.0)  # else 5 s after the read that found nothing
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    libraries = Libraries(separate=separate)
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    asks = [((tmp_path / "app.py").as_uri(), "import helpers\nhelpers."),  # a script's sibling, not written yet
            ((tmp_path / "pkg" / "main.py").as_uri(), "from . import tools\ntools."),  # a module of its package
            ((tmp_path / "pkg" / "cli.py").as_uri(), "from .tools import Runner\nRunner.")]

    def members() -> list[set[str]]:
        found = [{c.text for c in complete(service, libraries, uri, text, "python")} for uri, text in asks]
        libraries.loader.wait(5)  # the checks that the asks queued
        return found

    assert not any({"late_helper", "run_tool", "start"} & found for found in members())
    (tmp_path / "helpers.py").write_text("def late_helper():\n    pass\n")
    (tmp_path / "pkg" / "tools.py").write_text("def run_tool():\n    pass\n\nclass Runner:\n    def start(self):\n        pass\n")
    for folder in (tmp_path, tmp_path / "pkg"):
        os.utime(folder, (time.time() + 5,) * 2)
    helpers, tools, runner = members()
    assert "late_helper" in helpers and "run_tool" in tools and "start" in runner
    if libraries.reader is not None:
        libraries.reader.stop()


def test_a_package_installed_editable_is_read_from_where_its_pth_file_points(tmp_path: Path, monkeypatch):
    # a uv or hatch workspace: each member installed editable, its .pth naming its src/ folder
    monkeypatch.setattr(loader_module, "MISSING", 0.0)
    site = make_venv(tmp_path)
    for name, cls in (("core", "Ledger"), ("billing", "Invoice")):
        (tmp_path / "packages" / name / "src" / name).mkdir(parents=True)
        (tmp_path / "packages" / name / "src" / name / "__init__.py").write_text(
            f"class {cls}:\n    def post_{name}(self):\n        pass\n")
    (site / "_core.pth").write_text(str(tmp_path / "packages" / "core" / "src") + "\n")  # an absolute line
    (site / "distutils-precedence.pth").write_text("import os; os.environ.get('X')\n")  # a line run, not a folder
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "packages" / "app" / "src" / "app" / "main.py").as_uri()

    def members(text: str) -> set[str]:
        found = {c.text for c in complete(service, libraries, uri, text, "python")}
        libraries.loader.wait(5)
        return found

    assert "post_core" in members("from core import Ledger\nLedger.")
    assert "post_billing" not in members("from billing import Invoice\nInvoice.")
    (site / "_billing.pth").write_text("../../../../packages/billing/src\n")  # installed later, a line relative to site-packages
    os.utime(site, (time.time() + 5,) * 2)
    assert "post_billing" in members("from billing import Invoice\nInvoice.")


def test_an_environment_made_after_the_files_were_read_is_found(tmp_path: Path, monkeypatch):
    from treecomplete.sources import installed

    monkeypatch.setattr(installed, "CHECK", 0.0)  # else looked for again 5 s later
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    python = ((tmp_path / "src" / "app.py").as_uri(), "import fakepkg\nfakepkg.", "python")
    javascript = ((tmp_path / "src" / "app.js").as_uri(), "const typed = require('typed');\ntyped.", "javascript")
    assert "make_polygon" not in {c.text for c in complete(service, libraries, *python)}
    assert "parseThing" not in {c.text for c in complete(service, libraries, *javascript)}
    make_venv(tmp_path)  # python -m venv .venv && pip install ...
    make_node_modules(tmp_path)  # npm install
    assert "make_polygon" in {c.text for c in complete(service, libraries, *python)}
    assert "parseThing" in {c.text for c in complete(service, libraries, *javascript)}


def test_a_package_exporting_a_function_lists_the_function_s_own_members_last(tmp_path: Path):
    package = tmp_path / "node_modules" / "destroyer"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "destroyer", "main": "index.js"}')
    (package / "index.js").write_text("module.exports = destroy;\nfunction destroy(stream) {}\n"
                                      "destroy.onStream = function () {};\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    found = complete(service, libraries, (tmp_path / "app.js").as_uri(),
                     "const destroy = require('destroyer');\ndestroy.", "javascript")
    texts = [c.text for c in found]
    assert {"call", "apply", "bind", "length", "name"} <= set(texts)
    assert texts[-2:] == ["length", "name"]  # after every ranked item and every other member (where nothing else lists them)
    assert texts.index("onStream") < texts.index("bind")
    assert found[-1].kind == Kind.PROPERTY and "of Function" in found[-1].detail
    known = service.fallback.known(context_at(service.get((tmp_path / "app.js").as_uri()), len(b"const destroy = require('destroyer');\ndestroy.")))
    assert "bind" not in known.names  # never ranked as the module's member


def test_a_project_object_lists_what_other_files_write_after_its_name_last(tmp_path: Path):
    from treecomplete.sources.project_index import ProjectIndex

    (tmp_path / "context.js").write_text("module.exports = {\n  inspect() {},\n  toJSON() {},\n};\n")
    (tmp_path / "application.js").write_text("function createContext(req) {\n  const context = {};\n"
                                             "  context.state = {};\n  context.originalUrl = req.url;\n  return context;\n}\n")
    index = ProjectIndex()
    index.add_root(tmp_path)
    assert index.wait(10)
    libraries = Libraries()
    service = CompletionService(libraries=libraries, project=index)
    uri = (tmp_path / "request.js").as_uri()
    complete(service, libraries, uri, "const context = require('./context');\ncontext.", "javascript")
    found = service.complete(uri, 1, 8, 1).candidates  # one ranked item: the rest follow it
    texts = [c.text for c in found]
    assert {"inspect", "toJSON", "state", "originalUrl"} <= set(texts) and len(texts) == len(set(texts))
    written = [c for c in found[1:] if c.text in ("state", "originalUrl")]
    assert written and all("written after context." in c.detail for c in written)
    assert max(texts.index("inspect"), texts.index("toJSON")) < texts.index(written[0].text)  # the module's own first


def test_without_libraries_nothing_changes(tmp_path: Path):
    service = CompletionService()
    service.open((tmp_path / "a.py").as_uri(), "python", 1, "import os\nhelper = 1\nos.path.")
    texts = [c.text for c in service.complete((tmp_path / "a.py").as_uri(), 2, 8, 50).candidates]
    assert "join" not in texts[:3]


def test_a_base_class_from_another_file_of_the_project(tmp_path: Path):
    package = tmp_path / "shop" / "models"
    package.mkdir(parents=True)
    (tmp_path / "shop" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("class Base:\n    def persist(self):\n        self.saved_at = 0\n"
                                     "    def validate(self):\n        pass\n")
    (tmp_path / "shop" / "util.py").write_text("class Mixin:\n    def describe(self):\n        pass\n")
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)
    text = ("from .core import Base\nfrom shop.util import Mixin\n\n"
            "class Order(Base, Mixin):\n    def total(self):\n        return self.")
    candidates = complete(service, libraries, (package / "order.py").as_uri(), text, "python")
    known = {c.text for c in candidates[:6]}
    assert {"persist", "validate", "saved_at", "describe", "total"} <= known
    # the bases are read: the class's members are all known, so a word the class lacks ranks below them
    assert [c.text for c in candidates].index("Base") > 5


USER_PY = "class User:\n    def greet(self):\n        pass\n    age = 0\n"


def _served(tmp_path: Path, files: dict[str, str]) -> tuple[CompletionService, Libraries]:
    """A service whose libraries read the workspace ``tmp_path``, holding ``files`` (name: text)."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    libraries = Libraries()
    libraries.roots = [tmp_path]
    return CompletionService(libraries=libraries), libraries


def listed(service: CompletionService, libraries: Libraries, path: Path, text: str, language: str) -> list[str]:
    """The texts of complete()'s candidates for the buffer ``text`` open as ``path``."""
    return [c.text for c in complete(service, libraries, path.as_uri(), text, language)]


def _members_come_first(tmp_path: Path, module: tuple[str, str], head: str, texts: list[str], language: str) -> None:
    """Each of ``texts`` after ``head`` (which imports ``module``: its file's name and text) lists
    the module's class's members, ``age`` and ``greet``, among its first three items."""
    service, libraries = _served(tmp_path, dict([module]))
    suffix = ".py" if language == "python" else ".ts"
    for text in texts:
        found = listed(service, libraries, tmp_path / f"a{suffix}", head + text, language)
        assert {"age", "greet"} <= set(found[:3]), text


def test_a_name_annotated_as_optional_or_quoted_has_the_class_s_members(tmp_path: Path):
    _members_come_first(tmp_path, ("models.py", USER_PY),
                        "from models import User\nfrom typing import Optional\nimport typing\n",
                        ["def f(user: User | None = None):\n    user.",
                         "def f(user: Optional[User]):\n    user.",
                         "def f(user: typing.Optional[User] = None) -> None:\n    user.",
                         "def f(user: 'User'):\n    user.",  # a forward reference
                         "class A:\n    def __init__(self, user: User):\n        self.user = user\n    def g(self):\n        self.user.",
                         "class A:\n    user: User\n    def g(self):\n        self.user."],  # a class body's field (a dataclass)
                        "python")


def test_typescript_a_type_written_with_null_or_a_wrapper_and_a_class_s_field_have_its_members(tmp_path: Path):
    _members_come_first(tmp_path, ("models.ts", "export interface User { greet(): void; age: number }\n"),
                        "import { User } from './models'\n",
                        ["function f(user: User | null) {\n  user.",
                         "function f(user: undefined | User) {\n  user?.",
                         "function f(user: Readonly<User>) {\n  user.",
                         "let user: User | null = null\nuser.",
                         "class A {\n  private user?: User | null = null\n  m() {\n    this.user.",  # a field
                         "class A {\n  constructor(private readonly user: User) {}\n  m() {\n    this.user.",  # a parameter property
                         "class A {\n  user!: User\n  m() {\n    this.user."],
                        "typescript")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    other = "import { User } from './models'\nclass B {\n  user: User\n}\nclass A {\n  m() {\n    this.user."
    assert "greet" not in listed(service, libraries, tmp_path / "b.ts", other, "typescript")[:3]


def test_a_name_last_given_a_literal_has_the_literal_s_class_members(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    cases = [("a.py", "items = []\nitems.", "python", "append"),
             ("a.py", "class A:\n    def __init__(self):\n        self.items = []\n    def m(self):\n        self.items.", "python", "append"),
             ("a.py", "name = f'{1}'\nname.", "python", "endswith"),
             ("a.py", "counts = {}\ncounts.", "python", "setdefault"),
             ("a.py", "data = b''\ndata.", "python", "decode"),
             ("a.js", "const items = []\nitems.", "javascript", "push"),
             ("a.js", "class A {\n  constructor() {\n    this.items = []\n  }\n  m() {\n    this.items.", "javascript", "push"),
             ("a.js", "let label = `x`\nlabel.", "javascript", "padStart")]
    for name, text, language, member in cases:
        assert member in listed(service, libraries, tmp_path / name, text, language), text
    later = "import pathlib\np = ''\np = pathlib.Path('x')\np."  # the last assignment counts
    assert "endswith" not in listed(service, libraries, tmp_path / "b.py", later, "python")
    text = "show(f'counts={1}', counts={})\ncounts."  # in a string, a keyword argument: not the name's
    assert "setdefault" not in listed(service, libraries, tmp_path / "c.py", text, "python")
    text = "const names = 'a b'.split(' ')\nnames."  # not the literal's class: a method's result
    assert "padStart" not in listed(service, libraries, tmp_path / "c.js", text, "javascript")
    text = "counts = {\n    'a': [1],\n}\ncounts."  # a literal of several lines
    assert "setdefault" in listed(service, libraries, tmp_path / "d.py", text, "python")
    other = "function a() {\n  const items = []\n}\nfunction b(items) {\n  items."  # another function's
    assert "push" not in listed(service, libraries, tmp_path / "b.js", other, "javascript")


def test_a_name_narrowed_by_isinstance_or_instanceof_has_the_class_s_members(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY,
                                            "models.js": "class User {\n  greet() {}\n  get age() { return 0 }\n}\nmodule.exports = { User }\n"})
    cases = [("a.py", "from models import User\ndef f(x):\n    if isinstance(x, User):\n        x.", "python"),
             ("a.py", "from models import User\ndef f(x):\n    assert isinstance(x, User)\n    x.", "python"),
             ("a.js", "const { User } = require('./models')\nfunction f(x) {\n  if (x instanceof User) {\n    x.", "javascript"),
             ("a.ts", "import { User } from './models'\nfunction f(x: unknown) {\n  if (x instanceof User) {\n    x.", "typescript")]
    for name, text, language in cases:
        assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / name, text, language)[:3]), text
    error = listed(service, libraries, tmp_path / "b.js", "function f(e) {\n  if (e instanceof Error) {\n    e.", "javascript")
    assert {"message", "stack"} <= set(error[:4])  # a global class


def test_a_name_given_a_method_s_result_of_a_known_instance_has_its_class_s_members(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    cases = [("line = ''\nparts = line.split(',')\nparts.", "append"),  # typeshed: str.split -> list[str]
             ("from pathlib import Path\np = Path('x')\ntext = p.read_text()\ntext.", "endswith"),  # Path.read_text -> str
             ("d = {}\nks = d.keys()\nks.", "isdisjoint")]
    for text, member in cases:
        assert member in listed(service, libraries, tmp_path / "a.py", text, "python")[:8], text
    unknown = [c.text for c in complete(service, libraries, (tmp_path / "b.py").as_uri(), "x = foo()\nparts = x.split(',')\nparts.", "python")]
    assert "append" not in unknown[:8]
    # JavaScript: the methods and functions whose result's class Node's table gives, the call all the value
    for text, member in (("const parts = line.split(',')\nparts.", "push"), ("const keys = Object.keys(o)\nkeys.", "push"),
                         ("const label = parts.join('-')\nlabel.", "padStart")):
        assert member in listed(service, libraries, tmp_path / "c.js", text, "javascript"), text
    chained = "const s = line.split(',').join('-')\ns."
    assert "push" not in listed(service, libraries, tmp_path / "d.js", chained, "javascript")


def test_a_loop_s_variable_has_the_members_of_the_element_type_written(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY,
                                            "shapes.ts": "export interface Shape { area(): number; label: string }\nexport class Item { weigh() {} }\n"})

    def first(name: str, text: str, language: str) -> list[str]:
        return listed(service, libraries, tmp_path / name, text, language)[:2]

    python = {"users: list[User] = []\nfor u in users:\n    u.",  # an annotation's element type
              "def f(xs: typing.Sequence[User]):\n    for u in xs:\n        u.",
              "users = [User('a'), User('b')]\nfor u in users:\n    u.",  # the class a list literal constructs
              "class Team:\n    members: list[User]\n    def f(self):\n        for u in self.members:\n            u.",
              "def f(users: list[User]):\n    for i, u in enumerate(users, 1):\n        u.",
              "by_id: dict[int, User] = {}\nfor key, u in by_id.items():\n    u.",
              "by_name: Mapping[str, User] = {}\nfor u in by_name.values():\n    u.",
              "by_user: dict[User, int] = {}\nfor u, count in by_user.items():\n    u."}
    for text in python:
        assert set(first("a.py", "from models import User\n" + text, "python")) == {"age", "greet"}, text
    assert "greet" not in first("a.py", "from models import User\nusers: list[User] = []\nfor u in range(3):\n    u.", "python")
    typescript = {"const all: Shape[] = []\nall.forEach((s) => s.",
                  "function f(all: Array<Shape>) {\n  for (const s of all) {\n    s.",
                  "class Box {\n  items: readonly Shape[] = []\n  m() {\n    this.items.map(s => s."}
    for text in typescript:
        assert set(first("b.ts", "import { Shape } from './shapes'\n" + text, "typescript")) == {"area", "label"}, text
    (tmp_path / "item.js").write_text("class Item {\n  weigh() {}\n  get size() { return 1 }\n}\nmodule.exports = { Item }\n")
    javascript = {"const items = [new Item()]\nfor (const it of items) {\n  it.",  # a literal of constructions
                  "/** @type {Item[]} */\nconst items = []\nitems.forEach((it) => it.",  # JSDoc's
                  "/** @param {Array<Item>} items */\nfunction f(items) {\n  items.map((it) => it."}
    for text in javascript:
        assert set(first("c.js", "const { Item } = require('./item')\n" + text, "javascript")) == {"weigh", "size"}, text
    closed = "import { Shape } from './shapes'\nconst all: Shape[] = []\nall.forEach((s) => s.label)\nconst s = 'x'\ns."
    assert "area" not in first("b.ts", closed, "typescript")  # the callback's s is out of scope


def test_where_the_project_s_own_modules_are_found(tmp_path: Path):
    from treecomplete.sources.libraries.python_environment import project_module

    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (inner / "__init__.py").write_text("")
    assert project_module(inner, ".core") == (tmp_path, "pkg.sub.core")
    assert project_module(inner, "..util") == (tmp_path, "pkg.util")
    assert project_module(inner, ".") == (tmp_path, "pkg.sub")
    assert project_module(inner, "pkg.util") == (tmp_path, "pkg.util")
    assert project_module(inner, "os") is None  # not the document's package
    assert project_module(tmp_path, ".core") is None or project_module(tmp_path, ".core")[1] == "core"


def test_a_package_is_found_before_a_namespace_package_of_the_same_name(tmp_path: Path):
    from treecomplete.sources.libraries.python_environment import import_root

    (tmp_path / "app" / "tools").mkdir(parents=True)  # a namespace package beside the script
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("")  # a package in the folder above: Python imports this one
    (tmp_path / "app" / "data").mkdir()
    assert import_root(tmp_path / "app", "tools", tmp_path) == tmp_path
    assert import_root(tmp_path / "app", "data", tmp_path) == tmp_path / "app"  # a folder alone is one
    assert import_root(tmp_path / "app", "missing", tmp_path) is None


def test_a_javascript_base_class_from_a_project_file(tmp_path: Path):
    (tmp_path / "base.js").write_text("class Base {\n  persist() {}\n  validate() { this.checked = true; }\n}\n"
                                      "module.exports = Base;\n")
    (tmp_path / "shapes.js").write_text("export class Shape {\n  area() {}\n}\nexport default class Other {}\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    text = ("const Base = require('./base');\nimport { Shape } from './shapes';\n"
            "class Order extends Base {\n  total() {\n    return this.")
    candidates = complete(service, libraries, (tmp_path / "order.js").as_uri(), text, "javascript")
    assert {"persist", "validate", "checked", "total"} <= {c.text for c in candidates[:5]}
    text = "import { Shape } from './shapes';\nclass Square extends Shape {\n  side() {\n    return this."
    candidates = complete(service, libraries, (tmp_path / "square.js").as_uri(), text, "javascript")
    assert {"area", "side"} <= {c.text for c in candidates[:3]}


def test_a_workspace_package_linked_in_node_modules_is_read_as_the_project_s_own(tmp_path: Path):
    # npm, yarn and pnpm workspaces link node_modules/@org/core to packages/core: its sources
    # are the project's, read for the members of its classes and objects (a package's are not)
    files = {"package.json": '{"name": "@org/core", "main": "src/index.js"}',
             "src/index.js": "export class Ledger { post() {} }\nexport const api = { fetchAll() {} }\n"}
    for folder in (tmp_path / "packages" / "core", tmp_path / "installed" / "node_modules" / "@org" / "core"):
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
    (tmp_path / "node_modules" / "@org").mkdir(parents=True)
    (tmp_path / "node_modules" / "@org" / "core").symlink_to(tmp_path / "packages" / "core")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    asks = ("import { Ledger } from '@org/core'\nconst l = new Ledger()\nl.", "import { api } from '@org/core'\napi.")
    linked = [{c.text for c in complete(service, libraries, (tmp_path / "packages" / "app" / "main.js").as_uri(), text, "javascript")}
              for text in asks]
    assert "post" in linked[0] and "fetchAll" in linked[1]
    installed = [{c.text for c in complete(service, libraries, (tmp_path / "installed" / "main.js").as_uri(), text, "javascript")}
                 for text in asks]
    assert "post" not in installed[0] and "fetchAll" not in installed[1]  # a package's sources: its default export's only


def test_typescript_members_of_the_type_written_for_the_receiver(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    head = ("interface User { name: string; age: number; greet(): void }\n"
            "type Point = { x: number; y: number };\n"
            "interface Admin extends User { rights: string[] }\n"
            "export class Shape { area(): number { return 0 } }\n")
    cases = {
        "function f(user: User) {\n  const other = 1;\n  return user.": {"name", "age", "greet"},
        "function f(p?: Point) {\n  const other = 1;\n  return p.": {"x", "y"},
        "const s: Shape = new Shape();\nconst other = 1;\ns.": {"area"},
        "function f(a: Admin) {\n  const other = 1;\n  return a.": {"rights"},
    }
    other = {}
    for i, (text, members) in enumerate(cases.items()):
        found = complete_at(service, libraries, (tmp_path / f"t{i}.ts").as_uri(), head + text)
        assert members <= {c.text for c in found[:len(members)]}, (text, [c.text for c in found[:6]])
        other[i] = next(c.score for c in found if c.text == "other")
    # a word of the buffer the type lacks is lowered where all its members are known, not where it extends another
    assert other[0] < other[3] - 3 and other[1] < other[3] - 3
    js = [c.text for c in complete_at(service, libraries, (tmp_path / "t.js").as_uri(), "const user = load();\nuser.")]
    assert "name" not in js  # no types in JavaScript


def test_typescript_members_of_a_type_a_project_file_exports(tmp_path: Path):
    (tmp_path / "types.ts").write_text(
        "export interface Retryer<TData> {\n  promise: Promise<TData>\n  continueRetry: () => void\n}\n"
        "export type Options = { retryDelay: number; networkMode?: string }\n"
        "export class Cache { build(): void {} }\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    head = "import type { Retryer, Options } from './types'\nimport { Cache } from './types'\n\n"
    cases = {
        "function f(retryer: Retryer<number>) {\n  const other = 1;\n  return retryer.": {"promise", "continueRetry"},
        "function f(options?: Options) {\n  const other = 1;\n  return options.": {"retryDelay", "networkMode"},
        "function f(cache: Cache) {\n  const other = 1;\n  return cache.": {"build"},
    }
    for i, (text, members) in enumerate(cases.items()):
        found = complete_at(service, libraries, (tmp_path / f"t{i}.ts").as_uri(), head + text)
        assert members == {c.text for c in found[:len(members)]}, (text, [c.text for c in found[:6]])
    unbound = "function f(retryer: Missing) {\n  const other = 1;\n  return retryer."  # imported from nowhere
    assert "promise" not in [c.text for c in complete_at(service, libraries, (tmp_path / "u.ts").as_uri(), head + unbound)]


def complete_at(service, libraries, uri: str, text: str) -> list:
    return complete(service, libraries, uri, text, "typescript" if uri.endswith(".ts") else "javascript")


def test_after_self_what_follows_the_cursor_rules_out_a_kind_of_member(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    head = ("class Store:\n    def __init__(self):\n        self.loader = None\n        self.limit = 3\n"
            "    @property\n    def label(self):\n        return ''\n    def load(self):\n        pass\n"
            "    def save(self):\n        x = self.l")
    uri = (tmp_path / "s.py").as_uri()

    def ranked(rest: str) -> list[str]:
        service.open(uri, "python", 1, head + rest)
        lines = head.split("\n")
        service.complete(uri, len(lines) - 1, len(lines[-1]), 50)
        libraries.loader.wait(10)
        return [c.text for c in service.complete(uri, len(lines) - 1, len(lines[-1]), 50).candidates]

    called = ranked("(1)\n")  # a call follows: the method first, the fields and the property after it
    assert called[0] == "load" and called.index("load") < min(called.index(n) for n in ("loader", "limit", "label"))
    read = ranked(".x\n")  # an attribute's own attribute follows: a field or the property, the method last of them
    assert read.index("load") > max(read.index(n) for n in ("loader", "limit", "label"))
    free = ranked("\n")  # nothing follows on the line: a call may come, nothing ruled out
    assert free.index("load") < max(free.index(n) for n in ("loader", "limit", "label"))
    js = "class Cart {\n  constructor() { this.items = []; this.index = 0 }\n  get ids() { return [] }\n  insert(x) {}\n  total() {\n    return this.i"
    service.open((tmp_path / "c.js").as_uri(), "javascript", 1, js + "(2)\n  }\n}\n")
    lines = js.split("\n")
    texts = [c.text for c in service.complete((tmp_path / "c.js").as_uri(), len(lines) - 1, len(lines[-1]), 50).candidates]
    assert texts[0] == "insert" and texts.index("ids") > texts.index("insert")  # a getter is read as a field


def test_a_literal_or_a_builtin_class_s_call_before_the_dot_has_that_class_s_members(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.py").as_uri()
    texts = [c.text for c in complete(service, libraries, uri, "def f(value):\n    return str(value).is", "python")]
    assert {"isupper", "isdigit"} <= set(texts[:12]) and "isupper" in texts  # str's, from typeshed's builtins
    assert [c.text for c in complete(service, libraries, uri, "x = ', '.jo", "python")][0] == "join"
    assert [c.text for c in complete(service, libraries, uri, "x = b'ab'.de", "python")][0] == "decode"
    assert [c.text for c in complete(service, libraries, uri, "x = dict(a=1).it", "python")][0] == "items"
    assert "isupper" not in [c.text for c in complete(service, libraries, uri, "def f(value):\n    return g(value).is", "python")]


def test_javascript_an_instance_of_a_global_class_has_its_members(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.js").as_uri()
    texts = [c.text for c in complete(service, libraries, uri, "function f(url) {\n  return new URL(url).to", "javascript")]
    assert texts[:2] == ["toString", "toJSON"]  # URL's, ahead of a string's toLowerCase
    assert [c.text for c in complete(service, libraries, uri, "const k = Object.keys(o).fo", "javascript")][0] == "forEach"
    assert "trimEnd" in [c.text for c in complete(service, libraries, uri, "const s = 'a b '.tr", "javascript")]


def test_a_receiver_named_as_a_class_the_buffer_imports_or_defines_has_its_members(tmp_path: Path):
    (tmp_path / "option.js").write_text("class Option {\n  isBoolean() { return true }\n  attributeName() {}\n}\n"
                                        "module.exports = { Option };\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    head = "const { Option } = require('./option.js');\nconst other = { ignore: 1 };\nfunction check("
    texts = listed(service, libraries, tmp_path / "a.js", head + "option) {\n  return option.", "javascript")
    assert {"isBoolean", "attributeName"} <= set(texts) and "ignore" in texts  # a guess: the other words stay
    doc = service.get((tmp_path / "a.js").as_uri())
    found = libraries.members(context_at(doc, len(doc.data)))
    assert set(found.names) == {"isBoolean", "attributeName"} and not found.complete
    elsewhere = listed(service, libraries, tmp_path / "b.js", head + "value) {\n  return value.", "javascript")
    assert "attributeName" not in elsewhere  # another name: no class
    python = ("class HttpClient:\n    def send(self):\n        pass\n\n    def close(self):\n        pass\n\n\n"
              "def run(http_client, other):\n    http_client.")
    assert {"send", "close"} <= {c.text for c in complete(service, libraries, (tmp_path / "c.py").as_uri(), python, "python")}


def test_a_module_s_variables_go_last_where_a_call_follows_but_its_functions_stay_where_none_does(tmp_path: Path):
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "a.py").as_uri()

    def ranked(line: str, rest: str) -> list[str]:
        service.open(uri, "python", 1, "import os\n" + line + rest)
        service.complete(uri, 1, len(line), 50)
        libraries.loader.wait(10)
        return [c.text for c in service.complete(uri, 1, len(line), 50).candidates]

    free = ranked("x = os.s", " + 1\n")
    assert free.index("sep") < free.index("system")  # a variable, ranked as it is
    called = ranked("x = os.s", "(1)\n")
    assert "sep" not in called[:called.index("system") + 1]  # `os.s|(1)`: a call follows, the variables after
    assert ranked("x = sorted(names, key=os.path.b", ")\n")[0] == "basename"  # a module's function passed as a value


def test_a_project_class_method_shows_its_parameters(tmp_path: Path):
    (tmp_path / "screen.js").write_text("export class Screen {\n  static create(opts) {}\n  draw(x, { fill = 1 } = {}) {}\n}\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)

    def members(name: str, language: str, text: str) -> dict:
        uri = (tmp_path / name).as_uri()
        service.open(uri, language, 1, text)
        line, character = text.count("\n"), len(text.rsplit("\n", 1)[-1])
        return {c.text: c for c in service.complete_read(uri, line, character, 20, timeout=10).candidates}

    drawn = members("app.js", "javascript", "import { Screen } from './screen';\nconst s = new Screen();\ns.")["draw"]
    assert drawn.kind == Kind.METHOD and drawn.signature == "(x, {…})" and drawn.origin == "Screen"
    text = "class Store:\n    def load(self, path, *, strict=False):\n        pass\n    def save(self):\n        self."
    load = members("store.py", "python", text)["load"]
    assert load.signature == "(path, *, strict)" and load.detail.startswith("load(path, *, strict) method of Store")


def test_types_one_step_on(tmp_path: Path):
    """What a call returns (its declared return type), a `with ... as`, a parameter's or an
    attribute's written type: their members, read, never run."""
    (tmp_path / "shop.py").write_text("class Cart:\n    def add(self, item):\n        pass\n\n"
                                      "def new_cart() -> 'Cart':\n    return Cart()\n")
    libraries = Libraries()
    libraries.roots = [tmp_path]
    service = CompletionService(libraries=libraries)

    def listed(text: str) -> list[str]:
        uri = (tmp_path / "app.py").as_uri()
        service.open(uri, "python", 1, text)
        line, character = text.count("\n"), len(text.rsplit("\n", 1)[-1])
        return [c.text for c in service.complete_read(uri, line, character, 20, timeout=10).candidates]

    assert {"info", "debug", "setLevel"} <= set(listed("import logging\nlog = logging.getLogger(__name__)\nlog."))
    assert {"read", "readline", "close"} <= set(listed("with open('x') as fh:\n    fh."))
    assert {"group", "start"} <= set(listed("import re\nm = re.match('a', 'b')\nm."))
    assert {"returncode", "stdout"} <= set(listed("import subprocess\ndone = subprocess.run(['ls'])\ndone."))
    assert "add" in listed("from shop import new_cart\ncart = new_cart()\ncart.")[:3]  # a project function's
    assert "with_suffix" in listed("from pathlib import Path\ndef f(root: Path):\n    root.")
    assert "with_suffix" in listed("from pathlib import Path\nclass A:\n    def g(self):\n        self.base: Path = make()\n"
                                   "        self.base.")


def test_a_local_of_the_name_an_import_binds_hides_the_import(tmp_path: Path):
    """Inside a function that binds the imported name itself (a parameter, a loop variable, a
    declaration, in it or in a function around it), the name is that local, not the module; an
    import written inside the function is still the module."""
    (tmp_path / "errors.js").write_text("export function await_invalid() {}\nexport function bind_invalid() {}\n")
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / "main.js").as_uri()
    head = "import * as e from './errors.js';\n"

    def texts(body: str, language: str = "javascript", at: str = uri) -> list[str]:
        return [c.text for c in complete(service, libraries, at, body, language)]

    assert {"await_invalid", "bind_invalid"} <= set(texts(head + "function f() {\n  e."))
    for body in ("function f(list) {\n  for (const e of list) {\n    if (e.",
                 "function f(list) {\n  for (const e of list) {\n    run(() => {\n      e.",
                 "function f(e) {\n  return () => e.",
                 "const f = (e) => e.",
                 "function f(list) {\n  let e = list[0];\n  e."):
        assert "await_invalid" not in texts(head + body), body
    assert "await_invalid" in texts("function f() {\n  const e = require('./errors.js');\n  e.")
    module = (tmp_path / "main.py").as_uri()

    def members(body: str) -> set[str]:
        texts(body, "python", module)  # read what it imports
        found = libraries.members(context_at(service.documents[module], len(body.encode())))
        return set(found.names) if found is not None else set()

    assert "getcwd" not in members("import os\n\ndef f(os):\n    return os.")
    assert "getcwd" in members("import os\n\ndef f(path):\n    return os.")
    assert "dumps" in members("import os\n\ndef f():\n    import json as os\n    return os.")
