"""Keyword arguments inside a Python call (server/sources/arguments.py): the callee's parameter
names, offered as ``name=`` and ranked with the other candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from treecomplete.items import completion_list
from treecomplete.service import CompletionService
from treecomplete.sources.arguments import keywords
from treecomplete.sources.libraries.known import Libraries


def test_the_names_a_keyword_can_pass():
    assert keywords("(a, /, b, *args, c, **options)") == ["b", "c"]
    assert keywords("(obj, *, skipkeys, indent)") == ["obj", "skipkeys", "indent"]
    assert keywords("(path, options?)") == ["path", "options"]
    assert keywords("()") == []


@pytest.fixture
def service() -> CompletionService:
    return CompletionService(libraries=Libraries())


def items(service: CompletionService, tmp_path: Path, text: str, at: int | None = None) -> list:
    uri = (tmp_path / "call.py").as_uri()
    doc = service.open(uri, "python", 1, text)
    before = text[: len(text) if at is None else at]
    line, character = before.count("\n"), len(before.rsplit("\n", 1)[-1])
    completion = service.complete_read(uri, line, character, 50, timeout=10)
    return completion_list(doc, completion, 50).items


def test_a_library_functions_keywords(service: CompletionService, tmp_path: Path):
    found = items(service, tmp_path, "import json\ndata = {}\njson.dumps(data, ")
    labels = [i.label for i in found]
    assert {"indent=", "sort_keys=", "default="} <= set(labels)
    indent = next(i for i in found if i.label == "indent=")
    assert indent.text_edit.new_text == "indent=" and indent.filter_text == "indent"
    assert [i.label for i in items(service, tmp_path, "import json\njson.dumps(data, ind")][0] == "indent="
    # passed already: not again; a positional-only parameter: never
    assert "sort_keys=" not in [i.label for i in items(service, tmp_path, "from json import dumps\ndumps({}, sort_keys=True, ")]
    assert "x=" not in [i.label for i in items(service, tmp_path, "len(")]


def test_the_files_own_functions_classes_and_methods(service: CompletionService, tmp_path: Path):
    text = "def helper(a, *, flag=False, depth=2):\n    pass\nhelper(1, "
    assert {"flag=", "depth=", "a="} <= {i.label for i in items(service, tmp_path, text)[:5]}
    text = "from dataclasses import dataclass\n@dataclass\nclass Item:\n    name: str\n    price: float = 0\nItem("
    assert {"name=", "price="} <= {i.label for i in items(service, tmp_path, text)[:4]}
    text = ("class Store:\n    def save(self, path, *, atomic=True):\n        pass\n    def go(self):\n"
            "        self.save('x', ")
    assert "atomic=" in [i.label for i in items(service, tmp_path, text)[:3]]


def test_inside_a_file_and_where_the_equals_sign_is_there(service: CompletionService, tmp_path: Path):
    text = "import json\nout = json.dumps(data, ind=2)\nprint(out)\n"
    found = items(service, tmp_path, text, at=text.index("ind") + 3)
    assert found[0].label == "indent=" and found[0].text_edit.new_text == "indent"  # the `=` is there already
    text = "import json\nout = json.dumps(data, )\n"
    assert "indent=" in [i.label for i in items(service, tmp_path, text, at=text.index(", )") + 2)]


def test_not_where_no_argument_starts(service: CompletionService, tmp_path: Path):
    assert not [i for i in items(service, tmp_path, "import json\nx = 1\njson.dumps(x + ") if i.label.endswith("=")]
    assert not [i for i in items(service, tmp_path, "import json\njson.") if i.label.endswith("=")]
    assert not [i for i in items(service, tmp_path, "unknown_function(1, ") if i.label.endswith("=")]


def test_a_builtins_keywords_are_read_when_the_document_opens(service: CompletionService, tmp_path: Path, monkeypatch):
    # builtins is read ahead at the open, as the document's imports are: the first request in a
    # call to `print(` finds its keywords without waiting for a read (a request may not wait here)
    monkeypatch.setattr("treecomplete.service.MEMBER_WAIT", 0.0)
    uri = (tmp_path / "call.py").as_uri()
    text = "x = 1\nprint(x, "
    doc = service.open(uri, "python", 1, text)
    assert service.libraries.loader.wait(10)
    completion = service.complete(uri, 1, 9, 50)
    assert not completion.incomplete
    assert {"sep=", "end="} <= {i.label for i in completion_list(doc, completion, 50).items}
