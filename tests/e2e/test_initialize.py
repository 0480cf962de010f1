"""The server process: command line, capabilities, position encoding negotiation, transports."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from treecomplete import __version__

from .raw import RawServer


async def test_capabilities(client: LanguageClient):
    result = await client.initialize_async(types.InitializeParams(capabilities=client.capabilities))
    caps = result.capabilities
    assert caps.completion_provider.trigger_characters == (".",)
    assert caps.completion_provider.resolve_provider is True
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close is True
    offered = client.capabilities.general and client.capabilities.general.position_encodings
    assert caps.position_encoding == (offered[0] if offered else types.PositionEncodingKind.Utf16)
    assert result.server_info.name == "treecomplete" and result.server_info.version == __version__


@pytest.mark.parametrize(
    ("offered", "chosen"),
    [(None, "utf-16"), (["utf-8"], "utf-8"), (["utf-32", "utf-8"], "utf-32"), (["latin-1"], "utf-16")],
)
def test_position_encoding_negotiation(offered, chosen):
    server = RawServer()
    try:
        caps = {"general": {"positionEncodings": offered}} if offered else {}
        assert server.initialize(caps)["result"]["capabilities"]["positionEncoding"] == chosen
    finally:
        assert server.close() == 0


def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "treecomplete", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"treecomplete-ls {__version__}"


def test_stdout_carries_only_the_protocol_and_log_file(tmp_path):
    log_file = tmp_path / "server.log"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}).encode()
    exit_body = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    frames = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in (body, exit_body))
    proc = subprocess.run(
        [sys.executable, "-m", "treecomplete", "--log-file", str(log_file), "--log-level", "debug"],
        input=frames, capture_output=True, timeout=60,
    )
    out = proc.stdout
    assert out.startswith(b"Content-Length: ")
    header, _, rest = out.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", header).group(1))
    assert json.loads(rest[:length])["id"] == 1
    assert proc.stderr == b""
    assert "position encoding utf-16" in log_file.read_text()


def test_tcp_transport():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "treecomplete", "--tcp", "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert time.time() < deadline, "server did not listen"
                time.sleep(0.1)
        with conn:
            body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}}).encode()
            conn.sendall(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            data = b""
            while not (m := re.search(rb"Content-Length: (\d+).*?\r\n\r\n", data, re.S)) or len(data) < m.end() + int(m.group(1)):
                chunk = conn.recv(65536)
                assert chunk, "connection closed"
                data += chunk
            reply = json.loads(data[m.end() : m.end() + int(m.group(1))])
            assert reply["result"]["serverInfo"]["name"] == "treecomplete"
    finally:
        proc.kill()
        proc.wait()
