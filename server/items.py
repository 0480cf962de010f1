"""Candidates to LSP completion items: order, filtering text, kinds and the edit to apply."""

from __future__ import annotations

from lsprotocol import types

from .document import Document
from .engines.base import Kind
from .service import Completion

ITEM_KINDS = {
    Kind.VARIABLE: types.CompletionItemKind.Variable,
    Kind.FUNCTION: types.CompletionItemKind.Function,
    Kind.CLASS: types.CompletionItemKind.Class,
    Kind.MODULE: types.CompletionItemKind.Module,
    Kind.KEYWORD: types.CompletionItemKind.Keyword,
}


def completion_list(doc: Document, completion: Completion | None, limit: int) -> types.CompletionList:
    if completion is None:
        return types.CompletionList(is_incomplete=False, items=[])
    context = completion.context
    start = types.Position(*doc.position_at(context.prefix_start))
    end = types.Position(*doc.position_at(context.cursor))
    edit_range = types.Range(start=start, end=end)
    items = [
        types.CompletionItem(
            label=candidate.text,
            kind=ITEM_KINDS[candidate.kind],
            sort_text=f"{rank:04d}",
            filter_text=candidate.text,
            text_edit=types.TextEdit(range=edit_range, new_text=candidate.text),
            data={"detail": candidate.detail},
        )
        for rank, candidate in enumerate(completion.candidates)
    ]
    # A truncated list must be asked for again as the user types: the client cannot know what
    # lies past the cut.
    return types.CompletionList(is_incomplete=len(items) >= limit, items=items)


def resolve(item: types.CompletionItem) -> types.CompletionItem:
    if isinstance(item.data, dict) and isinstance(item.data.get("detail"), str):
        item.detail = item.data["detail"]
    return item
