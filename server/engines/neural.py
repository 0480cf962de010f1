"""The neural engine: the language model's candidates and the fallback engine's, ranked
together, with structure completions (snippets for the statement or expression the model
expects at the cursor) and multi-token completions (sources/chains.py). Knows nothing of torch:
answers come from a ``predictor.Predictor``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..context import ATTRIBUTE, NAME, CompletionContext, statement_at
from ..erasure import as_javascript, served_as
from ..models.flatten import EMPTY
from ..ranking import features, ranker
from ..ranking.features import ABSENT
from ..ranking.ranker import Ranker
from ..scope import LOCALS_READ, function_around, names_bound
from ..sources import snippets
from . import ngram
from .base import Candidate, Engine, Kind
from .ngram import Continuations

FALLBACK_LIST = 50  # the fallback engine's best, blended with the model's (the weights were fitted on such lists)
# The code right after the cursor goes on with the expression (`arg|.length`, `f|(x)`): a
# multi-token item would write what follows again.
_CONTINUED = re.compile(rb"[\w$]*(?:[.(\[]|\?\.)")
# The multi-token search per new context: one run of the model over its beams (a count: the same
# list whatever else the machine does), within a bound in seconds for a slow or busy machine.
CHAIN_STEPS = 1
CHAIN_BUDGET = 0.02
CHAIN_ITEMS = 3  # multi-token items per list
INFILL_ITEMS = 2  # rests of the line per list (sources/infill.py)
INFILL_FLOOR = 0.1  # the decoder's probability below which a rest of the line is left out
INFILL_LEAD = 0.5  # from which it goes before the item of its first token, not after it
SNIPPET_MIN = 0.002  # a structure the model gives less than this is not offered
AFTER_IF = 0.05  # elif / else after an if: the syntax offers them, not the model


class NeuralEngine:
    """The model's candidates and the fallback engine's, ranked together.

    One ranker scores every candidate from its named features (ranking/ranker.py): the learned
    ranking's trees where one is shipped for the language, else a linear score plus a small
    hidden layer; what a position says of particular names (the rules of ranking/features.py: the
    name across the `=`, the methods a class calls and defines nowhere, ...) are features too,
    and nothing reorders the ranker's list after it. The features: p the model's probability
    among the candidates that match the typed prefix, its rank in the fallback engine's list and
    the signals that placed it there (recency, frequency, members after the same receiver;
    engines/fallback.py), and the probability that the buffer's cache n-gram model gives the
    word after the tokens before the cursor (engines/ngram.py). The signals complement each
    other: the model knows the structure, the fallback engine knows which words this buffer uses
    and how recently, and the n-gram model what came after these very tokens in it. A structure
    snippet, which the fallback engine knows nothing of, takes the fallback signals of the best
    identifier, so that the model's p and the keyword's rank place it among the identifiers: its
    score is that identifier's plus the difference of their linear scores (no snippet was in the
    lists the hidden layer was fitted on).
    The weights were fitted on files of valid-split packages, not the benchmarks' held-out ones
    (benchmarks/ranking.py). The model's p for an identifier is the mean of its next-value
    prediction at the cursor and, where the beam search ran, the probability of the identifier
    as the chain's first free leaf summed over the structures searched (the cursor's own parse
    lacks the nodes that finished code would put above it, such as the call around
    ``os.path.join``; at a member's name the predictor reads that call too). At the name a
    statement declares (server/sources/declarations.py) there are no snippets or chains, and no name
    the block declares already; at a parameter's name, none of the parameters listed before it."""

    def __init__(self, fallback: Engine, predictor_for: Callable[[str], object | None], auto_import=None):
        self.fallback = fallback
        self.auto_import = auto_import  # sources/auto_import.py: names only an import would bring, ranked with the rest
        self.predictor_for = predictor_for  # language name -> Predictor | None
        self.name = "neural"
        self.multi_token = True
        self.chain_budget = CHAIN_BUDGET
        self._tokenizers: dict[str, ngram.Tokenizer] = {}  # by language name
        # the last n-gram model, by language and the bytes it read: typing an identifier reads
        # the same bytes again
        self._cache: tuple[str, bytes, Continuations] | None = None
        # the names the function around the cursor binds, by language and the bytes they were
        # read from: the same while an identifier is typed
        self._bound: tuple[str, bytes, set[str]] | None = None
        # decode the rest of the line off the request path (sources/infill.py): the predictor
        # whose insertion decoder the last list wanted, for the worker's idle time
        self.idle_infill = True
        self.wanted = None

    def drop_caches(self) -> None:
        """Memory: forget the lines' tokens and the last n-gram model (rebuilt as they are used)."""
        self._tokenizers.clear()
        self._cache = self._bound = None

    def fill_wanted(self, stop) -> None:
        """The server is quiet (server.QUIET): decode what the last list wanted (``stop()``:
        something came in meanwhile)."""
        predictor, self.wanted = self.wanted, None
        if predictor is not None:
            predictor.fill_wanted(stop)

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        self.wanted = None
        others = self.fallback.complete(context, FALLBACK_LIST)
        predictor = self.predictor_for(context.language.name) if context.category in (ATTRIBUTE, NAME) else None
        read = as_javascript(context) if predictor is not None else None  # TypeScript: its types blanked
        if read is None:  # no model, or a TypeScript type at the cursor
            return others[:limit]
        answer = predictor.answer(read, self.chain_budget, CHAIN_STEPS)
        prefix = context.prefix.lower()
        identifier = context.language.identifier
        keywords = context.language.not_identifiers(context.category == ATTRIBUTE)
        reserved = context.language.reserved_set if context.category == ATTRIBUTE else frozenset()
        listed = {c.text: (r, c) for r, c in enumerate(others)}

        def matching(pairs) -> dict[str, float]:
            out: dict[str, float] = {}
            for text, p in pairs:
                if text in out or text == EMPTY or not identifier.fullmatch(text) or not text.lower().startswith(prefix):
                    continue
                if text in keywords or text in reserved and text not in listed:
                    continue  # after a dot, a reserved word only where the fallback engine found it a member
                out[text] = p
            total = sum(out.values()) or 1.0
            return {t: p / total for t, p in out.items()}

        direct = matching((value, p) for value, p, _, _ in answer.predictions)
        first = matching(answer.first.items())
        copied = {value: origin for value, _, is_copy, origin in answer.predictions if is_copy}  # -> its byte offset
        model = {t: (direct.get(t, 0.0) + first.get(t, 0.0)) / 2 for t in direct.keys() | first.keys()} if first else direct
        where = self.fallback.declaring(context)
        declaration = where.declaration or where.parameter  # a name being declared
        templates = self._templates(context, answer) if context.category == NAME and not declaration else []
        share = 1.0 - sum(p for _, p in templates)  # what the model leaves to an identifier here
        labels = {t.label for t, _ in templates}
        cache = self._continuations(context)
        rank_by = ranker.for_language(served_as(context.language.name))
        inside = features.code_after(context.data, context.cursor)
        block = features.case(context.category, context.prefix, inside)
        parameters, bound = self._locals(context) if context.category == NAME else (set(), set())
        # the best identifier the fallback engine lists: its score, its fallback candidate, its features
        best: tuple[float, Candidate | None, list[float]] = (-math.inf, None, [])
        scored: list[Candidate] = []
        # not imported, nor declared, twice
        imported = self.fallback.imported_here(context) | where.taken if context.category == NAME else set()
        texts = [text for text in model.keys() | listed.keys() if text not in labels and text not in imported]  # a keyword comes as its snippet
        if self.auto_import is not None and not declaration:
            texts += self.auto_import.extra(context, set(texts) | labels)
        xs = []
        # after a dot on a receiver whose members are all known, a word the fallback engine did
        # not list is not one of them either: the model's own guesses get that signal too
        known = self.fallback.known(context) if context.category == ATTRIBUTE else None
        closed = known.names if known is not None and known.complete else None
        rules = features.read_rules(self.fallback, context, known, where, inside)
        imports = self.auto_import.signals(context, texts) if self.auto_import is not None else {}
        for text in texts:
            p = model.get(text, 0.0) * max(share, 0.05)
            rank, fallback = listed.get(text, (ABSENT, None))
            x = features.of(p, text in copied, rank, fallback, cache.log_probability(text), first.get(text, 0.0),
                                text in parameters, text in bound)
            if text in imports:
                x[features.IMPORTS:features.IMPORTS + len(features.IMPORT_NAMES)] = imports[text]
            if fallback is None and closed is not None and text not in closed:
                x[features.NOT_A_MEMBER] = -1.0
            xs.append(x + rules.flags(text))
        for text, x, score in zip(texts, xs, rank_by.scores(xs, block)):
            fallback = listed.get(text, (ABSENT, None))[1]
            if fallback is not None and score > best[0]:
                best = (score, fallback, x)
            kind = fallback.kind if fallback else Kind.KEYWORD if text in keywords else Kind.VARIABLE
            documentation = fallback.documentation if fallback is not None else ""
            detail = fallback.detail if fallback is not None else ""
            if text in model:  # what the model says comes last: what the name is comes first
                origin = copied.get(text)
                if origin is not None:
                    line = context.data.count(b"\n", 0, origin) + 1
                    said = f"copied from line {line}"
                    documentation = documentation or _source_line(context, origin, line)
                else:
                    said = "model vocabulary"
                detail = f"{detail if fallback is not None and fallback.origin else said} · model {model[text]:.1%}"
            scored.append(Candidate(text, kind, score, detail, documentation, fallback.signature if fallback else "",
                                    fallback.origin if fallback else "", fallback.doc_of if fallback else None,
                                    features=tuple(x)))
        for template, p in templates:
            rank, _ = listed.get(template.label, (ABSENT, None))
            x = features.of(p, False, rank, best[1], cache.log_probability(template.label)) + features.NO_RULES.flags("")
            # No snippet is among the lists the weights were fitted on: it is placed by how its
            # features differ from the best identifier's, under the linear weights alone.
            score = (best[0] - rank_by.rules_part(best[2], block) + rank_by.linear(x, block) - rank_by.linear(best[2], block)
                     if best[1] else rank_by.score(x, block))
            scored.append(Candidate(template.label, Kind.SNIPPET, score, f"{template.node} · model {p:.1%}",
                                    f"```{context.language.name}\n{snippets.plain(template.body)}\n```",
                                    snippet=template.body, features=tuple(x)))
        scored.sort(key=lambda c: (-c.score, c.text))  # the ranker's order, which nothing changes after
        if self.multi_token and not declaration and not _CONTINUED.match(context.data, context.cursor):
            scored = self._with_chains(scored, answer.chains, prefix, cache, rank_by, block)
            if getattr(predictor, "infill", None) is not None:  # an insertion decoder (sources/infill.py)
                infills = predictor.infills(read, wait=not self.idle_infill)
                if infills is None:
                    self.wanted = predictor
                scored = _with_infills(scored, infills or [], prefix)
        return scored[:limit]

    def _locals(self, context: CompletionContext) -> tuple[set[str], set[str]]:
        """The parameter names of the function around the cursor, and the names its code binds
        before the cursor (the last LOCALS_READ bytes of it)."""
        language = context.language.name
        function = function_around(language, context.target)
        if function is None:
            return set(), set()
        read = context.data[max(function.start, context.prefix_start - LOCALS_READ):context.prefix_start]
        if self._bound is None or self._bound[:2] != (language, read):
            self._bound = (language, read, names_bound(language, context.data, function.start, context.prefix_start))
        return set(function.parameters), self._bound[2]

    def _continuations(self, context: CompletionContext) -> Continuations:
        language, window = context.language.name, ngram.window(context)
        if self._cache is None or self._cache[:2] != (language, window):
            tokenizer = self._tokenizers.get(language)
            if tokenizer is None:
                tokenizer = self._tokenizers[language] = ngram.Tokenizer(context.language.identifier_chars)
            self._cache = (language, window, Continuations(tokenizer.tokens(window)))
        return self._cache[2]

    def _templates(self, context: CompletionContext, answer) -> list[tuple[snippets.Template, float]]:
        """Structure templates matching the prefix, with the model's probability of their node
        type where the statement (or expression) at the cursor starts."""
        prefix = context.prefix.lower()
        statement = statement_at(context)
        if statement is not None and statement.end_byte > context.target.end_byte:
            statement = None  # the statement goes on after the cursor (``| = sum(items)``): it is written already
        ancestors = set()
        node = context.target
        while node is not None:
            ancestors.add(node.type)
            node = node.parent
        previous = statement.prev_named_sibling if statement is not None else None
        out: list[tuple[snippets.Template, float]] = []
        seen: set[str] = set()
        for template in snippets.TEMPLATES.get(context.language.name, ()):
            if not template.label.lower().startswith(prefix) or template.label in seen and not template.inside:
                continue
            if template.inside and template.inside not in ancestors:
                continue
            if template.after:
                if previous is None or previous.type != template.after or previous.child_by_field_name("alternative"):
                    continue
                p = AFTER_IF
            elif template.where == "statement":
                if statement is None:
                    continue
                p = answer.statement.get(template.node, 0.0)
            else:
                p = answer.expression.get(template.node, 0.0)
            if p >= SNIPPET_MIN and template.label not in seen:
                seen.add(template.label)
                out.append((template, p))
        return out

    def _with_chains(self, scored: list[Candidate], chains, prefix: str, cache: Continuations, rank_by: Ranker,
                     block: int) -> list[Candidate]:
        """Multi-token items, each right after the item of the identifier it starts with."""
        if not chains:
            return scored
        best = chains[0].probability
        kept = [c for c in chains if c.probability >= 0.2 * best and c.text.lower().startswith(prefix)][:CHAIN_ITEMS]
        after: dict[str, list] = {}
        for chain in kept:
            after.setdefault(chain.first, []).append(chain)
        out, placed = _after_first(scored, after, _chain_candidate)
        # a call of a name the list ranks low is a guess; a member chain says more
        rest = [c for c in kept if c.text not in placed and "." in c.text]
        unlisted = features.NO_RULES.flags("")
        out.extend(_chain_candidate(c, rank_by.score(features.of(c.probability, False, ABSENT, None,
                                                                      cache.log_probability(c.first)) + unlisted, block))
                   for c in rest)
        return out


def _with_infills(scored: list[Candidate], infills, prefix: str) -> list[Candidate]:
    """The rests of the line the insertion decoder wrote (sources/infill.py), each next to the
    item of the token it starts with, where that item is among the first five: right after it,
    or right before it where the decoder gives the line INFILL_LEAD or more (the whole line is
    then most often right: benchmarks.infill). One the decoder gives less than INFILL_FLOOR is
    left out (it would push a likelier single name out of the first five)."""
    texts = {c.text for c in scored}
    after: dict[str, list] = {}
    before: dict[str, list] = {}
    for infill in infills[:INFILL_ITEMS]:
        if infill.probability >= INFILL_FLOOR and infill.text.lower().startswith(prefix) and infill.text not in texts:
            (before if infill.probability >= INFILL_LEAD else after).setdefault(infill.first, []).append(infill)
    return _after_first(scored, after, _line_candidate, before)[0] if after or before else scored


def _after_first(scored: list[Candidate], after: dict[str, list], candidate_of,
                 before: dict[str, list] | None = None) -> tuple[list[Candidate], set[str]]:
    """``scored`` with each multi-token item of ``after[text]`` right after the item of that
    text, and each of ``before[text]`` right before it, where it is among the first five (as
    ``candidate_of(item, that item's score)``), and the texts placed so."""
    before = before or {}
    out: list[Candidate] = []
    placed = set()
    for position, candidate in enumerate(scored):
        near = position < 5
        for item in before.get(candidate.text, ()) if near else ():
            out.append(candidate_of(item, candidate.score))
            placed.add(item.text)
        out.append(candidate)
        for item in after.get(candidate.text, ()) if near else ():
            out.append(candidate_of(item, candidate.score))
            placed.add(item.text)
    return out, placed


def _chain_candidate(chain, score: float, said: str = "multi-token", what: str = "continuation") -> Candidate:
    kind = Kind.FUNCTION if chain.text.endswith("(") else Kind.VARIABLE
    detail = f"{said} · model {chain.probability:.1%}"
    return Candidate(chain.text, kind, score, detail, f"Predicted {what}: `{chain.text}`")


def _line_candidate(infill, score: float) -> Candidate:
    return _chain_candidate(infill, score, "rest of the line", "rest of the line")


def _source_line(context: CompletionContext, origin: int, line: int) -> str:
    """Markdown: the line a copied identifier was copied from."""
    start = context.data.rfind(b"\n", 0, origin) + 1
    end = context.data.find(b"\n", origin)
    text = context.data[start:end if end >= 0 else len(context.data)].decode("utf-8", "replace").strip()
    return f"Copied from line {line}:\n```{context.language.name}\n{text[:200]}\n```"
