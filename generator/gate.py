"""The whole gate, read top to bottom: load -> validate -> verdicts on runs -> evidence -> pages.

The CLI and the MkDocs plugin both call check() and differ only in how they show the Report, so
`ledger check` and `mkdocs build --strict` cannot disagree.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

from . import (
    attributes,
    evidence,
    figures,
    history,
    leads,
    load,
    moved,
    ownunits,
    prose,
    references,
    series,
    validate,
    verdicts,
)
from .config import project_policy
from .records import Policy, Report
from .rules import PAGE_RULES
from .values import parse_tolerance


def check(
    root: Path,
    policy: Policy,
    now: datetime,
    every_run_rounds: bool = False,
    *,
    require_history: bool = False,
    past: history.History | None = None,
) -> Report:
    """Every finding about the ledger under root, with each claim's computed value and every verdict.

    Raw rounds are parsed in the runs claims cite and the other runs of their probes (their series);
    `every_run_rounds` parses them in every run (`ledger refresh` judges newer runs against cited ones).
    require_history: git history that cannot be read (a shallow clone, no git) is a failure. past: the
    runs' history when the files are not a work tree (`ledger diff` reads a revision's own).
    """
    budget = load.Budget(policy.max_input_bytes)  # everything this check reads, together
    max_tolerance = parse_tolerance(policy.max_tolerance).relative
    claims, findings = validate.claims(  # the parsed files are let go once validated: half the peak memory
        load.claim_files(root, policy.claims_dir, policy.max_claim_file_bytes, budget),
        policy.measurements_dir,
        max_tolerance,
        ownunits.table(policy.units),
    )
    cited = None if every_run_rounds else _with_their_probes(root, {c.evidence.run for c in claims if c.evidence})
    runs, refused = load.runs(root, policy.measurements_dir, cited, budget)
    past = past or history.read(root, policy.measurements_dir)
    pages, page_problems = load.pages(root, policy.docs_dir, budget)
    defined = figures.defined(root)

    refs = [ref for path, text in pages.items() for ref in references.find(text, path)]
    findings += [*policy.problems, *refused]
    findings += history.findings(past, bool(runs or refused), require_history)
    rules, prefix = load.attribute_rules(root, policy.measurements_dir)
    findings += attributes.findings(rules, [prefix + path for path in run_files(runs)], prefix)
    states = verdicts.run_states(runs, policy, now, history.rewritten(past, runs), past.tracked)
    evaluated = evidence.evaluate(claims, runs, states, policy, findings)
    findings += evaluated.findings
    lines = series.build(claims, runs, states, evaluated.evaluations)
    findings += moved.stray_kept(claims, lines)
    findings += moved.findings(claims, lines, refs, policy)
    findings += verdicts.uncited_run_findings(runs, states, {c.evidence.run for c in claims if c.evidence}, policy)
    findings += page_problems
    findings += defined.findings
    findings += references.unknown(refs, {c.id for c in claims}, defined.tables, defined.charts, policy)
    findings += leads.lead_premises(pages, refs, evaluated.by_id, policy)
    read = prose.scan(pages, refs, policy, root, claims)
    findings += read.findings
    return Report(
        claims=tuple(claims),
        runs=runs,
        findings=tuple(sorted(findings)),
        computed=evaluated.computed,
        page_refs=tuple(refs),
        policy=policy,
        run_states=states,
        freshness=verdicts.claim_freshness(findings),
        checks=evaluated.checks,
        intervals=evaluated.intervals,
        no_rounds=evaluated.no_rounds,
        series=lines,
        exact=frozenset(evaluated.exact),
        asserts=evaluated.asserts,
        evaluations=evaluated.evaluations,
        history=past.status if runs else "",
        typed=read.typed,
    )


def _with_their_probes(root: Path, cited: set[str]) -> set[str]:
    """The cited runs and every other run of their probes: a claim's series reads their raw rounds too."""
    found = set(cited)
    for probe in {path.rsplit("/", 1)[0] for path in cited}:
        folder = root / probe
        if folder.is_dir() and not folder.is_symlink():  # a linked probe folder is refused by load.runs
            found |= {f"{probe}/{entry.name}" for entry in folder.iterdir()}
    return found


def check_project(
    root: Path, config: Path | None, now: datetime, every_run_rounds: bool = False, *, require_history: bool = False
) -> Report:
    """check() on the project --root and --config name: its policy read from mkdocs.yml (or the defaults)."""
    root = root.resolve()
    policy = project_policy(root, config)
    return check(root, policy, now, every_run_rounds, require_history=require_history)


def run_files(runs) -> list[str]:
    """Every file of every run, relative to the root."""
    return [f"{path}/{name}" for path, run in runs.items() for name in (*run.blob_ids, *run.unlisted)]


def check_pages(report: Report, root: Path) -> Report:
    """The Report again after an edit to hand-written pages only: their references and prose read anew.

    For `mkdocs serve` when claims, runs, probes and figures are unchanged: every verdict but the
    pages' own findings (unknown references, unbound numbers, unreadable pages) is the same, so only
    those are decided again.
    """
    policy = report.policy
    pages, page_problems = load.pages(root, policy.docs_dir)
    refs = [ref for path, text in pages.items() for ref in references.find(text, path)]
    defined = figures.defined(root)
    docs = policy.docs_dir.rstrip("/") + "/"
    kept = [
        f
        for f in report.findings
        if f.rule not in (*PAGE_RULES, moved.RULE) and not (f.rule == "invalid" and f.where.path.startswith(docs))
    ]
    findings = kept + page_problems
    findings += moved.findings(report.claims, report.series, refs, policy)  # it names the sentences citing a claim
    findings += references.unknown(refs, {c.id for c in report.claims}, defined.tables, defined.charts, policy)
    findings += leads.lead_premises(pages, refs, report.by_id, policy)
    read = prose.scan(pages, refs, policy, root, report.claims)
    findings += read.findings
    return replace(
        report,
        findings=tuple(sorted(findings)),
        page_refs=tuple(refs),
        freshness=verdicts.claim_freshness(findings),
        typed=read.typed,
    )
