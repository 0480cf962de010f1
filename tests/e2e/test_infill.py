"""The rest of a line written amid code, through the real server: the insertion decoder
(a user's ``python-insertion`` model) is decoded once the server has been quiet a while, so the
lists asked meanwhile say they are incomplete and the one after a pause has the line, next to the
item it starts with."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from treecomplete.engines.neural import INFILL_LEAD
from treecomplete.server import QUIET

from ..conftest import SERVER
from ..toy_infill import toy_text
from .conftest import complete, editor_client, open_doc

HOME = Path(tempfile.mkdtemp(prefix="treecomplete-infill-"))  # the server's user data and cache
CONFIG = ClientServerConfig(server_command=SERVER, client_factory=editor_client,
                            server_env={**os.environ, "XDG_DATA_HOME": str(HOME / "data"), "XDG_CACHE_HOME": str(HOME / "cache")})
URI = "file:///work/toy.py"


@pytest.fixture(scope="module", autouse=True)
def users_decoder(toy_decoder):
    models = HOME / "data" / "treecomplete" / "models"
    models.mkdir(parents=True, exist_ok=True)
    shutil.copy(toy_decoder[0], models / "python-insertion.pt")
    yield
    shutil.rmtree(HOME, ignore_errors=True)


@pytest_lsp.fixture(config=CONFIG)
async def lsp(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_rest_of_the_line_comes_with_the_next_list(lsp: LanguageClient, toy_checkpoint: Path):
    await lsp.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        initialization_options={"treecomplete": {"model": str(toy_checkpoint)}}))
    data = toy_text("new_name").decode()
    lines = data.split("\n")
    row = [k for k, line in enumerate(lines) if line.startswith("print(")][2]
    lines[row] = "p"  # the line written anew, its first character typed
    open_doc(lsp, URI, "\n".join(lines), "python")
    for _ in range(300):  # the model loads in the background; the fallback engine answers meanwhile
        first = await complete(lsp, URI, row, 1)
        if any("model" in ((i.data or {}).get("detail", "")) for i in first.items):
            break
        await asyncio.sleep(0.1)
    assert first.is_incomplete  # the rest of the line is not decoded yet
    result = await complete(lsp, URI, row, 1)  # asked again at once: still not (decoded once the server is quiet)
    assert result.is_incomplete
    for _ in range(20):
        await asyncio.sleep(QUIET + 0.3)  # the user pauses, then types on
        result = await complete(lsp, URI, row, 1)
        labels = [i.label for i in sorted(result.items, key=lambda i: i.sort_text or i.label)]
        lines = [label for label in labels if label.startswith("print(new_name_")]  # copied: in no vocabulary
        if lines:
            break
    assert lines, labels[:6]
    line = next(i for i in result.items if i.label == lines[0])
    sure = float(re.search(r"model ([\d.]+)%", line.data["detail"]).group(1)) / 100 >= INFILL_LEAD
    # next to the item it starts with: before it where the decoder is sure enough of it
    assert labels.index(lines[0]) == labels.index("print") + (-1 if sure else 1), labels[:6]
    assert not result.is_incomplete
