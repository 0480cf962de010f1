"""Settings from initializationOptions and workspace/configuration; bad values are reported in a
window/showMessage and replaced by their defaults."""

from __future__ import annotations

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import CONFIG, complete, open_doc

# 30 names and their prefix, which no library exports (no unimported name joins the list)
SOURCE = "".join(f"slot_{i} = {i}\n" for i in range(30)) + "slot"


@pytest_lsp.fixture(config=CONFIG)
async def configured(lsp_client: LanguageClient):
    lsp_client.set_configuration({"maxItems": 4}, section="treecomplete")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options={"treecomplete": {"maxItems": "many", "maxFileSize": 1_000_000}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_bad_setting_is_reported_then_workspace_configuration_applies(configured: LanguageClient):
    for _ in range(100):  # the message may arrive before or after the initialize response
        if configured.messages:
            break
        await asyncio.sleep(0.05)
    message = configured.messages[0]
    assert message.type == types.MessageType.Warning
    assert "treecomplete.maxItems must be an integer" in message.message
    open_doc(configured, "file:///work/s.py", SOURCE, "python")
    for _ in range(100):  # workspace/configuration is answered asynchronously after initialized
        result = await complete(configured, "file:///work/s.py", 30, 4)
        if len(result.items) != 30:
            break
        await asyncio.sleep(0.05)
    assert len(result.items) == 4 and result.is_incomplete  # workspace/configuration said 4

    configured.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"treecomplete": {"maxItems": 12}})
    )
    result = await complete(configured, "file:///work/s.py", 30, 4)
    assert len(result.items) == 12


async def test_defaults_apply_without_any_settings(client: LanguageClient):
    open_doc(client, "file:///work/d.py", SOURCE, "python")
    result = await complete(client, "file:///work/d.py", 30, 4)
    assert len(result.items) == 30 and not result.is_incomplete
