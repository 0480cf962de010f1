"""The neural engine through the real server: the pointer offers an identifier that no
vocabulary holds, the model loads in the background, and a broken model leaves the fallback
engine answering with the reason shown to the user."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import CONFIG, complete, open_doc

# Names made up for this test: in no vocabulary, defined only in this buffer.
SOURCE = (
    "def blend_quorx(left_vhal, right_vhal):\n"
    "    zibble_total = left_vhal + right_vhal\n"
    "    return "
)
URI = "file:///work/blend.py"


async def _start(client: LanguageClient, model: str) -> None:
    await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                               initialization_options={"treecomplete": {"model": model}})
    )


@pytest_lsp.fixture(config=CONFIG)
async def lsp(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


def _fields(params) -> dict:
    return params if isinstance(params, dict) else {k: getattr(params, k) for k in dir(params) if not k.startswith("_")}


async def _until_neural(client: LanguageClient, line: int, col: int) -> types.CompletionList:
    for _ in range(300):  # the model loads in the background; fallback answers meanwhile
        result = await complete(client, URI, line, col)
        if any("copied from line" in (item.data or {}).get("detail", "") for item in result.items):
            return result
        await asyncio.sleep(0.1)
    raise AssertionError("the neural engine never answered")


@pytest.mark.parametrize("model", ["toy_checkpoint", "toy_transformer"])
async def test_pointer_offers_an_identifier_outside_the_vocabulary(lsp: LanguageClient, model: str,
                                                                   request: pytest.FixtureRequest):
    """Both architectures: the pointer LSTM and the tree-transformer (tree positions computed
    at the cursor by the server)."""
    statuses: list = []
    lsp.feature("treecomplete/status")(lambda params: statuses.append(_fields(params)))
    await _start(lsp, str(request.getfixturevalue(model)))
    open_doc(lsp, URI, SOURCE, "python")
    result = await _until_neural(lsp, 2, 11)
    for _ in range(50):
        if any(s["state"] == "ready" for s in statuses):
            break
        await asyncio.sleep(0.1)
    # the status a client's status bar shows: loading, then ready with the device
    statuses = [s for s in statuses if s["state"] != "indexed"]  # the project index reports too
    assert [s["state"] for s in statuses][:2] == ["loading", "ready"], statuses
    assert statuses[1]["language"] == "python" and statuses[1]["device"] == "cpu"
    # the ranking weighs the function's parameters and the local variable against each other
    # (ranking/ranker.py); either way the buffer's made-up names lead the list
    ranked = [i.label for i in sorted(result.items, key=lambda i: i.sort_text or i.label)]
    assert set(ranked[:3]) >= {"zibble_total", "left_vhal"}, ranked[:5]
    local = next(i for i in result.items if i.label == "zibble_total")
    resolved = await lsp.completion_item_resolve_async(local)
    assert "copied from line 2" in (resolved.detail or "")
    assert not lsp.messages  # nothing went wrong


@pytest.mark.parametrize("content", [b"", b"not a checkpoint at all", b"PK\x03\x04" + b"\x00" * 64])
async def test_broken_model_is_reported_and_fallback_answers(lsp: LanguageClient, tmp_path: Path, content: bytes):
    broken = tmp_path / "broken.pt"
    broken.write_bytes(content)
    await _start(lsp, str(broken))
    open_doc(lsp, URI, SOURCE, "python")
    for _ in range(300):
        if lsp.messages:
            break
        await asyncio.sleep(0.1)
    assert lsp.messages, "no message about the broken model"
    message = lsp.messages[0]
    assert message.type == types.MessageType.Warning
    assert str(broken) in message.message and "fallback" in message.message
    result = await complete(lsp, URI, 2, 11)
    assert "zibble_total" in [item.label for item in result.items]
