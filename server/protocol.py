"""The JSON-RPC layer, adjusted where pygls' defaults would lose a message or keep a copy.

- Text documents live in treecomplete's own store (with their trees), not in pygls' workspace:
  one copy of each buffer, one place that applies edits.
- A request whose params do not match the LSP types gets an InvalidParams error response
  (pygls only logs it, which leaves the client waiting forever).
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method

log = logging.getLogger(__name__)


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

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                cause = str(error.__cause__ or error).splitlines()[0][:300]
                self._send_response(
                    data["id"],
                    error=types.ResponseError(
                        code=types.ErrorCodes.InvalidParams,
                        message=f"Invalid params for {data['method']!r}: {cause}",
                    ),
                )
            raise
