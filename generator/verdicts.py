"""Verdicts: runs + policy -> one RunState per run; findings -> one Freshness per claim. Pure.

Decided once here and carried on the Report; the evidence stage, pages, captions, `show` and
`diff` read these records and never work a verdict out again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from . import integrity
from .records import Finding, Freshness, Policy, Run, RunState, Source
from .rules import RULES, STALE_RULES

Rewritten = Mapping[str, tuple[str, tuple[str, ...]]]  # run path -> (commit, files), from history.rewritten


def run_state(
    run: Run,
    policy: Policy,
    now: datetime,
    rewritten: tuple[str, tuple[str, ...]] | None = None,
    tracked: frozenset[str] | None = None,
) -> RunState:
    """Whether a run's files match its manifest and its first commit, its code is unchanged and it is young enough.

    tracked: the files git tracks (None when unknown): a run's code files must be among them."""
    commit, files = rewritten or ("", ())
    named = integrity.folder_name(run.path)
    if run.problem:
        return RunState(
            manifest_problem="; ".join([run.problem, *named]),
            max_age_days=policy.max_run_age_days,
            rewritten=files,
            rewritten_commit=commit,
        )
    changed_files = [(name, "is not listed in the manifest") for name in run.unlisted]
    for name, declared in sorted(run.declared_files.items()):
        actual = run.actual_files.get(name)
        unread = run.tables[name].problem if name in run.tables and actual is None else ""
        if actual != declared:
            changed_files.append(
                (
                    name,
                    f"cannot be read: it {unread}"
                    if unread
                    else "is missing"
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
        manifest_problem="; ".join([*named, *integrity.placement(run, now), *_code(run, policy, tracked)]),
        rewritten=files,
        rewritten_commit=commit,
        changed_files=tuple(changed_files),
        changed_code=tuple(changed_code),
        age_days=age,
        too_old=too_old,
        max_age_days=policy.max_run_age_days,
    )


def _code(run: Run, policy: Policy, tracked: frozenset[str] | None) -> list[str]:
    declared = next((spec.code for spec in policy.probes if spec.name == run.probe_name), ())
    return integrity.code_files(run, policy.probes_dir, declared, tracked)


def run_states(
    runs: Mapping[str, Run], policy: Policy, now: datetime, rewritten: Rewritten, tracked: frozenset[str] | None = None
) -> dict[str, RunState]:
    return {path: run_state(run, policy, now, rewritten.get(path), tracked) for path, run in runs.items()}


def uncited_run_findings(
    runs: Mapping[str, Run], states: Mapping[str, RunState], cited: set[str], policy: Policy
) -> list[Finding]:
    """Every run is verified, cited or not: an uncited run's problems are findings at its manifest."""
    findings = []
    for path, run in sorted(runs.items()):
        state = states[path]
        if path in cited or state.intact:
            continue
        at = Source(run.source.path, 0)
        rerun = f"delete the run if nothing needs it, or measure again (`ledger measure {run.probe_name}`)"
        if state.rewritten:
            findings.append(
                Finding(
                    at,
                    "",
                    "rewritten",
                    f"{', '.join(state.rewritten)} differ from {state.rewritten_commit}, the commit that first added them",
                    f"restore them (`git checkout {state.rewritten_commit.split()[1]} -- {path}`), or {rerun}",
                    severity=policy.severity("rewritten"),
                )
            )
        if state.manifest_problem:
            findings.append(Finding(at, "", "invalid", f"run {run.name}: {state.manifest_problem}", rerun))
        for name, what in state.changed_files:
            findings.append(
                Finding(at, "", "tampered", f"{path}/{name} {what}", rerun, severity=policy.severity("tampered"))
            )
    return findings


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
