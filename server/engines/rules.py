"""What a position says of particular names, as named features of the neural engine's ranker.

Each rule is a test of a candidate's text that the sources read once per request (the fallback
engine's ``declaring``, ``echo``, ``wanted_here``...: server/declarations.py, server/echoes.py,
server/imports.py, engines/members.py). The ranker reads each as a feature (engines/ranker.py):
the learned ranking decides how much a rule is worth beside the model and the buffer, and
nothing reorders the list after it. The linear scorer, which ranks where no learned ranking
loads, weighs them with LINEAR: a rule's names above every other name (later rules above
earlier ones), and what cannot be right below all the rest, as the rules once did by moving
names after the scores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..declarations import Declaring
from ..libraries.members import Members

NAMES = (
    "the wrong kind of member here (a field before `(`, `self` before a call's `(`)",
    "a member of the type written for the receiver (`user: User`)",
    "a method the class calls below and defines nowhere",
    "a method the class calls above and defines nowhere",
    "the name across the `=` (`f(cookies=c|`, `self.timeout = t|`)",
    "what other files take from this module and it does not define, with code after the cursor",
    "defined by the project's file of the module imported from (`from .m import x|`)",
    "tests the position's words pass (an annotation's type, a require's module, an alias, sorted imports)",
    "a project module defining what `from | import X` takes",
    "a barrel's next export",
    "what cannot name a module (`import |`)",
)
COUNT = len(NAMES)
# The linear scorer's weights: each rule above the ones before it, the last two at the ends.
LINEAR = (-50.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 25_600.0, 51_200.0, -1e6)


@dataclass(frozen=True)
class Rules:
    """The rules that hold at one position, as (feature index, test) pairs."""

    tests: tuple[tuple[int, Callable[[str], bool]], ...]

    def flags(self, text: str) -> list[float]:
        """The candidate's rule features: 1 where a rule holds (the position's tests: how many pass)."""
        out = [0.0] * COUNT
        for index, test in self.tests:
            if test(text):
                out[index] += 1.0
        return out


NONE = Rules(())


def read(fallback, context: CompletionContext, known: Members | None, where: Declaring, inside: bool) -> Rules:
    """The rules that hold at ``context`` as the fallback engine's sources read them; ``inside``:
    code follows the cursor."""
    if context.category not in (ATTRIBUTE, NAME):
        return NONE
    tests: list[tuple[int, Callable[[str], bool]]] = []
    if wrong := fallback.wrong_here(context):
        tests.append((0, wrong.__contains__))
    if known is not None and known.declared:
        tests.append((1, known.names.__contains__))
    if where.pending_below:
        tests.append((2, where.pending_below.__contains__))
    if where.pending:
        tests.append((3, where.pending.__contains__))
    if (echo := fallback.echo(context)) is not None:
        tests.append((4, echo.__eq__))
    if (wanted := fallback.wanted_here(context)) and inside:
        tests.append((5, wanted.__contains__))
    if context.prefix and (defines := fallback.module_names(context) - fallback.imported_here(context)):
        tests.append((6, defines.__contains__))
    tests.extend((7, test) for test in fallback.named_here(context))
    if modules := fallback.modules_here(context):
        tests.append((8, modules.__contains__))
    if context.category == NAME and (following := fallback.next_export(context)) is not None:
        tests.append((9, following.__eq__))
    if not_modules := fallback.not_modules(context):
        tests.append((10, not_modules.__contains__))
    return Rules(tuple(tests))
