"""Candidates to LSP completion items: order, filtering text, kinds, the edit to apply, and
snippets as far as the client supports them."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from .document import Document
from .engines.base import Kind
from .service import Completion
from .sources import snippets

ITEM_KINDS = {
    Kind.VARIABLE: types.CompletionItemKind.Variable,
    Kind.FUNCTION: types.CompletionItemKind.Function,
    Kind.CLASS: types.CompletionItemKind.Class,
    Kind.MODULE: types.CompletionItemKind.Module,
    Kind.KEYWORD: types.CompletionItemKind.Keyword,
    Kind.SNIPPET: types.CompletionItemKind.Snippet,
}


@dataclass(frozen=True)
class ClientSupport:
    """What the client's completion capabilities allow."""

    snippets: bool = False
    as_is: bool = False  # insertTextMode asIs: multi-line text is inserted without re-indenting
    markdown: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None) -> ClientSupport:
        document = capabilities.text_document if capabilities is not None else None
        completion = document.completion if document is not None else None
        item = completion.completion_item if completion is not None else None
        if item is None:
            return cls()
        modes = item.insert_text_mode_support.value_set if item.insert_text_mode_support else []
        formats = item.documentation_format or []
        return cls(bool(item.snippet_support), types.InsertTextMode.AsIs in modes, types.MarkupKind.Markdown in formats)


def completion_list(doc: Document, completion: Completion | None, limit: int,
                    client: ClientSupport = ClientSupport()) -> types.CompletionList:
    if completion is None:
        return types.CompletionList(is_incomplete=False, items=[])
    context = completion.context
    start = types.Position(*doc.position_at(context.prefix_start))
    end = types.Position(*doc.position_at(context.cursor))
    edit_range = types.Range(start=start, end=end)
    indent = None  # read from the buffer only when a snippet is listed: this runs on every keystroke
    items = []
    for rank, candidate in enumerate(completion.candidates):
        text, text_format, mode = candidate.text, None, None
        if candidate.snippet is not None:
            indent = indent or snippets.indentation(context.data, context.prefix_start)
            body = snippets.expand(candidate.snippet, *indent, absolute=client.as_is)
            if client.snippets:
                text, text_format = body, types.InsertTextFormat.Snippet
            else:
                text, text_format = snippets.plain(body), types.InsertTextFormat.PlainText
            mode = types.InsertTextMode.AsIs if client.as_is else None
        items.append(types.CompletionItem(
            label=candidate.text,
            kind=ITEM_KINDS[candidate.kind],
            sort_text=f"{rank:04d}",
            filter_text=candidate.text,
            insert_text_format=text_format,
            insert_text_mode=mode,
            text_edit=types.TextEdit(range=edit_range, new_text=text),
            data={"detail": candidate.detail, "documentation": candidate.documentation, "markdown": client.markdown},
        ))
    # A list cut at the limit must be asked for again as the user types: the client cannot know
    # what lies past the cut. A whole list the client filters itself.
    return types.CompletionList(is_incomplete=len(items) >= limit, items=items)


def resolve(item: types.CompletionItem) -> types.CompletionItem:
    """Adds what the list leaves out: the detail (the model's probability and where a copied
    identifier comes from) and documentation."""
    data = item.data if isinstance(item.data, dict) else {}
    if isinstance(data.get("detail"), str):
        item.detail = data["detail"]
    doc = data.get("documentation")
    if isinstance(doc, str) and doc:
        kind = types.MarkupKind.Markdown if data.get("markdown") else types.MarkupKind.PlainText
        item.documentation = types.MarkupContent(kind=kind, value=doc)
    return item
