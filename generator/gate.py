"""The whole gate, read top to bottom: load -> validate -> verdicts on runs -> evidence -> pages.

The CLI and the MkDocs plugin both call check() and differ only in how they show the Report, so
`ledger check` and `mkdocs build --strict` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from .claims import validate
from .claims.vocabulary import read_run_units
from .inputs import attributes, figures, gitlog, load
from .inputs.project import read as read_project
from .judging import alike, causes, evidence, leads, replicated
from .lang.stability import Stability
from .prose import references, surfaces, unsupported
from .prose import scan as prose
from .records import Claim, ClaimVerdict, Finding, PageRef, Policy, Report, Run, Source
from .rules import PAGE_RULES
from .series import moved
from .series import stage as series
from .trust import verdicts


@dataclass(frozen=True, slots=True)
class Reused:
    """Runs another check read from the same bytes, taken as they are (`ledger diff` reads a run once)."""

    runs: Mapping[str, Run] = field(default_factory=dict)
    stability: Mapping[str, Stability] = field(default_factory=dict)  # as that check judged each
    size: int = 0  # their bytes, counted against this check's input cap


def check(
    root: Path,
    policy: Policy,
    now: datetime,
    every_run_rounds: bool = False,
    *,
    require_history: bool = False,
    past: gitlog.History | None = None,
    every_table: bool = False,
    reused: Reused | None = None,
    shared: alike.Judged | None = None,
) -> Report:
    """Every finding about the ledger under root, with each claim's verdict (ClaimVerdict) and each run's.

    Raw rounds are parsed in the runs claims cite and the other runs of their probes (their series);
    `every_run_rounds` parses them in every run (`ledger refresh` judges newer runs against cited ones).
    require_history: git history that cannot be read (a shallow clone, no git) is a failure. past: the
    runs' history when the files are not a work tree (`ledger diff` reads a revision's own). The tables of
    the runs whose rounds are not parsed are read in bounded memory, counted and not kept, unless
    every_table: the site, which shows them and lets figures draw them (no verdict reads them). reused: runs
    another check read from the same bytes (`ledger diff`'s other revision: review/revisions.py), taken as they
    are with their stability, their bytes counted against the input cap. shared: the other revision's verdicts,
    recorded by the first check given it and taken by the next where a claim's inputs are alike (judging/alike.py).
    """
    budget = load.Budget(policy.max_input_bytes)  # everything this check reads, together
    claims, findings, vocabulary = validate.claims(  # the parsed files are let go once validated: half the peak
        load.claim_files(root, policy.claims_dir, policy.max_claim_file_bytes, budget),
        policy.measurements_dir,
        policy.max_tolerance.relative,
        policy.units,
    )
    reused = reused or Reused()
    budget.left = max(0, budget.left - reused.size)
    cited = (
        None
        if every_run_rounds
        else _with_their_probes(root, {c.evidence.run for c in claims if c.evidence}, reused.runs)
    )
    runs, refused = load.runs(root, policy.measurements_dir, cited, budget, every_table, reused.runs)
    read_run_units(
        vocabulary, (c.unit for run in runs.values() for table in run.columns.values() for c in table.values())
    )
    past = past or gitlog.read(root, policy.measurements_dir)
    defined = figures.defined(root)
    findings += [*(finding for _, finding in policy.problems), *refused, *defined.findings]
    findings += prose.caption_findings(defined.captions, policy.units)
    findings += gitlog.findings(past, bool(runs or refused), require_history)
    rules, prefix = load.attribute_rules(root, policy.measurements_dir)
    findings += attributes.findings(rules, [prefix + path for path in run_files(runs)], prefix)
    states = verdicts.run_states(runs, policy, now, gitlog.rewritten(past, runs), past.tracked, reused.stability)
    evaluated = evidence.evaluate(claims, runs, states, policy, vocabulary, findings, shared)
    findings += evaluated.findings
    judged = series.build(evaluated.verdicts, runs, states)
    findings += moved.stray_kept(judged)
    findings += [f for f in moved.insufficient(judged, policy) if f.severity != "note"]  # notes: text.notes shows them
    findings += verdicts.uncited_run_findings(runs, states, {c.evidence.run for c in claims if c.evidence}, policy)
    read = _pages(root, policy, claims, judged, defined, budget)
    findings += read.findings
    findings += _surfaces(root, policy, judged, findings, budget)
    findings.sort()
    return Report(
        claims=tuple(claims),
        runs=runs,
        findings=tuple(findings),
        verdicts=verdicts.with_freshness(judged, findings),
        policy=policy,
        page_refs=read.refs,
        run_states=states,
        history=past.status if runs else "",
        typed=read.typed,
        causes=causes.follows(findings, claims, read.refs, _lost(root, policy, claims, findings)),
    )


def _lost(root: Path, policy: Policy, claims: Sequence[Claim], findings: Sequence[Finding]) -> dict[str, Source]:
    """Claim id -> its `id:` line, for each claim a claim file with an `invalid` finding defines but the
    gate could not load (a YAML error loses the whole file): what a reference to it follows from."""
    loaded = {claim.id for claim in claims}
    claims_dir = policy.claims_dir.rstrip("/") + "/"
    broken = sorted({f.where.path for f in findings if f.rule == "invalid" and f.where.path.startswith(claims_dir)})
    return {
        claim_id: Source(path, line)
        for path in broken
        for claim_id, line in load.defined_ids(root, path, policy.max_claim_file_bytes)
        if claim_id not in loaded
    }


@dataclass(frozen=True, slots=True)
class PageVerdicts:
    """The page half of the gate: what is decided from the hand-written pages and the claims they cite."""

    refs: tuple[PageRef, ...]
    findings: tuple[Finding, ...]
    typed: Mapping[str, tuple[tuple[str, Source], ...]]  # page -> the figures typed into it (prose.Scan.typed)


class PageReading:
    """How the page half reads the hand-written pages: afresh here; `mkdocs serve` passes one that keeps
    what each unchanged page gave at the last build (site/incremental.py: KeptPages)."""

    def references(self, path: str, text: str) -> Sequence[PageRef]:
        return references.find(text, path)

    def scan(
        self, pages: Mapping[str, str], refs: Sequence[PageRef], policy: Policy, root: Path, claims: Sequence[Claim]
    ) -> prose.Scan:
        return prose.scan(pages, refs, policy, root, claims)

    def defined(self, root: Path) -> figures.Defined:
        return figures.defined(root)


AFRESH = PageReading()


def _pages(
    root: Path,
    policy: Policy,
    claims: Sequence[Claim],
    judged: Mapping[str, ClaimVerdict],
    defined: figures.Defined,
    budget: load.Budget = load.UNBOUNDED,
    reader: PageReading = AFRESH,
) -> PageVerdicts:
    """Every finding of a page rule (PAGE_RULES, moved-since-cited, few-replicates, an unreadable page): one place for
    check() and check_pages(), so a new page rule is one line here."""
    pages, problems = load.pages(root, policy.docs_dir, budget)
    refs = tuple(ref for path, text in pages.items() for ref in reader.references(path, text))
    read = reader.scan(pages, refs, policy, root, claims)
    found = [
        *problems,
        *moved.findings(judged, refs, policy),  # it names the sentences citing a claim
        *references.unknown(refs, {c.id for c in claims}, defined.tables, defined.charts, policy),
        *references.in_headings(pages, refs, policy),
        *leads.lead_premises(pages, refs, {claim_id: found.claim for claim_id, found in judged.items()}, policy),
        *replicated.findings(judged, pages, refs, policy),  # min_replicates and pages' `ledger: {replicates: N}`
        *unsupported.findings(pages, refs, judged, policy),  # words that speak of a claim's ratio
        *read.findings,
    ]
    return PageVerdicts(refs, tuple(found), read.typed)


def _surfaces(
    root: Path, policy: Policy, judged: Mapping[str, ClaimVerdict], findings: Sequence[Finding], budget: load.Budget
) -> list[Finding]:
    """The surfaces' findings (README.md, ...: prose/surfaces.py), once every claim's own verdict is known."""
    if not policy.surfaces:
        return []
    texts, unreadable = load.surfaces(root, policy.surfaces, policy.docs_dir, budget, policy.config_path)
    failing = {claim_id: v.describe() for claim_id, v in verdicts.claim_freshness(findings).items() if v.fails}
    return [*unreadable, *surfaces.findings(texts, judged, failing, policy, root)]


def _with_their_probes(root: Path, cited: set[str], reused: Mapping[str, Run]) -> set[str]:
    """The cited runs and every other run of their probes (those reused too): a claim's series reads their raw
    rounds too."""
    found = set(cited)
    probes = {path.rsplit("/", 1)[0] for path in cited}
    for probe in probes:
        folder = root / probe
        if folder.is_dir() and not folder.is_symlink():  # a linked probe folder is refused by load.runs
            found |= {f"{probe}/{entry.name}" for entry in folder.iterdir()}
    found |= {path for path in reused if path.rsplit("/", 1)[0] in probes}
    return found


def check_project(
    root: Path,
    config: Path | None,
    now: datetime,
    every_run_rounds: bool = False,
    *,
    require_history: bool = False,
    every_table: bool = False,
) -> Report:
    """check() on the project --root and --config name: its policy read from mkdocs.yml (or the defaults). A
    verb has the project read already (args.project) and calls check() with its policy."""
    project = read_project(root, config)
    return check(
        project.root, project.policy, now, every_run_rounds, require_history=require_history, every_table=every_table
    )


def run_files(runs) -> list[str]:
    """Every file of every run, relative to the root."""
    return [f"{path}/{name}" for path, run in runs.items() for name in (*run.blob_ids, *run.unlisted)]


def check_pages(report: Report, root: Path, reader: PageReading = AFRESH) -> Report:
    """The Report again after an edit to hand-written pages only: their references and prose read anew.

    For `mkdocs serve` when claims, runs, probes and figures are unchanged: every verdict but the
    pages' own findings (unknown references, unbound numbers, unreadable pages) is the same, so only
    those are decided again (reader: serve's, which reads again only the pages whose text changed).
    """
    docs = report.policy.docs_dir.rstrip("/") + "/"
    kept = [
        f
        for f in report.findings
        if f.rule not in (*PAGE_RULES, moved.RULE, replicated.RULE, unsupported.RULE)
        and not (f.rule == "invalid" and f.where.path.startswith(docs))
    ]
    read = _pages(root, report.policy, report.claims, report.verdicts, reader.defined(root), reader=reader)
    findings = sorted([*kept, *read.findings])
    lost = _lost(root, report.policy, report.claims, findings)
    return replace(
        report,
        findings=tuple(findings),
        causes=causes.follows(findings, report.claims, read.refs, lost),
        page_refs=read.refs,
        verdicts=verdicts.with_freshness(report.verdicts, findings),
        typed=read.typed,
    )
