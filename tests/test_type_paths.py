"""TypeScript receivers reached through members (server/type_paths.py): a property's written
type, a method's result, awaited, a map's values, in the file and in the project's other files."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import TYPESCRIPT
from treecomplete.sources.libraries.known import Libraries
from treecomplete.type_paths import receiver_path

USER = "interface User { name: string; email: string }\n"
REPO = USER + "class Repo {\n  owner: User\n  users: Map<string, User>\n  holder(): User { return this.owner }\n  async find(id: string): Promise<User> { return null! }\n  plain() {}\n}\n"


def listed(folder, texts: dict[str, str], written: dict[str, str] | None = None) -> dict[str, set[str] | None]:
    """The members listed at the end (or the ``|``) of each TypeScript buffer ``name.ts`` holding
    ``text``, in ``folder`` (where the files ``written`` are), once the libraries they need are read."""
    from treecomplete.service import CompletionService

    for name, text in (written or {}).items():
        (folder / name).write_text(text)
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    found = {}
    for name, text in texts.items():
        cursor = len(text.partition("|")[0].encode())  # `|`: the cursor, else the end
        doc = service.open((folder / f"{name}.ts").as_uri(), "typescript", 1, text.replace("|", "", 1))
        libraries.members(context_at(doc, cursor))
        libraries.loader.wait(5)
        got = libraries.members(context_at(doc, cursor))
        found[name] = set(got.names) if got is not None else None
    return found


def path_of(text: str):
    return receiver_path(context_at(Document("file:///w/a.ts", text, 1, TYPESCRIPT), len(text.encode())))


@pytest.mark.parametrize("text, expected", [
    ("function f(a: Repo) {\n  a.owner.", ("Repo", ("owner",))),
    ("function f(a: Repo) {\n  a.holder().", ("Repo", ("holder()",))),
    ("function f(a: Repo) {\n  const h = a.holder()\n  h.", ("Repo", ("holder()",))),
    ("function f(a: Repo) {\n  const h = a.holder()!\n  const o = h\n  o.", ("Repo", ("holder()",))),
    ("async function f(a: Repo) {\n  const u = await a.find('x')\n  u.", ("Repo", ("find()", "await"))),
    ("class S {\n  constructor(private repo: Repo) {}\n  f() {\n    this.repo.owner.", ("Repo", ("owner",))),
    ("const r = new Repo()\nr.owner.", ("Repo", ("owner",))),
    ("class Shop {\n  make(): Repo { return new Repo() }\n  f() {\n    this.make().", ("Shop", ("make()",))),
    ("function f(m: Map<string, User>) {\n  m.get('k')!.", ("User", ())),
    ("const m = new Map<string, User>()\nconst u = m.get('k')\nu.", ("User", ())),
    ("class S {\n  constructor() { this.m = new Map<string, User>() }\n  f() {\n    this.m.get('k').", ("User", ())),
    ("async function f(p: Promise<User>) {\n  const u = await p\n  u.", ("User", ())),
])
def test_the_path_of_a_receiver(text: str, expected):
    assert path_of(text) == expected


def test_no_path_where_nothing_is_written_or_another_function_gave_the_name():
    assert path_of("function f(a) {\n  a.owner.") is None
    assert path_of("function g(a: Repo) { const h = a.holder() }\nfunction f() {\n  h.") is None
    # another function's parameter of that name says nothing of this one's
    assert path_of("function g(m: Map<string, User>) {}\nfunction f(m) {\n  m.get('k')!.") is None
    assert path_of("async function g(p: Promise<User>) {}\nasync function f(p) {\n  const u = await p\n  u.") is None
    # the parameter around the cursor, where another function's comes after it in the text
    assert path_of("function f(m: Map<string, User>) {\n  function g(m: Map<string, Repo>) {}\n  m.get('k')!.") == ("User", ())


def test_members_through_the_file_s_own_types(tmp_path):
    found = listed(tmp_path, {
        "field": REPO + "function f(a: Repo) {\n  a.owner.",
        "method": REPO + "function f(a: Repo) {\n  a.holder().",
        "assigned": REPO + "function f(a: Repo) {\n  const h = a.holder()\n  h.",
        "awaited": REPO + "async function f(a: Repo) {\n  const u = await a.find('x')\n  u.",
        "promise": REPO + "function f(a: Repo) {\n  const p = a.find('x')\n  p.",
        "map": USER + "class S {\n  private users = new Map<string, User>()\n  f() {\n    const u = this.users.get('x')\n    u.",
        "own method": REPO + "class Shop {\n  make(): Repo { return new Repo() }\n  f() {\n    const r = this.make()\n"
                             "    r.owner.|\n  }\n}\n",
        "map field": REPO + "function f(a: Repo) {\n  const u = a.users.get('x')\n  u.",
        "string": REPO + "function f(s: string) {\n  s.split(',').",
        "undeclared": REPO + "function f(a: Repo) {\n  a.other.",
        "unwritten": REPO + "function f(a: Repo) {\n  a.plain().",
    })
    for name in ("field", "method", "assigned", "awaited", "map", "map field", "own method"):
        assert found[name] == {"name", "email"}, name
    assert {"map", "filter"} <= found["string"]  # a global class's method: what the others read
    assert {"then", "catch"} <= found["promise"]
    assert found["undeclared"] is None and found["unwritten"] is None


def test_members_through_the_types_of_the_project_s_other_files(tmp_path):
    found = listed(tmp_path, {
        "field": "import { Repo } from './repo'\nfunction f(a: Repo) {\n  a.owner.",
        "made": "import { Repo } from './repo'\nconst a = new Repo()\na.owner.",
        "method": "import { Repo } from './repo'\nfunction f(a: Repo) {\n  const h = a.holder()\n  h.",
        "awaited": "import { Repo } from './repo'\nasync function f(a: Repo) {\n  (await a.find('x')).",
        "own field": "import { Repo } from './repo'\nclass S {\n  constructor(private repo: Repo) {}\n  f() {\n    this.repo.owner.",
        "global": "import { Repo } from './repo'\nfunction f(a: Repo) {\n  a.users.",
        "deeper": "import { Shop } from './shop'\nfunction f(s: Shop) {\n  s.repo.owner.",
    }, {
        "user.ts": "export interface User { name: string; email: string }\n",
        "repo.ts": "import { User } from './user'\nexport class Repo {\n  owner: User\n  users: Map<string, User>\n"
                   "  holder(): User { return this.owner }\n  async find(id: string): Promise<User> { return null! }\n}\n",
        "shop.ts": "import { Repo } from './repo'\nexport interface Shop { repo: Repo }\n",
    })
    for name in ("field", "made", "method", "awaited", "own field", "deeper"):
        assert found[name] == {"name", "email"}, name
    assert {"get", "set", "has"} <= found["global"]
