"""The fallback engine: identifiers of the buffer ranked by recency and frequency.

It answers while a neural model loads, when none is available, and for languages without one;
the neural engine ranks its list together with the model's. It must stay fast on any file: it
reads a bounded window around the cursor (plus the file's head, where imports live) with one
regular expression, after blanking comments and strings (server/words.py), so a request costs
O(window), not O(file). Kinds come from the tree (definitions query). What the position is
comes from server/sources/declarations.py (``def |``, ``const |``, parameters, class members) and
server/sources/imports.py (``import |``, ``from m import |``); this module scores the words.

Scores, higher first (d = identifiers since the last occurrence, c = occurrences). A word gets
the first of these that applies, in this order:
- seen in code before the cursor, in the window: 10 - ln(1+d) + 0.5 ln(1+c)
- seen in comments or strings before the cursor, in the window: 3.2 + 0.3 ln(1+c)
- seen further back than the window: 3.5 + 0.3 ln(1+c)
- seen after the cursor: 3 - 0.5 ln(1+d) + 0.5 ln(1+c)
- seen in other open documents of the language: 2 + 0.3 ln(1+c)
- after `obj.`, written after `obj.` in files of the project on disk (server/sources/project.py; f =
  those files; the PROJECT_WORDS most used that match the prefix), or used in the files that the
  code before the cursor imports (f = those files using it; as many): 2.5 + 0.3 ln(1+f)
- used in other files of the project (f = files using it; the PROJECT_WORDS most used that match
  the prefix; after a dot those written after a dot by the most files, and where an import
  names what it takes from a module as many again that a file defines at its top level): 1 + 0.3 ln(1+f)
  (both: +1 after a dot if the project writes it after a dot, -1 elsewhere if it only ever does,
  +4 where an import names what it takes if a file defines it, +6 more if ``from m import``
  names the file that does, or, in JavaScript, ``} from './m'`` or ``} = require('./m')`` after
  the cursor)
- after `obj.` where the receiver's library or class is known (server/sources/libraries/), its members
  (sources/members.py: 6, +1 for the language's common members, +0.5 ln(1+u) for those u files
  of real code use; +3 where found already; where all its members are known, the other words
  -6); the whole member list follows the ranked items (members_left)
- the language's common builtins, after a dot its standard types' and modules' common members,
  where an import names a module the standard library's modules: 1; keywords (not after a dot
  or in an import): 0.5
Where an import names what it takes, a name the buffer's imports bind already is not offered.
Where an import names a module, the builtins and what the buffer's imports bind (but the
packages they import from) come last (server/sources/imports.py).
At a declaration's name (server/sources/declarations.py), a name its block declares already is not
offered, nor a keyword; a name the file only uses after a dot, after `self.` among others, and
does not define gets +3 instead of -3 (``self._write_title()``, then ``def _write_title``); the
project's top-level definitions are listed as at an import, and get +2 at a declaration of the
file's top level. At a member's name in a JavaScript class body or object literal (a declaration
too), a name the file only uses after a dot is not lowered, the project's member names are
listed as after a dot, and the modifiers not yet written (``static``, ``async``, ``get``, ``set``)
are the keywords offered. There, and at a Python method's name, the methods ``this.`` or ``self.``
calls before the cursor and that the class neither defines before it nor assigns come first. At a
parameter's name, the parameters listed before it are not offered, nor a
keyword. At the start of a JavaScript ``const`` or ``let``'s value, the name it declares is not
offered (reading it there throws).
At a name the file's top level defines (``class |``, ``def |``, ``| = ...``), what the project's
other files take from this module or write after its name and the buffer does not define gets
+6, and comes first where the code after the cursor is in the buffer (wanted_here). Where a
character typed starts the name across the ``=`` before it (``f(cookies=c``, ``self.timeout =
t``), that name comes first (server/sources/echoes.py); so do the words that what the position says of
the name's letters accepts (sources/position.py named_by_position: ``env: E|`` -> Environment, ``var | =
require('./route')`` -> Route, ``import t| as te`` -> typing_extensions, a from-import's name
between two in order). Inside a file, the receiver's known members that what follows the cursor
rules out get -10 (a field where ``(`` follows; ``self.``'s methods where the line goes on
otherwise), and so does ``self`` before a call's ``(`` (sources/members.py wrong_kind).
The words of this document (the first four) then get, after `obj.`, +4 if seen after the same
`obj.` before the cursor, else +3 if after it (+10 where seen nowhere before it), and +2 if seen
after any dot, or elsewhere -3 if only ever seen after a dot; and every word +2 when it starts
with the prefix in the case typed.
The code after the cursor says what is being declared: where a name is (a declaration, a
parameter, an assignment's target: ``| = sum(items)``), a word read after the cursor and seen
nowhere before it, neither bound there (``x =``, ``for x``, ``as x``), a builtin nor only a
member, gets +8 (``total`` at ``| = ...`` above ``print(total)``; ``path`` at ``def load(|)``
above ``open(path)``); +3 where a statement starts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Reversible
from dataclasses import dataclass

from ..context import ATTRIBUTE, NAME, CompletionContext, aliased_at, assigned_at, statement_at
from ..document import Document
from ..ranking.features import code_after
from ..sources import arguments, members, options
from ..sources.buffer import (BUILTIN, CASE, FAR, FAR_BACK, HEAD, KEYWORD, MEMBER, ONLY_MEMBER, OTHER, PROJECT, WINDOW_AFTER,
                              WINDOW_BEFORE, Scores, Window, adjust_for_dots, after_cursor, buffer_words, defined_in,
                              drop_reserved, reads_after)
from ..sources.declarations import ACCESSORS, MODIFIERS, top_level
from ..sources.declaring import Declaring
from ..sources.imports import Imported, imported_modules, imports_end, module_position
from ..sources.libraries.known import Libraries
from ..sources.libraries.members import Members
from ..sources.position import PositionFacts
from ..sources.project import DEFINED, MEMBERS, TAKEN, WORDS, FileWords, Snapshot, path_of
from ..sources.open_documents import OpenDocuments
from ..sources.project_index import ProjectIndex
from ..recent import Recent
from ..words import blank, receiver_word, scan
from .base import Candidate, Kind

DECLARED_BELOW, STARTS_BELOW = 8, 3  # lifts a name read below and nowhere above, where one is declared / a statement starts
WANTED = 6  # lifts a name the project takes from this module, at a name its top level defines (wanted_here)
PENDING = 20  # above any other score: a method the class calls and has not defined, at a member's name
PENDING_BELOW = 10  # next: one only the code after the cursor calls (it may be inherited)
OTHER_SPARE = 64  # words of other documents scored beyond a list's length (their tier ranks by count)
DOCUMENTS_CACHED = 64  # documents whose scans are kept between requests
PROJECT_WORDS = 30  # project words considered per request, most files first (and as many from imported files)


@dataclass
class _Position:
    """What the fallback engine read of one context's position (None: not read yet)."""

    context: CompletionContext | None
    window: Window | None = None
    declaring: Declaring | None = None
    not_modules: frozenset[str] | None = None
    imported: set[str] | None = None  # imported_here's names; None where the cursor names no import's name
    imported_read: bool = False
    known: Members | None = None  # the receiver's members, or an imported module's
    known_read: bool = False
    next_export: str | None = None  # in a barrel's export clause, the name that comes next (imports.next_export)
    next_export_read: bool = False
    wanted: frozenset[str] | None = None  # wanted_here's names
    modules: frozenset[str] | None = None  # modules_here's
    defines: frozenset[str] | None = None  # module_names'
    echo: str | None = None  # echo's name
    named: list[Callable[[str], bool]] | None = None  # named_here's tests
    wrong: set[str] | None = None  # wrong_here's members
    echo_read: bool = False
    project: _Project | None = None  # _project's view


@dataclass
class _Project:
    """The project index as one request sees it."""

    snapshot: Snapshot
    path: str | None  # the buffer's file, whose words on disk (``own``) never count: its buffer does
    own: FileWords | None
    imported: Imported  # the words of the files the buffer imports


class FallbackEngine(PositionFacts):
    name = "fallback"

    def __init__(self, open_documents: Callable[[], Reversible[Document]] = lambda: (), project: ProjectIndex | None = None,
                 libraries: Libraries | None = None):
        self.open_documents = OpenDocuments(open_documents)
        self.project = project
        self.libraries = libraries
        # per document, for the DOCUMENTS_CACHED most recently used: what a keystroke reuses
        self._heads: Recent[str, tuple[bytes, tuple]] = Recent(DOCUMENTS_CACHED)  # uri -> (head bytes, its scan)
        self._far: Recent[str, tuple[bytes, Counter[bytes]]] = Recent(DOCUMENTS_CACHED)  # uri -> (far bytes, word counts)
        self._imports: Recent[str, tuple] = Recent(DOCUMENTS_CACHED)  # uri -> (project snapshot, bytes read, imported modules, their files' words)
        self._last = _Position(None)  # what complete() read of its context's position, for the neural engine

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        if context.category not in (ATTRIBUTE, NAME) or context.tree is None:
            return []
        window = self._window(context)
        data = context.data
        before = blank(data, window.head_spans, 0, window.head) + b"\n" + blank(data, window.spans, window.lo, context.prefix_start)
        scores = Scores(context)
        if context.language.grammar_only:
            scores.names_written(window.kinds, context.language.reserved_set)
        after = after_cursor(context, window)
        count = buffer_words(context, window, before, self._far_words(context, max(window.head, window.lo - FAR), window.lo),
                             scores, after)
        where = self.declaring(context)
        member = where.member is not None  # a class body's or object literal's member
        adjust_for_dots(context, before, count, scores, window.kinds if where.declaration else None, member, after)
        imported_here = self.imported_names(context)  # None: the cursor names no import's name
        # a name read below and nowhere above: what is being declared (``def load(|)`` ... ``open(path)``)
        # or imported (``from m import |`` ... ``join(a, b)``, not what the file defines itself)
        declared = where.declaration or where.parameter or assigned_at(context) or aliased_at(context) or imported_here is not None
        starts = not declared and statement_at(context) is not None
        reads = reads_after(context, after, scores, where.method) if declared or starts else set()
        if imported_here is not None:
            reads -= defined_in(context.language.name, after)
        for word in reads:
            scores[word] += DECLARED_BELOW if declared else STARTS_BELOW
        taken = 0
        for word, c in self.open_documents.words(context, scores.prefix[:1]):  # the most frequent first: a list's worth
            if taken >= limit + OTHER_SPARE:
                break
            if word not in scores and scores.wanted(word):
                scores.add(word, 2 + 0.3 * math.log1p(c), OTHER, c=math.log1p(c))
                taken += 1
        drop_reserved(context, before, after, scores)
        receiver = receiver_word(context.receiver, context.language) if context.category == ATTRIBUTE else None
        project = self.project_view(context)
        if project is not None:
            self._project_words(context, scores, where, imported_here, receiver, project)
        self._language_words(context, scores, where, imported_here is not None)
        known = self.known(context)
        if known is not None:
            members.known_words(scores, known, imported_here or set(), context.language.member_set)
        for accepts in self.named_here(context):  # `env: E|`: Environment, and the like: first
            for word in scores:
                if accepts(word):
                    scores[word] += PENDING
        for word in self.wrong_here(context) & scores.keys():  # `self.|(`: not a field
            scores[word] -= members.WRONG_KIND
        echo = self.echo(context)  # `f(cookies=c|`, `self.timeout = t|`: the name again, first
        if echo is not None and echo in scores:
            scores[echo] += PENDING

        if context.prefix:  # the case the user typed is a strong hint
            for word in scores:
                if word.startswith(context.prefix):
                    scores[word] += 2
                    scores.signals[word][CASE] = 1
        for word in (imported_here or set()) | where.taken:
            scores.pop(word, None)  # `import { a, b, a`, `const a; const a`: not imported, nor declared, twice
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return self._candidates(ranked, scores, window.kinds, project, receiver, imported_here is not None, known,
                                reads if declared else set(), reads if starts else set())

    def known(self, context: CompletionContext) -> Members | None:
        """After a dot, the receiver's members where its library or class is known; where the
        cursor names what ``from m import`` takes, the members of library module ``m``
        (server/sources/libraries/). Read once per context."""
        position = self._position(context)
        if not position.known_read:
            if self.libraries is None or context.tree is None:
                position.known = None
            elif context.category == ATTRIBUTE:
                position.known = self.libraries.members(context)
            elif self.imported_names(context) is not None:
                position.known = self.libraries.import_members(context)
            else:  # `json.dumps(obj, |`: the parameters a keyword can name; `fs.readFileSync(p, { |`: the options
                position.known = arguments.keyword_arguments(context, self.libraries) or options.option_keys(context, self.libraries)
            position.known_read = True
        return position.known

    def members_left(self, context: CompletionContext, listed: list[Candidate]) -> list[Candidate]:
        """After a dot on a known receiver, its members that ``listed`` lacks, and where they are not
        all known (koa's ``context.state``) what the project's files write after the same name (sources/members.py)."""
        known = self.known(context) if context.category == ATTRIBUTE else None
        view = self.project_view(context) if known is not None and not known.complete else None
        written = (view.snapshot, view.path, receiver_word(context.receiver, context.language)) if view else None
        return members.left(known, context.prefix, listed, written) if known is not None else []

    def _candidates(self, ranked: list[tuple[str, float]], scores: Scores, kinds: dict[bytes, Kind],
                    project: _Project | None, receiver: str | None, import_name: bool, known: Members | None,
                    declared: set[str], starts: set[str]) -> list[Candidate]:
        """The ranked words as candidates, their signals completed with what the project says of
        each, whatever its tier: in how many of its other files (after a dot, after the same
        receiver), in a file the buffer imports, defined at a file's top level; whether the
        receiver is known to have it (+1), or known not to (-1); then what the code after the
        cursor says: used there, how far, after the same receiver, and read there and nowhere
        before where a name is declared (``declared``) or a statement starts (``starts``)."""
        signals = scores.signals
        candidates = []
        for word, score in ranked:
            if project is not None:
                used, members = project.snapshot.counts(word, project.own)
                defined = project.snapshot.defines(word, project.own)
                pair = project.snapshot.pair_files(receiver, word, project.own) if receiver else 0
                imported = word in project.imported
                taken = project.snapshot.taken_by(word, project.own) if import_name else 0
            else:
                used = members = pair = taken = 0
                defined = imported = False
            member = known.names.get(word) if known is not None else None
            signals[word] += [math.log1p(used), 1.0 if imported else 0.0, math.log1p(members),
                              1.0 if defined else 0.0, 1.0 if defined and import_name else 0.0, math.log1p(pair),
                              1.0 if member else -1.0 if known is not None and known.complete else 0.0,
                              math.log1p(member.uses) if member else 0.0,
                              1.0 if word in scores.after else 0.0, scores.after.get(word, 0.0),
                              1.0 if word in scores.same_after else 0.0,
                              1.0 if word in declared else 0.0, 1.0 if word in starts else 0.0, math.log1p(taken)]
            keyword = signals[word][0] == KEYWORD
            candidates.append(Candidate(
                text=word,
                kind=member.kind if member else Kind.KEYWORD if keyword else kinds.get(word.encode("utf-8", "surrogatepass"), Kind.VARIABLE),
                score=score,
                detail=member.detail if member else f"{'keyword' if keyword else 'identifier'} · fallback engine",
                documentation=member.doc if member else "",
                signature=member.signature if member else "",
                origin=member.origin if member else "",
                doc_of=member.doc_of if member else None,
                features=tuple(signals[word]),
            ))
        return candidates

    def project_view(self, context: CompletionContext) -> _Project | None:
        """The project index as this request sees it; None without one. Read once per context."""
        if self.project is None:
            return None
        position = self._position(context)
        if position.project is None:
            path = path_of(context.uri)
            # after a dot every folder's files count (what is written after `res.` is the library's,
            # not the project's); elsewhere the document's folder's (server/sources/project.py)
            snapshot = self.project.snapshot(context.language, None if context.category == ATTRIBUTE else path)
            own = snapshot.files.get(path) if path else None
            position.project = _Project(snapshot, path, own, self._imported(context, snapshot, path))
        return position.project

    def _project_words(self, context: CompletionContext, scores: Scores, where: Declaring, imported_here: set[str] | None,
                       receiver: str | None, view: _Project) -> None:
        """Words of the project's other files: after ``receiver.`` those written after it, those
        of the files the buffer imports, then those of the kind the position wants."""
        project, path, own = view.snapshot, view.path, view.own
        import_name = imported_here is not None
        member = where.member is not None
        top_declaration = where.declaration and top_level(context)  # its line not indented
        listed = ((MEMBERS, WORDS) if member else (TAKEN, DEFINED, WORDS) if import_name
                  else (DEFINED, WORDS) if where.declaration else (MEMBERS,) if context.category == ATTRIBUTE else (WORDS,))
        prefix = scores.prefix
        found = [(w, f, 1.5) for w, f in project.members_of(receiver, prefix, path, PROJECT_WORDS)] if receiver else []
        found += [(w, f, 1.5) for w, f in view.imported.best(prefix, PROJECT_WORDS)]
        found += [(w, f, 0) for kind in listed for w, f, _ in project.words(context.prefix, path, PROJECT_WORDS, kind)]
        for word, files, bonus in found:
            if word in scores or word in scores.keywords:
                continue
            scores.add(word, 1 + bonus + 0.3 * math.log1p(files), PROJECT)
            used, members = project.counts(word, own)
            if (context.category == ATTRIBUTE or member) and members:
                scores[word] += 1
                scores.signals[word][MEMBER] = 1
            elif context.category != ATTRIBUTE and members == used:
                scores[word] -= 1
                scores.signals[word][ONLY_MEMBER] = 1
            if import_name and project.defines(word, own):
                scores[word] += 4
            elif top_declaration and project.defines(word, own):
                scores[word] += 2
        wanted = self.wanted_here(context)
        for word in wanted:
            if scores.wanted(word):
                if word not in scores:
                    scores.add(word, 1.0, PROJECT)
                scores[word] += PENDING if code_after(context.data, context.cursor) else WANTED
        if import_name:  # `from .utils._headers import g`: what that module defines, first
            for word in self.module_names(context):
                if scores.wanted(word) and word not in imported_here:
                    if word not in scores:  # as a project word defined elsewhere: 1 + 4
                        scores.add(word, 5.0, PROJECT)
                    scores[word] += 6
            following = self.next_export(context)  # a barrel's next export: first
            if following is not None and scores.wanted(following):
                if following not in scores:
                    scores.add(following, 5.0, PROJECT)
                scores[following] += PENDING

    def _language_words(self, context: CompletionContext, scores: Scores, where: Declaring, import_name: bool) -> None:
        """The language's common words (modules at a module position, members after a dot,
        builtins elsewhere), the keywords or modifiers the position takes, and the methods the
        class calls and has not defined (at a member's name), first."""
        language = context.language
        module = module_position(context)
        member = where.member is not None
        common = language.modules if module else language.members if context.category == ATTRIBUTE else language.builtins
        for word in common:
            if word not in scores and scores.wanted(word):
                scores.add(word, 1.0, BUILTIN)
        if module:  # `import |`, `from |`: what cannot name a module last
            for word in self.not_modules(context) & scores.keys():
                scores[word] -= 20
            for word in self.modules_here(context):  # `from | import Client` inside a file: the module defining it first
                if word not in scores:
                    scores.add(word, 1.0, PROJECT)
                scores[word] += PENDING
        if context.category == NAME and not module and not import_name and not where.declaration and not where.parameter:
            offered: Iterable[str] = language.keywords
        elif member and not where.member & ACCESSORS:  # `static |`: what may come before a member's name
            offered = sorted(MODIFIERS - where.member)
        else:
            offered = ()
        for word in offered:
            if word.lower().startswith(scores.prefix) and word not in scores:
                scores.add(word, 0.5, KEYWORD)
        for words, lift in ((where.pending, PENDING), (where.pending_below, PENDING_BELOW)):
            for word in words:  # methods the class calls and has not defined yet: first
                if scores.wanted(word):
                    if word not in scores:  # called further back than the window
                        scores.add(word, 0.0, FAR_BACK)
                    scores[word] += lift

    # The neural engine asks what follows right after complete() with the same context: each is
    # read once per context (``_Position``).

    def _position(self, context: CompletionContext) -> _Position:
        if self._last.context is not context:
            self._last = _Position(context)
        return self._last

    def _window(self, context: CompletionContext) -> Window:
        """The window around the cursor. It starts on a 4 KB boundary, so that what lies before
        it stays the same while one types, and its word counts can be reused."""
        position = self._position(context)
        if position.window is None:
            lo = max(0, (context.prefix_start - WINDOW_BEFORE) // 4096 * 4096)
            hi = min(len(context.data), context.cursor + WINDOW_AFTER)
            head = min(HEAD, lo)
            head_spans, kinds = self._scan_head(context, head)
            spans, window_kinds = scan(context.tree, context.language, lo, hi)
            position.window = Window(lo, hi, head, head_spans, spans, {**kinds, **window_kinds})
        return position.window

    def _imported(self, context: CompletionContext, project: Snapshot, path: str | None) -> Imported:
        """The words of the project files that the code before the cursor imports (by module
        name: ``from .core import x`` reads core.py, ``require('./lib/router')`` router.js or
        router/index.js), each with the number of those files using it. Read up to the cursor's
        line, so that typing on a line reuses them; cached while the index stays the same."""
        hi = imports_end(context)
        key = context.data[:hi]
        cached = self._imports.get(context.uri)
        if cached is not None and cached[0] is project and cached[1] == key:
            return cached[3]
        modules = imported_modules(context.tree, context.language, hi)
        if cached is not None and cached[0] is project and cached[2] == modules:
            words = cached[3]
        else:
            words = Imported.of(project, modules, path)
        self._imports[context.uri] = (project, key, modules, words)
        return words

    def _scan_head(self, context: CompletionContext, head: int) -> tuple:
        """The file's head rarely changes while one types further down: reuse its scan."""
        key = context.data[:head]
        cached = self._heads.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, scan(context.tree, context.language, 0, head))
            self._heads[context.uri] = cached
        return cached[1]

    def _far_words(self, context: CompletionContext, lo: int, hi: int) -> Counter[bytes]:
        if lo >= hi:
            return Counter()
        key = context.data[lo:hi]
        cached = self._far.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, Counter(context.language.identifier_pattern.findall(key)))
            self._far[context.uri] = cached
        return cached[1]

    def drop_caches(self) -> None:
        """Memory: forget every document's cached scans and counts (rebuilt as they are used)."""
        for cache in (self._heads, self._far, self._imports):
            cache.clear()
        self.open_documents.clear()

    def forget(self, uri: str) -> None:
        if self.libraries is not None:
            self.libraries.forget(uri)
        self.open_documents.forget(uri)
        self._heads.pop(uri, None)
        self._far.pop(uri, None)
        self._imports.pop(uri, None)
