"""The receiver's known members (server/sources/libraries/) in the fallback engine's list: their
scores, and the members the ranked list leaves out.

Listed at KNOWN (+COMMON for the language's common members), +KNOWN_BONUS where found already,
+USES ln(1+u) for a member that u files of real code use (server/sources/libraries/*_usage.json); where
every member is known, the other words get -NOT_MEMBER: down, not out (dynamic code adds
members no declaration shows).
"""

from __future__ import annotations

import math
import re

from ..context import NAME, CompletionContext
from ..engines.base import Candidate, Kind
from ..receivers import OWN
from .buffer import BUILTIN, KEYWORD, PROJECT, Scores
from .libraries.members import Members

KNOWN, COMMON, KNOWN_BONUS, NOT_MEMBER, USES = 6.0, 1.0, 3.0, 6.0, 0.5
WRONG_KIND = 10.0  # lowers a known member that what follows the cursor rules out (wrong_kind)
WRITTEN_AFTER = 100  # at most this many words the project's files write after the receiver's name are listed
_OWN = frozenset(name for names in OWN.values() for name in names)  # `self`, `cls`, `this`
# What follows the cursor on its line, past the rest of the word being typed: its first character.
_FOLLOWING = re.compile(rb"[\w$]*[ \t]*([^\s])")


def known_words(scores: Scores, known: Members, taken: set[str], common: frozenset[str]) -> None:
    """Score the receiver's known members into ``scores`` (but ``taken``: names an import binds
    already), and lower the other words where every member is known."""
    for name, member in known.names.items():
        if scores.wanted(name) and name not in taken:
            if name in scores and scores.signals[name][0] != BUILTIN:
                scores[name] += KNOWN_BONUS
            else:
                scores.add(name, KNOWN + (COMMON if name in common else 0.0), PROJECT)
            scores[name] += USES * math.log1p(member.uses)
    if known.complete:
        for word in scores:
            if word not in known.names and scores.signals[word][0] != KEYWORD:
                scores[word] -= NOT_MEMBER


def wrong_kind(context: CompletionContext, known: Members | None) -> set[str]:
    """Inside a file, the receiver's known members that the code after the cursor rules out:
    its fields and properties where a ``(`` follows; after
    ``self.`` / ``this.``, its methods where the line goes on with anything else (``.``, ``)``,
    `` =``; properties read as fields), but not a module's
    functions, often passed as values (``map(path.basename, ...)``). Nothing where the line ends
    at the cursor: a call may follow. And at a Python name before ``(``, ``self`` (an instance
    is seldom called: ``obj = s|(value)`` is ``str``)."""
    after = _FOLLOWING.match(context.data, context.cursor) if known is not None or context.category == NAME else None
    if after is None:
        return set()
    if known is None:
        return {"self"} if after.group(1) == b"(" and context.language.name == "python" else set()
    if after.group(1) == b"(":
        wrong = Kind.VARIABLE
    elif context.receiver is not None and context.receiver.strip() in OWN.get(context.language.name, ()):
        wrong = Kind.FUNCTION
    else:
        return set()  # `map(path.basename, |`: a module's function may be passed as a value
    return {name for name, member in known.names.items() if member.kind.base == wrong}


def left(known: Members, prefix: str, listed: list[Candidate], written: tuple | None = None) -> list[Candidate]:
    """The known members that match the prefix and that ``listed`` (an engine's list, cut at
    the limit) lacks, most used first: the whole of ``os.``, as a static completer lists it,
    after the ranked items; then those listed after everything (``Members.after``); then, given
    ``written`` (the project's snapshot, the document's path, the receiver's last word: where
    the members are not all known), what the project's other files write after that word."""
    taken = {c.text for c in listed}
    prefix = prefix.lower()
    found = sorted((m for m in known.names.values() if m.name not in taken and m.name.lower().startswith(prefix)),
                   key=lambda m: (-m.uses, m.name.startswith("_"), m.name))
    found += [m for m in known.after.values() if m.name not in taken and m.name not in known.names and m.name.lower().startswith(prefix)]
    out = [Candidate(m.name, m.kind, 0.0, m.detail, m.doc, m.signature, m.origin, m.doc_of) for m in found]
    snapshot, path, receiver = written or (None, None, None)
    if snapshot is not None and receiver and receiver not in _OWN:  # not `self.`
        taken |= {m.name for m in found}
        out += [Candidate(word, Kind.FIELD, 0.0, f"written after {receiver}. in {files} other files")
                for word, files in snapshot.members_of(receiver, prefix, path, WRITTEN_AFTER) if word not in taken]
    return out
