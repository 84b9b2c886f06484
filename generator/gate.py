"""The whole gate, read top to bottom: load -> validate -> verdicts on runs -> evidence -> references.

The CLI and the MkDocs plugin both call check() and differ only in how they show the Report, so
`ledger check` and `mkdocs build --strict` cannot disagree.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from . import evidence, figures, load, prose, references, validate, verdicts
from .records import Finding, Policy, Report


def check(root: Path, policy: Policy, now: datetime) -> Report:
    """Every finding about the ledger under root, with each claim's computed value and every verdict."""
    raw = load.claim_files(root, policy.claims_dir, policy.max_claim_file_bytes)
    runs = load.runs(root, policy.measurements_dir)
    refs = load.page_refs(root, policy.docs_dir)
    pages = load.page_texts(root, policy.docs_dir)
    defined = figures.defined(root)

    claims, findings = validate.claims(raw, policy.measurements_dir)
    states = verdicts.run_states(runs, policy, now)
    claim_findings, computed = evidence.evaluate(claims, runs, states, policy, findings)
    findings += claim_findings
    findings += defined.findings
    findings += references.unknown(refs, {c.id for c in claims}, defined.tables, defined.charts, policy)
    findings += unbound_numbers(pages, policy)
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


def unbound_numbers(pages: dict[str, str], policy: Policy) -> list[Finding]:
    """A figure typed into a page instead of cited from a claim."""
    return [
        Finding(
            typed.where,
            "",
            "unbound-number",
            f"{typed.text!r} is typed into the page; the gate cannot keep it true",
            f'cite the claim that holds it with {{{{ claim("some-id") }}}}, or mark a label: {prose.MARK_LABEL}',
            severity=policy.severity("unbound-number"),
        )
        for path, text in pages.items()
        for typed in prose.typed_figures(text, path)
    ]
