"""The editor clients attach to the languages the server serves, and to none it does not."""

from __future__ import annotations

import json
import re
from pathlib import Path

from treecomplete import grammars
from treecomplete.languages import BY_LANGUAGE_ID, language_for

EDITORS = Path(__file__).resolve().parent.parent / "editors"
SERVED = {spec.name for spec in BY_LANGUAGE_ID.values()} | set(grammars.WHEELS)


def _served_by(ids: list[str]) -> set[str]:
    languages = {language_for(i, "file:///x") for i in ids}
    assert None not in languages, [i for i in ids if language_for(i, "file:///x") is None]
    return {language.name for language in languages}


def test_vscode_activates_on_and_selects_every_language():
    package = json.loads((EDITORS / "vscode" / "package.json").read_text())
    activation = [e.removeprefix("onLanguage:") for e in package["activationEvents"] if e.startswith("onLanguage:")]
    source = (EDITORS / "vscode" / "src" / "extension.ts").read_text()
    selector = re.findall(r'"([a-z]+)"', re.search(r"const LANGUAGES = \[(.*?)\];", source, re.DOTALL).group(1))
    assert sorted(activation) == sorted(selector)
    assert _served_by(selector) == SERVED


def test_neovim_filetypes_cover_every_language():
    source = (EDITORS / "nvim" / "lua" / "treecomplete" / "init.lua").read_text()
    filetypes = re.findall(r"'([a-z]+)'", re.search(r"filetypes = \{(.*?)\}", source, re.DOTALL).group(1))
    assert _served_by(filetypes) == SERVED  # Neovim sends the filetype as the language id


def test_emacs_modes_cover_every_language():
    source = (EDITORS / "emacs" / "treecomplete-eglot.el").read_text()
    modes = re.findall(r"([a-z+]+)(?:-ts)?-mode\b", re.search(r"eglot-server-programs\s+`\((\(.*?\))", source, re.DOTALL).group(1))
    # eglot sends the mode's name less "-mode" (or "-ts-mode"); the file's extension decides otherwise
    assert _served_by(sorted(set(modes) - {"js", "tsx"}) + ["javascript", "typescriptreact"]) == SERVED
