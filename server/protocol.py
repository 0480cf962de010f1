"""The JSON-RPC layer, adjusted where pygls' defaults would lose a message or keep a copy.

- Text documents live in treecomplete's own store (with their trees), not in pygls' workspace:
  one copy of each buffer, one place that applies edits.
- A request whose params do not match the LSP types gets an InvalidParams error response
  (pygls only logs it, which leaves the client waiting forever); such a notification is
  ignored; such a response (to workspace/configuration, say) fails the server's request that
  waits for it. Each is logged in one line that names the message and the fields at fault
  (pygls logs a page of nested tracebacks for each). A message that is no JSON object gets an
  Invalid Request error.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    lsp_method,
)

log = logging.getLogger(__name__)


class InvalidMessage(JsonRpcInvalidParams):
    """A message that does not match its LSP type, reported already (structure_message)."""


JSON_NAMES = {"list": "array", "str": "string", "int": "number", "float": "number", "bool": "boolean", "NoneType": "null"}


class TreecompleteProtocol(LanguageServerProtocol):
    def _user_handler(self, method: str, params: Any):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def handle_message(self, message: Any) -> None:
        """A message that is no JSON object (a batch, a bare value: LSP sends neither) gets an
        Invalid Request error and a line in the log."""
        if not hasattr(message, "jsonrpc"):
            kind = JSON_NAMES.get(type(message).__name__, type(message).__name__)
            log.error("a message that is a JSON %s, not an object: ignored", kind)
            self._send_response(None, error=types.ResponseError(  # type: ignore[arg-type]
                code=types.ErrorCodes.InvalidRequest, message=f"Invalid request: a JSON {kind}, not an object"))
            return
        super().handle_message(message)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        if not isinstance(msg_id, (int, str)):  # the types let any JSON value through
            log.error("$/cancelRequest: invalid params, ignored: the id %r is no number or string", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    def structure_message(self, data: dict[str, Any]):
        """A message as its LSP type, chosen as pygls chooses it. One that does not match it
        raises InvalidMessage once reported: a request answered with an error, a response's
        request failed with it (it would wait forever), a notification ignored."""
        if "jsonrpc" not in data:
            return data  # a value inside a message
        method = data.get("method", "")
        try:
            if "id" in data and "error" in data:
                message_type = types.ResponseErrorMessage
            elif "id" in data and "method" in data:
                message_type = self.get_message_type(method) or JsonRPCRequestMessage
            elif "id" in data:
                message_type = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            else:
                message_type = self.get_message_type(method) or JsonRPCNotification
            return self._converter.structure(data, message_type)
        except Exception as error:  # cattrs' validation errors, or a type's own
            problem = describe_invalid(error)
            what = (f"{method}: invalid params" if method else f"the response to request {data['id']!r}: invalid"
                    if "id" in data else "a message with no method and no id")
            invalid = InvalidMessage(f"{what}: {problem}")
            if "id" in data and "method" in data:
                done = "answered with an error"
                self._send_response(
                    data["id"],
                    error=types.ResponseError(code=types.ErrorCodes.InvalidParams, message=f"Invalid params for {method!r}: {problem}"),
                )
            elif "id" in data:
                done = "its request failed"
                with contextlib.suppress(TypeError):  # an id no request has (unhashable)
                    if (future := self._request_futures.pop(data["id"], None)) is not None and not future.done():
                        future.set_exception(invalid)
            else:
                done = "ignored"
            log.error("%s, %s: %s", what, done, problem)
            raise invalid from None


def describe_invalid(error: Exception, limit: int = 300) -> str:
    """What is wrong with a message, in a line: each field at fault by its path in the JSON
    (``params.position.line``) and why."""
    def why(exc: BaseException, type_: Any) -> str:
        said = cattrs.v.format_exception(exc, type_)
        return str(exc).rstrip(".") if said == "invalid value" and str(exc) else said  # a type's own check says more

    def json_path(problem: str) -> str:
        said, at, path = problem.rpartition(" @ ")
        path = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path.lstrip("."))  # text_document: textDocument
        return problem if not at else f"{said} at {path}" if path else said

    try:
        problems = cattrs.transform_error(error, path="", format_exception=why)
    except Exception:  # an error cattrs cannot read (a TypeError with no message)
        problems = [str(error)]
    return "; ".join(map(json_path, problems))[:limit] or type(error).__name__
