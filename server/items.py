"""Candidates to LSP completion items: order, filtering text, kinds, the edit to apply, and
snippets as far as the client supports them."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from .document import Document
from .engines.base import Kind
from .service import Completion
from .sources import import_edits, snippets
from .sources.libraries import python_docs

ITEM_KINDS = {
    Kind.VARIABLE: types.CompletionItemKind.Variable,
    Kind.FUNCTION: types.CompletionItemKind.Function,
    Kind.CLASS: types.CompletionItemKind.Class,
    Kind.MODULE: types.CompletionItemKind.Module,
    Kind.KEYWORD: types.CompletionItemKind.Keyword,
    Kind.SNIPPET: types.CompletionItemKind.Snippet,
    Kind.METHOD: types.CompletionItemKind.Method,
    Kind.PROPERTY: types.CompletionItemKind.Property,
    Kind.FIELD: types.CompletionItemKind.Field,
    Kind.CONSTANT: types.CompletionItemKind.Constant,
    Kind.ENUM_MEMBER: types.CompletionItemKind.EnumMember,
    Kind.ARGUMENT: types.CompletionItemKind.Variable,
}


@dataclass(frozen=True)
class ClientSupport:
    """What the client's completion capabilities allow."""

    snippets: bool = False
    as_is: bool = False  # insertTextMode asIs: multi-line text is inserted without re-indenting
    markdown: bool = False
    label_details: bool = False  # a signature and where a name comes from, shown in the list itself

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None) -> ClientSupport:
        document = capabilities.text_document if capabilities is not None else None
        completion = document.completion if document is not None else None
        item = completion.completion_item if completion is not None else None
        if item is None:
            return cls()
        modes = item.insert_text_mode_support.value_set if item.insert_text_mode_support else []
        formats = item.documentation_format or []
        return cls(bool(item.snippet_support), types.InsertTextMode.AsIs in modes, types.MarkupKind.Markdown in formats,
                   bool(item.label_details_support))


class Documentation:
    """The last list's documentation, kept by the server for completionItem/resolve rather than
    sent in the list (the docstrings of a module's hundreds of members would weigh more than
    the list). An item of an older list resolves without it."""

    def __init__(self) -> None:
        self.list = 0
        self.texts: list[str | tuple[str, str] | None] = []  # the text, or where it is read (python_docs.lookup)

    def keep(self, texts: list[str | tuple[str, str] | None]) -> int:
        self.list += 1
        self.texts = texts
        return self.list

    def of(self, data: dict) -> str:
        rank, number = data.get("rank"), data.get("list")
        if number != self.list or not isinstance(rank, int) or not 0 <= rank < len(self.texts):
            return ""
        found = self.texts[rank]
        return found if isinstance(found, str) else python_docs.lookup(found)


def completion_list(doc: Document, completion: Completion | None, limit: int,
                    client: ClientSupport = ClientSupport(), documentation: Documentation | None = None) -> types.CompletionList:
    """The LSP list; with ``documentation``, the items' documentation is kept there for resolve
    instead of sent in each item's data."""
    if completion is None:
        return types.CompletionList(is_incomplete=False, items=[])
    context = completion.context
    start = types.Position(*doc.position_at(context.prefix_start))
    end = types.Position(*doc.position_at(context.cursor))
    edit_range = types.Range(start=start, end=end)
    indent = None  # read from the buffer only when a snippet is listed: this runs on every keystroke
    items = []
    number = documentation.keep([c.documentation or c.doc_of for c in completion.candidates]) if documentation is not None else None
    assigned = None  # whether `=` follows the cursor: read only where a keyword argument is listed
    editor = None  # the import edits' reading of the buffer: only where an item needs an import
    for rank, candidate in enumerate(completion.candidates):
        text, text_format, mode = candidate.text, None, None
        label = candidate.text
        if candidate.kind == Kind.ARGUMENT:  # `indent=`, unless the `=` is there already
            if assigned is None:
                assigned = context.data[context.cursor:].lstrip(b" \t").startswith(b"=")
            label = f"{candidate.text}="
            text = candidate.text if assigned else label
        if candidate.snippet is not None:
            indent = indent or snippets.indentation(context.data, context.prefix_start)
            body = snippets.expand(candidate.snippet, *indent, absolute=client.as_is)
            if client.snippets:
                text, text_format = body, types.InsertTextFormat.Snippet
            else:
                text, text_format = snippets.plain(body), types.InsertTextFormat.PlainText
            mode = types.InsertTextMode.AsIs if client.as_is else None
        shown, imports, detail = None, None, None
        if candidate.auto_import is not None:
            editor = editor or import_edits.Editor(context)
            added = editor.edit(candidate.auto_import)
            imports = [types.TextEdit(range=types.Range(start=types.Position(*doc.position_at(added.start)),
                                                        end=types.Position(*doc.position_at(added.end))), new_text=added.text)]
            if not client.label_details:  # else `split` from re, shlex and os.path look alike in the list
                detail = f"auto-import from {candidate.auto_import.module}"
        if client.label_details and (candidate.signature or candidate.origin):
            shown = types.CompletionItemLabelDetails(detail=candidate.signature or None, description=candidate.origin or None)
        items.append(types.CompletionItem(
            label=label,
            label_details=shown,
            kind=ITEM_KINDS[candidate.kind],
            detail=detail,
            sort_text=f"{rank:04d}",
            filter_text=candidate.text,
            insert_text_format=text_format,
            insert_text_mode=mode,
            text_edit=types.TextEdit(range=edit_range, new_text=text),
            additional_text_edits=imports,
            data={"detail": candidate.detail, "markdown": client.markdown,
                  **({"list": number, "rank": rank} if number is not None
                     else {"documentation": candidate.documentation or python_docs.lookup(candidate.doc_of)})},
        ))
    # A list cut at the limit must be asked for again as the user types: the client cannot know
    # what lies past the cut; so must one that lacks a library still read. A whole list the
    # client filters itself.
    return types.CompletionList(is_incomplete=completion.incomplete or len(items) >= limit, items=items)


def resolve(item: types.CompletionItem, documentation: Documentation | None = None) -> types.CompletionItem:
    """Adds what the list leaves out: the detail (what the name is, where a copied identifier
    comes from, the model's probability) and documentation."""
    data = item.data if isinstance(item.data, dict) else {}
    if isinstance(data.get("detail"), str):
        item.detail = data["detail"]
    doc = data.get("documentation") or (documentation.of(data) if documentation is not None else "")
    if isinstance(doc, str) and doc:
        kind = types.MarkupKind.Markdown if data.get("markdown") else types.MarkupKind.PlainText
        item.documentation = types.MarkupContent(kind=kind, value=doc)
    return item
