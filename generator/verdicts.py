"""Verdicts: runs + policy -> one RunState per run; findings -> one Freshness per claim. Pure.

Decided once here and carried on the Report; the evidence stage, pages, captions, `show` and
`diff` read these records and never work a verdict out again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from .records import Finding, Freshness, Policy, Run, RunState
from .rules import RULES, STALE_RULES


def run_state(run: Run, policy: Policy, now: datetime) -> RunState:
    """Whether a run's files match its manifest, its code is unchanged and it is young enough."""
    if run.problem:
        return RunState(manifest_problem=run.problem, max_age_days=policy.max_run_age_days)
    changed_files = []
    for name, declared in sorted(run.declared_files.items()):
        actual = run.actual_files.get(name)
        if actual != declared:
            changed_files.append(
                (
                    name,
                    "is missing"
                    if actual is None
                    else f"has sha256 {actual[:12]}…, the manifest says {declared[:12]}…",
                )
            )
    changed_code = []
    for path, declared in sorted(run.declared_code.items()):
        current = run.current_code.get(path)
        if current != declared:
            changed_code.append((path, "no longer exists" if current is None else "changed since the run"))
    age = (now - run.finished).days if run.finished else None
    too_old = bool(run.finished and now - run.finished > timedelta(days=policy.max_run_age_days))
    return RunState(
        changed_files=tuple(changed_files),
        changed_code=tuple(changed_code),
        age_days=age,
        too_old=too_old,
        max_age_days=policy.max_run_age_days,
    )


def run_states(runs: Mapping[str, Run], policy: Policy, now: datetime) -> dict[str, RunState]:
    return {path: run_state(run, policy, now) for path, run in runs.items()}


def claim_freshness(findings: Iterable[Finding]) -> dict[str, Freshness]:
    """Claim id -> stale (fails a rule that spreads), failing, or warning; claims not listed are fresh."""
    failing: dict[str, set[str]] = {}
    warned: dict[str, set[str]] = {}
    for finding in findings:
        if finding.claim_id:
            (failing if finding.severity == "fail" else warned).setdefault(finding.claim_id, set()).add(finding.rule)
    verdicts = {}
    for claim_id in failing.keys() | warned.keys():
        fails = tuple(rule for rule in RULES if rule in failing.get(claim_id, ()))
        warns = tuple(rule for rule in RULES if rule in warned.get(claim_id, ()))
        label = "stale" if STALE_RULES & set(fails) else "failing" if fails else "warning"
        verdicts[claim_id] = Freshness(label, fails, warns)
    return verdicts
