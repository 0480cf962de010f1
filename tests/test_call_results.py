"""What a name holds after a call whose result the libraries read: a chain of calls (its last
method's result), a method a class inherits, a method declared to return ``Self``, and a
function's overloads where the first names no class."""

from __future__ import annotations

from pathlib import Path

from treecomplete.service import CompletionService
from treecomplete.sources.libraries.known import Libraries

from .test_known_members import USER_PY, _served, listed

BASES_PY = USER_PY + "\nclass Base:\n    def make(self) -> User:\n        return User()\n\nclass Child(Base):\n    pass\n"


def _listed(tmp_path: Path, text: str, language: str = "python") -> list[str]:
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    return listed(service, libraries, tmp_path / ("a.py" if language == "python" else "a.js"), text, language)


def test_a_chain_of_calls_gives_its_last_method_s_result(tmp_path: Path):
    for text in ("import re\nm = re.compile('a').match('b')\nm.",  # Pattern.match: Match
                 "import re\npat = re.compile('a')\nm = pat.match('b')\nm."):  # of a name given re.compile's
        found = _listed(tmp_path, text)
        assert "group" in found[:10] and {"span", "start"} <= set(found), text
        assert "findall" not in found[:10], text  # Pattern's
    joined = _listed(tmp_path, "function f(line) {\n  const s = line.split(',').join('-')\n  s.", "javascript")
    assert "padStart" in joined[:20] and "push" not in joined[:20]  # a String, not split's Array
    split = _listed(tmp_path, "function f(line) {\n  const a = line.trim().split(',')\n  a.", "javascript")
    assert "push" in split[:20]


def test_a_call_followed_by_an_unknown_method_says_nothing_of_the_name(tmp_path: Path):
    head = "const fs = require('fs')\nfunction f(p, x) {\n"
    assert "emit" in _listed(tmp_path, head + "  const t = fs.createReadStream(p)\n  t.", "javascript")[:12]
    assert "emit" not in _listed(tmp_path, head + "  const t = fs.createReadStream(p).pipe(x)\n  t.", "javascript")[:12]


def test_an_inherited_method_s_result_has_its_class_s_members(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": BASES_PY})
    text = "from models import Child\nc = Child()\nu = c.make()\nu."
    assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:3])


def test_a_method_returning_self_or_overloaded_gives_its_class(tmp_path: Path):
    resolved = _listed(tmp_path, "from pathlib import Path\np = Path('x')\nq = p.resolve()\nq.")  # -> Self
    assert "with_suffix" in resolved
    stripped = _listed(tmp_path, "def f(name: str):\n    s = name.strip()\n    s.")  # LiteralString first, then str
    assert {"endswith", "startswith"} <= set(stripped)


def test_a_loop_over_a_known_iterable_gives_its_element_s_class(tmp_path: Path):
    cases = [("with open('f') as fh:\n    for line in fh:\n        line.", "endswith"),  # TextIOWrapper.__iter__: Iterator[str]
             ("for line in open('f'):\n    line.", "endswith"),
             ("from pathlib import Path\nfor p in Path('.').iterdir():\n    p.", "exists"),  # Generator[Self, None, None]
             ("import os\nfor entry in os.scandir('.'):\n    entry.", "is_dir"),  # an iterator whose __next__ gives DirEntry
             ("import re\npat = re.compile('a')\nfor m in pat.finditer('b'):\n    m.", "group")]  # Iterator[Match[str]]
    for text, member in cases:
        assert member in _listed(tmp_path, text)[:10], text
    assert "endswith" not in _listed(tmp_path, "for line in open('f') + rest:\n    line.")[:10]  # not the whole iterable


def test_a_call_of_a_function_the_file_declares_gives_its_declared_class(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY,
                                            "models.ts": "export class User {\n  id = 0\n  greet(): string { return '' }\n}\n"})
    python = ["from typing import Optional\nfrom models import User\ndef load() -> Optional[User]:\n    pass\nu = load()\nu.",
              "from models import User\nasync def load() -> 'User':\n    pass\nasync def f():\n    u = await load()\n    u."]
    for text in python:
        assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:3]), text
    own = "class Cart:\n    def add_item(self):\n        pass\n\n@cache\ndef new_cart() -> Cart:\n    return Cart()\nc = new_cart()\nc."
    assert listed(service, libraries, tmp_path / "b.py", own, "python")[0] == "add_item"  # a class of the file
    typescript = ["import { User } from './models'\nexport function make(): User | null { return null }\nconst u = make()\nu.",
                  "import { User } from './models'\nasync function load(): Promise<User> { return new User() }\n"
                  "async function f() {\n  const u = await load()\n  u."]
    for text in typescript:
        assert {"id", "greet"} <= set(listed(service, libraries, tmp_path / "a.ts", text, "typescript")[:3]), text
    untyped = "import { User } from './models'\nfunction make() { return null }\nconst u = make()\nu."
    assert "greet" not in listed(service, libraries, tmp_path / "c.ts", untyped, "typescript")[:3]
    documented = ("import { User } from './models'\n/**\n * Loads one.\n * @returns {Promise<User>} the user\n */\n"
                  "async function load() { return new User() }\nasync function f() {\n  const u = await load()\n  u.")
    assert {"id", "greet"} <= set(listed(service, libraries, tmp_path / "a.js", documented, "javascript")[:3])


def test_an_item_of_an_annotated_collection_has_its_class_s_members(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY,
                                            "models.ts": "export class User {\n  id = 0\n  greet(): string { return '' }\n}\n"})
    python = ["from models import User\ndef f(users: list[User]):\n    users[0].",
              "from models import User\ndef f(by_id: dict[int, User]):\n    u = by_id[1]\n    u.",
              "from models import User\ndef f(by_id: dict[int, User], k):\n    u = by_id.get(k)\n    u."]
    for text in python:
        assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:3]), text
    not_a_mapping = "from models import User\ndef f(users: list[User]):\n    u = users.get(0)\n    u."
    assert "age" not in listed(service, libraries, tmp_path / "b.py", not_a_mapping, "python")[:3]
    typescript = ["import { User } from './models'\nfunction f(users: User[]) {\n  users[0].",
                  "import { User } from './models'\nfunction f(users: Array<User>) {\n  const u = users.find((x) => x.id === 1)\n  u?.",
                  "import { User } from './models'\nfunction f(users: User[]) {\n  const u = users.at(-1)!\n  u."]
    for text in typescript:
        assert {"id", "greet"} <= set(listed(service, libraries, tmp_path / "a.ts", text, "typescript")[:3]), text


def test_an_attribute_s_annotation_or_property_gives_what_it_holds(tmp_path: Path):
    shop = ("class Item:\n    def price(self):\n        pass\n\nclass Cart:\n    owner: 'Item'\n"
            "    @property\n    def first(self) -> Item:\n        return Item()\n    def last(self) -> Item:\n        return Item()\n")
    service, libraries = _served(tmp_path, {"shop.py": shop})
    for text in ("import os\nos.environ.", "import sys\nsys.stdout."):  # a module's annotated variable
        assert {"get", "write"} & set(listed(service, libraries, tmp_path / "a.py", text, "python")[:8]), text
    for text in ("from pathlib import Path\np = Path('x')\np.parent.",  # a property returning Self
                 "from pathlib import Path\np = Path('x')\nq = p.parent.parent\nq."):  # a name given an attribute
        assert "exists" in listed(service, libraries, tmp_path / "a.py", text, "python")[:5], text
    for text in ("from shop import Cart\nc = Cart()\nc.first.", "from shop import Cart\nc = Cart()\nc.owner."):
        assert listed(service, libraries, tmp_path / "b.py", text, "python")[0] == "price", text
    method = listed(service, libraries, tmp_path / "b.py", "from shop import Cart\nc = Cart()\nc.last.", "python")
    assert "price" not in method[:3]  # a method read, not called: no Item


def test_a_with_statement_s_name_holds_what_enter_gives(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY})
    for text, member in (("import zipfile\nwith zipfile.ZipFile('x') as z:\n    z.", "read"),  # __enter__ -> Self
                         ("from models import User\nwith User() as u:\n    u.", "greet")):  # no __enter__ found: itself
        assert member in listed(service, libraries, tmp_path / "a.py", text, "python")[:12], text
    made = listed(service, libraries, tmp_path / "a.py", "import tempfile\nwith tempfile.TemporaryDirectory() as d:\n    d.", "python")
    assert "cleanup" not in made[:8]  # its __enter__ gives the path (AnyStr), not the directory object


def test_an_async_with_statement_s_name_holds_what_aenter_gives(tmp_path: Path):
    pool = ("class Conn:\n    def query(self):\n        pass\n\nclass Pool:\n    def close(self):\n        pass\n"
            "    async def __aenter__(self) -> Conn:\n        return Conn()\n")
    service, libraries = _served(tmp_path, {"pool.py": pool})
    text = "from pool import Pool\nasync def f():\n    async with Pool() as c:\n        c."
    made = listed(service, libraries, tmp_path / "a.py", text, "python")
    assert made[0] == "query" and "close" not in made[:5]
    plain = listed(service, libraries, tmp_path / "b.py", "from pool import Pool\nwith Pool() as c:\n    c.", "python")
    assert plain[0] == "close"  # no __enter__: the pool itself


def test_a_project_function_without_an_annotation_gives_what_it_returns(tmp_path: Path):
    made = (USER_PY + "\nclass Config:\n    @classmethod\n    def load(cls, d):\n        return cls()\n\n"
            "    def again(self):\n        return self\n\n    def user(self):\n        if self:\n            return User()\n"
            "        return User()\n\n    def maybe(self):\n        return None\n\n    def many(self):\n        yield User()\n\n"
            "def build():\n    return Config()\n")
    service, libraries = _served(tmp_path, {"models.py": made})
    for text in ("from models import Config\nc = Config.load({})\nc.", "from models import build\nc = build()\nc.",
                 "from models import Config\nc = Config.load({}).again()\nc."):
        assert {"again", "load", "user"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:6]), text
    text = "from models import build\nu = build().user()\nu."
    assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:3])
    for text in ("from models import build\nu = build().maybe()\nu.", "from models import build\nu = build().many()\nu."):
        assert not {"age", "greet"} & set(listed(service, libraries, tmp_path / "a.py", text, "python")[:3]), text


def test_a_project_function_returning_its_own_class_or_a_module_s_gives_that(tmp_path: Path):
    made = (USER_PY + "\nclass Config:\n    def copy(self):\n        return type(self)()\n\n"
            "    def clone(self):\n        return self.__class__()\n\n    def odd(self, x):\n        return type(x)()\n")
    service, libraries = _served(tmp_path, {"models.py": made, "factory.py": "import models\n\ndef make():\n    return models.User()\n"})
    for text in ("from models import Config\nc = Config().copy()\nc.", "from models import Config\nc = Config().clone()\nc."):
        assert {"clone", "copy", "odd"} <= set(listed(service, libraries, tmp_path / "a.py", text, "python")[:4]), text
    assert not {"clone", "copy"} & set(listed(service, libraries, tmp_path / "a.py",
                                              "from models import Config\nc = Config().odd(1)\nc.", "python")[:4])
    made = listed(service, libraries, tmp_path / "a.py", "from factory import make\nu = make()\nu.", "python")
    assert {"age", "greet"} <= set(made[:3])
    text = "import models\n\ndef build():\n    return models.User()\n\nu = build()\nu."  # the buffer's own function
    assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "b.py", text, "python")[:3])
