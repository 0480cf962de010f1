"""The class of the literal a statement last assigned to a name (``items = []``: list in Python,
Array in JavaScript; ``name = ''``, ``counts = {}``, ``data = b''``), read from the text before the
cursor as receivers.py reads an assignment's call: at a statement's start (not a keyword argument,
nor inside a string) and only where the literal is all of the value (not ``'a b'.split(' ')``)."""

from __future__ import annotations

import re

from .words import alone

# A literal's class in Python and in JavaScript, by its opening
_LITERALS = {b"[": ("list", "Array"), b"{": ("dict", None), b"'": ("str", "String"), b'"': ("str", "String"),
             b"`": (None, "String"), b"b": ("bytes", None)}
# what stands before a name a statement assigns: a line's indentation (Python); a line's start, `;`
# or `{`, and a declaration's keyword (JavaScript)
_STATEMENT = {True: re.compile(rb"(?:\A|\n)[ \t]*\Z"), False: re.compile(rb"(?:\A|[\n;{])\s*(?:(?:const|let|var)\s+)?\Z")}
LITERAL_READ = 4096  # bytes a literal's end is looked for in
_CLOSES = {ord("["): ord("]"), ord("{"): ord("}"), ord("("): ord(")")}


def whole(text: bytes, start: int) -> bool:
    """Whether the literal opening at ``start`` (a quote or a bracket) is all of the value: after
    its end the line holds nothing, a comment, ``;``, ``,`` or a closing bracket (not
    ``'a b'.split(' ')``)."""
    end = literal_end(text, start)
    rest = text[end:end + 64].lstrip(b" \t") if end is not None else b"."
    if rest[:1] == b"!" and rest[1:2] != b"=":  # TypeScript's non-null assertion: `users.at(-1)!`
        rest = rest[1:].lstrip(b" \t")
    return rest[:1] in (b"", b"\n", b"\r", b";", b",", b")", b"]", b"}", b"#", b"/")


def literal_end(text: bytes, start: int) -> int | None:
    """Where the literal opening at ``start`` (a quote or a bracket) ends, past its closing; None
    where it does not end within LITERAL_READ bytes."""
    opener = text[start]
    if opener in _CLOSES:
        depth = 0
        for i in range(start, min(len(text), start + LITERAL_READ)):
            depth += 1 if text[i] in _CLOSES else -1 if text[i] in _CLOSES.values() else 0
            if depth == 0:
                return i + 1
        return None
    quote = text[start:start + 3] if text[start:start + 3] == bytes([opener]) * 3 else bytes([opener])
    i = start + len(quote)
    while (j := text.find(quote, i, start + LITERAL_READ)) >= 0:
        if text[j - 1] != 0x5C:  # not escaped
            return j + len(quote)
        i = j + 1
    return None


def literal_class(before: bytes, word: bytes, python: bool) -> tuple[int, str] | None:
    """Where the last statement in ``before`` assigns the name ``word`` (escaped) a literal, and
    the literal's class; None where none does, or the literal's class is not one known."""
    found = None
    for match in re.finditer(alone(word) + rb"\s*(?::[^=\n]*)?=\s*(?:[rRuUfF]{0,2}(['\"])|([bB])['\"]|([\[{`]))", before):
        if _STATEMENT[python].search(before, max(0, match.start() - 64), match.start()) and whole(before, match.end() - 1):
            found = match
    literal = _LITERALS[next(g for g in found.groups() if g is not None)][0 if python else 1] if found is not None else None
    return (found.start(), literal) if literal is not None else None
