"""The named features of a candidate, computed once, the same at training and serving time
(engines/neural.py computes them at a request, benchmarks/ranking.py and benchmarks/rank_lists.py
record them from the same code).

The linear features (NAMES): the model's log-probability among the candidates that match the
prefix (at least FLOOR), whether the model lists it and whether the pointer copied it, the log
of its rank in the fallback engine's list, where that engine found it (tiers of
sources/buffer.py: code before the cursor, comments and strings, far back, after the cursor,
other documents, builtins, keywords, other files of the project, nowhere), its recency and count
there, how many files of the project use it (after a dot), whether a file the buffer imports
uses it, whether one defines it at its top level (where an import names what it takes, too, and
there how many of them import it) and how many write it after the same receiver
(``state.scope``), the member signals after a dot (a known member of the receiver's library or
class, how much real code uses it), what the code after the cursor says of it (used there, how
soon, after the same receiver, read there and nowhere before it where a name is declared or
where a statement starts), whether it starts with the prefix in the case typed, the
log-probability of the buffer's cache n-gram model (engines/ngram.py), the fallback engine's own
score, the word's kind (a function, class or imported module defined in the file), the model's
probability of it as a multi-token chain's first leaf, and whether it is a parameter of the
function around the cursor or a name that function binds before the cursor; and where a name
an import binds may be written (not a declaration, not in an import), where an import of it
would come from (IMPORT_NAMES, sources/auto_import.py's ``signals``): how many files of the
project import it, whether a project file defines it, how much real code imports it from a
standard or Node module, whether an installed package is named so or exports it. Each falls in
one of eight cases (CASES: after a dot or elsewhere, with or without a typed prefix, with or
without code after the cursor), which the linear scorer weighs apart (ranking/ranker.py).

The rules' features (RULES): what a position says of particular names. Each is a test of a
candidate's text that the sources read once per request (the fallback engine's ``declaring``,
``echo``, ``wanted_here``...: sources/declarations.py, sources/echoes.py, sources/imports.py,
sources/members.py). The learned ranking decides how much a rule is worth beside the model and
the buffer, and nothing reorders the list after it. The linear scorer, which ranks where no
learned ranking loads, weighs them with RULE_LINEAR: a rule's names above every other name
(later rules above earlier ones), and what cannot be right below all the rest, as the rules once
did by moving names after the scores.

What a learned ranking reads (INPUTS): the linear features, the rules', the case as three inputs
(CASE_INPUTS), and the score the linear scorer gives without the rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..engines.base import Candidate, Kind
from ..sources.buffer import KEYWORD, OTHER, PROJECT
from ..sources.declaring import Declaring
from ..sources.libraries.members import Members

IMPORT_NAMES = (  # where a name an import binds may be written: where that import would come from
    "ln(1+project files importing it), where a name an import binds may be written",
    "a project file defines it at its top level, there",
    "ln(1+files of real code importing it from a standard or Node module), there",
    "an installed package (`.venv`, `node_modules`) is named so or exports it, there",
)
FLOOR = 1e-4  # a candidate the model gives less (or nothing) counts as this
ABSENT = 100  # the rank of a candidate the fallback engine did not list
NAMES = (
    "log p", "model lists it", "pointer copy", "log(rank+1)",
    "in code before", "in comments/strings", "far back", "after cursor", "other document", "builtin", "keyword",
    "ln(1+d)", "ln(1+c)", "after same receiver", "after a dot", "only after dots", "case matches", "cache log c",
    "fallback score", "a function's name", "a class's name", "an imported module's name", "model's first leaf",
    "a parameter of the function around the cursor", "bound in that function before the cursor",
    "project file", "ln(1+project files)", "in an imported file", "ln(1+project files after a dot)",
    "defined at a project file's top level", "that, where an import names what it takes",
    "ln(1+project files writing it after the same receiver)",
    "a known member of the receiver (+1), or not one of a receiver whose members are all known (-1)",
    "ln(1+files of real code using that member)",
    "used after the cursor", "ln(1+words after the cursor before its first use there)",
    "written after the same receiver after the cursor",
    "read after the cursor and not before it, where a name is declared (an assignment's target, a parameter)",
    "read after the cursor and not before it, where a statement starts",
    "ln(1+project files importing it), where an import names what it takes",
) + IMPORT_NAMES
SIZE = len(NAMES)
IMPORTS = NAMES.index(IMPORT_NAMES[0])  # where sources/auto_import.py's signals go in a row
NOT_A_MEMBER = NAMES.index("a known member of the receiver (+1), or not one of a receiver whose members are all known (-1)")
CASES = ("after a dot, k=0", "after a dot, k>0", "elsewhere, k=0", "elsewhere, k>0",
         "after a dot, k=0, code after", "after a dot, k>0, code after", "elsewhere, k=0, code after",
         "elsewhere, k>0, code after")
_CODE = re.compile(rb"\S")
KINDS = {Kind.FUNCTION: 19, Kind.CLASS: 20, Kind.MODULE: 21}

RULES = (
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
RULE_COUNT = len(RULES)
# The linear scorer's weights: each rule above the ones before it, the last two at the ends.
RULE_LINEAR = (-50.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 25_600.0, 51_200.0, -1e6)
# What a learned ranking reads: the linear features, the rules', the case as three inputs, and
# the score the linear scorer gives without the rules (its weights and hidden layer: a summary
# the trees refine, which fits in fewer trees than the features alone; docs/decisions.md).
ROW = SIZE + RULE_COUNT  # a candidate's features as the neural engine computes them
CASE_INPUTS = ("after a dot", "a prefix typed", "code after the cursor")
LINEAR_SCORE = "the linear scorer's score, less the rules"
INPUTS = NAMES + RULES + CASE_INPUTS + (LINEAR_SCORE,)


@dataclass(frozen=True)
class Rules:
    """The rules that hold at one position, as (feature index, test) pairs."""

    tests: tuple[tuple[int, Callable[[str], bool]], ...]

    def flags(self, text: str) -> list[float]:
        """The candidate's rule features: 1 where a rule holds (the position's tests: how many pass)."""
        out = [0.0] * RULE_COUNT
        for index, test in self.tests:
            if test(text):
                out[index] += 1.0
        return out


NO_RULES = Rules(())


def read_rules(fallback, context: CompletionContext, known: Members | None, where: Declaring, inside: bool) -> Rules:
    """The rules that hold at ``context`` as the fallback engine's sources read them; ``inside``:
    code follows the cursor."""
    if context.category not in (ATTRIBUTE, NAME):
        return NO_RULES
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


def case(category: str, prefix: str, code_after: bool = False) -> int:
    """The block of the weight vector for a context."""
    return (0 if category == ATTRIBUTE else 2) + (1 if prefix else 0) + (4 if code_after else 0)


def code_after(data: bytes, cursor: int) -> bool:
    """Whether anything but white space follows the cursor (completing inside a file, where the
    features of the code after it speak), without copying the rest of the buffer."""
    return _CODE.search(data, cursor) is not None


def of(p: float, copied: bool, rank: int, fallback: Candidate | None, cache_log_p: float,
       first: float = 0.0, parameter: bool = False, bound: bool = False) -> list[float]:
    """A candidate's features (NAMES): ``fallback`` is the fallback engine's candidate, if it
    listed it, whose ``features`` are its signals (sources/buffer.py); ``first`` the model's
    probability of the word as a multi-token chain's first leaf (sources/chains.py);
    ``parameter`` whether it is a parameter of the function around the cursor, ``bound`` whether
    that function's code binds it before the cursor."""
    x = [math.log(max(p, FLOOR)), 1.0 if p > 0 else 0.0, 1.0 if copied else 0.0, math.log(rank + 1)] + [0.0] * (SIZE - 4)
    if fallback is not None and fallback.features is not None:
        tier, recency, count, same, member, only_member, case_matches, project, imported, *rest = fallback.features
        if tier == OTHER:  # never in the fitted lists (one buffer open at a time): as another file of the project
            tier, recency, count = PROJECT, 0.0, 0.0
        if tier <= KEYWORD:
            x[4 + int(tier)] = 1.0
        elif tier == PROJECT:
            x[25] = 1.0
        x[11:17] = recency, count, same, member, only_member, case_matches
        x[26], x[27] = project, imported
        x[28:32] = rest[:4]  # ln(1+files after a dot), defined, defined at an import's name, ln(1+files after obj.)
        x[32:39] = (rest[4:11] + [0.0] * 7)[:7]  # a known member, ln(1+its uses) (sources/libraries/); the code after the cursor
        x[39] = rest[11] if len(rest) > 11 else 0.0  # ln(1+files importing it), at an import's name
        x[18] = fallback.score
        if fallback.kind.base in KINDS:
            x[KINDS[fallback.kind.base]] = 1.0
    x[17] = cache_log_p
    x[22] = math.log(max(first, FLOOR))
    x[23] = 1.0 if parameter else 0.0
    x[24] = 1.0 if bound else 0.0
    return x


def case_inputs(block: int) -> list[float]:
    """The case of weight block ``block`` as the learned ranking reads it (CASE_INPUTS)."""
    return [1.0 if block % 4 < 2 else 0.0, float(block % 2), 1.0 if block >= 4 else 0.0]
