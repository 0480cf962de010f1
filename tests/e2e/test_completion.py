"""Completion end to end: items, order, kinds, text edits and resolve."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import complete, labels, open_doc

PY = """import os

def load_configuration(configuration_path):
    return open(configuration_path).read()

class Registry:
    pass

value = load_configuration(os.path.join("a", "b"))
lo"""


async def test_ranks_buffer_identifiers_by_prefix(client: LanguageClient):
    open_doc(client, "file:///work/a.py", PY, "python")
    result = await complete(client, "file:///work/a.py", 9, 2)
    names = labels(result)
    assert names[0] == "load_configuration"
    assert all(name.lower().startswith("lo") for name in names)
    item = result.items[0]
    assert item.kind == types.CompletionItemKind.Function
    assert item.filter_text == "load_configuration"
    assert isinstance(item.text_edit, types.TextEdit)
    assert item.text_edit.range == types.Range(types.Position(9, 0), types.Position(9, 2))


async def test_attribute_after_dot_and_resolve(client: LanguageClient):
    text = "import os\nos.path.join('a')\nos.getcwd()\nos."
    open_doc(client, "file:///work/b.py", text, "python")
    result = await complete(client, "file:///work/b.py", 3, 3)
    names = labels(result)
    assert set(names[:2]) == {"path", "getcwd"}
    resolved = await client.completion_item_resolve_async(result.items[0])
    assert resolved.detail


async def test_javascript_and_unsupported_language(client: LanguageClient):
    js = "const element = document.getElementById('x');\nelement.addEventListener('click', f);\nelem"
    open_doc(client, "file:///work/c.js", js, "javascript")
    assert labels(await complete(client, "file:///work/c.js", 2, 4))[0] == "element"
    open_doc(client, "file:///work/d.txt", "hello hello", "plaintext")
    assert len((await complete(client, "file:///work/d.txt", 0, 5)).items) == 0


async def test_typescript_tsx_and_extension_fallback(client: LanguageClient):
    ts = "interface Shape { area(): number }\nfunction describeShape(shape: Shape) {}\ndescr"
    open_doc(client, "file:///work/e.ts", ts, "typescript")
    assert labels(await complete(client, "file:///work/e.ts", 2, 5))[0] == "describeShape"
    tsx = "const Button = () => <button>ok</button>;\nexport const App = () => <Butt"
    open_doc(client, "file:///work/f.tsx", tsx, "typescriptreact")
    assert labels(await complete(client, "file:///work/f.tsx", 1, 30))[0] == "Button"
    # An id the server does not know, on a .py file: the extension decides.
    open_doc(client, "file:///work/g.py", "import collections\ncoll", "py")
    assert labels(await complete(client, "file:///work/g.py", 1, 4))[0] == "collections"
