"""Completion inside a file, through the real server over stdio: what the code after the cursor
says (a name read below and nowhere above is being declared; a parameter being typed is what the
body reads; a member used below on the same receiver)."""

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
