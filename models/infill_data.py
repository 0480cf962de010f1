"""Token streams for the insertion decoder (models/insertion.py): what fills the rest of a line
between the cursor and the code after it.

A file becomes the sequence of its tokens as written: every leaf of its tree-sitter tree
(keywords and punctuation included, since the decoder's output is text), a string literal as one
token, comments and zero-width (MISSING) nodes left out. Each token carries three bits: it starts
a line, whitespace precedes it on its line, it is a named leaf (an identifier or a literal).

Stored per split as flat arrays (``ids`` into one table of texts shared by the splits, numbered
by their count in the training split, most frequent first; ``flags``; ``starts``, file offsets),
xz-compressed, beside ``texts.json`` (the texts in that order and their counts). ``pack`` writes a
copy that keeps only the most frequent texts (a decoder's vocabulary needs no more) and the first
training tokens: small enough to carry to a machine without registry access. A text left out
reads as a placeholder of its number, still equal to itself wherever it occurs. An example (``Examples``) is a cursor at a token inside a line: the
span is the rest of that line (at most ``MAX_SPAN`` tokens), the left context up to ``LEFT``
tokens before the cursor, the right context up to ``RIGHT`` tokens after the line (a model
reads as many of them as its configuration says).

Knows nothing of the model; imports numpy (and, to build, tree-sitter).
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import numpy as np

from .store import SPLITS

if TYPE_CHECKING:  # building reads the corpus' filters and tree-sitter; reading examples needs neither
    import tree_sitter

    from .corpus import SourceFile


NEWLINE, SPACE, NAMED = 1, 2, 4  # flag bits
ATOMIC = frozenset({"string", "template_string"})  # one token each, whatever their pieces
SKIPPED = frozenset({"comment", "line_comment", "block_comment"})
MAX_SPAN, LEFT, RIGHT = 16, 96, 32
WORD = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*|\"(?:\\.|[^\"\\])*\"?|'(?:\\.|[^'\\])*'?|`[^`]*`?|[^\s\w\"'`]+", re.UNICODE)
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
KEYWORDS = {
    "python": frozenset("and as assert async await break class continue def del elif else except finally for from "
                        "global if import in is lambda nonlocal not or pass raise return try while with yield "
                        "match case print exec".split()),
    "javascript": frozenset("break case catch class const continue debugger default delete do else export extends "
                            "finally for function if import in instanceof let new of return static super switch "
                            "throw try typeof var void while with yield async await get set".split()),
}


@dataclass(frozen=True)
class Token:
    text: str
    start: int  # byte offset
    end: int
    line: int  # of its start
    end_line: int
    named: bool


def tokens(tree: tree_sitter.Tree, lo: int = 0, hi: int | None = None) -> list[Token]:
    """The tree's tokens in source order (see the module); with ``lo`` and ``hi``, those
    starting in that byte range, reading only the subtrees that overlap it."""
    out: list[Token] = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        outside = node.end_byte <= lo or hi is not None and node.start_byte >= hi
        atomic = node.type in ATOMIC or node.child_count == 0
        if atomic and not outside and node.start_byte >= lo and node.type not in SKIPPED \
                and node.end_byte > node.start_byte and not node.is_missing:
            text = node.text.decode("utf-8", "replace") if node.text is not None else ""
            out.append(Token(text, node.start_byte, node.end_byte, node.start_point[0], node.end_point[0], node.is_named))
        if not atomic and not outside and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def flags_of(toks: list[Token], data: bytes) -> list[int]:
    out = []
    for i, t in enumerate(toks):
        f = NAMED if t.named else 0
        if i == 0 or toks[i - 1].end_line != t.line:
            f |= NEWLINE
        elif t.start > toks[i - 1].end and data[toks[i - 1].end:t.start].strip(b" \t\\") == b"":
            f |= SPACE
        out.append(f)
    return out


def leaves(text: str, lang: str) -> list[str]:
    """The named leaves of a piece of code, by its tokens' shape: identifiers that are not
    keywords, numbers and string literals. The benchmark reads a prediction and the truth
    alike with it (neither need parse on its own)."""
    keywords = KEYWORDS["python" if lang == "python" else "javascript"]
    out = []
    for m in WORD.finditer(text):
        w = m.group()
        if IDENTIFIER.fullmatch(w):
            if w not in keywords:
                out.append(w)
        elif w[0].isdigit() or w[0] in "\"'`":
            out.append(w)
    return out


def build(files: Iterable[SourceFile], lang: str, out: Path, caps: dict[str, int], keep: float = 1.0) -> dict[str, int]:
    """Tokenize ``files`` into ``out`` (see the module), each split up to ``caps[split]`` tokens,
    a file kept with chance ``keep`` (by a digest of its text, so the same files each time);
    files are filtered and split as the corpus' (models/corpus.py). Returns tokens per split."""
    from treecomplete.languages import by_name

    from .corpus import parse, skip_reason, split_of

    language = by_name("javascript" if lang == "typescript" else lang)
    parser = language.parser()
    table: dict[str, int] = {}
    counts: Counter[int] = Counter()
    arrays = {s: ([], [], [0]) for s in SPLITS}
    seen: set[bytes] = set()
    for source in files:
        split = split_of(source.package)
        ids, flags, starts = arrays[split]
        if starts[-1] >= caps[split] or skip_reason(source.path, source.data, lang):
            continue
        key = hashlib.sha1(source.data).digest()
        if key in seen or int.from_bytes(key[:4], "big") >= keep * (1 << 32):
            continue
        seen.add(key)
        tree = parse(source, language, parser)
        if tree is None or tree.root_node.has_error:
            continue
        toks = tokens(tree)
        if len(toks) < 8:
            continue
        file_ids = [table.setdefault(t.text, len(table)) for t in toks]
        if split == "train":
            counts.update(file_ids)
        ids.extend(file_ids)
        flags.extend(flags_of(toks, source.data))
        starts.append(len(ids))
    texts = sorted(table, key=table.get)
    rank = np.argsort(-np.asarray([counts[i] for i in range(len(texts))]), kind="stable")
    renumber = np.empty(len(texts), np.int64)
    renumber[rank] = np.arange(len(texts))
    for split, (ids, flags, starts) in arrays.items():
        save_split(out / split, renumber[np.asarray(ids, np.int64)], np.asarray(flags, np.uint8),
                   np.asarray(starts, np.int64))
    save_texts(out, lang, [texts[i] for i in rank], [counts[int(i)] for i in rank])
    return {s: arrays[s][2][-1] for s in SPLITS}


def save_split(path: Path, ids: np.ndarray, flags: np.ndarray, starts: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    width = np.uint16 if len(ids) == 0 or ids.max() < 1 << 16 else np.uint32
    payload = io.BytesIO()
    np.savez(payload, ids=ids.astype(width), flags=flags, starts=starts)
    path.with_suffix(".npz.xz").write_bytes(lzma.compress(payload.getvalue(), preset=6))


def save_texts(out: Path, lang: str, texts: list[str], counts: list[int]) -> None:
    (out / "texts.json").write_text(json.dumps({"language": lang, "texts": texts, "counts": counts},
                                               ensure_ascii=False), encoding="utf-8")


def pack(source: Path, out: Path, texts: int, max_train: int) -> None:
    """A copy of ``source`` with its ``texts`` most frequent texts and its first ``max_train``
    training tokens (whole files)."""
    meta = json.loads((source / "texts.json").read_text(encoding="utf-8"))
    for split in SPLITS:
        ids, flags, starts = load_split(source / split)
        if split == "train":
            starts = starts[:np.searchsorted(starts, max_train, side="right")]
            ids, flags = ids[:starts[-1]], flags[:starts[-1]]
        save_split(out / split, ids, flags, starts)
    save_texts(out, meta["language"], meta["texts"][:texts], meta["counts"][:texts])


def load_split(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = np.load(io.BytesIO(lzma.decompress(path.with_suffix(".npz.xz").read_bytes())))
    return data["ids"].astype(np.int64), data["flags"], data["starts"]


class Texts:
    """The table of texts; a number beyond the kept ones reads as a placeholder of itself."""

    def __init__(self, texts: list[str], size: int):
        self.kept, self.size = texts, size

    def __len__(self) -> int:
        return max(self.size, len(self.kept))

    def __getitem__(self, i: int) -> str:
        return self.kept[i] if i < len(self.kept) else f"\x00{i}"

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class Examples:
    """Cursors inside lines of one split, with their spans and contexts (see the module)."""

    def __init__(self, directory: Path, split: str, named: bool = False):
        """``named``: only cursors before a named token (an identifier or a literal), where
        completion is asked for."""
        self.ids, self.flags, self.starts = load_split(directory / split)
        meta = json.loads((directory / "texts.json").read_text(encoding="utf-8"))
        self.texts = Texts(meta["texts"], int(self.ids.max()) + 1 if len(self.ids) else 0)
        self.counts: list[int] = meta["counts"]
        n = len(self.ids)
        line_start = (self.flags & NEWLINE) != 0
        file_start = np.zeros(n, bool)
        file_start[self.starts[:-1]] = True
        line_start |= file_start
        # each token's line end (exclusive): the next line start
        nxt = np.flatnonzero(line_start)
        ends = np.append(nxt[1:], n)
        line_of = np.cumsum(line_start) - 1
        self.line_end = ends[line_of]
        self.file_of = np.searchsorted(self.starts, np.arange(n), side="right") - 1
        span = self.line_end - np.arange(n)
        self.cursors = np.flatnonzero((span >= 1) & (span <= MAX_SPAN) & ((self.flags & NAMED != 0) | (not named)))

    def example(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(left ids, left flags, span ids, span flags, right ids, right flags) for a cursor
        before token ``i``."""
        f = self.file_of[i]
        lo, hi = self.starts[f], self.starts[f + 1]
        j = self.line_end[i]
        left = slice(max(lo, i - LEFT), i)
        right = slice(j, min(hi, j + RIGHT))
        return (self.ids[left], self.flags[left], self.ids[i:j], self.flags[i:j],
                self.ids[right], self.flags[right])
