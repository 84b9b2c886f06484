"""The whole gate, read top to bottom: load -> validate -> verdicts on runs -> evidence -> references.

The CLI and the MkDocs plugin both call check() and differ only in how they show the Report, so
`ledger check` and `mkdocs build --strict` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from . import evidence, figures, load, references, validate, verdicts
from .records import Policy, Report
from .runs import sha256_file


def check(root: Path, policy: Policy, now: datetime, hash_file: Callable[[Path], str] = sha256_file) -> Report:
    """Every finding about the ledger under root, with each claim's computed value and every verdict.

    hash_file: a file's SHA-256 (the check cache may know it without reading the file)."""
    raw = load.claim_files(root, policy.claims_dir, policy.max_claim_file_bytes)
    runs = load.runs(root, policy.measurements_dir, hash_file)
    refs = load.page_refs(root, policy.docs_dir)
    defined = figures.defined(root)

    claims, findings = validate.claims(raw, policy.measurements_dir)
    states = verdicts.run_states(runs, policy, now)
    claim_findings, computed = evidence.evaluate(claims, runs, states, policy, findings)
    findings += claim_findings
    findings += defined.findings
    findings += references.unknown(refs, {c.id for c in claims}, defined.tables, defined.charts, policy)
    return Report(
        claims=tuple(claims),
        runs=runs,
        findings=tuple(sorted(findings)),
        computed=computed,
        page_refs=tuple(refs),
        policy=policy,
        run_states=states,
        freshness=verdicts.claim_freshness(findings),
    )


def check_pages(report: Report, root: Path) -> Report:
    """The Report again after an edit to hand-written pages only: their references read anew.

    For `mkdocs serve` when claims, runs, probes and figures are unchanged: every verdict but the
    pages' unknown references is the same, so only those are decided again.
    """
    refs = load.page_refs(root, report.policy.docs_dir)
    defined = figures.defined(root)
    claim_ids = {c.id for c in report.claims}
    findings = [f for f in report.findings if f.rule != "unknown-reference"]
    findings += references.unknown(refs, claim_ids, defined.tables, defined.charts, report.policy)
    return replace(
        report,
        findings=tuple(sorted(findings)),
        page_refs=tuple(refs),
        freshness=verdicts.claim_freshness(findings),
    )
