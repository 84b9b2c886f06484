"""Generated pages: Report -> the claims index, the claims that fell, runs, the gate (Markdown + slots).

Every page is Markdown holding only fixed headings and slot tokens; its HTML goes into the slots
after Markdown has run (render.Slots), so claim text is never read as Markdown. Claim and run pages
are not navigation entries: the index pages link to them, and the navigation stays small.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path

from ..inputs.bounded import repository_texts
from ..inputs.config import shown_settings
from ..judging import causes
from ..lang.relations import SHOWN
from ..records import RETIRED, ClaimVerdict, Finding, Report
from ..text import CLAIMS_JSON, following_line, held, idle_holds, summary
from ..wording import stated
from . import claimpage, runpage, timeline
from .render import (
    CLAIMS_INDEX,
    FELL,
    GATE,
    MEASUREMENTS,
    Generated,
    Links,
    Shared,
    Slots,
    admonition,
    badge,
    claim_link,
    claim_src,
    esc,
    finding_html,
    run_link,
    run_src,
    url_of,
)


class Page:
    """Builds one generated page: Markdown headings and slots with links relative to the page."""

    def __init__(self, src: str, title: str, directory_urls: bool, shared: Shared | None = None, wide: bool = False):
        """shared: what the build's pages write alike (render.Shared); None: this page's alone."""
        self.src, self.title, self.slots = src, str(title), Slots()
        self.links = Links(url_of(src, directory_urls), directory_urls, shared=shared)
        # A wide page hides Material's side columns (front matter), so a big table fits the screen.
        self.parts = (["---\nhide: [navigation, toc]\n---\n"] if wide else []) + [f"# {md_text(title)}\n"]

    def heading(self, text: str, level: int = 2) -> Page:
        self.parts.append(f"{'#' * level} {md_text(text)}\n")
        return self

    def html(self, fragment: str) -> Page:
        if fragment:
            self.parts.append(self.slots.add(fragment) + "\n")
        return self

    def done(self, in_nav: bool) -> Generated:
        return Generated(self.src, "\n".join(self.parts), self.slots, in_nav, self.title)


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!<>|~&])")  # the punctuation Markdown reads


def md_text(text: object) -> str:
    """Plain text safe as a Markdown heading: punctuation Markdown reads is backslash-escaped."""
    text = " ".join(str(text).split())
    return _MARKDOWN.sub(r"\\\1", text) if _MARKDOWN.search(text) else text  # a title (a claim's id) has none


def generate(
    report: Report,
    sources: Mapping[str, str],
    directory_urls: bool = True,
    series: timeline.SeriesAssets | None = None,
    shared: Shared | None = None,
) -> list[Generated]:
    """Every generated page for the report (sources: repository path -> text, for probes and manifests;
    series: the build's series assets, which the claim pages' timelines load; shared: what the build's
    pages write alike)."""
    return [*index_pages(report, directory_urls, shared), *outside(report, sources, directory_urls, series, shared)]


def outside(
    report: Report,
    sources: Mapping[str, str],
    directory_urls: bool = True,
    series: timeline.SeriesAssets | None = None,
    shared: Shared | None = None,
) -> Iterator[Generated]:
    """The pages outside the navigation, claim pages, run pages then code pages, made one at a time (a build writes
    each and lets it go: memory bounded by the largest page, not the ledger)."""
    yield from _claim_pages(report, report.by_id, directory_urls, series, shared)
    cited = runpage.citing(report)  # found once for every run page
    for run in report.runs.values():
        page = Page(run_src(run.path), run.name, directory_urls, shared)
        yield runpage.build(page, run, report, sources, cited.get(run.path, [])).done(in_nav=False)
    pages = functools.partial(Page, shared=shared)
    yield from runpage.code_pages(pages, report, sources, directory_urls)


def outside_srcs(report: Report) -> list[str]:
    """Where outside() puts its pages, in its order, without making them."""
    return [
        *(claim_src(claim_id) for claim_id in report.by_id),
        *(run_src(run.path) for run in report.runs.values()),
        *runpage.code_srcs(report),
    ]


def index_pages(report: Report, directory_urls: bool = True, shared: Shared | None = None) -> list[Generated]:
    """The navigation's generated pages: the claims index, the claims that fell, runs, the gate."""
    return [
        claims_index(report, directory_urls, shared),
        fell(report, directory_urls, shared),
        measurements_index(report, directory_urls, shared),
        gate(report, directory_urls, shared),
    ]


def claim_pages(
    report: Report,
    claim_ids: Iterable[str],
    directory_urls: bool = True,
    series: timeline.SeriesAssets | None = None,
    shared: Shared | None = None,
) -> list[Generated]:
    """The pages of the claims named (a duplicated id is an "invalid" finding; one page for it)."""
    return list(_claim_pages(report, claim_ids, directory_urls, series, shared))


def _claim_pages(
    report: Report,
    claim_ids: Iterable[str],
    directory_urls: bool,
    series: timeline.SeriesAssets | None,
    shared: Shared | None,
) -> Iterator[Generated]:
    found = claimpage.index(report, series)
    for claim_id in claim_ids:
        page = Page(claim_src(claim_id), claim_id, directory_urls, shared)
        yield claimpage.build(page, report.verdicts[claim_id], report, found).done(in_nav=False)


def search_entries(report: Report, directory_urls: bool = True) -> list[dict[str, str]]:
    """Compact search entries for the generated pages (the search plugin skips their HTML): a claim by
    its id, statement, value, kind, status and testbed; a run by its probe, testbed and start."""
    entries = [
        {
            "location": url_of(src, directory_urls),
            "title": title,
            "text": esc(summary(report) if src in (CLAIMS_INDEX, GATE) else title),
        }
        for src, title in (
            (CLAIMS_INDEX, "Claims"),
            (FELL, "The claims that fell"),
            (MEASUREMENTS, "Measurements"),
            (GATE, "The gate"),
        )
    ]
    for verdict in report.verdicts.values():
        claim = verdict.claim
        facts = [claim.statement, stated(verdict), claim.kind, claim.status, claim.testbed]
        entries.append(
            {
                "location": url_of(claim_src(claim.id), directory_urls),
                "title": esc(claim.id),
                "text": esc(" · ".join(fact for fact in facts if fact)),
            }
        )
    for run in report.runs.values():
        facts = [f"run of {run.probe}", f"testbed {run.testbed}", f"started {_when(run.started)}"]
        entries.append(
            {
                "location": url_of(run_src(run.path), directory_urls),
                "title": esc(f"{run.probe_name}/{run.name}"),
                "text": esc(" · ".join(facts)),
            }
        )
    return entries


def read_sources(root: Path, report: Report) -> dict[str, str]:
    """The text of every probe/harness file and manifest that run pages show (the I/O for this stage)."""
    # A code file outside the repository, under .git/ or behind a link is never published (the gate
    # refuses its run); every file is read with the gate's cap.
    wanted = {path for run in report.runs.values() for path in run.declared_code if path not in run.code_problems}
    return repository_texts(root, wanted | {run.source.path for run in report.runs.values()})


# -- the claims index --------------------------------------------------------------------------


def freshness(found: ClaimVerdict, report: Report) -> tuple[str, str]:
    """(label, detail) for the index: the gate's verdict, with the rules and the cited run's age."""
    claim, verdict = found.claim, found.fresh
    detail = ", ".join((*verdict.failing, *verdict.warned))
    state = report.run_state(claim.evidence.run) if claim.evidence and claim.evidence.run in report.runs else None
    if state is not None and state.age_days is not None:
        age = f"run {state.age_days} d old"
        detail = f"{detail}; {age}" if detail else age
    return verdict.label, detail


def counts(report: Report) -> dict[str, int]:
    """The headline counts: measured, extrapolated, borrowed that a check agrees with, retired, leads, the rest."""
    live = [c for c in report.claims if c.status == "asserted"]
    agreed = [c.kind == "borrowed" and report.support(c.id) == "agrees" for c in live]
    return {
        "measured": sum(c.kind == "measured" for c in live),
        "extrapolated": sum(c.kind == "extrapolated" for c in live),
        "borrowed, a check agrees": sum(agreed),
        "retired": sum(c.status in RETIRED for c in report.claims),
        "unverified leads": sum(c.status == "lead" for c in report.claims),
        "borrowed, no check agrees": sum(c.kind == "borrowed" for c in live) - sum(agreed),
    }


def claims_index(report: Report, directory_urls: bool, shared: Shared | None = None) -> Generated:
    page = Page(CLAIMS_INDEX, "Claims", directory_urls, shared, wide=True)
    stats = "".join(
        f'<div class="ledger-stat"><span class="ledger-stat-number">{n}</span>'
        f'<span class="ledger-stat-label">{esc(label)}</span></div>'
        for label, n in counts(report).items()
    )
    page.html(
        f'<div class="ledger-stats">{stats}</div>'
        f"<p>{len(report.claims)} claims. Every figure in the report is one of them. "
        f"Click a column to sort; the filters narrow the list. Retired claims are listed with "
        f'what retired them on <a href="{esc(page.links.to(FELL))}">the claims that fell</a>.</p>'
    )
    rows: list[str] = []
    history = any(  # a column only when it sorts something
        verdict.series is not None and verdict.series.moved is not None for verdict in report.verdicts.values()
    )
    values: dict[str, set[str]] = {"kind": set(), "status": set(), "check": set(), "testbed": set(), "freshness": set()}
    for claim in report.claims:
        verdict = report.of(claim)
        label, detail = freshness(verdict, report)
        strength = verdict.support
        facets = {
            "kind": claim.kind,
            "status": claim.status,
            "check": SHOWN[strength] if strength else "none",
            "testbed": claim.testbed or "none",
            "freshness": label,
        }
        for name, value in facets.items():
            values[name].add(value)
        data = " ".join(f'data-{name}="{esc(value)}"' for name, value in facets.items())
        value = esc(stated(verdict))
        value_cell = f"<del>{value}</del>" if claim.retired and value else value
        sort_value = "" if claim.value is None else repr(claim.value)
        moved, moved_sort = timeline.since_cited(verdict)
        moved_cell = f'<td class="ledger-narrow" data-sort="{moved_sort}">{moved}</td>' if history else ""
        rows.append(
            f'<tr {data}><td><a href="{esc(page.links.claim(claim.id))}"><code>{esc(claim.id)}</code></a></td>'
            f'<td data-sort="{esc(sort_value)}" style="text-align: right">{value_cell}</td>'
            f"<td>{badge(claim.kind, claim.kind)}</td>"
            f"<td>{badge(claim.status, 'retired' if claim.retired else claim.status)}</td>"
            f"<td>{badge(SHOWN[strength], strength) if strength else ''}</td>"
            f"<td>{esc(claim.testbed)}</td>"
            f'<td title="{esc(detail)}">{badge(label, label)}</td>'
            f"{moved_cell}"
            f'<td class="ledger-statement"><div class="ledger-clamp" title="{esc(claim.statement)}">'
            f"{esc(claim.statement)}</div></td></tr>"
        )
    filters = "".join(
        f'<label>{name} <select data-filter="{name}"><option value="">all</option>'
        + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(values[name]))
        + "</select></label>"
        for name in values
    )
    moved = '<abbr title="moved since cited: the newest level against the cited run">moved</abbr>'
    head = "".join(
        f'<th data-sort-type="{kind}"{narrow}>{name}</th>'
        for name, kind, narrow in (
            ("id", "text", ""),
            ("value", "number", ""),
            ("kind", "text", ""),
            ("status", "text", ""),
            ("check", "text", ""),
            ("testbed", "text", ""),
            ("freshness", "text", ""),
            (moved, "number", ' class="ledger-narrow"'),  # a badge at most: little room taken from the rest
            ("statement", "text", ""),
        )
        if history or name != moved
    )
    page.html(
        f'<div class="ledger-filters" hidden>{filters}<label>text <input type="search" '
        f'data-filter="text" placeholder="id or statement"></label>'
        f'<span class="ledger-shown"></span></div>'
        f'<div class="ledger-index"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
        if rows
        else admonition("info", "No claims yet", "<p>Add claim files under <code>claims/</code>.</p>")
    )
    return page.done(in_nav=True)


# -- the claims that fell ------------------------------------------------------------------------


def fell(report: Report, directory_urls: bool, shared: Shared | None = None) -> Generated:
    page = Page(FELL, "The claims that fell", directory_urls, shared)
    retired = [c for c in report.claims if c.retired]
    page.html(
        "<p>Claims that were once asserted and did not survive: refuted by a measurement here, "
        "superseded by a better one, or retracted. Each names what retired it. They are never "
        "shown as fact: wherever a page cites one, it is struck through with its status.</p>"
    )
    if not retired:
        page.html(
            admonition("success", "Nothing has fallen yet", "<p>No claim is refuted, superseded or retracted.</p>")
        )
        return page.done(in_nav=True)
    for status in ("refuted", "superseded", "retracted"):
        group = [c for c in retired if c.status == status]
        if not group:
            continue
        page.heading(status.capitalize())
        rows = "".join(
            f'<tr><td>{claim_link(c.id, report, page.links)}</td><td class="ledger-text">{esc(c.statement)}</td>'
            f"<td>{'<br>'.join(claim_link(r, report, page.links) for r in c.retired_by) or '—'}</td>"
            f'<td class="ledger-text">{esc(c.note)}</td></tr>'
            for c in group
        )
        page.html(
            f'<div class="ledger-fell"><table><thead><tr><th>claim</th><th>statement</th><th>{status} by</th>'
            f"<th>note</th></tr></thead><tbody>{rows}</tbody></table></div>"
        )
    return page.done(in_nav=True)


# -- measurement runs ------------------------------------------------------------------------------


def measurements_index(report: Report, directory_urls: bool, shared: Shared | None = None) -> Generated:
    page = Page(MEASUREMENTS, "Measurements", directory_urls, shared)
    page.html(
        "<p>Every run under <code>measurements/</code>: written by a probe, never edited by hand. "
        "A run's page shows its environment, parameters, data and the probe's source.</p>"
    )
    _retired_runs(page, report)
    if not report.runs:
        page.html(admonition("info", "No runs yet", "<p>Run <code>make measure</code> to add some.</p>"))
        return page.done(in_nav=True)
    cited = Counter(c.evidence.run for c in report.claims if c.evidence)
    by_probe: dict[str, list] = {}
    for run in report.runs.values():
        by_probe.setdefault(run.probe_name, []).append(run)
    for probe, runs in sorted(by_probe.items()):
        page.heading(probe)
        rows = []
        for run in sorted(runs, key=lambda r: r.path, reverse=True):
            state = report.run_state(run.path)
            problems = state.reasons
            status = (
                badge("older code", "lead")  # intact, uncited: history, never a failure
                if state.older_code and not state.too_old and not cited[run.path]
                else badge(state.label, "fresh" if state.trusted else "stale")
            )
            files = ", ".join(f"{esc(name)} ({t.row_count:,} rows)" for name, t in sorted(run.tables.items()))
            rows.append(
                f'<tr><td>{run_link(run, page.links)}</td><td class="ledger-key">{esc(run.testbed)}</td>'
                f'<td class="ledger-key">{esc(_when(run.started))}</td><td>{files}</td>'
                f'<td style="text-align: right">{cited[run.path]}</td>'
                f'<td title="{esc("; ".join(problems))}">{status}</td></tr>'
            )
        page.html(
            "<table><thead><tr><th>run</th><th>testbed</th><th>started (UTC)</th><th>files</th>"
            f"<th>claims citing it</th><th>data</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    return page.done(in_nav=True)


def _cause_html(cause: Finding, following: list[Finding], report: Report, links: Links) -> str:
    """A finding, and under it, folded, the findings that follow from it (judging/causes.py)."""
    if not following:
        return finding_html(cause, report, links)
    inner = "".join(finding_html(f, report, links) for f in following)
    summary = esc(following_line(len(following)))
    return (
        finding_html(cause, report, links)
        + f'<details class="ledger-follows"><summary>{summary}</summary>{inner}</details>'
    )


def _retired_runs(page: Page, report: Report) -> None:
    """Published runs deleted on purpose, each with why: the site says so (publish refuses any other)."""
    if not report.policy.retired_runs:
        return
    rows = "".join(
        f"<tr><td><code>{esc(run)}</code></td><td>{esc(why)}</td></tr>" for run, why in report.policy.retired_runs
    )
    page.heading("Retired runs")
    page.html(
        "<p>Runs published before and deleted on purpose (<code>retired_runs:</code> in mkdocs.yml); a publish "
        "stops on any other published run that is gone.</p>"
        f"<table><thead><tr><th>run</th><th>why it was retired</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "unknown"


# -- the gate's report ---------------------------------------------------------------------------


def gate(report: Report, directory_urls: bool, shared: Shared | None = None) -> Generated:
    page = Page(GATE, "The gate", directory_urls, shared)
    outcome = (
        admonition("success", "The gate passes", f"<p>{esc(summary(report))}</p>")
        if report.ok
        else admonition(
            "failure",
            "The gate fails",
            f"<p>{esc(summary(report))}</p><p><code>mkdocs build"
            "</code> and <code>ledger check</code> fail until every failure below is fixed.</p>",
        )
    )
    outcome += "".join(f"<p>{esc(note.removeprefix('note: '))}</p>" for note in idle_holds(report))
    if report.history:  # runs' git history: checked, or why not (said once, never a silent pass)
        outcome += (
            f"<p>Run history (each committed run against the commit that first added it): {esc(report.history)}.</p>"
        )
    settings = "".join(
        f"<tr><th><code>{esc(name)}</code></th><td>{esc(value)}</td></tr>"
        for name, value in shown_settings(report.policy).items()  # every option row, as `ledger diff` shows it
    )
    page.html(
        outcome + "<p>The same checks run in <code>ledger check</code> and inside the site build. "
        "The runs they judge are committed to the repository: they never expire, unlike a CI service's "
        "artifacts, so every claim can be checked again against the very files it cites. "
        f'<a href="{esc(page.links.to(CLAIMS_JSON))}"><code>claims.json</code></a> holds these verdicts '
        "as data (<code>ledger check --format json</code>). Policy (from <code>mkdocs.yml</code>; options not set there show their defaults):</p>"
        f'<div class="ledger-facts"><table><tbody>{settings}</tbody></table></div>'
    )
    by_rule: dict[str, list[tuple[Finding, list[Finding]]]] = {}
    for cause, following in causes.grouped(report.findings, report.causes):  # each root cause first
        by_rule.setdefault(cause.rule, []).append((cause, following))
    holding = {rule for rule, _ in held(report)}
    for rule, groups in by_rule.items():
        page.heading(f"{rule} ({len(groups)})")
        hold = (
            f"<p>Warnings, not failures: <code>warn:</code> in {esc(report.policy.config_path)} holds "
            f"<code>{esc(rule)}</code>. Take it out of <code>warn:</code> to make these fail the build.</p>"
        )
        shown = "".join(_cause_html(cause, following, report, page.links) for cause, following in groups)
        page.html((hold if rule in holding else "") + shown)
    return page.done(in_nav=True)
