"""Report -> text for a terminal and JSON for machines."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

from .judging import causes
from .lang.moves import Judged
from .lang.units import Unit
from .records import KINDS, STATUSES, ClaimInterval, ClaimVerdict, Finding, Prediction, Report
from .rules import PAGE_RULES, RULES
from .series import moved


def summary(report: Report) -> str:
    """One line: claims by kind and status, then failures and warnings by rule."""
    kinds = Counter(claim.kind for claim in report.claims)
    statuses = Counter(claim.status for claim in report.claims)
    by_kind = ", ".join(f"{kinds[k]} {k}" for k in KINDS if kinds[k])
    by_status = ", ".join(f"{statuses[s]} {s}" for s in STATUSES if statuses[s])
    head = f"{len(report.claims)} claim{'s' if len(report.claims) != 1 else ''}" + (
        f" ({by_kind}; {by_status})" if report.claims else ""
    )
    parts = [
        head,
        _count(report.failures, "failure"),
        _count(report.warnings, "warning"),
        _count(notes(report), "note"),
    ]
    return " — ".join(part for part in parts if part)


def notes(report: Report) -> list[Finding]:
    """What the gate notes and never counts as a finding (a rule that notes by default, rules.NOTE_BY_DEFAULT, which
    the policy leaves so): each re-measured claim whose newest run could not have shown a change of its tolerance."""
    return sorted(f for f in moved.insufficient(report.verdicts, report.policy) if f.severity == "note")


def _count(findings, noun: str) -> str:
    if not findings:
        return f"0 {noun}s" if noun == "failure" else ""
    rules = Counter(f.rule for f in findings)
    detail = ", ".join(f"{rules[r]} {r}" for r in RULES if rules[r])
    return f"{len(findings)} {noun}{'s' if len(findings) != 1 else ''}: {detail}"


def held(report: Report) -> tuple[tuple[str, int], ...]:
    """(rule, warnings) for each rule the policy's `warn:` holds as a warning, in RULES order: the
    migration mode of a site whose old pages type figures (`warn: [unbound-number]`) until it cites claims."""
    counts = Counter(f.rule for f in report.warnings)
    policy = report.policy
    return tuple((rule, counts[rule]) for rule in RULES if rule in policy.warn and rule not in policy.fail)


def idle_holds(report: Report) -> list[str]:
    """A note for each prose rule `warn:` holds that finds nothing now: the migration is done, and the
    rule should fail again so that the next typed figure does."""
    return [
        f"note: `warn:` holds {rule}, which finds nothing now: take it out of `warn:` so that the next one fails"
        for rule, count in held(report)
        if count == 0 and rule in PAGE_RULES
    ]


def following_line(count: int) -> str:
    """The line that introduces what follows from a cause."""
    return f"… and {count} finding{'s' if count != 1 else ''} that follow{'' if count != 1 else 's'} from it"


ALIKE_FROM = 3  # this many findings alike (rule, problem and fix; another place) print as one, with a count


def as_text(report: Report, full: bool = False) -> str:
    """Every finding, each root cause first (by file and line) with what follows from it after it,
    announced by one line (judging/causes.py), the policy's idle holds, then the summary line. Findings
    alike but for their place (one untracked file, one line per claim citing its run) print once with
    their count, unless full."""
    lines = []
    grouped = causes.grouped(report.findings, report.causes)
    alone = [cause for cause, following in grouped if not following]
    shown = _alike(alone, full)
    for cause, following in grouped:
        if following:
            lines.append(str(cause))
            lines.append(f"  {following_line(len(following))}:")
            lines += _with_counts(_alike(following, full))
        elif cause in shown:
            lines += _with_counts({cause: shown[cause]})
    lines += [str(note) for note in notes(report)]
    lines += idle_holds(report)
    history = f" — run history {report.history}" if report.history.startswith("not checked") else ""
    lines.append(summary(report) + history)
    return "\n".join(lines)


def _alike(findings: list[Finding], full: bool) -> dict[Finding, int]:
    """Each finding shown, in order, with how many more alike it stands for (0: itself alone)."""
    if full:
        return dict.fromkeys(findings, 0)
    groups: dict[tuple, list[Finding]] = {}
    for finding in findings:
        key = (finding.rule, finding.severity, finding.problem, finding.detail, finding.fix)
        groups.setdefault(key, []).append(finding)
    shown: dict[Finding, int] = {}
    for group in groups.values():
        if len(group) >= ALIKE_FROM:
            shown[group[0]] = len(group) - 1
        else:
            shown.update(dict.fromkeys(group, 0))
    return {finding: shown[finding] for finding in findings if finding in shown}


def _with_counts(shown: dict[Finding, int]) -> list[str]:
    lines = []
    for finding, more in shown.items():
        lines.append(str(finding))
        if more:
            lines.append(f"  … and {more} more alike at other claims or places (`ledger check --full` lists each)")
    return lines


def as_json(report: Report) -> str:
    kinds = Counter(claim.kind for claim in report.claims)
    statuses = Counter(claim.status for claim in report.claims)
    verdicts = report.verdicts.values()
    return json.dumps(
        {
            "ok": report.ok,
            "claims": {"total": len(report.claims), "by_kind": dict(kinds), "by_status": dict(statuses)},
            "findings": [
                {
                    "path": f.where.path,
                    "line": f.where.line,
                    "column": f.where.column,
                    "claim": f.claim_id,
                    "rule": f.rule,
                    "severity": f.severity,
                    "problem": f.problem,
                    "detail": f.detail,
                    "fix": f.fix,
                    "follows_from": _where(report.causes[f]) if f in report.causes else None,
                }
                for f in report.findings
            ],
            "notes": [
                {
                    "path": f.where.path,
                    "line": f.where.line,
                    "claim": f.claim_id,
                    "rule": f.rule,
                    "problem": f.problem,
                    "fix": f.fix,
                }
                for f in notes(report)
            ],
            "intervals": {v.id: _interval(v.interval) for v in verdicts if v.interval is not None},
            "no_raw_rounds": {v.id: v.no_rounds for v in verdicts if v.no_rounds},  # why it has no raw rounds
            "exact": sorted(v.id for v in verdicts if v.exact),  # computed from counts: no timing, no interval
            "asserts": {
                v.id: {"relation": v.asserted.relation, "holds": v.asserted.holds, "on": v.asserted.on}
                for v in verdicts
                if v.asserted is not None
            },
            "verdicts": {v.id: verdict_json(v) for v in verdicts},
            "summary": summary(report),
            "history": report.history,  # "checked", or why committed runs were not compared with git
        },
        indent=2,
        ensure_ascii=False,
    )


CLAIMS_JSON = "claims.json"  # a site's verdicts for machines: as_json(), byte for byte (schema/check-report-1)
LLMS_TXT = "llms.txt"  # ... and for assistants (llmstxt.org): each claim, its value and its page


def as_llms(report: Report, directory_urls: bool) -> str:
    """The site's llms.txt: a claims section listing each claim as stated, its verdict and its page."""
    lines = [
        "# Claims and their verdicts",
        "",
        f"> Every claim of this report, as the gate judged it ({summary(report)}). "
        f"[{CLAIMS_JSON}]({CLAIMS_JSON}) holds the same verdicts as data: `ledger check --format json`.",
        "",
        "## Claims",
        "",
    ]
    for claim_id, claim in report.by_id.items():
        verdict = report.verdicts.get(claim_id)
        page = f"claim/{claim_id}/" if directory_urls else f"claim/{claim_id}.html"
        stated = f"{claim.value_text or claim.value} {claim.unit}".strip() if claim.value is not None else "no value"
        judged = f", {verdict.fresh.label}" if verdict is not None else ""
        said = f": {' '.join(claim.statement.split())}" if claim.statement else ""
        lines.append(f"- [{claim_id}]({page}): {stated} ({claim.kind}, {claim.status}{judged}){said}")
    return "\n".join(lines) + "\n"


def verdict_json(verdict: ClaimVerdict) -> dict:
    """One claim's verdict as data (guide/cli.md#check lists the keys): values, never sentences to parse."""
    claim = verdict.claim
    return {
        "kind": claim.kind,
        "status": claim.status,
        "testbed": verdict.testbed,  # as stated, else its run's, else its inputs'
        "value": claim.value,  # as stated (null: none stated)
        "computed": verdict.value,  # what its evidence or formula computes (null: nothing computed)
        "unit": claim.unit,
        "interval": _interval(verdict.interval) if verdict.interval is not None else None,
        "prediction": _prediction(verdict.prediction) if verdict.prediction is not None else None,
        "replicates": list(verdict.replicas.runs) if verdict.replicas is not None else [],  # the set, cited last
        "pooled_with": _pooled_with(verdict),  # the settings of its set its run-to-run spread is pooled with
        "one_run": verdict.one_run,  # its interval does not include run-to-run variation
        "exact": verdict.exact,
        "outcome": verdict.outcome,  # agrees | drifted | unstated | too-loose | "" (not compared: see cause)
        "cause": verdict.cause,  # why nothing was computed or compared ("" when it was)
        "strength": verdict.support,  # agrees | bounded | direction | inconclusive | "" (no counting check holds)
        "fresh": verdict.fresh.label,  # fresh | warning | failing | stale
        "failing": list(verdict.fresh.failing),
        "warned": list(verdict.fresh.warned),
    }


def _interval(found: ClaimInterval) -> dict:
    return {
        "low": found.low,
        "high": found.high,
        "level": found.level,  # coverage of the median; a lower bound through a formula
        "basis": found.basis,  # rounds | min-max | paired | formula | replicates
        "rounds": found.rounds,
        "runs": found.runs,  # replicate runs behind it (1: one run's rounds)
    }


def _pooled_with(verdict: ClaimVerdict) -> list[str]:
    """The settings of its set a claim's run-to-run spread is pooled with, itself among them ([]: its own)."""
    shared = verdict.replicas.shared if verdict.replicas is not None else None
    return list(shared.cells) if shared is not None and shared.pooled else []


def _prediction(found: Prediction) -> dict:
    """Where the next run should land: the replicate set's prediction interval."""
    return {
        "low": found.low,
        "high": found.high,
        "level": found.level,
        "runs": found.runs,
        "df": found.df or found.runs - 1,  # the degrees of freedom of its spread
        "pooled_cells": found.cells,  # the set's settings its spread is pooled over (1: its own)
    }


def judged_json(judged: Judged | None) -> dict[str, object]:
    """A move's judgement for machines (lang/moves.py): its verdict, change and interval, what it could see, and
    why not; {} where there is none. `ledger diff --format json` and `ledger history --changed` give it alike."""
    if judged is None:
        return {}
    change = judged.change
    found: dict[str, object] = {"state": judged.state, "allowed": judged.allowed}
    if change is not None:
        found["change"] = {
            "value": change.change,
            "low": change.low,
            "high": change.high,
            "level": change.level,
            "basis": change.basis,
            "detectable": change.detectable if math.isfinite(change.detectable) else None,
        }
    if judged.cause:
        found["cause"] = judged.cause
    if judged.needed:
        found["replicates_needed"] = judged.needed
    return found


def as_bencher(report: Report) -> str:
    """Every measured and extrapolated claim that is not retired, in Bencher Metric Format (BMF JSON):
    {claim id: {its unit (the measure): {value, lower_value, upper_value}}}, the value what its evidence
    or formula computes, the bounds its interval (left out when it has none), so an existing benchmark
    dashboard can track the ledger's figures (`bencher run --adapter json --file ...`)."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for verdict in report.verdicts.values():  # the first claim of each id
        claim = verdict.claim
        if claim.kind not in ("measured", "extrapolated") or claim.retired:
            continue
        value = verdict.value if verdict.value is not None else claim.value
        if value is None or not math.isfinite(value):
            continue
        metric = {"value": value}
        interval = verdict.interval
        if interval is not None and math.isfinite(interval.low) and math.isfinite(interval.high):
            metric |= {"lower_value": interval.low, "upper_value": interval.high}
        found[claim.id] = {bencher_measure(verdict.unit): metric}
    return json.dumps(found, indent=2, ensure_ascii=False)


# Quantities named by their dimension in Bencher measures; any other is its dimension in words
_QUANTITIES = {
    "bytes per second": "throughput",
    "seconds": "time",
    "bytes": "size",
    "a plain ratio": "ratio",
    "joules per second": "power",
    "joules": "energy",
}


def bencher_measure(unit: Unit) -> str:
    """A Bencher measure's slug naming the quantity and its unit ('throughput-gb-s', 'time-ms', 'ratio-x'):
    never Bencher's built-in `latency` (ns) or `throughput` (ops/s), whose units the claims' may not be, and
    never one measure for every ratio of every probe."""
    if not unit.known:
        return _slug(f"value {unit.text}")
    words = unit.describe().removeprefix("a count of ")
    quantity = _QUANTITIES.get(words, words)
    spelled = unit.text.replace("×", "x").replace("%", "percent").replace("µ", "u") or "none"
    return _slug(f"{quantity} {spelled}")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _where(finding: Finding) -> dict:
    """A finding's place and rule, as --format json names the cause another finding follows from."""
    return {
        "path": finding.where.path,
        "line": finding.where.line,
        "column": finding.where.column,
        "rule": finding.rule,
    }


def as_github(report: Report) -> str:
    """Findings as GitHub Actions annotations (shown on the pull request's lines), then the summary."""
    lines = []
    for f in (*report.findings, *notes(report)):
        level = {"fail": "error", "note": "notice"}.get(f.severity, "warning")
        place = [f"file={_property(f.where.path)}"]
        if f.where.line:
            place.append(f"line={f.where.line}")
        if f.where.column:
            place.append(f"col={f.where.column}")
        place.append(f"title={_property(f.rule)}")
        body = f"{f.claim_id + ': ' if f.claim_id else ''}{f.problem}"
        body += f"\n{f.detail}" if f.detail else ""
        body += f"\nfix: {f.fix}"
        if f in report.causes:
            body += f"\nfollows from {report.causes[f].where}: {report.causes[f].rule}"
        lines.append(f"::{level} {','.join(place)}::{_data(body)}")
    lines.append(summary(report))
    return "\n".join(lines)


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
