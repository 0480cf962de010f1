"""Where ``isinstance`` / ``instanceof`` narrows a name (server/narrowing.py), and that a branch
it rules out does not list the class's members."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treecomplete.languages import by_name
from treecomplete.narrowing import holds

from .test_known_members import USER_PY, _served, listed

PY = [  # (buffer, `|` the cursor; narrowed there)
    ("if isinstance(x, User):\n    x.|\n", True),
    ("if isinstance(x, User):\n    pass\nelse:\n    x.|\n", False),
    ("if isinstance(x, User):\n    pass\nelif y:\n    x.|\n", False),
    ("if isinstance(x, User):\n    pass\nx.|\n", False),
    ("if y and isinstance(x, User):\n    x.|\n", True),
    ("if isinstance(x, User) or y:\n    x.|\n", False),
    ("ok = isinstance(x, User) and x.|\n", True),
    ("ok = isinstance(x, User)\nx.|\n", False),
    ("def f(x):\n    if not isinstance(x, User):\n        return\n    x.|\n", True),
    ("def f(x):\n    if not isinstance(x, User):\n        x.|\n", False),
    ("def f(x):\n    if not isinstance(x, User):\n        log(x)\n    x.|\n", False),
    ("if not isinstance(x, User):\n    pass\nelse:\n    x.|\n", True),
    ("if y:\n    pass\nelif isinstance(x, User):\n    x.|\nelse:\n    pass\n", True),
    ("if y:\n    pass\nelif isinstance(x, User):\n    pass\nelse:\n    x.|\n", False),
    ("assert isinstance(x, User)\nx.|\n", True),
    ("while isinstance(x, User):\n    x.|\n", True),
    ("v = x.|a if isinstance(x, User) else None\n", True),
    ("v = None if isinstance(x, User) else x.|a\n", False),
    ("def g(x):\n    if isinstance(x, User):\n        pass\ndef f(x):\n    x.|\n", False),
]
JS = [
    ("if (x instanceof User) {\n  x.|\n}\n", True),
    ("if (x instanceof User) {\n  f()\n} else {\n  x.|\n}\n", False),
    ("if (x instanceof User) f()\nx.|\n", False),
    ("function f(x) {\n  if (!(x instanceof User)) return\n  x.|\n}\n", True),
    ("function f(x) {\n  if (!(x instanceof User)) {\n    throw new Error()\n  }\n  x.|\n}\n", True),
    ("function f(x) {\n  if (!(x instanceof User)) {\n    x.|\n  }\n}\n", False),
    ("const v = x instanceof User ? x.|a : null\n", True),
    ("const v = x instanceof User ? null : x.|a\n", False),
    ("const ok = x instanceof User && x.|a\n", True),
]


def _holds(language: str, text: str, test: str) -> bool:
    cursor = text.index("|")
    data = (text[:cursor] + text[cursor + 1:]).replace("x.\n", "x.a\n").encode()  # a member read at the cursor
    tree = by_name(language).parse(by_name(language).parser(), data)
    match = re.search(test, data.decode())
    return holds(tree, data, match.start(), match.end(), cursor)


@pytest.mark.parametrize("text, narrowed", PY)
def test_isinstance_narrows_only_where_the_test_holds(text: str, narrowed: bool):
    assert _holds("python", text, r"isinstance\(x, User\)") is narrowed


@pytest.mark.parametrize("text, narrowed", JS)
def test_instanceof_narrows_only_where_the_test_holds(text: str, narrowed: bool):
    assert _holds("javascript", text, r"x instanceof User") is narrowed


def test_a_broken_tree_narrows_unless_an_else_follows():
    data = b"function f(x) {\n  if (x instanceof User) {\n    x."  # the block being written: an ERROR
    tree = by_name("javascript").parse(by_name("javascript").parser(), data)
    assert holds(tree, data, data.index(b"x instanceof"), data.index(b") {\n    x"), len(data))
    data = b"function f(x) {\n  if (x instanceof User) {\n    g()\n  } else {\n    x."
    tree = by_name("javascript").parse(by_name("javascript").parser(), data)
    assert not holds(tree, data, data.index(b"x instanceof"), data.index(b") {\n    g"), len(data))


def test_an_else_branch_does_not_list_the_tested_class_s_members(tmp_path: Path):
    service, libraries = _served(tmp_path, {"models.py": USER_PY,
                                            "models.js": "class User {\n  greet() {}\n  get age() { return 0 }\n}\nmodule.exports = { User }\n"})
    cases = [("a.py", "from models import User\ndef f(x):\n    if isinstance(x, User):\n        pass\n    else:\n        x.", "python"),
             ("a.py", "from models import User\ndef f(x):\n    if not isinstance(x, User):\n        x.", "python"),
             ("a.js", "const { User } = require('./models')\nfunction f(x) {\n  if (x instanceof User) {\n    g()\n  } else {\n    x.",
              "javascript"),
             ("a.ts", "import { User } from './models'\nfunction f(x: unknown) {\n  if (x instanceof User) {\n    g()\n  } else {\n    x.",
              "typescript")]
    for name, text, language in cases:
        assert "age" not in listed(service, libraries, tmp_path / name, text, language), text
    below = "from models import User\ndef f(x):\n    if not isinstance(x, User):\n        raise TypeError(x)\n    x."
    assert {"age", "greet"} <= set(listed(service, libraries, tmp_path / "b.py", below, "python")[:3])
