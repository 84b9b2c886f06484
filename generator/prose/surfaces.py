"""Surfaces: Markdown and text files outside the site (README.md, llms.txt) -> their figures and markers checked.

The number that drifts furthest is the one typed where no build looks. The policy lists such files
(`surfaces: [README.md]`); each is read with the prose rules, as its reader reads it: a Markdown file
as a page is (scan.page_figures: the same reading, rendered as Markdown), a text file (`.txt`) as the
text it is (every character shown), so a figure typed into it is `unbound-number`. A claim's value
can stand in one between markers, which GitHub and other Markdown readers do not show:

    SHA-256 hashes 1 MiB at <!-- ledger: sha256-1mib-throughput -->0.495 GB/s<!-- /ledger -->.

The text between the markers must be the claim's value, as it states it (wording.stated) or as the site
displays it (wording.displayed: the digits its interval supports), and the claim must hold: a marker
whose text is neither, or whose claim fails the gate, is a lead or retired, is `surface-drifted` at its
line, as is a digit, sign or number written against a marker (a reader sees it join the value: the
markers do not show). `ledger refresh --write` rewrites the text between markers to the displayed form
(rewrite()), nothing else in the file. Markers in code (fenced blocks, code spans) are examples, not
markers. Pure: the gate reads the files and passes their text in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..lang import units
from ..records import ClaimVerdict, Finding, PageRef, Policy, Source
from ..runs import KEBAB
from ..wording import displayed, stated
from . import numbers, references, rendered
from . import scan as prose

RULE = "surface-drifted"
OPEN = "<!-- ledger: {id} -->"
CLOSE = "<!-- /ledger -->"
_OPEN = re.compile(rf"<!--[ \t]*ledger:[ \t]*({KEBAB})[ \t]*-->")
_CLOSE = re.compile(r"<!--[ \t]*/ledger[ \t]*-->")
_LOOKS_LIKE = re.compile(r"<!--\s*/?\s*ledger\b", re.I)  # anything that starts like a marker
SURFACE_FIX = (
    f"put the claim's value between markers, {OPEN.format(id='some-id')}…{CLOSE} "
    f"(`ledger refresh --write` fills it in), or mark a label: {prose.MARK_LABEL}"
)


@dataclass(frozen=True, slots=True)
class Marker:
    """A claim's value standing in a surface: `<!-- ledger: ID -->TEXT<!-- /ledger -->` on one line."""

    where: Source  # the first character of TEXT (of the opening marker when malformed)
    claim_id: str  # "" when the marker is malformed
    text: str  # what stands between the markers now; for a malformed marker, why it is malformed
    start: int  # offsets in the file's text: the whole marker pair, and TEXT inside it
    end: int
    text_start: int = 0
    text_end: int = 0


def is_text(path: str) -> bool:
    """Whether a surface is a text file (`.txt`), read as its reader reads it: every character as written
    (no Markdown: a code span, a comment, an escape show as they are typed)."""
    return path.lower().endswith(".txt")


def markers(text: str, path: str) -> list[Marker]:
    """Every marker pair in a surface's text, in order; a marker outside code (in a Markdown surface) that
    does not pair up is returned malformed (claim_id ''), so nothing that reads as one is skipped silently."""
    visible = text if is_text(path) else references.mask_code(text)
    starts = references.line_starts(text)
    found: list[Marker] = []
    position = 0
    while (candidate := _LOOKS_LIKE.search(visible, position)) is not None:
        at = candidate.start()
        where = Source(path, *references.locate(starts, at))
        line_end = visible.find("\n", at)
        line_end = len(visible) if line_end < 0 else line_end
        opened = _OPEN.match(visible, at)
        if opened is None:
            closing = _CLOSE.match(visible, at)
            comment_end = visible.find("-->", at, line_end)
            end = closing.end() if closing else comment_end + 3 if comment_end >= 0 else line_end
            why = "a closing marker with no opening one before it" if closing else "not a marker this reads"
            found.append(Marker(where, "", f"{visible[at:end][:80]!r}: {why}", at, end))
            position = max(end, at + 1)
            continue
        closing = _CLOSE.search(visible, opened.end(), line_end)
        again = _LOOKS_LIKE.search(visible, opened.end(), closing.start() if closing else line_end)
        if closing is None or again is not None:
            why = "another marker comes before its closing one" if again else f"no closing {CLOSE} on its line"
            found.append(Marker(where, "", f"{opened.group(0)!r}: {why}", at, opened.end()))
            position = opened.end()
            continue
        inner = Source(path, *references.locate(starts, opened.end()))
        value = text[opened.end() : closing.start()]
        found.append(Marker(inner, opened.group(1), value, at, closing.end(), opened.end(), closing.start()))
        position = closing.end()
    return found


def findings(
    texts: Mapping[str, str],
    claims: Mapping[str, ClaimVerdict],
    failing: Mapping[str, str],
    policy: Policy,
    root: Path,
) -> list[Finding]:
    """Every surface's markers held to their claims, and its prose read for typed figures.

    failing: claim id -> why the gate does not hold it (a claim that is stale or fails)."""
    names, configs = rendered.extension_list(policy.markdown_extensions, root)
    table = policy.units  # the project's own units are figures here too
    found: list[Finding] = []
    for path, text in texts.items():
        marks = markers(text, path)
        found += [f for mark in marks if (f := _marker_finding(mark, claims, failing, policy))]
        found += [f for mark in marks if mark.claim_id and (f := _glued(text, mark, policy))]
        spans = [PageRef(m.where, "claim", m.claim_id, m.start, m.end) for m in marks if m.claim_id]
        if is_text(path):
            figures, problem = text_figures(text, path, spans, table), None
        else:
            figures, problem = prose.page_figures(text, path, spans, names, configs, root, table)
        found += [problem] if problem else []
        found += prose.unbound(figures, policy, "file", SURFACE_FIX)
        found += _references(text, path, policy)
    return found


def text_figures(text: str, path: str, spans: list[PageRef], table: units.UnitTable) -> list[prose.TypedFigure]:
    """Every figure a reader of a text file sees, at its line and column, but the claims' values standing
    between markers (spans: each marker pair)."""
    for span in spans:
        text = text[: span.start] + " " * (span.end - span.start) + text[span.end :]  # (offsets kept)
    starts = references.line_starts(text)
    return [
        prose.TypedFigure(Source(path, *references.locate(starts, figure.start)), figure.text, figure.seen)
        for figure in numbers.figures(text, table)
    ]


def _marker_finding(
    mark: Marker, claims: Mapping[str, ClaimVerdict], failing: Mapping[str, str], policy: Policy
) -> Finding | None:
    if not mark.claim_id:
        fix = f"write {OPEN.format(id='some-id')}VALUE{CLOSE} on one line"
        severity = policy.severity("unknown-reference")
        return Finding(mark.where, "", "unknown-reference", f"malformed marker {mark.text}", fix, severity=severity)
    verdict = claims.get(mark.claim_id)
    if verdict is None:
        problem = f"marker names unknown claim {mark.claim_id!r}"
        severity = policy.severity("unknown-reference")
        return Finding(mark.where, "", "unknown-reference", problem, "fix the id", severity=severity)
    problem, fix = _problem(mark, verdict, failing)
    if not problem:
        return None
    return Finding(mark.where, "", RULE, problem, fix, severity=policy.severity(RULE))  # the claim is not at fault


def _problem(mark: Marker, verdict: ClaimVerdict, failing: Mapping[str, str]) -> tuple[str, str]:
    """Why the text between the markers is not the claim's value as the gate keeps it true, and the
    fix; ('', '') when it is."""
    claim = verdict.claim
    shown = f"{mark.text!r} stands for {claim.id}"
    elsewhere = "take it out of this file, or name a claim the gate holds"
    if claim.retired:
        return f"{shown}, which is {claim.status}: a surface shows no badge, so it would read as fact", elsewhere
    if claim.status == "lead":
        return f"{shown}, which is a lead: a surface shows no badge, so it would read as fact", elsewhere
    if claim.value is None:
        return f"{shown}, which states no value yet", "state its value first, then `ledger refresh --write`"
    if claim.id in failing:
        return (
            f"{shown}, which the gate does not hold ({failing[claim.id]})",
            f"fix {claim.id} first (`ledger check` lists why)",
        )
    if mark.text not in (stated(verdict), displayed(verdict)):
        said = stated(verdict)
        shows = f" (the site shows {displayed(verdict)!r})" if displayed(verdict) != said else ""
        return (
            f"{shown}, which states {said!r}{shows}",
            "`ledger refresh --write` rewrites the text between the markers",
        )
    return "", ""


SIGNS = "+-−±"  # what reads as a number's sign
EMPHASIS = "*_~"  # Markdown's emphasis marks: a reader does not see them between a figure and a marker
NUMBERISH = frozenset("0123456789.," + SIGNS)  # what a figure written against a marker is read as, to its end


def _glued(text: str, mark: Marker, policy: Policy) -> Finding | None:
    """A digit, sign or number written against the marker pair on either side (emphasis between them
    aside): the markers do not show, so a reader reads it as part of the claim's value."""
    before, after = mark.start, mark.end
    while before > 0 and text[before - 1] in EMPHASIS:
        before -= 1
    while after < len(text) and text[after] in EMPHASIS:
        after += 1
    left, right = text[max(0, before - 2) : before], text[after : after + 2]
    if _ends_a_number(left):
        at = before
        while at > 0 and text[at - 1] in NUMBERISH:
            at -= 1
        written = text[at:before]
        seen = written + mark.text
    elif _starts_a_number(right):
        end = after
        while end < len(text) and text[end] in NUMBERISH:
            end += 1
        at, written = after, text[after:end]
        seen = mark.text + written
    else:
        return None
    starts = references.line_starts(text)
    return Finding(
        Source(mark.where.path, *references.locate(starts, at)),
        "",
        RULE,
        f"{written!r} is written against the marker of {mark.claim_id}: a reader sees {seen!r}, not its value "
        "(the markers do not show)",
        "put a space or a word between the marker and the figure beside it, or take the figure out",
        severity=policy.severity(RULE),
    )


def _ends_a_number(left: str) -> bool:
    """Whether the last character is a digit or a sign, or a point or comma after a digit."""
    last = left[-1:]
    return last.isdigit() or (last != "" and last in SIGNS) or (last in (".", ",") and left[:1].isdigit())


def _starts_a_number(right: str) -> bool:
    """Whether the first character is a digit, or a sign, point or comma before one."""
    first = right[:1]
    return first.isdigit() or (first != "" and first in SIGNS + ".," and right[1:2].isdigit())


def _references(text: str, path: str, policy: Policy) -> list[Finding]:
    """A site reference in a surface is shown as written: no builder renders it there."""
    return [
        Finding(
            ref.where,
            "",
            "unknown-reference",
            f"{{{{ {ref.kind}(...) }}}} in a surface is shown as written: no site build renders it here",
            f"write the claim's value between markers, {OPEN.format(id='some-id')}…{CLOSE}",
            severity=policy.severity("unknown-reference"),
        )
        for ref in references.find(text, path)
        if ref.kind != "malformed"
    ]


@dataclass(frozen=True, slots=True)
class Rewrite:
    where: Source
    claim_id: str
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.where}: {self.claim_id}: {self.old!r} -> {self.new!r}"


def rewrite(text: str, path: str, claims: Mapping[str, ClaimVerdict]) -> tuple[str, list[Rewrite]]:
    """The surface's text with every marker's text set to its claim's value as the site displays it (only
    those whose claim exists, is asserted and states one), and what changed; every other byte is kept."""
    changes: list[Rewrite] = []
    pieces: list[str] = []
    last = 0
    for mark in markers(text, path):
        verdict = claims.get(mark.claim_id) if mark.claim_id else None
        claim = verdict.claim if verdict is not None else None
        if verdict is None or claim is None or claim.retired or claim.status == "lead" or claim.value is None:
            continue
        new = displayed(verdict)
        if new == mark.text:
            continue
        changes.append(Rewrite(mark.where, claim.id, mark.text, new))
        pieces += [text[last : mark.text_start], new]
        last = mark.text_end
    return "".join([*pieces, text[last:]]), changes
