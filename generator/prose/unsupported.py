"""Words held to their relations: pages, their claim references and the claims' verdicts -> unsupported-word
findings.

A word of the word table (lang/wordtable.py: faster, no gain, barely moves, ...) in a sentence that holds
exactly one claim reference, with no other figure between the two, is a claim about that claim's ratio: the
claim must assert (`asserts:`) a relation the word implies, which the gate then holds at its interval
(not-significant). A sentence is read in the page's source with code left out; it ends at . ! ? ; or :
before a space, at a blank line, and at a table cell's edge. Only a ratio claim (×) is held: a word beside
a throughput says how it compares with something the sentence names, not what the claim states.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence

from ..lang import relations, units, wordtable
from ..lang.values import format_value
from ..records import ClaimVerdict, Finding, PageRef, Policy, Source
from . import numbers, references

RULE = "unsupported-word"
_SENTENCE_END = re.compile(r"[.!?;:](?=\s|$)|\n[ \t]*\n|\|")
RATIO_UNITS = ("×", "x")


@functools.lru_cache(maxsize=1)
def _spellings() -> tuple[re.Pattern[str], dict[str, wordtable.Word]]:
    """One pattern for every spelling of every word (longest first, whole words), and spelling -> its word."""
    by_spelling = {spelling: word for word in wordtable.WORD_TABLE for spelling in word.spellings}
    ordered = sorted(by_spelling, key=len, reverse=True)
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(re.escape(s) for s in ordered)})(?![\w-])", re.IGNORECASE)
    return pattern, by_spelling


def findings(
    pages: Mapping[str, str], refs: Sequence[PageRef], judged: Mapping[str, ClaimVerdict], policy: Policy
) -> list[Finding]:
    """An unsupported-word finding for each table word that speaks of a ratio claim which asserts no relation
    the word implies."""
    by_page: dict[str, list[PageRef]] = {}
    for ref in refs:
        if ref.kind == "claim":
            by_page.setdefault(ref.where.path, []).append(ref)
    pattern, by_spelling = _spellings()
    found = []
    for path, cited in by_page.items():
        text = pages.get(path, "")
        visible = _blanked(references.mask_code(text), cited)
        starts = references.line_starts(text)
        for start, end in _sentences(visible):
            inside = [ref for ref in cited if start <= ref.start < end]
            if len(inside) != 1 or inside[0].name not in judged:
                continue
            ref, verdict = inside[0], judged[inside[0].name]
            if verdict.claim.retired or verdict.unit.text not in RATIO_UNITS:
                continue
            for match in pattern.finditer(visible, start, end):
                low, high = sorted((match.end(), ref.start))
                if numbers.figures(visible[low:high], policy.units):
                    continue  # another figure stands between them: the word is about that one
                word = by_spelling[match.group(0).lower()]
                problem = _unsupported(word, match.group(0), verdict, policy.units)
                if problem:
                    where = Source(path, *references.locate(starts, match.start()))
                    found.append(Finding(where, ref.name, RULE, *problem, severity=policy.severity(RULE)))
    return found


def _blanked(text: str, cited: Sequence[PageRef]) -> str:
    """The text with each reference's own characters blanked (no prose; offsets kept)."""
    pieces, last = [], 0
    for ref in sorted(cited, key=lambda ref: ref.start):
        if ref.start >= last:
            pieces += [text[last : ref.start], " " * (ref.end - ref.start)]
            last = ref.end
    return "".join([*pieces, text[last:]])


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, last = [], 0
    for boundary in _SENTENCE_END.finditer(text):
        spans.append((last, boundary.start()))
        last = boundary.end()
    spans.append((last, len(text)))
    return spans


def _unsupported(
    word: wordtable.Word, written: str, verdict: ClaimVerdict, table: units.UnitTable
) -> tuple[str, str] | None:
    """(problem, fix) when the claim asserts no relation the word implies; None when it does."""
    claim = verdict.claim
    implied = [relations.parse(text, table, "asserts") for text in word.implies]
    if claim.asserts:
        try:
            stated = relations.parse(claim.asserts, table, "asserts")
        except relations.RelationError:
            stated = None  # validate reported it
        if stated is not None and stated.unit is None and any(_inside(stated, one) for one in implied):
            return None
    shown = format_value(claim.value if claim.value is not None else (verdict.value or math.nan), verdict.unit)
    head = f"{written!r} says {claim.id} ({shown}) is {' or '.join(one.describe() for one in implied)}"
    ends = _ends(verdict)
    asserts = f'`asserts: "{word.implies[0]}"`'
    if ends is None and claim.kind == "borrowed":
        return (
            f"{head}, but it is borrowed: nothing here measures it, so nothing can hold the word true",
            f"reword the sentence without {written!r}, or cite a claim measured here that asserts it",
        )
    if ends is None:
        return (
            f"{head}, but it asserts no such relation and has no interval to show it",
            f"add {asserts} to {claim.id} and measure it with raw rounds, or reword the sentence without {written!r}",
        )
    held = [one for one in implied if all(one.holds(end) for end in ends)]
    on = "its value" if len(set(ends)) == 1 else f"its interval ({_number(ends[0])}–{_number(ends[1])})"
    if held:
        return (
            f"{head}, and {on} holds {held[0].describe()}, but {claim.id} does not assert it",
            f'add `asserts: "{held[0].text}"` to {claim.id}, so the gate keeps the word true',
        )
    return (
        f"{head}, but {on} is not: the word is wrong",
        f"reword the sentence: {on} does not support {written!r}",
    )


def _ends(verdict: ClaimVerdict) -> tuple[float, float] | None:
    if verdict.interval is not None:
        return verdict.interval.low, verdict.interval.high
    if verdict.exact and verdict.value is not None:
        return verdict.value, verdict.value
    return None


def _range(relation: relations.Relation) -> tuple[float, bool, float, bool]:
    """(low, low included, high, high included) of the values a relation that bounds a value alone admits."""
    if relation.op == "between":
        return relation.bound, True, relation.upper, True
    if relation.op in (">", ">="):
        return relation.bound, relation.op == ">=", math.inf, False
    if relation.op in ("<", "<="):
        return -math.inf, False, relation.bound, relation.op == "<="
    return -math.inf, False, math.inf, False  # a relation against another claim bounds nothing here


def _inside(stated: relations.Relation, implied: relations.Relation) -> bool:
    """Whether every value `stated` admits is one `implied` admits."""
    low, low_in, high, high_in = _range(stated)
    bottom, bottom_in, top, top_in = _range(implied)
    above = low > bottom or (low == bottom and (bottom_in or not low_in))
    below = high < top or (high == top and (top_in or not high_in))
    return above and below


def _number(value: float) -> str:
    return f"{value:.3g}"
