"""A bare JSON-RPC connection to the real server process, for what a well-behaved client library
cannot send: malformed JSON, params of the wrong type, unknown methods."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import Any

from ..conftest import SERVER


class RawServer:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_read = threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True)
        self._stderr_read.start()
        self._id = 0
        self._replies: dict[Any, dict[str, Any]] = {}  # responses read while waiting for another

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.messages.put(json.loads(out.read(length)))

    def log_until(self, *lines: str, timeout: float = 30) -> str:
        """The server's log once it holds each of ``lines`` (its stderr is read on a thread that
        may lag behind the replies), or as it is after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.log()
            if all(line in log for line in lines) or time.monotonic() > deadline:
                return log
            time.sleep(0.05)

    def log(self) -> str:
        """The server's log read so far: all of it once close() has returned."""
        return b"".join(self.stderr).decode(errors="replace")

    def send_bytes(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())

    def request(self, method: str, params: Any, timeout: float = 30) -> dict[str, Any]:
        self._id += 1
        self.send_bytes(json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}).encode())
        return self.response(self._id, timeout)

    def response(self, msg_id: Any, timeout: float = 30) -> dict[str, Any]:
        while msg_id not in self._replies:
            message = self.messages.get(timeout=timeout)
            if "method" not in message:
                self._replies[message.get("id")] = message
            elif "id" in message:  # a server->client request: answer null
                self.send_bytes(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": [None]}).encode())
        return self._replies.pop(msg_id)

    def initialize(self, capabilities: dict[str, Any] | None = None, options: Any = None) -> dict[str, Any]:
        result = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": capabilities or {}, "initializationOptions": options})
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, language: str = "python", version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}})

    def complete(self, uri: str, line: int, character: int, timeout: float = 30) -> dict[str, Any]:
        return self.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}, timeout)

    def close(self) -> int:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._stderr_read.join(timeout=10)  # to the end of its log
