"""Completion inside a file, through the real server over stdio: what the code after the cursor
says (a name read below and nowhere above is being declared; a parameter being typed is what the
body reads; a member used below on the same receiver; in a class, the methods called below and
defined nowhere; after a dot, a call or not)."""

from __future__ import annotations

from pytest_lsp import LanguageClient

from .conftest import complete, labels, open_doc


async def _inside(client: LanguageClient, uri: str, before: str, after: str, language: str = "python") -> list[str]:
    open_doc(client, uri, before + after, language)
    line = before.count("\n")
    return labels(await complete(client, uri, line, len(before.rsplit("\n", 1)[-1])))


async def test_the_name_read_below_is_offered_where_it_is_declared(client: LanguageClient):
    before = "def report(items):\n    n = len(items)\n    "
    after = " = sum(items) / n\n    print(total)\n    return total\n"
    assert (await _inside(client, "file:///work/t.py", before, after))[0] == "total"
    assert (await _inside(client, "file:///work/t2.py", before + "to", after))[0] == "total"


async def test_a_parameter_being_typed_is_what_the_body_reads(client: LanguageClient):
    before = "import os\n\ndef load("
    after = "):\n    with open(path) as handle:\n        return handle.read()\n"
    assert (await _inside(client, "file:///work/p.py", before, after))[0] == "path"


async def test_a_member_used_below_on_the_same_receiver_comes_first(client: LanguageClient):
    before = "def save(conn, rows):\n    total = len(rows)\n    conn."
    after = "\n    conn.commit()\n"
    assert (await _inside(client, "file:///work/m.py", before, after))[0] == "commit"
    before = "function save(db, rows) {\n  const total = rows.length;\n  db."
    after = "\n  db.flush();\n}\n"
    assert (await _inside(client, "file:///work/m.js", before, after, "javascript"))[0] == "flush"


async def test_inside_a_class_the_method_called_below_and_defined_nowhere_is_what_def_defines(client: LanguageClient):
    before = "class Report:\n    def run(self):\n        self.prepare()\n\n    def "
    after = "(self):\n        pass\n\n    def finish(self):\n        self.render()\n        self.cleanup()\n\n    def render(self):\n        pass\n"
    offered = await _inside(client, "file:///work/c.py", before, after)
    assert offered[:2] == ["prepare", "cleanup"] and "render" not in offered  # called above, then below; defined below: not again


async def test_what_follows_a_dot_says_a_method_or_a_field(client: LanguageClient):
    before = "class Cart {\n  constructor() { this.items = []; this.index = 0 }\n  insert(x) {}\n  total() {\n    return this.i"
    assert (await _inside(client, "file:///work/f.js", before, "(2)\n  }\n}\n", "javascript"))[0] == "insert"
    fields = await _inside(client, "file:///work/g.js", before, ".length\n  }\n}\n", "javascript")
    assert fields.index("insert") > max(fields.index("items"), fields.index("index"))
