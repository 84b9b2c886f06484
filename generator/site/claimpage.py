"""A claim's own page: its ClaimVerdict -> statement, value, evidence, checks, history; with the Report
around it, the run, lineage up and down, findings and the pages citing it.

Everything the page says of the claim itself comes from its record (ClaimVerdict); the Report only
supplies its neighbours (other claims' links and badges, its run, its findings). A record alone makes a
page too (build(page, verdict)): the sections about neighbours then say what they can.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..claims import lineage
from ..lang.relations import INCONCLUSIVE, SHOWN
from ..lang.rows import Table
from ..lang.values import allowed_text, counted, format_value, level_text, range_text
from ..records import ClaimVerdict, Report
from ..trust.digest import CODE_PAGES, code_files
from ..trust.verdicts import stability_detail, stability_label
from ..wording import ONE_RUN, assert_text, noise_text, pooled_text, shared_text, stated
from .render import (
    Shared,
    admonition,
    badge,
    claim_badges,
    claim_link,
    code_value,
    esc,
    finding_html,
    page_banner,
    run_link,
)
from .tables import table_html
from .timeline import SeriesAssets
from .timeline import section as history_section

UP = {lineage.INPUT: "uses as input", lineage.CHECK: "checked by", lineage.RETIREMENT: "retired by"}
DOWN = {lineage.INPUT: "is an input of", lineage.CHECK: "checks", lineage.RETIREMENT: "retired"}


@dataclass(frozen=True, slots=True)
class Index:
    """What every claim page looks up, found once per build (a scan per claim would be quadratic)."""

    downstream: Mapping[str, list]  # claim id -> edges from the claims that name it
    cited: Mapping[str, list]  # claim id -> page references to it
    series: SeriesAssets = field(default_factory=SeriesAssets)  # each series' data asset, made once


def index(report: Report, series: SeriesAssets | None = None) -> Index:
    downstream: dict[str, list] = {}
    for edge in lineage.edges(report.claims):
        downstream.setdefault(edge.target_id, []).append(edge)
    cited: dict[str, list] = {}
    for ref in report.page_refs:
        if ref.kind == "claim":
            cited.setdefault(ref.name, []).append(ref)
    return Index(downstream, cited, series if series is not None else SeriesAssets())


def build(page, verdict: ClaimVerdict, report: Report | None = None, found: Index | None = None):
    """Fill a report_pages.Page for one claim from its verdict; report and found: the ledger around it."""
    claim, links = verdict.claim, page.links
    page.html(status_banner(verdict, report, links) + facts(verdict))
    page.heading("Evidence")
    if claim.kind == "measured":
        page.html(measured(verdict, report, links))
    elif claim.kind == "extrapolated":
        page.html(extrapolated(verdict, report, links))
    else:
        page.html(borrowed(verdict, report, links))
    if claim.kind == "extrapolated" and claim.checked_by:
        page.html(checks_html(verdict, report, links))
    page.heading("Re-measure it")
    page.html(remeasure_html(verdict, report))
    if claim.kind == "measured":
        page.heading("History")
        page.html(history_section(verdict, links, found.series if found else None))
    page.heading("Lineage")
    page.html(lineage_html(verdict, report, links, found.downstream.get(claim.id, []) if found else []))
    findings = report.findings_for(claim.id) if report is not None else ()
    if findings:
        page.heading("Gate findings")
        page.html("".join(finding_html(f, report, links) for f in findings))
    page.heading("Where it is written")
    cited = found.cited.get(claim.id, []) if found else []
    where = f"<p>Defined at <code>{esc(claim.where)}</code>.</p>"
    if cited and report is not None:
        docs = report.policy.docs_dir.rstrip("/") + "/"
        items = "".join(
            f'<li><a href="{esc(links.to(ref.where.path.removeprefix(docs)))}"><code>{esc(ref.where)}</code></a></li>'
            for ref in cited
        )
        where += f"<p>Cited on:</p><ul>{items}</ul>"
    else:
        where += "<p>No hand-written page cites it.</p>"
    page.html(where)
    return page


def status_banner(verdict: ClaimVerdict, report: Report | None, links) -> str:
    """Retired: what retired it; lead: unverified; failing: the findings, as a banner."""
    claim = verdict.claim
    if claim.retired:
        by = ", ".join(claim_link(r, report, links) for r in claim.retired_by) or "nothing named"
        body = (
            f"<p>This claim is <strong>{esc(claim.status)}</strong> and is not a fact. "
            f"{esc(claim.status.capitalize())} by: {by}.</p>"
        )
        return admonition("danger", f"Retired: {claim.status}", body)
    if claim.status == "lead":
        return admonition(
            "warning",
            "Unverified lead",
            "<p>Kept as a lead: nothing here can check it. It is never shown as fact and "
            "never used as an input of another claim.</p>",
        )
    return page_banner(report.findings_for(claim.id), links) if report is not None else ""


def facts(verdict: ClaimVerdict) -> str:
    claim = verdict.claim
    rows = [("statement", esc(claim.statement) or "—")]
    value = f"<strong>{esc(stated(verdict))}</strong>" if claim.value is not None else "—"
    rows.append(("value", f"<del>{value}</del>" if claim.retired and claim.value is not None else value))
    if claim.states:  # what its source states, a bound or a range (with no value: shown as its value is)
        rows.append(("source states", esc(claim.states)))
    computed = verdict.value
    if computed is not None:
        verb = "evidence computes" if claim.kind == "measured" else "formula gives"
        rows.append((verb, esc(format_value(computed, verdict.unit))))
        noise = noise_text(verdict)
        if noise:
            rows.append(("interval", esc(noise)))
        if verdict.asserted is not None:
            rows.append(("asserts", esc(assert_text(verdict.asserted).removeprefix("asserts "))))
        if claim.value is not None:
            rows.append(("tolerance", esc(allowed_text(verdict.tolerance))))
    rows += [
        ("kind", claim_badges(verdict) if not claim.retired else badge(claim.kind, claim.kind)),
        ("status", badge(claim.status, "retired" if claim.retired else claim.status)),
        ("testbed", f"<code>{esc(claim.testbed)}</code>" if claim.testbed else "—"),
    ]
    if claim.note:
        rows.append(("note", esc(claim.note)))
    body = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    return f'<div class="ledger-facts"><table><tbody>{body}</tbody></table></div>'


def measured(verdict: ClaimVerdict, report: Report | None, links) -> str:
    claim = verdict.claim
    evidence = claim.evidence
    if evidence is None:
        return "<p>No evidence recorded.</p>"
    if report is None:  # a record alone: the run's path, the value and its interval
        where = ", ".join(f"{c} = {v}" for c, v in evidence.where) or "no filter"
        return (
            f"<p>Column <code>{esc(evidence.column)}</code> of <code>{esc(evidence.file)}</code>, row where "
            f"<code>{esc(where)}</code>, in run <code>{esc(evidence.run)}</code>.</p>" + interval_html(verdict)
        )
    run = report.runs.get(evidence.run)
    where = ", ".join(f"{c} = {v}" for c, v in evidence.where) or "no filter"
    head = (
        f"<p>Column <code>{esc(evidence.column)}</code> of <code>{esc(evidence.file)}</code>, "
        f"row where <code>{esc(where)}</code>, in run "
    )
    if run is None:
        return head + f"<code>{esc(evidence.run)}</code>, which does not exist.</p>"
    place = links.seen_from("run", CODE_PAGES)  # what follows links only to runs' pages and code files' pages
    shared = links.shared if links.shared is not None else Shared()
    # what claim pages show of a run is made once for every claim page citing it (its links read the same
    # from each: Links.seen_from): its link, its manifest's summary and probe line
    link, summary = shared.fragment("run", ("run", run.path, place), lambda: _run_shown(run, report, links))
    out = [head + link]
    table = run.tables.get(evidence.file)
    used = verdict.rows  # the rows the gate's `where` selected
    if table is not None and used:  # a claim page reading one row of a run's table shows the same row table
        named = (*(column for column, _ in evidence.where), evidence.column)  # what row_used reads of evidence
        key = ("row used", run.path, evidence.file, used, named)
        out.append(shared.fragment("run", key, lambda: row_used(table, used, evidence)))
    out.append(interval_html(verdict))
    out.append(summary)
    return "".join(out)


def _run_shown(run, report: Report, links) -> tuple[str, str]:
    """(the run's link with its testbed, its stability line, manifest summary and probe line) on a claim page."""
    hrefs = tuple(esc(links.run(run.path, anchor)) for anchor in MANIFEST_ANCHORS)
    return (
        run_link(run, links) + f" (testbed <code>{esc(run.testbed)}</code>).</p>",
        stability_line(run, report) + manifest_summary(run, hrefs) + probe_line(run, report, links),
    )


def probe_line(run, report: Report, links) -> str:
    """The probe's own file, one link from the claim (the page of its text), and the run page's list of
    every file the run hashes."""
    listed = f'<a href="{esc(links.run(run.path, "probe-source"))}">every code file the run hashes</a>'
    sha = dict(code_files(run)).get(run.probe)
    if sha is None:
        return f"<p>The probe's source: <code>{esc(run.probe)}</code>, not in the repository any more; {listed}.</p>"
    state = report.run_states.get(run.path)
    changed = state is not None and run.probe in dict(state.changed_code)
    note = "changed since the run: the text linked is today's" if changed else "unchanged since the run"
    text = esc(links.code(run.probe, sha))
    return f'<p>The probe\'s source: <a href="{text}"><code>{esc(run.probe)}</code></a> ({note}); {listed}.</p>'


def remeasure_command(verdict: ClaimVerdict, report: Report) -> str:
    """The `ledger measure` that writes a run this measured claim can cite ("" where its run is not held):
    its run's probe and testbed, its profile where not the default, and as many replicates as it pools."""
    evidence = verdict.claim.evidence
    run = report.runs.get(evidence.run) if evidence is not None else None
    if run is None:
        return ""
    words = ["ledger", "measure", run.probe_name, "--testbed", run.testbed]
    profile = run.parameters.get("profile")
    if isinstance(profile, str) and profile != "default":
        words += ["--profile", profile]
    if verdict.replicas is not None:
        words += ["--replicates", str(len(verdict.replicas.runs))]
    return " ".join(shlex.quote(word) for word in words)


def remeasure_html(verdict: ClaimVerdict, report: Report | None) -> str:
    """What re-measures the claim: a measured claim's own command; an extrapolated one's inputs'; a
    borrowed one's source."""
    claim = verdict.claim
    if claim.kind == "borrowed":
        return "<p>Nothing here measures it: read its source again (above).</p>"
    if report is None:
        return ""
    commands: list[str] = []
    seen: set[str] = set()
    waiting = [claim.id]
    while waiting:  # an extrapolated claim's inputs, down to the measured claims under them
        found = report.verdicts.get(waiting.pop(0))
        if found is None or found.claim.id in seen:
            continue
        seen.add(found.claim.id)
        if found.claim.kind == "measured":
            command = remeasure_command(found, report)
            if command and command not in commands:
                commands.append(command)
        elif found.claim.kind == "extrapolated":
            waiting += [target for _, target in found.claim.inputs]
    if not commands:
        return "<p>No run held here can be measured again for it.</p>"
    lead = "Run, in the repository:" if claim.kind == "measured" else "Its inputs are measured again by:"
    shown = "\n".join(esc(command) for command in commands)
    return f"<p>{lead}</p><pre><code>{shown}</code></pre><p>then <code>ledger refresh --write</code> moves the claim to the new run.</p>"


def stability_line(run, report: Report) -> str:
    """The cited run's stability, as the gate judged it (its page names every sign and the machine record)."""
    found = report.run_state(run.path).stability
    variant = "warning" if found.stable is False else "fresh" if found.stable else "asserted"
    return f"<p>The run's stability: {badge(stability_label(found), variant)} {esc(stability_detail(found))}.</p>"


def row_used(table: Table, used: tuple[int, ...], evidence) -> str:
    """The row(s) a claim reads, narrowed to the columns it names (the `where` columns and the
    value's), so the marked cell stays in the text column however wide the CSV is; a single row's
    other columns follow, folded, one per line."""
    named = {column for column, _ in evidence.where} | {evidence.column}
    keep = [column for column in table.columns if column in named]
    positions = [table.columns.index(column) for column in keep]
    rows = tuple(tuple(table.rows[i][p] for p in positions) for i in used)
    out = [
        "<p>The row used (the cell the value comes from is marked):</p>",
        table_html(Table(tuple(keep), rows), highlight={i: {evidence.column} for i in range(len(rows))}),
    ]
    if len(used) == 1 and len(keep) < len(table.columns):
        row = table.rows[used[0]]
        cells = Table(("column", "value"), tuple((c, row[i]) for i, c in enumerate(table.columns)))
        out.append(
            f'<details class="note"><summary>All {len(table.columns)} columns of the row</summary>'
            f'<div class="ledger-facts">{table_html(cells, highlight={table.columns.index(evidence.column): {"value"}})}'
            "</div></details>"
        )
    return "".join(out)


SHORT = 80  # characters: a manifest value longer than this is named on a claim page, shown on the run's


MANIFEST_ANCHORS = ("parameters", "environment", "data")  # the run page's sections a manifest summary links to


def manifest_summary(run, hrefs: tuple[str, ...]) -> str:
    """The manifest's short fields as a compact table; its long ones (texts, configurations) and the
    files' hashes are named and linked to the run's page, which shows them: a claim page does not grow
    with its run's manifest. hrefs: the run page's MANIFEST_ANCHORS, escaped, from the page showing it."""
    rows = [
        ("probe", f"<code>{esc(run.probe)}</code>"),
        ("testbed", esc(run.testbed)),
        ("started", esc(run.started)),
        ("finished", esc(run.finished)),
    ]
    named = []
    for label, noun, href, fields in (
        ("parameter", "parameter", hrefs[0], run.parameters),
        ("environment", "environment field", hrefs[1], run.environment),
    ):
        longer = []
        for name, value in fields.items():
            if len(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)) > SHORT:
                longer.append(f"<code>{esc(name)}</code>")
            else:
                rows.append((f"{label} {esc(name)}", code_value(value)))
        if longer:
            where = f'<a href="{href}">on the run\'s page</a>'
            named.append(f"{len(longer)} longer {noun}{'s' if len(longer) != 1 else ''} ({where}): {', '.join(longer)}")
    named.append(f'the sha256 of each file: <a href="{hrefs[2]}">on the run\'s page</a>')
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return (
        f'<details class="note"><summary>Manifest of {esc(run.name)}</summary>'
        f'<div class="ledger-facts"><table><tbody>{body}</tbody></table></div><p>{"; ".join(named)}.</p></details>'
    )


def extrapolated(verdict: ClaimVerdict, report: Report | None, links) -> str:
    claim = verdict.claim
    out = [f"<p>Formula: <code>{esc(claim.formula)}</code></p>"]
    rows = "".join(
        f"<tr><td><code>{esc(name)}</code></td><td>{claim_link(target, report, links)}</td></tr>"
        for name, target in claim.inputs
    )
    if rows:
        out.append(f"<table><thead><tr><th>name</th><th>claim</th></tr></thead><tbody>{rows}</tbody></table>")
    computed = verdict.value
    if computed is not None:
        out.append(
            f"<p>The formula gives <strong>{esc(format_value(computed, verdict.unit))}</strong>; "
            f"the claim states {esc(stated(verdict)) or 'no value'}.</p>"
        )
        out.append(interval_html(verdict))
    return "".join(out)


def interval_html(verdict: ClaimVerdict) -> str:
    """How the claim's interval was found, in words (the gate decided it: verdict.interval and its basis),
    then whether it includes run-to-run variation and where the next run should land."""
    return _interval_basis(verdict) + replicate_html(verdict)


REPLICATES_NAMED = 8  # a replicate set of up to this many runs is named run by run on the claim page


def replicate_html(verdict: ClaimVerdict) -> str:
    """One run's label (ONE_RUN), and the replicate set's prediction interval when its run has one."""
    out = [f"<p><strong>{esc(ONE_RUN[0].upper() + ONE_RUN[1:])}</strong>.</p>"] if verdict.one_run else []
    found, replicas = verdict.prediction, verdict.replicas
    if found is not None and replicas is not None:
        # a long set by its ends (the history lists the runs, the series' data holds every one): a page's
        # size does not grow with its history
        whole = len(replicas.runs) <= REPLICATES_NAMED
        paths = replicas.runs if whole else (replicas.runs[0], replicas.runs[-1])  # only the names shown
        runs = [f"<code>{esc(path.rsplit('/', 1)[-1])}</code>" for path in paths]
        names = ", ".join(runs) if whole else f"from {runs[0]} to {runs[-1]}"
        out.append(
            f"<p>The next run should land in {esc(range_text(found.low, found.high, verdict.unit))} "
            f"({esc(level_text(found.level))} prediction interval of its {found.runs} replicate runs: {names}"
            f"{esc(pooled_text(found))}).</p>"
        )
        shared = shared_text(verdict)
        if shared:
            out.append(f"<p>Its {esc(shared)}.</p>")
    return "".join(out)


def _interval_basis(verdict: ClaimVerdict) -> str:
    claim, found, missing = verdict.claim, verdict.interval, verdict.no_rounds
    if found is None and verdict.exact:
        if claim.kind == "measured":
            return "<p>Exact: computed from counts (no rounds, no min–max columns), so its value is its interval.</p>"
        return "<p>Exact: every input is exact (or borrowed, taken as stated), so neither has an interval.</p>"
    if found is None:
        if claim.kind == "measured":
            return f"<p>No raw rounds ({esc(missing)}) and no min–max columns: the value has no interval.</p>"
        return (
            "<p>No interval: an input has none (a timed value without raw rounds or a min–max range), or its "
            "inputs' intervals cannot be carried through the formula.</p>"
        )
    ends = esc(range_text(found.low, found.high, verdict.unit))
    level = esc(level_text(found.level)) or "an unknown share"
    if found.basis == "rounds":
        return (
            f"<p>Interval: {ends}, the median's order-statistic interval of its {counted(found.rounds, 'raw round')} "
            f"(covers the median with {level}).</p>"
        )
    if found.basis == "min-max":
        rounds = counted(found.rounds, "round") if found.rounds else "its rounds"
        return (
            f"<p>No raw rounds ({esc(missing)}): the interval {ends} is the row's min–max range over "
            f"{rounds}, which covers the median with {level}.</p>"
        )
    if found.basis == "replicates":
        prediction = verdict.prediction
        spread = "their spread" + (pooled_text(prediction).removeprefix(", their spread") if prediction else "")
        return (
            f"<p>Interval: {ends}, between runs: the confidence interval ({level}) of the value pooled over "
            f"{counted(found.runs, 'replicate run')} (the geometric mean of their values; Student's t over "
            f"{esc(spread)}, "
            "never narrower than one run's own rounds allow).</p>"
        )
    if found.basis == "paired":
        return (
            f"<p>Interval: {ends}, carried through the formula paired by round: the formula over each of the "
            f"{counted(found.rounds, 'round')} its inputs share in one run, then the median's interval ({level}).</p>"
        )
    return (
        f"<p>Interval: {ends}, carried through the formula by interval arithmetic over its inputs' intervals "
        f"(inputs without one count as exact); it covers the formula's value at the inputs' medians with at "
        f"least {level}.</p>"
    )


def borrowed(verdict: ClaimVerdict, report: Report | None, links) -> str:
    claim = verdict.claim
    out = []
    source = claim.source
    if source is not None:
        title = esc(source.title)
        if source.url.startswith(("https://", "http://")):
            title = f'<a href="{esc(source.url)}" rel="nofollow noopener">{title}</a>'
        extra = "; ".join(
            esc(x) for x in (source.locator, f"retrieved {source.retrieved}" if source.retrieved else "") if x
        )
        out.append(f"<p>Source: {title}{' (' + extra + ')' if extra else ''}</p>")
        if source.quote:
            out.append(f'<blockquote class="ledger-quote"><p>{esc(source.quote)}</p></blockquote>')
    if claim.checked_by:
        out.append(checks_html(verdict, report, links))
    elif claim.status == "asserted":
        out.append("<p>Nothing here checks it.</p>")
    return "".join(out)


def lineage_html(verdict: ClaimVerdict, report: Report | None, links, down: list) -> str:
    """Edges up (what the claim names) and down (claims that name it), and the formula's reach."""
    claim = verdict.claim
    by_id = report.by_id if report is not None else {claim.id: claim}
    up = lineage.upstream(claim.id, by_id)
    if not up and not down:
        return "<p>No other claim names this one, and it names none.</p>"
    out = []
    if up:
        items = "".join(f"<li>{UP[e.relation]} {claim_link(e.target_id, report, links)}</li>" for e in up)
        out.append(f'<p>Upstream (what it rests on):</p><ul class="ledger-lineage">{items}</ul>')
    if down:
        items = "".join(f"<li>{DOWN[e.relation]} {claim_link(e.claim_id, report, links)}</li>" for e in down)
        out.append(f'<p>Downstream (what rests on it):</p><ul class="ledger-lineage">{items}</ul>')
    closure = lineage.input_closure(claim.id, by_id)
    if len(closure) > len(claim.inputs):
        chain = ", ".join(claim_link(c, report, links) for c in closure)
        out.append(f"<p>All claims its formula reaches: {chain}</p>")
    return "".join(out)


VERDICT = {True: ("holds", "agrees"), False: ("does not hold", "failing"), None: ("not judged", "lead")}


def checks_html(verdict: ClaimVerdict, report: Report | None, links) -> str:
    """Each check: the checking claim, its testbed, the relation and its strength, both values in one unit, the verdict."""
    claim = verdict.claim
    results = {result.claim_id: result for result in verdict.checks}
    rows = []
    for spec in claim.checks:
        check = report.claim(spec.claim_id) if report is not None else None
        result = results.get(spec.claim_id)
        if result is None:
            label, variant = "not judged", "lead"
            relation, claimed, found, why, strength = spec.expects or "the same quantity", stated(verdict), "", "", ""
        else:  # inconclusive is a verdict shown where a strength is: its why says what would settle it
            relation, claimed, found, why, strength = (
                result.relation,
                result.claimed,
                result.found,
                result.why,
                result.strength,
            )
            label, variant = ("inconclusive", INCONCLUSIVE) if strength == INCONCLUSIVE else VERDICT[result.holds]
        rows.append(
            f"<tr><td>{claim_link(spec.claim_id, report, links)}</td>"
            f"<td>{esc(check.testbed if check else '')}</td><td>{esc(relation)}</td>"
            f"<td>{badge(SHOWN[strength], strength) if strength else ''}</td>"
            f'<td style="text-align: right">{esc(claimed)}</td><td style="text-align: right">{esc(found)}</td>'
            f"<td>{badge(label, variant)}{' ' + esc(why) if why else ''}</td></tr>"
        )
    return (
        "<p>Checked here by (a check is a comparison: the relation it must satisfy, both values in one unit; "
        "only a check that <em>agrees</em> supports the number, a <em>bounded</em> one puts it on one side, "
        "a <em>direction only</em> one supports a sign; an <em>inconclusive</em> one, whose interval reaches past "
        "the band it is judged with, supports nothing):</p>"
        "<table><thead><tr><th>check</th><th>testbed</th><th>relation</th><th>strength</th><th>this claim</th>"
        f"<th>the check</th><th>verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
