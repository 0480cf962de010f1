"""What the position at the cursor says of names, read once per request: what it declares
(sources/declaring.py), the name it repeats across an ``=`` (sources/echoes.py), what the
import being written takes or names (sources/imports.py), what the project wants the module to
define, the members that what follows rules out (sources/members.py). The ranker reads each as
a feature (ranking/features.py ``read_rules``).

``PositionFacts`` is the fallback engine's side of it: each answer is kept on the engine's
per-context record (``self._position(context)``), beside the window it read
(``self._window``), the project's view (``self._project``) and the receiver's known members
(``self.known``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from ..context import ATTRIBUTE, NAME, CompletionContext, assigned_at
from ..engines.base import Kind
from ..words import exported_names
from . import members
from .declarations import top_level
from .declaring import Declaring, declaring
from .echoes import annotated, echoed, named_after, required_after
from .imports import (abbreviates, alias_after, listed_names, module_defines, module_position, modules_defining, next_export,
                      not_modules, sorted_between)
from .project import module_name


def named_by_position(context: CompletionContext) -> list[Callable[[str], bool]]:
    """What the position says of the name's letters, as tests of a word; the engines put the
    words that pass first."""
    tests: list[Callable[[str], bool]] = []
    if (annotation := annotated(context)) is not None:  # `env: E|`: Environment
        tests.append(lambda word: named_after(word, annotation))
    if required := required_after(context):  # `const | = require('./route')`: Route
        tests.append(lambda word: word.lower() in required)
    if (alias := alias_after(context)) is not None:  # `import t| as te`: typing_extensions
        tests.append(lambda word: abbreviates(alias, word))
    if (between := sorted_between(context)) is not None:  # `from m import Counter, d|, namedtuple`: in order
        tests.append(lambda word: between[0] < word.lower() < between[1])
    return tests


class PositionFacts:
    """The position's facts, for an engine that keeps them per context (see the module)."""

    def declaring(self, context: CompletionContext) -> Declaring:
        """What the identifier at the cursor declares, and what is not offered there
        (server/sources/declarations.py)."""
        position = self._position(context)
        if position.declaring is None:
            position.declaring = declaring(context)
        return position.declaring

    def not_modules(self, context: CompletionContext) -> frozenset[str]:
        """At a Python module position (``import |``), what cannot be the module (server/sources/imports.py)."""
        position = self._position(context)
        if position.not_modules is None:
            position.not_modules = not_modules(context)
        return position.not_modules

    def echo(self, context: CompletionContext) -> str | None:
        """The name the identifier at the cursor repeats across an ``=`` (server/sources/echoes.py)."""
        position = self._position(context)
        if not position.echo_read:
            position.echo, position.echo_read = echoed(context), True
        return position.echo

    def named_here(self, context: CompletionContext) -> list[Callable[[str], bool]]:
        """named_by_position's tests of a word, read once per context."""
        position = self._position(context)
        if position.named is None:
            position.named = named_by_position(context)
        return position.named

    def wrong_here(self, context: CompletionContext) -> set[str]:
        """The known members (or ``self``) that what follows the cursor rules out
        (members.wrong_kind), read once per context."""
        position = self._position(context)
        if position.wrong is None:
            position.wrong = members.wrong_kind(context, self.known(context) if context.category == ATTRIBUTE else None)
        return position.wrong

    def module_names(self, context: CompletionContext) -> frozenset[str]:
        """Where the cursor names what an import takes, what the project's file for its module
        defines (imports.module_defines); elsewhere nothing."""
        position = self._position(context)
        if position.defines is None:
            view = self.project_view(context) if self.imported_names(context) is not None else None
            position.defines = frozenset(module_defines(context, view.snapshot, view.path)) if view is not None else frozenset()
        return position.defines

    def modules_here(self, context: CompletionContext) -> frozenset[str]:
        """At the module of a ``from | import a, b``, the project's modules defining what it takes
        (imports.modules_defining)."""
        position = self._position(context)
        if position.modules is None:
            view = self.project_view(context) if module_position(context) else None
            position.modules = frozenset(modules_defining(context, view.snapshot, view.path)) if view is not None else frozenset()
        return position.modules

    def next_export(self, context: CompletionContext) -> str | None:
        """In a barrel file's export clause, the name that comes next (imports.next_export)."""
        position = self._position(context)
        if not position.next_export_read:
            listed = self.imported_names(context)
            view = self.project_view(context) if listed is not None else None
            position.next_export = next_export(context, view.snapshot, view.path, listed) if view is not None else None
            position.next_export_read = True
        return position.next_export

    def wanted_here(self, context: CompletionContext) -> frozenset[str]:
        """At a name that the file's top level defines (``class |``, ``def |``, ``| = ...``), what
        the project's other files take from this module or write after its name (``from .nodes
        import Concat``, ``nodes.Concat``) and the buffer does not define at its top level: the
        name being written, more often than not, where the file's code after the cursor is in
        the buffer (a feature of the ranker there)."""
        position = self._position(context)
        if position.wanted is None:
            position.wanted = frozenset()
            if context.tree is None or context.category != NAME:
                return position.wanted
            where = self.declaring(context)
            view = self.project_view(context) if (where.declaration and where.member is None or assigned_at(context)) else None
            if view is not None and view.path and top_level(context):
                found = view.snapshot.wanted_from(module_name(PurePath(view.path)), context.prefix, view.own,
                                                  context.language.member_set)
                if found:
                    defined = {w.decode("utf-8", "replace") for w in exported_names(context.tree, context.language, top=True)}
                    position.wanted = frozenset(found.keys() - defined - where.taken)
        return position.wanted

    def imported_here(self, context: CompletionContext) -> set[str]:
        """Where the cursor names what an import takes: the names that the buffer's imports bind
        already (but the one being typed), which it would not import twice; elsewhere nothing."""
        return self.imported_names(context) or set()

    def declared_here(self, context: CompletionContext) -> set[str]:
        """Where the cursor names what a statement declares: the names its block declares
        already before it (server/sources/declarations.py); elsewhere nothing."""
        return set(self.declaring(context).taken)

    def imported_names(self, context: CompletionContext) -> set[str] | None:
        """imported_here's names, or None where the cursor names no import's name: what an
        unfinished import lists, and the modules the definitions around the cursor import."""
        position = self._position(context)
        if not position.imported_read:
            names = listed_names(context)
            if names is not None:
                names.update(w.decode("utf-8", "replace") for w, kind in self._window(context).kinds.items() if kind == Kind.MODULE)
                names.discard(context.prefix)
            position.imported, position.imported_read = names, True
        return position.imported
