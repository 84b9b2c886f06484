"""A measurement run's page: Run + Report -> its stability and machine record, environment, parameters, data
preview, which code it ran.

A code file's highlighted text is shown once per version of it (code_pages(): one page per digest of
its path and text, trust/digest.py), linked from each run page whose manifest hashes it: a 1 MB
highlighted probe was on every run of it. verify-site holds each shown file to the repository's text."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import JsonLexer, PythonLexer, TextLexer

from .. import machine
from ..records import Claim, Report, Run, RunState
from ..trust.digest import code_files, code_versions
from ..trust.verdicts import revision_text, sign_texts, stability_detail, stability_label
from .render import Generated, Links, Shared, admonition, badge, claim_link, code_value, esc, run_link
from .tables import table_html

PREVIEW_ROWS = 20


def build(page, run: Run, report: Report, sources: Mapping[str, str], cited: list[Claim]):
    """Fill a report_pages.Page for one run (cited: the claims whose evidence cites it, citing()'s)."""
    links = page.links
    state = report.run_state(run.path)
    problems = state.reasons
    items = "".join(f"<li>{esc(p)}</li>" for p in problems)
    if problems and state.older_code and not state.too_old and not cited:
        page.html(  # history, not a failure: its data is what was measured, with the code of its day
            admonition(
                "note",
                "Measured with older code",
                f"<ul>{items}</ul><p>The data is intact and nothing cites it, so it stays as history; a "
                "claim that cited it would fail the gate (probe-changed).</p>",
            )
        )
    elif problems:
        page.html(
            admonition(
                "failure",
                "This run's data cannot be trusted as it stands",
                f"<ul>{items}</ul><p>Claims that cite it fail the gate; rerun "
                f"<code>ledger measure {esc(run.probe_name)}</code>.</p>",
            )
        )
    page.html(facts(run))
    page.heading("The machine while it ran")
    page.html(machine_html(run, state))
    page.heading("Claims from this run")
    page.html(
        "<ul>" + "".join(f"<li>{claim_link(c.id, report, links)}</li>" for c in cited) + "</ul>"
        if cited
        else "<p>No claim cites this run.</p>"
    )
    page.heading("Parameters")
    page.html(mapping_table(run.parameters))
    page.heading("Environment")
    page.html(mapping_table(run.environment))
    page.heading("Data")
    for name in sorted(run.declared_files):
        page.html(data_file(run, name, state))
    page.heading("Probe source")
    page.html(probe_source(run, state, links))
    page.heading("Manifest")
    manifest = sources.get(run.source.path)
    page.html(
        f"<p><code>{esc(run.source.path)}</code></p>"
        + (code(manifest, "json", links.shared) if manifest is not None else "<p>Not readable.</p>")
    )
    return page


def citing(report: Report) -> dict[str, list[Claim]]:
    """Run path -> the claims whose evidence cites it, in the report's order (found once, not once a run)."""
    found: dict[str, list[Claim]] = {}
    for claim in report.claims:
        if claim.evidence:
            found.setdefault(claim.evidence.run, []).append(claim)
    return found


def facts(run: Run) -> str:
    duration = ""
    if run.started and run.finished:
        duration = f"{(run.finished - run.started).total_seconds():,.0f} s"
    rows = [
        ("probe", f"<code>{esc(run.probe)}</code>"),
        ("testbed", f"<code>{esc(run.testbed)}</code>"),
        ("started", esc(run.started or "unknown")),
        ("finished", esc(run.finished or "unknown")),
        ("duration", esc(duration or "unknown")),
        ("measured at", esc(revision_text(run))),
        ("folder", f"<code>{esc(run.path)}</code>"),
    ]
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<div class="ledger-facts"><table><tbody>{body}</tbody></table></div>'


def machine_html(run: Run, state: RunState) -> str:
    """The run's stability verdict (a warning naming each sign when it is unstable) and its machine record,
    field by field with what each means; "not recorded" for a run `ledger measure` did not make."""
    found = state.stability
    if found.stable is False:
        signs = "".join(f"<li>{esc(sign)}</li>" for sign in sign_texts(found))
        verdict = admonition(
            "warning",
            "Unstable: its numbers may move on a re-run",
            f"<ul>{signs}</ul><p>Measure it again on a quieter machine (or with more rounds), or cite replicate "
            "runs: their spread shows the noise one run hides.</p>",
        )
    else:
        variant = "fresh" if found.stable else "asserted"
        verdict = f"<p>{badge(stability_label(found), variant)} {esc(stability_detail(found))}.</p>"
    if run.machine is None:  # the verdict's words say so, but for an unstable run's list of signs
        said = found.stable is False
        return verdict + (
            "<p>Machine not recorded: the run was not made by <code>ledger measure</code>.</p>" if said else ""
        )
    rows = "".join(
        f"<tr><th><code>{esc(name)}</code></th><td>{_recorded(run.machine.get(name))}</td><td>{esc(meaning)}</td></tr>"
        for name, _, meaning in machine.FIELDS
    )
    return verdict + f'<div class="ledger-facts"><table><tbody>{rows}</tbody></table></div>'


def _recorded(value: object) -> str:
    return "<em>not readable</em>" if value is None else code_value(value)


def mapping_table(values: Mapping[str, object]) -> str:
    if not values:
        return "<p>None recorded.</p>"
    rows = "".join(f"<tr><th><code>{esc(k)}</code></th><td>{_value(v)}</td></tr>" for k, v in values.items())
    return f'<div class="ledger-facts"><table><tbody>{rows}</tbody></table></div>'


def _value(value: object) -> str:
    """A parameter's or the environment's value as code: whole when it is a name, wrapping at spaces when text."""
    return code_value(json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value)


def data_file(run: Run, name: str, verdict: RunState) -> str:
    declared = run.declared_files.get(name, "")
    kind = next((change.kind for change in verdict.changed_files if change.name == name), None)
    if kind is None:
        state = badge("hash matches", "fresh")
    elif kind == "missing":
        state = badge("missing", "failing")
    else:
        state = badge("differs from the manifest", "failing")
    head = f'<p class="ledger-file"><code>{esc(name)}</code> {state} <small>sha256 {esc(declared[:16])}…</small></p>'
    if name in run.attachments:
        return (
            head
            + "<p>The benchmark tool's own export, kept as the tool wrote it: the run's tables were made from it.</p>"
        )
    table = run.tables.get(name)
    if table is None:
        return head
    if table.problem:
        return head + f"<p>{esc(name)} {esc(table.problem)}</p>"
    return head + table_html(table, max_rows=PREVIEW_ROWS)  # as html_table(frame_of(table)) shows it


def probe_source(run: Run, verdict: RunState, links: Links) -> str:
    """Each code file the run's manifest hashes: whether it changed since the run, the digest the manifest
    gives, and a link to its text on the page of that version of the file (code_pages())."""
    # the section's heading "Probe source" is the #probe-source anchor
    changed_code = dict(verdict.changed_code)
    shown = dict(code_files(run))
    rows = []
    for path in sorted(run.declared_code, key=lambda p: (p != run.probe, p)):
        state = (
            badge("changed since the run", "failing") + " <small>the text linked is today's, not the one that "
            "produced this data</small>"
            if path in changed_code
            else badge("unchanged since the run", "fresh")
        )
        where = (
            f'<a class="ledger-code-link" href="{esc(links.code(path, shown[path]))}">its text</a>'
            if path in shown
            else "not in the repository any more"
        )
        rows.append(
            f"<tr><th><code>{esc(path)}</code></th><td>{state}</td>"
            f"<td><small>sha256 {esc(run.declared_code[path][:16])}…</small></td><td>{where}</td></tr>"
        )
    return (
        "<p>The code this run ran, as its manifest hashes it; each file's text, as the repository holds it now, "
        "is one link away (shown once for every run of the same file).</p>"
        f'<div class="ledger-facts"><table><tbody>{"".join(rows)}</tbody></table></div>'
    )


def code_srcs(report: Report) -> list[str]:
    """Where code_pages() puts its pages, in its order, without making them."""
    return [page + ".md" for page, _, _ in code_versions(report.runs.values())]


def code_pages(page_of, report: Report, sources: Mapping[str, str], directory_urls: bool = True) -> Iterator[Generated]:
    """One page per version of a code file that a run's manifest hashes (page_of: report_pages.Page): its text,
    highlighted, and the runs that link to it."""
    runs = sorted(report.runs.values(), key=lambda r: r.path)
    for page_path, path, sha in code_versions(runs):
        page = page_of(page_path + ".md", path.rsplit("/", 1)[-1], directory_urls)
        items = "".join(f"<li>{run_link(run, page.links)}</li>" for run in runs if (path, sha) in code_files(run))
        text = sources.get(path)
        language = "python" if path.endswith(".py") else "text"
        shown = (
            f'<div class="ledger-code" data-ledger-code="{esc(path)}">{code(text, language, page.links.shared)}</div>'
            if text is not None
            else "<p>Not shown: not UTF-8 text within 16 MiB.</p>"
        )
        page.html(
            f"<p><code>{esc(path)}</code> as the repository holds it now (sha256 <code>{esc(sha[:16])}…</code>): "
            "code of the runs listed, each of whose pages says whether it changed since that run.</p>"
            f'<details class="note"><summary>The runs</summary><ul>{items}</ul></details>{shown}'
        )
        yield page.done(in_nav=False)


def code(text: str, language: str, shared: Shared | None = None) -> str:
    """Highlighted source in Material's code block markup. A lexer or formatter keeps no state between
    texts: each is made once a build (shared: the build's; a formatter makes its stylesheet, a sixth of
    highlighting a run's manifest) and keeps its span of each token type."""
    tools = _tools(language) if shared is None else shared.fragment("highlight", language, lambda: _tools(language))
    return highlight(text, *tools)


def _tools(language: str) -> tuple[Lexer, HtmlFormatter]:
    lexer = {"python": PythonLexer, "json": JsonLexer}.get(language, TextLexer)()
    return lexer, HtmlFormatter(cssclass="highlight", wrapcode=True)
