"""The class a Python name holds, as the code before the cursor writes it (receivers.py reads
its assignments): the type annotated for it (``user: User``, ``Optional[User]``, ``User | None``,
``'User'``; for ``self.user``, a class body's ``user: User`` or the annotated parameter that
``self.user = user`` stores), what ``isinstance(user, User)`` narrows it to, and what a loop's
variable takes: the element type written for what it iterates (``for u in users:`` of ``users:
list[User]``), a mapping's key or value type (``for k, u in by_id.items():`` of ``by_id:
dict[int, User]``), or the class a list literal assigned to it constructs (``users =
[User(...)]``)."""

from __future__ import annotations

import re

from .words import alone

DOTTED = rb"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)"  # a dotted name, as one group
_COLLECTIONS = rb"(?:typing\.|t\.)?(?:list|List|Sequence|MutableSequence|Iterable|Iterator|Collection|set|Set|frozenset|FrozenSet|deque|Deque|tuple|Tuple)"
_MAPPINGS = rb"(?:typing\.|t\.)?(?:dict|Dict|Mapping|MutableMapping|defaultdict|DefaultDict|OrderedDict)"
FOR = alone(b"for", rb"\w")  # the keyword, its bytes first: scanned fast (``\bfor`` is tried at every offset)
# A Python loop's variable (``{w}``) and what it takes of the iterable (the group): 0 an element,
# 1 a mapping's key, 2 its value
_LOOPS = ((FOR + rb"\s+{w}\s+in\s+" + DOTTED + rb"\s*:", 0),
          (FOR + rb"\s+\w+\s*,\s*{w}\s+in\s+enumerate\(\s*" + DOTTED + rb"\s*[,)]", 0),
          (FOR + rb"\s+\w+\s*,\s*{w}\s+in\s+" + DOTTED + rb"\.items\(\)\s*:", 2),
          (FOR + rb"\s+{w}\s+in\s+" + DOTTED + rb"\.values\(\)\s*:", 2),
          (FOR + rb"\s+{w}\s*,\s*\w+\s+in\s+" + DOTTED + rb"\.items\(\)\s*:", 1),
          (FOR + rb"\s+{w}\s+in\s+" + DOTTED + rb"\.keys\(\)\s*:", 1))


# An annotation's class (one group each): ``User``, ``Optional[User]``, ``User | None``, ``'User'``,
# ``Optional['User']``
_ANNOTATED = (rb"\s*:\s*(?:" + DOTTED
              + rb"|(?:typing\.|t\.)?Optional\[\s*(?:" + DOTTED + rb"|['\"]" + DOTTED + rb"['\"])\s*\]"
              + rb"|" + DOTTED + rb"\s*\|\s*None|None\s*\|\s*" + DOTTED
              + rb"|['\"]" + DOTTED + rb"(?:\s*\|\s*None)?['\"])\s*(?=\n|#|=|,|\))")


def annotation_class(text: bytes) -> tuple[str, ...] | None:
    """The class an annotation's text names (``User``, ``Optional[User]``, ``m.User | None``,
    ``'User'``); None for anything else."""
    match = re.compile(_ANNOTATED).match(b": " + text.strip() + b"\n")
    return tuple(next(g for g in match.groups() if g is not None).decode().split(".")) if match is not None else None


def annotated_class(before: bytes, word: bytes) -> tuple[int, tuple[str, ...]] | None:
    """Where the last annotation of the name ``word`` (escaped) in ``before`` is, and its class;
    for ``self.x``, a class body's ``x: X`` and, where ``self.x = x`` stores a parameter, that
    parameter's annotation too. None where none is written."""
    found = _annotation(before, alone(word, rb"[\w.]"))
    if word.startswith(rb"self\."):
        attribute = word[len(rb"self\."):]
        for other in (_annotation(before, rb"\n[ \t]+" + attribute), _stored(before, word)):
            if other is not None and (found is None or other[0] > found[0]):
                found = other
    return found


def narrowed_class(before: bytes, word: bytes, narrows=None) -> tuple[int, tuple[str, ...]] | None:
    """Where the last ``isinstance(word, C)`` in ``before`` that narrows the name at the cursor
    is (``narrows(start, end)``, offsets in ``before``: narrowing.holds), and C; None where
    there is none."""
    pattern = re.compile(alone(b"isinstance", rb"\w") + rb"\(\s*" + word + rb"\s*,\s*" + DOTTED + rb"\s*\)")
    for match in reversed(list(pattern.finditer(before))):
        if narrows is None or narrows(match.start(), match.end()):
            return match.start(), tuple(match.group(1).decode().split("."))
    return None


def _annotation(before: bytes, head: bytes) -> tuple[int, tuple[str, ...]] | None:
    match = last_match(re.compile(head + _ANNOTATED), before, 0, len(before))
    if match is None:
        return None
    cls = next(g for g in match.groups() if g is not None)
    return match.start(), tuple(cls.decode().split("."))


def _stored(before: bytes, word: bytes) -> tuple[int, tuple[str, ...]] | None:
    """``self.x = x``'s parameter's annotation, at the assignment's offset."""
    match = last_match(re.compile(alone(word, rb"[\w.]") + rb"\s*=\s*([A-Za-z_]\w*)\s*(?=\n|#|;)"), before, 0, len(before))
    found = _annotation(before[:match.start()], alone(re.escape(match.group(1)), rb"[\w.]")) if match is not None else None
    return (match.start(), found[1]) if found is not None else None


def last_match(pattern: re.Pattern[bytes], data: bytes, lo: int, hi: int) -> re.Match[bytes] | None:
    """The last match of ``pattern`` in ``data[lo:hi]``: the one nearest the cursor."""
    found = None
    for found in pattern.finditer(data, lo, hi):
        pass
    return found


def loop_class(before: bytes, word: bytes) -> tuple[int, tuple[str, ...]] | None:
    """Where the last loop in ``before`` binds ``word`` (a name, escaped), and the class of what
    it takes; None where no loop binds it or none says its class."""
    best = None
    for form, part in _LOOPS:
        found = last_match(re.compile(form.replace(b"{w}", word)), before, 0, len(before))
        if found is not None and (best is None or found.start() >= best[0]) \
                and (element := element_class(before[:found.start()], found.group(1), part)) is not None:
            best = (found.start(), element)
    return best


def item_class(before: bytes, container: bytes, mapping_only: bool = False) -> tuple[str, ...] | None:
    """The class of an item of ``container`` (a dotted name) as ``before`` annotates it: a
    mapping's value (``by_id: dict[int, User]``; ``mapping_only``: nothing else, as for
    ``.get()``), else a collection's element (``users: list[User]``)."""
    return element_class(before, container, 2) or (None if mapping_only else element_class(before, container, 0))


def element_class(before: bytes, iterable: bytes, part: int = 0) -> tuple[str, ...] | None:
    """The class of what a Python loop takes of ``iterable`` (``part``, _LOOPS), as ``before``
    writes it: the element type of its annotation (``users: list[User]``, ``self.items:
    Sequence[m.Item]``, ``tuple[Row, ...]``), a mapping's key or value type (``by_id: dict[int,
    User]``), or the class that a list literal assigned to it constructs (``users = [User(...),
    ...]``); None where none says."""
    names = [iterable] + ([iterable[5:]] if iterable.startswith(b"self.") else [])  # a class body's field too
    best = None
    for name in names:
        word = re.escape(name)
        forms = ((alone(word, rb"[\w.]") + rb"\s*:\s*" + _COLLECTIONS + rb"\[\s*" + DOTTED + rb"\s*(?:,\s*\.\.\.\s*)?\]",
                  alone(word, rb"[\w.]") + rb"\s*(?::[^=\n]*)?=\s*\[\s*" + DOTTED + rb"\s*\(") if not part else
                 (alone(word, rb"[\w.]") + rb"\s*:\s*" + _MAPPINGS + rb"\[\s*" + DOTTED + rb"\s*,\s*" + DOTTED + rb"\s*\]",))
        for number, form in enumerate(forms):
            found = last_match(re.compile(form), before, 0, len(before))
            if found is None or (best is not None and found.start() <= best[0]):
                continue
            cls = found.group(part or 1)
            if number == 0 or cls.rsplit(b".", 1)[-1][:1].isupper():  # a list literal's: a class, by convention
                best = (found.start(), tuple(cls.decode().split(".")))
    return best[1] if best is not None else None
