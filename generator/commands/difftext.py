"""Diff output: a Diff and its two Revisions -> Markdown for a pull-request comment, or JSON. Pure."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

from .compare import COLUMNS, DETAILS, FLAGS, ClaimChange, Diff
from .diffseries import new_points
from .revisions import Revision

CODE_TITLE = "Code that installs or runs"


@dataclass(frozen=True, slots=True)
class Section:
    """One part of the Markdown diff: its heading (and table header), its rows, what follows them."""

    head: tuple[str, ...]
    rows: tuple[str, ...]
    tail: tuple[str, ...] = ("",)

    def lines(self, keep: int | None = None, more: str = "") -> list[str]:
        shown = self.rows if keep is None else self.rows[:keep]
        cut = len(self.rows) - len(shown)
        note = ["", f"*…and {cut:,} more {more}*"] if cut else []
        return [*self.head, *shown, *note, *self.tail]


def as_markdown(diff: Diff, base: Revision, head: Revision, max_bytes: int | None = None, whole: str = "") -> str:
    """The diff for a pull-request comment or a job summary: flags first, then the tables.

    max_bytes: the most it may take (GitHub drops a job summary over 1 MiB and refuses a comment over
    65,536 characters): the counts stay whole and each section keeps its first rows, saying how many
    more there are and where the whole diff is (`whole`)."""
    top = [f"## Ledger diff: {_text(base.label)} → {_text(head.label)}", "", _counts(diff), ""]
    sections = _sections(diff, base, head)
    bottom = [f"Gate at base: {_text(diff.base_summary)}  ", f"Gate at head: {_text(diff.head_summary)}"]
    text = "\n".join([*top, *(line for section in sections for line in section.lines()), *bottom])
    if max_bytes is None or len(text.encode()) <= max_bytes:
        return text
    more = (
        f"(cut to keep this under {max_bytes:,} bytes; the whole diff: {whole or '`ledger diff` without --max-bytes'})"
    )

    def cut(keep: int) -> str:
        body = (line for section in sections for line in section.lines(keep, more))
        return "\n".join([*top, *body, *bottom])

    low, high = 0, max((len(section.rows) for section in sections), default=0)
    while low < high:  # the most rows per section that still fit
        middle = (low + high + 1) // 2
        low, high = (middle, high) if len(cut(middle).encode()) <= max_bytes else (low, middle - 1)
    return cut(low)


def _sections(diff: Diff, base: Revision, head: Revision) -> list[Section]:
    flag_rows = lambda flags: tuple(f"| {_code(f.claim_id)} | {_text(f.message)} |" for f in flags)  # noqa: E731
    pair = ("| claim | what |", "| --- | --- |")
    found = [
        Section(
            ("### Flagged for review", "", "| flag | claim | what |", "| --- | --- | --- |"),
            tuple(f"| {FLAGS[f.flag]} | {_code(f.claim_id)} | {_text(f.message)} |" for f in diff.flags),
        ),
        Section(
            (f"### {CODE_TITLE} (read it as code)", "", "| file or setting | why |", "| --- | --- |"),
            tuple(f"| {_code(path)} | {_text(why)} |" for path, why in diff.build_code),
        ),
        Section(("### Moved within noise (listed, not flagged)", "", *pair), flag_rows(diff.within_noise)),
        Section(
            ("### Re-measured (same probe, testbed and defining parameters; listed, not flagged)", "", *pair),
            flag_rows(diff.remeasured),
        ),
        Section(
            (
                "### Series: new points (is each a step?)",
                "",
                "| claim | run | value | new point | what |",
                "| --- | --- | --- | --- | --- |",
            ),
            tuple(
                f"| {_code(p.claim_id)} | {_code(p.run.rsplit('/', 1)[-1])} | {_text(p.value)} | "
                f"{'**step**' if p.verdict == 'step' else p.verdict}{' (moved since cited)' if p.moved else ''} | "
                f"{_text(p.what)} |"
                for p in new_points(base.report, head.report)
            ),
        ),
        Section(
            ("### Policy (the gate's settings)", ""),
            tuple(f"- {name}: {_text(old)} → **{_text(new)}**" for name, old, new in diff.policy),
        ),
    ]
    for title, changes in (("Changed", diff.edited), ("Added", diff.only("added")), ("Removed", diff.only("removed"))):
        header = ("| claim | " + " | ".join(COLUMNS) + " |", "| --- " * (len(COLUMNS) + 1) + "|")
        found.append(Section((f"### {title}", "", *header), tuple(_table_row(change) for change in changes)))
        details = [c for c in changes if c.change in ("changed", "renamed") and _details(c)]
        if details:
            rows = tuple(f"- {_code(c.claim_id)} also changed: " + ", ".join(_details(c)) for c in details)
            found.append(Section((), rows))
    found.append(
        Section(("### Renamed", ""), tuple(f"- {_code(c.old_id)} → {_code(c.claim_id)}" for c in diff.only("renamed")))
    )
    runs = [
        f"- added {_code(path)} ({_text(head.report.runs[path].testbed or 'no testbed')})" for path in diff.runs_added
    ]
    runs += [
        f"- removed {_code(path)} ({_text(base.report.runs[path].testbed or 'no testbed')})"
        for path in diff.runs_removed
    ]
    found.append(Section(("### Runs", ""), tuple(runs)))
    return [section for section in found if section.rows]


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
                {"flag": f.flag, "title": FLAGS[f.flag], "claim": f.claim_id, "message": f.message} for f in diff.flags
            ],
            "within_noise": [{"claim": f.claim_id, "message": f.message} for f in diff.within_noise],
            "remeasured": [{"claim": f.claim_id, "message": f.message} for f in diff.remeasured],
            "series": [asdict(point) for point in new_points(base.report, head.report)],
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
        },
        indent=2,
        ensure_ascii=False,
    )


def _counts(diff: Diff) -> str:
    parts = [f"{len(diff.flags)} flagged"] if diff.flags else []
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
    return "**" + " · ".join(parts) + "**" if parts else "No claim or run changed."


def _table_row(change: ClaimChange) -> str:
    if change.change in ("changed", "renamed"):
        name = _code(change.claim_id) + (f" (was {_code(change.old_id)})" if change.change == "renamed" else "")
        cells = [
            _text(change.new[c])
            if change.old[c] == change.new[c]
            else f"{_text(change.old[c])} → **{_text(change.new[c])}**"
            for c in COLUMNS
        ]
    else:
        fields = change.new or change.old
        name, cells = _code(change.claim_id), [_text(fields[c]) for c in COLUMNS]
    return f"| {name} | " + " | ".join(cells) + " |"


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
