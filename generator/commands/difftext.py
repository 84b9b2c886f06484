"""Diff output: a Diff and its two Revisions -> Markdown for a pull-request comment, or JSON. Pure."""

from __future__ import annotations

import json
import re
from dataclasses import asdict

from .compare import COLUMNS, DETAILS, FLAGS, ClaimChange, Diff
from .diffseries import new_points
from .revisions import Revision


def as_markdown(diff: Diff, base: Revision, head: Revision) -> str:
    """The diff for a pull-request comment or a job summary: flags first, then the tables."""
    lines = [f"## Ledger diff: {_text(base.label)} → {_text(head.label)}", "", _counts(diff), ""]
    if diff.flags:
        lines += ["### Flagged for review", "", "| flag | claim | what |", "| --- | --- | --- |"]
        lines += [f"| {FLAGS[f.flag]} | {_code(f.claim_id)} | {_text(f.message)} |" for f in diff.flags]
        lines.append("")
    if diff.build_code:
        lines += ["### Code the build runs (read it as code)", "", "| file or setting | why |", "| --- | --- |"]
        lines += [f"| {_code(path)} | {_text(why)} |" for path, why in diff.build_code]
        lines.append("")
    if diff.within_noise:
        lines += ["### Moved within noise (listed, not flagged)", "", "| claim | what |", "| --- | --- |"]
        lines += [f"| {_code(f.claim_id)} | {_text(f.message)} |" for f in diff.within_noise]
        lines.append("")
    if diff.remeasured:
        lines += [
            "### Re-measured (same probe, testbed and defining parameters; listed, not flagged)",
            "",
            "| claim | what |",
            "| --- | --- |",
        ]
        lines += [f"| {_code(f.claim_id)} | {_text(f.message)} |" for f in diff.remeasured]
        lines.append("")
    gained = new_points(base.report, head.report)
    if gained:
        lines += ["### Series: new points (is each a step?)", "", "| claim | run | value | new point | what |"]
        lines.append("| --- | --- | --- | --- | --- |")
        lines += [
            f"| {_code(p.claim_id)} | {_code(p.run.rsplit('/', 1)[-1])} | {_text(p.value)} | "
            f"{'**step**' if p.verdict == 'step' else p.verdict}{' (moved since cited)' if p.moved else ''} | "
            f"{_text(p.what)} |"
            for p in gained
        ]
        lines.append("")
    if diff.policy:
        lines += ["### Policy (the gate's settings)", ""]
        lines += [f"- {name}: {_text(old)} → **{_text(new)}**" for name, old, new in diff.policy]
        lines.append("")
    for title, changes in (("Changed", diff.edited), ("Added", diff.only("added")), ("Removed", diff.only("removed"))):
        if not changes:
            continue
        lines += [f"### {title}", "", "| claim | " + " | ".join(COLUMNS) + " |", "| --- " * (len(COLUMNS) + 1) + "|"]
        lines += [_table_row(change) for change in changes]
        details = [
            c
            for c in changes
            if c.change in ("changed", "renamed") and [name for name in c.changed_fields if name in DETAILS]
        ]
        if details:
            lines.append("")
            lines += [
                f"- {_code(c.claim_id)} also changed: "
                + ", ".join(name for name in c.changed_fields if name in DETAILS)
                for c in details
            ]
        lines.append("")
    renamed = diff.only("renamed")
    if renamed:
        lines += ["### Renamed", ""]
        lines += [f"- {_code(c.old_id)} → {_code(c.claim_id)}" for c in renamed]
        lines.append("")
    if diff.runs_added or diff.runs_removed:
        lines += ["### Runs", ""]
        lines += [
            f"- added {_code(path)} ({_text(head.report.runs[path].testbed or 'no testbed')})"
            for path in diff.runs_added
        ]
        lines += [
            f"- removed {_code(path)} ({_text(base.report.runs[path].testbed or 'no testbed')})"
            for path in diff.runs_removed
        ]
        lines.append("")
    lines += [f"Gate at base: {_text(diff.base_summary)}  ", f"Gate at head: {_text(diff.head_summary)}"]
    return "\n".join(lines)


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
        parts.append(f"{len(diff.build_code)} code the build runs")
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
