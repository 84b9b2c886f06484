"""Diff output: a Diff and its two Revisions -> Markdown for a pull-request comment, or JSON. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import overload

from ..text import judged_json
from ..wording import cause_text, change_text, percent_text
from .compare import COLUMNS, DETAILS, FLAGS, RUN_FLAGS, ClaimChange, Diff, Flag
from .revisions import Revision

CODE_TITLE = "Code that installs or runs"


class Rows(Sequence[str]):
    """A section's rows, each made when it is first read: a cut diff of 100,000 claims makes the few hundred
    it shows, and counts the rest."""

    def __init__(self, count: int, make: Callable[[int], str]) -> None:
        self._count, self._make = count, make
        self._made: dict[int, str] = {}

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if not 0 <= index < self._count:
            raise IndexError(index)
        if index not in self._made:
            self._made[index] = self._make(index)
        return self._made[index]


@dataclass(frozen=True, slots=True)
class Section:
    """One part of the Markdown diff: its heading (and table header), its rows, what follows them."""

    head: tuple[str, ...]
    rows: Sequence[str]
    tail: tuple[str, ...] = ("",)

    def lines(self, keep: int | None = None, more: str = "") -> list[str]:
        shown = list(self.rows) if keep is None else self.rows[:keep]
        cut = len(self.rows) - len(shown)
        return [*self.head, *shown, *self._note(cut, more), *self.tail]

    @staticmethod
    def _note(cut: int, more: str) -> list[str]:
        return ["", f"*…and {cut:,} more {more}*"] if cut else []

    def size(self, keep: int, rows_size: int, more: str) -> int:
        """The bytes of lines(keep, more) joined by newlines, rows_size being its first `keep` rows' (each with
        its newline): what the cut adds up without joining the text."""
        fixed = [*self.head, *self._note(len(self.rows) - min(keep, len(self.rows)), more), *self.tail]
        return sum(len(line.encode()) + 1 for line in fixed) + rows_size


def as_markdown(diff: Diff, base: Revision, head: Revision, max_bytes: int | None = None, whole: str = "") -> str:
    """The diff for a pull-request comment or a job summary: flags first, then the tables.

    max_bytes: the most it may take (GitHub drops a job summary over 1 MiB and refuses a comment over
    65,536 characters): the counts stay whole and each section keeps its first rows, saying how many
    more there are and where the whole diff is (`whole`). Only the rows shown are made: its time and
    memory follow what it prints, not the claims that changed."""
    top = [f"## Ledger diff: {_text(base.label)} → {_text(head.label)}", "", _counts(diff), ""]
    sections = _sections(diff, base, head)
    bottom = [f"Gate at base: {_text(diff.base_summary)}  ", f"Gate at head: {_text(diff.head_summary)}"]
    more = f"(cut to keep this under {max_bytes or 0:,} bytes; the whole diff: {whole or '`ledger diff --full FILE`'})"
    keep = None if max_bytes is None else _kept(top, sections, bottom, max_bytes, more)
    body = (line for section in sections for line in section.lines(keep, more))
    return "\n".join([*top, *body, *bottom])


def _kept(top: list[str], sections: list[Section], bottom: list[str], max_bytes: int, more: str) -> int | None:
    """The most rows each section keeps so the diff takes at most max_bytes (None: every row fits), rows made
    one at a time, each section's in turn."""
    outside = sum(len(line.encode()) + 1 for line in (*top, *bottom)) - 1  # the last line has no newline

    def size(keep: int, rows: list[int]) -> int:
        return outside + sum(section.size(keep, made, more) for section, made in zip(sections, rows, strict=True))

    longest = max((len(section.rows) for section in sections), default=0)
    rows = [0] * len(sections)  # the bytes of each section's first `keep` rows
    keep = 0
    while keep < longest:
        grown = [
            made + len(section.rows[keep].encode()) + 1 if keep < len(section.rows) else made
            for section, made in zip(sections, rows, strict=True)
        ]
        if size(keep + 1, grown) > max_bytes:
            return keep
        keep, rows = keep + 1, grown
    return None


REVIEW_HEAD = ("| review | claim | what | fields |", "| --- | --- | --- | --- |")
INSUFFICIENT_TITLE = "Insufficient data (the evidence could not have seen a change of the tolerance)"
INSUFFICIENT_HEAD = (
    "| claim | stated | change [interval] | could see | allowed | why, and what would settle it |",
    "| --- | --- | --- | --- | --- | --- |",
)


def _insufficient_row(flag: Flag) -> str:
    """A re-measure the evidence could not judge, in the compact table: its change, what it could see, why."""
    judged = flag.judged
    if judged is None or judged.change is None:  # a dependent following an input's insufficient data
        return f"| {_code(flag.claim_id)} | {_text(flag.message)} | — | — | — | {_text('follows its inputs')} |"
    change = judged.change
    cells = (
        change_text(change),
        percent_text(change.detectable, sign=False),
        percent_text(judged.allowed, sign=False),
        cause_text(judged),
    )
    return f"| {_code(flag.claim_id)} | {_text(flag.message)} | " + " | ".join(_text(c) for c in cells) + " |"


def _sections(diff: Diff, base: Revision, head: Revision) -> list[Section]:
    """The Markdown diff's parts: one row per claim (flagged claims first, with runs rewritten), then the
    code that installs or runs, the policy and the runs."""
    flagged, others = _claim_rows(diff, base, head)
    run_rows = tuple(
        f"| {FLAGS[f.flag]} | {_code(f.claim_id)} | {_text(f.message)} |  |" for f in diff.flags if f.flag in RUN_FLAGS
    )
    first = Rows(
        len(run_rows) + len(flagged), lambda i: run_rows[i] if i < len(run_rows) else flagged[i - len(run_rows)]
    )
    found = [
        Section(("### Flagged for review", "", *REVIEW_HEAD), first),
        Section(
            (f"### {CODE_TITLE} (read it as code)", "", "| file or setting | why |", "| --- | --- |"),
            tuple(f"| {_code(path)} | {_text(why)} |" for path, why in diff.build_code),
        ),
        Section(
            (f"### {INSUFFICIENT_TITLE}", "", *INSUFFICIENT_HEAD),
            tuple(_insufficient_row(f) for f in diff.insufficient),
        ),
        Section(("### Other changes (listed, not flagged)", "", *REVIEW_HEAD), others),
        Section(
            ("### Figures on surfaces (README.md, …: the values between their markers)", ""),
            tuple(
                f"- {_code(where)} {_code(claim)}: {_text(old)} → **{_text(new)}**"
                for where, claim, old, new in diff.figures
            ),
        ),
        Section(
            ("### Policy (the gate's settings)", ""),
            tuple(f"- {name}: {_text(old)} → **{_text(new)}**" for name, old, new in diff.policy),
        ),
    ]
    runs = [
        f"- added {_code(path)} ({_text(head.report.runs[path].testbed or 'no testbed')})" for path in diff.runs_added
    ]
    runs += [
        f"- removed {_code(path)} ({_text(base.report.runs[path].testbed or 'no testbed')})"
        for path in diff.runs_removed
    ]
    found.append(Section(("### Runs", ""), tuple(runs)))
    return [section for section in found if section.rows]


def _claim_rows(diff: Diff, base: Revision, head: Revision) -> tuple[Rows, Rows]:
    """(flagged rows, the other rows): one row per claim, everything the review says of it in that row:
    its flags, a move within noise, a re-measure, its series' new point, and the fields that changed; each
    row made when it is read."""
    flags: dict[str, list] = {}
    for flag in diff.flags:
        if flag.flag not in RUN_FLAGS:
            flags.setdefault(flag.claim_id, []).append(flag)
    quiet = {flag.claim_id: flag.message for flag in diff.within_noise}
    again = {flag.claim_id: flag.message for flag in diff.remeasured}
    points = {point.claim_id: point for point in diff.points}
    changes = {
        change.claim_id: change for change in diff.changes if change.change != "changed" or change.changed_fields
    }
    ids = list(dict.fromkeys([*flags, *quiet, *again, *points, *changes]))
    order = list(FLAGS)
    flagged = sorted((i for i in ids if i in flags), key=lambda i: order.index(flags[i][0].flag))
    others = [i for i in ids if i not in flags]

    def row(claim_id: str) -> str:
        own = flags.get(claim_id, [])  # one flag: its name is in the review column already
        what = [f.message for f in own] if len(own) == 1 else [f"{FLAGS[f.flag]}: {f.message}" for f in own]
        what += [f"moved within noise: {quiet[claim_id]}"] if claim_id in quiet else []
        what += (
            [f"re-measured (same probe, testbed and defining parameters): {again[claim_id]}"]
            if claim_id in again
            else []
        )
        what = [_text(part) for part in what] + ([_point(points[claim_id])] if claim_id in points else [])
        change = changes.get(claim_id)
        review = [FLAGS[f.flag] for f in flags.get(claim_id, [])] or [
            "moved within noise" if claim_id in quiet else "re-measured" if claim_id in again else "",
            "step" if claim_id in points and points[claim_id].verdict == "step" else "",
            change.change if change and change.change != "changed" else "",
        ]
        label = ", ".join(dict.fromkeys(word for word in review if word)) or ("changed" if change else "new point")
        name = _code(claim_id) + (f" (was {_code(change.old_id)})" if change and change.change == "renamed" else "")
        return f"| {label} | {name} | {'; '.join(what)} | {_fields(change)} |"

    return Rows(len(flagged), lambda i: row(flagged[i])), Rows(len(others), lambda i: row(others[i]))


def _point(point) -> str:
    """A series' new point, escaped for Markdown (a step in bold)."""
    verdict = "**step**" if point.verdict == "step" else _text(point.verdict)
    moved = " (moved since cited)" if point.moved else ""
    where = _text(point.run.rsplit("/", 1)[-1])
    return f"new point {_text(point.value)} in {where}: {verdict}{moved}, {_text(point.what)}"


def _fields(change: ClaimChange | None) -> str:
    """What changed in a claim's shown fields (old → **new**), or an added or removed claim's fields."""
    if change is None:
        return ""
    if change.change in ("added", "removed"):
        shown = change.new or change.old
        return "; ".join(f"{name} {_text(shown[name])}" for name in COLUMNS if shown.get(name))
    cells = [
        f"{name} {_text(change.old[name])} → **{_text(change.new[name])}**"
        for name in COLUMNS
        if change.old.get(name, "") != change.new.get(name, "")
    ]
    details = _details(change)
    return "; ".join([*cells, *(["also changed: " + ", ".join(details)] if details else [])])


def _details(change: ClaimChange) -> list[str]:
    return [name for name in change.changed_fields if name in DETAILS]


def as_json(diff: Diff, base: Revision, head: Revision) -> str:
    def side(revision: Revision, summary: str) -> dict:
        return {
            "revision": revision.name or None,
            "commit": revision.commit or None,
            "label": revision.label,
            "gate": summary,
        }

    return json.dumps(
        {
            "base": side(base, diff.base_summary),
            "head": side(head, diff.head_summary),
            "flags": [
                {
                    "flag": f.flag,
                    "title": FLAGS[f.flag],
                    "claim": f.claim_id,
                    "message": f.message,
                    **judged_json(f.judged),
                }
                for f in diff.flags
            ],
            "within_noise": [
                {"claim": f.claim_id, "message": f.message, **judged_json(f.judged)} for f in diff.within_noise
            ],
            "remeasured": [
                {"claim": f.claim_id, "message": f.message, **judged_json(f.judged)} for f in diff.remeasured
            ],
            "insufficient": [
                {"claim": f.claim_id, "message": f.message, **judged_json(f.judged)} for f in diff.insufficient
            ],
            "series": [
                {**{k: v for k, v in asdict(point).items() if k != "judged"}, **judged_json(point.judged)}
                for point in diff.points
            ],
            "added": [{"claim": c.claim_id, **c.new} for c in diff.only("added")],
            "removed": [{"claim": c.claim_id, **c.old} for c in diff.only("removed")],
            "renamed": [{"from": c.old_id, "to": c.claim_id} for c in diff.only("renamed")],
            "changed": [
                {
                    "claim": c.claim_id,
                    "old_id": c.old_id,
                    "fields": {
                        name: {"old": c.old.get(name, ""), "new": c.new.get(name, "")} for name in c.changed_fields
                    },
                }
                for c in diff.edited
            ],
            "runs": {"added": list(diff.runs_added), "removed": list(diff.runs_removed)},
            "policy": {name: {"old": old, "new": new} for name, old, new in diff.policy},
            "build_code": [{"path": path, "why": why} for path, why in diff.build_code],
            "surface_figures": [
                {"where": where, "claim": claim, "old": old, "new": new} for where, claim, old, new in diff.figures
            ],
        },
        indent=2,
        ensure_ascii=False,
    )


def _counts(diff: Diff) -> str:
    flagged = len({flag.claim_id for flag in diff.flags})  # claims and runs, one row each
    parts = [f"{flagged} flagged"] if flagged else []
    parts += [
        f"{len(changes)} {word}"
        for changes, word in (
            (diff.edited, "changed"),
            (diff.only("added"), "added"),
            (diff.only("removed"), "removed"),
            (diff.only("renamed"), "renamed"),
        )
        if changes
    ]
    runs = [
        f"{len(paths)} {word}" for paths, word in ((diff.runs_added, "added"), (diff.runs_removed, "removed")) if paths
    ]
    if runs:
        parts.append("runs: " + ", ".join(runs))
    if diff.policy:
        parts.append("policy changed")
    if diff.build_code:
        parts.append(f"{len(diff.build_code)} {CODE_TITLE.lower()}")
    if diff.figures:
        parts.append(f"{len(diff.figures)} figure{'s' if len(diff.figures) != 1 else ''} on surfaces")
    return "**" + " · ".join(parts) + "**" if parts else "No claim or run changed."


_MARKDOWN = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "#": "\\#",
        "~": "\\~",
    }
)
_PLAIN = re.compile(r"[A-Za-z0-9._:/=+-]+")


def _text(value: str) -> str:
    """Claim text is data: one line, every Markdown and HTML character escaped."""
    return " ".join(value.split()).translate(_MARKDOWN)


def _code(value: str) -> str:
    return f"`{value}`" if _PLAIN.fullmatch(value) else _text(value)
