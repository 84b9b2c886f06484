"""`ledger history ID [--format text|json|csv]`: a claim's series (each run's value with its interval,
the commit that added the run), its segments and steps, and its stated value at each commit that
changed it; `ledger history --changed`: the claims whose series has a step.

The series is the gate's (Report.series, decided once in series/stage.py); the commits come from git:
the run's, from the gate's run history (history.read, the commit that first added its manifest),
and the stated values from review/claimlog.py, read only here, never by the gate.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import io
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

from ..gate import check
from ..inputs import gitlog
from ..lang.moves import Judged
from ..lang.units import Unit
from ..lang.values import format_value, range_text
from ..points import Series
from ..records import ClaimVerdict, LedgerError, Report, Run
from ..review import claimlog
from ..series.words import METHODS, notes
from ..text import judged_json
from ..trust import verdicts
from ..wording import judged_text


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "id", metavar="ID", nargs="?", help="a measured claim (its evidence selects a value in each run)"
    )
    parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    parser.add_argument("--changed", action="store_true", help="list the claims whose series has a step instead")


def run_from_args(args: argparse.Namespace) -> int:
    if bool(args.id) == bool(args.changed):
        raise LedgerError("history: name one claim (`ledger history ID`) or pass --changed")
    report = check(args.project.root, args.project.policy, datetime.now(timezone.utc))
    if args.changed:
        print(changed(report, args.format))
        return 0
    verdict = report.verdict(args.id)
    if verdict is None:
        close = difflib.get_close_matches(args.id, list(report.by_id), n=1)
        raise LedgerError(f"history: no claim {args.id!r}" + (f"; did you mean {close[0]}?" if close else ""))
    claim, line = verdict.claim, verdict.series
    if line is None:
        raise LedgerError(f"history: {claim.id} has no series: {_why_none(verdict)}")
    root = args.root.resolve()
    runs = gitlog.read(root, report.policy.measurements_dir)
    shown_runs = [point.run for point in line.points] + ([claim.evidence.run] if claim.evidence else [])
    added = {run: _added(runs.first_added.get(f"{run}/manifest.json")) for run in shown_runs}
    if runs.status != gitlog.CHECKED:
        added = {run: runs.status for run in added}
    cited = outside(verdict, line, report)
    if args.format == "csv":  # the points alone: the stated values by commit are the text's and the JSON's
        print(as_csv(verdict, line, added, cited, report.runs))
        return 0
    log = claimlog.read(root, report.policy.claims_dir, claim.id, report.policy.max_claim_file_bytes)
    shown = as_json if args.format == "json" else as_text
    print(shown(verdict, line, added, log, cited, report.runs))
    return 0


@dataclass(frozen=True, slots=True)
class Outside:
    """The run a claim cites when it is no point of its series (rewritten, tampered): shown, never dropped."""

    run: str
    started: datetime | None
    why: str  # "rewritten: results.csv differs from commit 1a2b3c (measure)"


def outside(verdict: ClaimVerdict, line: Series, report: Report) -> Outside | None:
    evidence = verdict.claim.evidence
    if line.cited >= 0 or evidence is None:
        return None
    state, run = report.run_state(evidence.run), report.runs.get(evidence.run)
    why = state.label + (f": {'; '.join(state.reasons)}" if state.reasons else "")
    return Outside(evidence.run, run.started if run else None, f"the cited run, no point of the series: {why}")


def _why_none(verdict: ClaimVerdict) -> str:
    claim = verdict.claim
    if claim.kind != "measured":
        return f"it is {claim.kind}; only a measured claim's evidence selects a value in each run"
    failing = ", ".join(verdict.fresh.failing)
    return f"its evidence computes no value ({failing or 'see `ledger check`'})"


def _commit(text: str) -> str:
    """'commit 1a2b3c4d5e6f (subject)' -> '1a2b3c4d5e6f (subject)'."""
    return text.removeprefix("commit ")


def _interval(low: float | None, high: float | None, unit: Unit) -> str:
    return range_text(low, high, unit) if low is not None and high is not None else "none"


def as_text(
    verdict: ClaimVerdict,
    line: Series,
    added: dict[str, str],
    log: claimlog.ClaimLog,
    cited: Outside | None = None,
    runs: Mapping[str, Run] | None = None,
) -> str:
    claim, unit = verdict.claim, verdict.unit
    measured = {path: verdicts.revision_text(run) for path, run in (runs or {}).items()}
    segments = len({point.segment for point in line.points})
    out = [f"{claim.id}: {claim.statement}" if claim.statement else claim.id]
    out.append(
        f"{len(line.points)} run{'s' if len(line.points) != 1 else ''} in {segments} segment"
        f"{'s' if segments != 1 else ''}; steps in the cited run's segment by {METHODS[line.method]}"
    )
    out += [
        "",
        "| # | run | value | interval | measured at | added by | notes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    found = notes(line, unit)
    rows = [
        (
            point.started,
            f"| {index + 1} | {point.run.rsplit('/', 1)[-1]} | {format_value(point.value, unit)} | "
            f"{_interval(point.low, point.high, unit)} ({point.basis or 'no interval'}) | "
            f"{measured.get(point.run, 'not recorded')} | {_commit(added.get(point.run, ''))} | "
            f"{'; '.join(found.get(index, []))} |",
        )
        for index, point in enumerate(line.points)
    ]
    if cited is not None:
        row = (
            f"| cited | {cited.run.rsplit('/', 1)[-1]} | — | — | {measured.get(cited.run, 'not recorded')} | "
            f"{_commit(added.get(cited.run, ''))} | {cited.why} |"
        )
        rows.append((cited.started or datetime.max.replace(tzinfo=timezone.utc), row))
    out += [row for _, row in sorted(rows, key=lambda item: item[0])]
    moved = line.moved
    out.append("")
    if moved is not None:
        out.append(
            f"moved since cited: {format_value(moved.before, unit)} → {format_value(moved.after, unit)}"
            f" from run {line.points[moved.index].run.rsplit('/', 1)[-1]} on"
        )
    else:
        out.append("moved since cited: no")
    if line.judged is not None:  # the newest run against the cited set or run, as refresh and diff judge it
        out.append(f"run {line.points[line.judged_at].run.rsplit('/', 1)[-1]} judged: {judged_text(line.judged)}")
    out += ["", f"stated value by commit ({log.status}):"]
    out += [
        f"- {s.commit[:12]} {s.date[:10]} {s.value or '(no value)'}  run {s.run or '—'}  ({s.subject})"
        for s in log.stated
    ]
    return "\n".join(out)


def _data(
    verdict: ClaimVerdict,
    line: Series,
    added: dict[str, str],
    log: claimlog.ClaimLog,
    cited: Outside | None,
    runs: Mapping[str, Run] | None = None,
) -> dict:
    claim, moved = verdict.claim, line.moved
    return {
        "cited_run": {"run": cited.run, "in_series": False, "why": cited.why} if cited else None,
        "claim": claim.id,
        "unit": claim.unit,
        "method": line.method,
        "cited": line.cited if line.cited >= 0 else None,
        "kept": line.kept if line.kept >= 0 else None,
        "points": [
            {
                "index": index,
                "run": point.run,
                "started": point.started.isoformat(),
                "value": point.value,
                "low": point.low,
                "high": point.high,
                "basis": point.basis,
                "segment": point.segment,
                "added_by": _commit(added.get(point.run, "")),
                **_revision((runs or {}).get(point.run)),
            }
            for index, point in enumerate(line.points)
        ],
        "boundaries": [{"index": b.index, "reason": b.reason, "changes": list(b.changes)} for b in line.boundaries],
        "steps": [asdict(s) for s in line.steps],
        "moved": asdict(moved) if moved is not None else None,
        "judged": {"run": line.points[line.judged_at].run, **judged_json(line.judged)} if line.judged else None,
        "stated": {"status": log.status, "commits": [asdict(s) for s in log.stated]},
    }


def _revision(run: Run | None) -> dict[str, object]:
    """The commit a point's run was measured at and whether the tree was clean (null: not recorded)."""
    return {"commit": run.commit or None if run else None, "clean": run.clean if run else None}


def as_json(
    verdict: ClaimVerdict,
    line: Series,
    added: dict[str, str],
    log: claimlog.ClaimLog,
    cited: Outside | None = None,
    runs: Mapping[str, Run] | None = None,
) -> str:
    return json.dumps(_data(verdict, line, added, log, cited, runs), indent=2, ensure_ascii=False)


def as_csv(
    verdict: ClaimVerdict,
    line: Series,
    added: dict[str, str],
    cited: Outside | None = None,
    runs: Mapping[str, Run] | None = None,
) -> str:
    """The points, one row each (the stated values by commit are in the text and JSON forms)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["index", "run", "started", "value", "low", "high", "basis", "segment", "notes", "added_by", "commit", "clean"]
    )
    found = notes(line, verdict.unit)
    for index, point in enumerate(line.points):
        writer.writerow(
            [
                index,
                point.run,
                point.started.isoformat(),
                repr(point.value),
                _cell(point.low),
                _cell(point.high),
                point.basis,
                point.segment,
                "; ".join(found.get(index, [])),
                _commit(added.get(point.run, "")),
                *_revision_cells((runs or {}).get(point.run)),
            ]
        )
    if cited is not None:
        started = cited.started.isoformat() if cited.started else ""
        writer.writerow(
            [
                *["", cited.run, started, "", "", "", "", "", cited.why, _commit(added.get(cited.run, ""))],
                *_revision_cells((runs or {}).get(cited.run)),
            ]
        )
    return out.getvalue().rstrip("\n")


def _revision_cells(run: Run | None) -> list[str]:
    if run is None or not run.commit:
        return ["", ""]
    return [run.commit, "" if run.clean is None else str(run.clean).lower()]


def _cell(value: float | None) -> str:
    return "" if value is None else repr(value)


def changed(report: Report, form: str) -> str:
    """The claims whose series has a step (in any segment), with whether it moved since the cited run; where the
    last step is the newest run judged against the cited set or run, its change and interval, as refresh and diff
    give them (lang/moves.py)."""
    series = {v.id: v.series for v in report.verdicts.values() if v.series is not None}
    found = [(claim_id, line) for claim_id, line in sorted(series.items()) if line.steps]
    if form == "json":
        return json.dumps(
            [
                {
                    "claim": c,
                    "steps": [asdict(s) for s in line.steps],
                    "moved_since_cited": line.moved is not None,
                    **judged_json(_last_judged(line)),
                }
                for c, line in found
            ],
            indent=2,
        )
    if form == "csv":
        rows = ["claim,steps,moved_since_cited"] + [
            f"{c},{len(line.steps)},{line.moved is not None}" for c, line in found
        ]
        return "\n".join(rows)
    if not found:
        return f"no claim's series has a step ({len(series)} series)"
    lines = []
    for claim_id, line in found:
        unit = report.verdicts[claim_id].unit
        last = line.steps[-1]
        judged = _last_judged(line)
        lines.append(
            f"{claim_id}: {len(line.steps)} step{'s' if len(line.steps) != 1 else ''}; the last "
            f"{format_value(last.before, unit)} → {format_value(last.after, unit)} at run "
            f"{line.points[last.index].run.rsplit('/', 1)[-1]}"
            + (f" ({judged_text(judged)})" if judged is not None else "")
            + ("; moved since cited" if line.moved is not None else "")
        )
    lines.append(f"{len(found)} of {len(series)} series have a step")
    return "\n".join(lines)


def _last_judged(line: Series) -> Judged | None:
    """The judgement of the series' last step, when that step is the newest run judged against the cited set or run."""
    return line.judged if line.steps and line.steps[-1].index == line.judged_at else None


def _added(first: tuple[str, str, str] | None) -> str:
    """'commit 1a2b3c4d5e6f (measure toy)': the commit that first added a run's manifest."""
    return verdicts.commit_text(first[1:]) if first else "not committed"
