"""Small environments made by the tests: a virtual environment's site-packages with a package
of .py files and one with a .pyi stub, and a node_modules with a package that ships
declarations and one that ships only CommonJS."""

from __future__ import annotations

from pathlib import Path

FAKEPKG = {
    "__init__.py": (
        '"""A package made by the tests."""\n'
        "from .shapes import Polygon, area_of\n"
        "from . import units\n"
        "import os\n"
        "from typing import Any\n"
        "VERSION = '1.0'\n"
        "_private = 1\n"
        "def make_polygon(sides, *, closed=True):\n    return Polygon(sides)\n"
    ),
    "shapes.py": (
        "class Shape:\n"
        "    def describe(self):\n        return 'shape'\n"
        "class Polygon(Shape):\n"
        "    corners = 0\n"
        "    def __init__(self, sides):\n        self.sides = sides\n        self._cache = None\n"
        "    def perimeter(self, scale=1):\n        \"\"\"The sum of the sides,\n        scaled.\n\n        More.\"\"\"\n        return sum(self.sides)\n"
        "    @property\n    def regular(self):\n        return len(set(self.sides)) == 1\n"
        "def area_of(polygon):\n    return 0\n"
    ),
    "units.py": "METRE = 1\ndef convert(value, unit):\n    return value\n",
}


def make_venv(folder: Path, name: str = ".venv") -> Path:
    """A virtual environment (as ``python -m venv`` lays one out) holding ``fakepkg`` and a
    stub-only ``stubbed``; its site-packages folder."""
    env = folder / name
    site = env / "lib" / "python3.11" / "site-packages"
    (site / "fakepkg").mkdir(parents=True)
    for file, text in FAKEPKG.items():
        (site / "fakepkg" / file).write_text(text)
    (site / "stubbed.pyi").write_text("def from_stub(x: int) -> int: ...\nclass Stubbed:\n    def run(self) -> None: ...\n")
    (site / "stubbed.py").write_text("def from_source(): pass\n")
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    return site


def make_node_modules(folder: Path) -> Path:
    """node_modules with ``typed`` (package.json types -> .d.ts), ``plain`` (CommonJS main) and
    ``@scope/tool`` (exports map); the node_modules folder."""
    modules = folder / "node_modules"
    typed = modules / "typed"
    (typed / "dist").mkdir(parents=True)
    (typed / "package.json").write_text('{"name": "typed", "main": "dist/index.js", "types": "dist/index.d.ts"}')
    (typed / "dist" / "index.js").write_text("exports.fromJavaScript = 1;\n")
    (typed / "dist" / "index.d.ts").write_text(
        "export declare function parseThing(text: string): Thing;\n"
        "export interface Thing { name: string }\n"
        "export declare const DEFAULT_THING: Thing;\n"
        "export declare class ThingMaker { make(): Thing }\n"
    )
    plain = modules / "plain"
    (plain / "lib").mkdir(parents=True)
    (plain / "package.json").write_text('{"name": "plain", "main": "lib/main.js"}')
    (plain / "lib" / "main.js").write_text(
        "function plainHelper() {}\n"
        "module.exports = { plainHelper, plainValue: 2, plainMethod() {} };\n"
        "module.exports.addedLater = function () {};\n"
    )
    tool = modules / "@scope" / "tool"
    tool.mkdir(parents=True)
    (tool / "package.json").write_text('{"name": "@scope/tool", "exports": {".": {"require": "./cjs.js", "import": "./esm.mjs"}}}')
    (tool / "cjs.js").write_text("exports.scopedRun = function () {};\n")
    return modules
