"""Verdicts: runs + policy -> one RunState per run; findings -> one Freshness per claim (on its ClaimVerdict). Pure.

Decided once here and carried on the Report; the evidence stage, pages, captions, `show` and
`diff` read these records and never work a verdict out again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from operator import itemgetter
from typing import Literal

import attrs

from ..lang import stability
from ..lang.rows import Table
from ..lang.values import parse_number
from ..records import FRESH, ClaimVerdict, FileChange, Finding, Freshness, Policy, Redeclared, Run, RunState, Source
from ..rules import RULES, STALE_RULES
from ..runs import MANIFEST
from ..timing import CONTEXT_COLUMNS, samples_file
from . import integrity, siblings
from .siblings import Against

NOTHING = Against()  # a run that says nothing against another

Rewrite = tuple[tuple[str, str], tuple[str, ...]]  # ((sha, subject) of the commit that first added them, files)
Rewritten = Mapping[str, Rewrite]  # run path -> its rewrite, from history.rewritten
Problem = tuple[str, str, str]  # (rule, problem, fix)
CODE_WORDS = {"changed": "changed since the run", "gone": "no longer exists"}  # a changed code file, after its path
NOT_A_SETTING = frozenset({"round", "reps", *CONTEXT_COLUMNS})  # a samples row's columns that name no setting


def run_state(
    run: Run,
    policy: Policy,
    now: datetime,
    rewritten: Rewrite | None = None,
    tracked: frozenset[str] | None = None,
    siblings: Against = NOTHING,
    steady: stability.Stability | None = None,
) -> RunState:
    """Whether a run's files match its manifest and its first commit, its code is unchanged and it is young enough.

    tracked: the files git tracks (None when unknown): a run's code files must be among them. siblings: what
    its data and declarations say against earlier runs (a copy of one, a column declared otherwise). steady: its
    stability, judged already of this very run (run_stability is a function of the run alone)."""
    commit, files = rewritten or (None, ())
    named = integrity.folder_name(run.path)
    if run.problem:
        state = RunState(
            manifest_problem="; ".join([run.problem, *named]),
            max_age_days=policy.max_run_age_days,
            rewritten=commit,
            rewritten_files=files,
        )
        return replace(state, reasons=reasons(state))
    changed_code: list[tuple[str, Literal["changed", "gone"]]] = []
    for path, declared in sorted(run.declared_code.items()):
        current = run.current_code.get(path)
        if current != declared:
            changed_code.append((path, "gone" if current is None else "changed"))
    age = (now - run.finished).days if run.finished else None
    state = RunState(
        manifest_problem="; ".join([*named, *integrity.placement(run, now), *_code(run, policy)]),
        untracked_code=integrity.untracked_code(run, tracked),
        rewritten=commit,
        rewritten_files=files,
        changed_files=_changed_files(run),
        copy_of=siblings.copy_of,
        copied_files=siblings.copied,
        redeclared=siblings.redeclared,
        changed_code=tuple(changed_code),
        age_days=age,
        too_old=bool(run.finished and now - run.finished > timedelta(days=policy.max_run_age_days)),
        max_age_days=policy.max_run_age_days,
        stability=steady if steady is not None else run_stability(run),
    )
    return replace(state, reasons=reasons(state))


def run_stability(run: Run) -> stability.Stability:
    """The run's stability: the rounds of each timed column its manifest declares, setting by setting, and
    its machine record (lang/stability.py judges them)."""
    rounds: list[stability.Rounds] = []
    why = "it declares no timed column"
    for name, declared in run.columns.items():
        timed = [column for column, found in declared.items() if found.kind == "timed"]
        samples = run.tables.get(samples_file(name))
        if not timed:
            continue
        if samples is None or samples.problem:
            why = f"{samples_file(name)} {samples.problem}" if samples is not None else "it keeps no raw rounds"
            continue
        rounds += _settings(samples, samples_file(name), timed)
    return stability.judge(rounds, run.machine, "" if rounds else why)


def _settings(samples: Table, name: str, timed: list[str]) -> list[stability.Rounds]:
    """Each setting's rounds of each timed column: rows grouped by the cells that name a setting."""
    keys = [i for i, column in enumerate(samples.columns) if column not in timed and column not in NOT_A_SETTING]
    values = [(column, samples.columns.index(column)) for column in timed if column in samples.columns]
    setting = itemgetter(*keys) if keys else (lambda row: ())
    groups: dict[object, list[tuple[str, ...]]] = {}
    for row in samples.rows:
        groups.setdefault(setting(row), []).append(row)
    found = []
    for cells, rows in groups.items():
        named = ", ".join(f"{samples.columns[i]}={cell}" for i, cell in zip(keys, _tuple(cells, keys), strict=True))
        for column, at in values:
            numbers = tuple([x for x in map(parse_number, [row[at] for row in rows]) if x is not None])
            found.append((f"{name} {named}, {column}" if named else f"{name} {column}", numbers))
    return found


def _tuple(cells: object, keys: list[int]) -> tuple:
    """itemgetter's result as a tuple (it gives a single cell for a single key)."""
    return (cells,) if len(keys) == 1 else tuple(cells)  # type: ignore[arg-type]


def _changed_files(run: Run) -> tuple[FileChange, ...]:
    """Each data file that is not what the manifest lists: unlisted, unreadable, missing or another hash."""
    changed = [FileChange(name, "unlisted") for name in run.unlisted]
    found, listed = run.columns_sha256
    if found != listed:
        changed.append(FileChange(MANIFEST, "declared", found, listed))
    for name, declared in sorted(run.declared_files.items()):
        actual = run.actual_files.get(name)
        unread = run.tables[name].problem if name in run.tables and actual is None else ""
        if actual == declared:
            continue
        if unread:
            changed.append(FileChange(name, "unreadable", unread))
        elif actual is None:
            changed.append(FileChange(name, "missing"))
        else:
            changed.append(FileChange(name, "hash", actual, declared))
    return tuple(changed)


def change_text(change: FileChange) -> str:
    """How a changed data file reads after its name: 'is missing', 'has sha256 1a2b…, the manifest says …'."""
    if change.kind == "hash":
        return f"has sha256 {change.found[:12]}…, the manifest says {change.listed[:12]}…"
    if change.kind == "declared":
        return f"column declarations have sha256 {change.found[:12]}…, its columns_sha256 says {change.listed[:12]}…"
    if change.kind == "unreadable":
        return f"cannot be read: it {change.found}"
    return "is missing" if change.kind == "missing" else "is not listed in the manifest"


def commit_text(commit: tuple[str, str]) -> str:
    """'commit 1a2b3c4d5e6f (measure toy)': a (sha, subject) as findings and the diff name it."""
    return f"commit {commit[0]} ({commit[1]})"


def revision_text(run: Run) -> str:
    """The commit a run was measured at, in words: 'commit 1a2b3c4d5e6f (clean)', '... (uncommitted changes)',
    'not recorded' (a run from before runs kept it, or no git where it was measured)."""
    if not run.commit:
        return "not recorded"
    state = "tree state unknown" if run.clean is None else "clean" if run.clean else "uncommitted changes"
    return f"commit {run.commit[:12]} ({state})"


def stability_text(found: stability.Stability) -> str:
    """A run's stability in one line: 'unstable: other processes took 64% of the CPU time ... (limit 10%)',
    'stable: ...', or 'not judged: ...'."""
    return f"{stability_label(found)}: {stability_detail(found)}"


def stability_label(found: stability.Stability) -> str:
    """One word for badges: stable, unstable, not judged."""
    return "unstable" if found.stable is False else "stable" if found.stable else "not judged"


def stability_detail(found: stability.Stability) -> str:
    """What the verdict rests on: each sign of noise, or what was judged and found quiet."""
    if found.stable is False:
        return "; ".join([*sign_texts(found), *([] if found.recorded else [_machine_words(found)])])
    rounds = (
        f"no sign of noise in the rounds of {found.settings} setting{'s' if found.settings != 1 else ''}"
        if found.settings
        else f"rounds not judged ({found.rounds})"
    )
    return f"{_machine_words(found)}; {rounds}"


def _machine_words(found: stability.Stability) -> str:
    if not found.recorded:
        return "machine not recorded (not measured by `ledger measure`)"
    if found.other_cpu_share is None:
        return "the CPU time other processes took is not readable here"
    return f"other processes took {found.other_cpu_share:.0%} of the CPU time"


SIGN_WORDS = {  # a sign's words: (its figure, its limit, and for the rounds' signs how many settings and which)
    "load": "other processes took {value:.0%} of the CPU time while it ran (limit {limit:.0%})",
    "steal": "the hypervisor gave {value:.0%} of the CPU time to other machines while it ran (limit {limit:.0%})",
    "thermal": "macOS reported its thermal state {state} while it ran (its cores are throttled)",
    "cv": "in {settings} of {of} settings the rounds vary by more than {limit:.0%} (coefficient of variation up to "
    "{value:.0%}, {where})",
    "extreme": "in {settings} of {of} settings a round lies more than {limit:g}× from the median (up to {value:.2f}×, "
    "{where})",
    "outliers": "in {settings} of {of} settings more than {limit:.0%} of the rounds lie outside Tukey's fences (up "
    "to {value:.0%}, {where})",
}


def sign_texts(found: stability.Stability) -> list[str]:
    """Each sign of noise in words, the machine's first."""
    return [
        SIGN_WORDS[sign.kind].format(
            value=sign.value,
            limit=sign.limit,
            settings=sign.settings,
            of=found.settings,
            where=sign.where,
            state=found.thermal_state,
        )
        for sign in found.signs
    ]


def reasons(state: RunState) -> tuple[str, ...]:
    """Why a run's data cannot be trusted as it stands (empty when it can), in words, for pages and figures."""
    found = [f"manifest: {state.manifest_problem}"] if state.manifest_problem else []
    found += [f"code file {path} is not tracked by git" for path in state.untracked_code]
    if state.copy_of:
        found.append(f"{', '.join(state.copied_files)} {COPIED} {state.copy_of}")
    found += [redeclared_text(change) for change in state.redeclared]
    found += [f"{change.name} {change_text(change)}" for change in state.changed_files]
    found += [f"{path} {CODE_WORDS[kind]}" for path, kind in state.changed_code]
    if state.rewritten:
        found.append(f"{', '.join(state.rewritten_files)} rewritten since {commit_text(state.rewritten)}")
    if state.too_old:
        found.append(f"{state.age_days} days old (policy: {state.max_age_days})")
    return tuple(found)


def run_findings(run: Run, state: RunState, policy: Policy, rerun: str, *, data_only: bool = False) -> list[Problem]:
    """(rule, problem, fix) for each way a run's state fails, worded once for the runs claims cite
    (evidence.py reports them at the claim) and the uncited ones (reported at the manifest).

    rerun: how to measure again; data_only: only what makes the data untrusted (an uncited run with
    changed code or past its age is history, not a problem)."""
    found: list[Problem] = []
    if state.manifest_problem:
        found.append(("invalid", f"run {run.path}: {state.manifest_problem}", rerun))
    for path in state.untracked_code:
        problem = (
            f"run {run.path}: code file {path} is not tracked by git, so review cannot see the code that measured it"
        )
        found.append(("invalid", problem, f"`git add {path}` and commit it with the run"))
    if state.rewritten:
        files = ", ".join(state.rewritten_files)
        problem = f"{run.path}: {files} differ from {commit_text(state.rewritten)}, the commit that first added them"
        fix = f"restore them (`git checkout {state.rewritten[0]} -- {run.path}`), or {rerun}"
        found.append(("rewritten", problem + " (runs are immutable)", fix))
    if state.copy_of:
        problem = f"run {run.path}: {', '.join(state.copied_files)} {COPIED} {state.copy_of}: {NOT_A_REPLICATE}"
        found.append(
            ("invalid", problem, f"delete the copy; a replicate is a new run (`{_measure(run)} --replicates N`)")
        )
    for declared in state.redeclared:
        problem = f"run {run.path}: {redeclared_text(declared)}: the same probe code declares its columns alike"
        found.append(("invalid", problem, f"delete the run, or measure again (`{_measure(run)}`)"))
    for change in state.changed_files:
        file = f"{run.path}/{change.name}"
        found.append(("tampered", f"{file} {change_text(change)}", f"restore it (`git checkout -- {file}`) or {rerun}"))
    if data_only:
        return found
    found += [
        ("probe-changed", f"{path} {CODE_WORDS[kind]} (run {run.name})", rerun) for path, kind in state.changed_code
    ]
    if state.too_old:
        problem = f"run {run.name} is {state.age_days} days old; the policy allows {policy.max_run_age_days}"
        found.append(("too-old", problem, rerun))
    return found


COPIED = "byte-identical to the timed data of"
NOT_A_REPLICATE = "a copy of a run is not a new measurement, and never a replicate"


def redeclared_text(change: Redeclared) -> str:
    """'declares results.csv column speedup exact in '×', but RUN, of the same probe code, declares it timed in '×''."""
    return (
        f"declares {change.file} column {change.column} {change.kind} in {change.unit!r}, but {change.earlier}, "
        f"of the same probe code, declares it {change.was_kind} in {change.was_unit!r}"
    )


def _measure(run: Run) -> str:
    return f"ledger measure {run.probe_name}"


def _code(run: Run, policy: Policy) -> list[str]:
    declared = next((spec.code for spec in policy.probes if spec.name == run.probe_name), ())
    return integrity.code_files(run, policy.probes_dir, declared)


def run_states(
    runs: Mapping[str, Run],
    policy: Policy,
    now: datetime,
    rewritten: Rewritten,
    tracked: frozenset[str] | None = None,
    judged: Mapping[str, stability.Stability] | None = None,
) -> dict[str, RunState]:
    """Each run's state; judged: the stability of runs another check judged, the very same Run records."""
    found, judged = siblings.against(runs), judged or {}
    return {
        path: run_state(run, policy, now, rewritten.get(path), tracked, found.get(path, NOTHING), judged.get(path))
        for path, run in runs.items()
    }


def uncited_run_findings(
    runs: Mapping[str, Run], states: Mapping[str, RunState], cited: set[str], policy: Policy
) -> list[Finding]:
    """Every run is verified, cited or not: an uncited run's problems are findings at its manifest."""
    findings = []
    for path, run in sorted(runs.items()):
        state = states[path]
        gone = [code for code, kind in state.changed_code if kind == "gone"] if path not in cited else []
        if gone and (len(gone) == len(run.declared_code) or _undeclared(run, policy)):  # the probe, not a helper
            findings.append(
                Finding(
                    Source(run.source.path, 0), "", "orphaned-run",
                    f"run {run.path}: its code {', '.join(gone)} no longer exists, and no claim cites the run",
                    f"restore the code (`git log --diff-filter=D -- {gone[0]}` finds it), or delete the run",
                    severity=policy.severity("orphaned-run"),
                )
            )  # fmt: skip
        if path in cited or state.intact:
            continue
        rerun = f"delete the run if nothing needs it, or measure again (`ledger measure {run.probe_name}`)"
        for rule, problem, fix in run_findings(run, state, policy, rerun, data_only=True):
            findings.append(Finding(Source(run.source.path, 0), "", rule, problem, fix, severity=policy.severity(rule)))
    return findings


def _undeclared(run: Run, policy: Policy) -> bool:
    """The run's probe is declared no more (mkdocs.yml declares probes, none of that name)."""
    return bool(policy.probes) and all(spec.name != run.probe_name for spec in policy.probes)


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


def with_freshness(verdicts: Mapping[str, ClaimVerdict], findings: Iterable[Finding]) -> Mapping[str, ClaimVerdict]:
    """Each claim's verdict completed with its freshness, from every finding about it (claim_freshness);
    the same mapping when no claim's freshness changes (serve keeps what it made from it: incremental.py)."""
    fresh = claim_freshness(findings)
    found, changed = {}, False
    for claim_id, verdict in verdicts.items():
        wanted = fresh.get(claim_id, FRESH)
        # Most are fresh, FRESH itself on both sides: `is` spares them attrs' __eq__, a Python call each.
        same = verdict.fresh is wanted or verdict.fresh == wanted
        found[claim_id] = verdict if same else attrs.evolve(verdict, fresh=wanted)
        changed = changed or found[claim_id] is not verdict
    return found if changed else verdicts
