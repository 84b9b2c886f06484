"""The site: generated pages, inline claims, tables and charts, escaping, and the gate in the build.

Most tests read one site built once (helpers_site.built_site) from a temporary ledger with every
kind and status of claim; the rest build small sites of their own.
"""

import itertools
import json
import os
import posixpath
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import altair as alt
import pandas as pd
import pytest
from helpers import REPO, a_run, run_ledger, run_mkdocs, verdict_of, write_tree
from helpers_site import REPORT, a_ledger, article, read
from mkdocs.utils import get_relative_url

from generator.inputs.config import DEFAULTS
from generator.lang.rows import Table
from generator.records import Claim, Report, Run, RunState, Source
from generator.runs import sha256_file
from generator.site import charts, figure_api, render, tables
from generator.site.report_pages import md_text

ENV = {**os.environ, "PYTHONPATH": str(REPO)}

pytestmark = pytest.mark.site

# -- pure pieces ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, whole, expected",
    [
        (1048576, False, "1,048,576"),
        (3.0, True, "3"),
        (31.287233883739436, False, "31.29"),
        (0.00123456, False, "0.001235"),
        (float("nan"), False, "—"),
        (True, False, "true"),
        (None, False, "—"),
    ],
)
def test_table_numbers_have_sensible_precision(value, whole, expected):
    assert tables.number(value, whole) == expected


def test_table_puts_units_in_headers_right_aligns_numbers_and_escapes_text():
    frame = pd.DataFrame({"op": ["<b>read</b>"], "gb_per_s": [12.3456], "rounds": [7]})
    frame.attrs["units"] = {"gb_per_s": "GB/s"}
    html = tables.html_table(frame)
    assert '<th style="text-align: right">gb_per_s <span class="ledger-unit">(GB/s)</span></th>' in html
    assert (
        '<td style="text-align: right" data-ledger-column="gb_per_s">12.35</td>'
        '<td style="text-align: right" data-ledger-column="rounds">7</td>'
    ) in html
    assert "&lt;b&gt;read&lt;/b&gt;" in html and "<b>" not in html


def test_run_csv_becomes_typed_frame():
    frame = tables.frame_of(Table(("batch", "ms", "ok", "op"), (("1", "0.5", "true", "a"), ("16", "2", "false", "b"))))
    assert [str(t) for t in frame.dtypes][:3] == ["int64", "float64", "bool"]
    assert list(frame["op"]) == ["a", "b"]


@pytest.mark.parametrize(
    "src, here, expected",
    [
        ("claim/a.md", "", "claim/a/"),
        ("claim/a.md", "claims/", "../claim/a/"),
        ("run/toy/r1.md", "claim/a/", "../../run/toy/r1/"),
        ("claims/index.md", "claims/", "./"),
        ("gate/index.md", "run/toy/r1/", "../../../gate/"),
    ],
)
def test_links_are_relative_to_the_page(src, here, expected):
    assert render.Links(here).to(src) == expected


def test_links_shared_by_the_pages_of_a_place_are_each_pages_own():
    """Links kept for a place (depth and first folder) and read by another page there: each page's link as
    mkdocs finds it from that page, whichever page asked first."""
    srcs = ["claim/a.md", "claim/b.md", "claim/a/x.md", "claims/index.md", "run/toy/r1.md", "run/toy/r2.md"]
    srcs += ["index.md", "assets/ledger/x.css", "code/p.py/1.md", "claim/v1.2.md", "a/../claim/b.md", "x//y.md"]
    heres = ["", ".", "claim/a/", "claim/b/", "claim/c/", "claim/a.html", "claims/", "run/toy/r1/", "run/toy/r2/"]
    heres += ["run/other/r1/", "claim/v1.2/", "a/b/../c/", "//x/", "code/p.py/1/", "claim/a/x/"]
    for directory_urls in (True, False):
        for order in (heres, heres[::-1]):
            for here in order:
                links = render.Links(here, directory_urls)
                for src in srcs if order is heres else srcs[::-1]:
                    url = render.url_of(src, directory_urls)
                    expected = get_relative_url(url or ".", here or ".")
                    if expected in ("", "."):
                        expected = "./"
                    elif (not url or url.endswith("/")) and not expected.endswith("/"):
                        expected += "/"
                    assert links.to(src) == expected, (src, here, directory_urls)
                    assert links.to(src, "top") == expected + "#top"


def test_pages_seen_from_alike_link_alike_into_those_folders():
    """HTML kept under Links.seen_from(folders) is shared by the pages that give the same key: each of them
    links to every page in those folders as the others do."""
    from generator.site.markdown_ext import RootLinks

    srcs = [
        "run/toy/r1.md",
        "run/x/r2.md",
        "code/abc.md",
        "claim/a.md",
        "claim/b.md",
        "assets/ledger/s.csv",
        "index.md",
    ]
    heres = [
        "",
        "index.html",
        "claim/a/",
        "claim/b/",
        "claim/a.html",
        "run/toy/r1/",
        "run/toy/r2/",
        "claims/",
        "x/y/z/",
    ]
    pages = [render.Links(here, urls) for here in heres for urls in (True, False)]
    pages += [RootLinks("", urls, base) for urls in (True, False) for base in ("/", "/docs/")]
    for folders in (("run",), ("run", "code"), ("claim",), ("assets",)):
        into = [src for src in srcs if src.split("/", 1)[0] in folders]
        for one in pages:
            for other in pages:
                if one.seen_from(*folders) == other.seen_from(*folders):
                    assert [one.to(src, "a") for src in into] == [other.to(src, "a") for src in into], (one, other)
    assert render.Links("claim/a/").seen_from("run") == render.Links("claim/b/").seen_from("run")  # shared


@pytest.mark.parametrize(
    "url", ["run/toy/r1/", "claim/a/", "claim/a.html", "", ".", "./x/", "a/../b/", "/abs/", "x//y"]
)
@pytest.mark.parametrize("here", ["", ".", "claim/a/", "claim/a.html", "claim/v1.2/", "claims/", "a/b/../c/", "//x/"])
def test_relative_urls_are_mkdocs_own(url, here):
    assert render.relative_url(url, here) == get_relative_url(url, here)


def test_a_paths_parts_are_normpaths_own_for_every_short_path():
    """path_parts skips posixpath.normpath for a path with no '.' and no '//': the same parts for every path of
    up to six of these characters."""
    for size in range(7):
        for letters in itertools.product(["a", "/", "b", ".", "x"], repeat=size):
            path = "".join(letters)
            normal = posixpath.normpath(path if path.startswith("/") else "/" + path)[1:]
            assert render.path_parts(path) == (tuple(normal.split("/")) if normal else ()), path


CELLS = ["1", "-2", "+3", "0.5", "1e5", "", " 4 ", "nan", "inf", "-Infinity", "true", "false", "a b", "1,000"]
CELLS += ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e400", "\t5\n", "١٢", " ", "-0"]
CELLS += ["1.2.3", "e5", "+", "1e", "-.5", ".5E-3", "5.", "1e+5", "--1", "1_0", "1e19", "-9.3e18"]  # plain characters
CELLS += ["999999999999999999", "9999999999999999999", "12345678901234567.8", "-99999999999999999", "²", "0x1"]


@pytest.mark.parametrize("first", CELLS)
@pytest.mark.parametrize("second", ["7", "2.5", "", "x", "9223372036854775808", "true"])
def test_a_run_table_shows_as_its_dataframe_would(first, second):
    table = Table(("x", "y", "note"), ((first, "1", "a statement longer than thirty characters"), (second, "2", "b")))
    for shown, highlight in ((None, {0: {"x"}}), (1, {1: {"x", "y"}}), (None, None), (1, None)):
        expected = tables.html_table(tables.frame_of(table), max_rows=shown, highlight=highlight)
        assert tables.table_html(table, max_rows=shown, highlight=highlight) == expected


def test_the_generated_pages_import_no_pandas(tmp_path):  # a claim page's row table needs no DataFrame
    code = "import sys, generator.site.report_pages\nprint(sorted(m for m in ('pandas', 'numpy') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=ENV)
    assert done.stdout == "[]\n", done.stderr


def test_slots_keep_markdown_away_from_our_html():
    slots = render.Slots()
    inline, block = slots.add("<a>*x*</a>"), slots.add("<figure>f</figure>")
    assert slots.fill(f"<p>see {inline}.</p>\n<p>{block}</p>") == "<p>see <a>*x*</a>.</p>\n<figure>f</figure>"
    assert md_text("a_b *c* [d](e) <f>") == r"a\_b \*c\* \[d\]\(e\) \<f\>"


def test_chart_json_cannot_close_its_script_tag():
    assert charts.script_json({"t": "</script><b>&"}) == '{"t":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}'


def test_retired_and_lead_claims_never_render_as_fact():
    links = render.Links("")
    refuted = Claim(
        "old",
        "borrowed",
        Source("c.yaml", 1),
        value=1.0,
        value_text="1.0",
        unit="×",
        status="refuted",
        retired_by=("new",),
    )
    lead = Claim("hub", "borrowed", Source("c.yaml", 9), value=97, value_text="97", unit="%", status="lead")
    assert (
        '<span class="ledger-value"><del>1.0×</del></span><span class="ledger-badge ledger-badge--retired">'
        "refuted</span>" in render.claim_inline(verdict_of(refuted), links)
    )
    shown = render.claim_inline(verdict_of(lead), links)
    assert "unverified lead" in shown and "borrowed</span>" not in shown


def figure_report(rows_by_run: dict[str, list[dict]]) -> Report:
    runs = {}
    for path, rows in rows_by_run.items():
        started = datetime(2026, 1, int(path[-1]), tzinfo=timezone.utc)
        testbed = "mac" if "mac" in path else "linux-cpu"
        table = Table(tuple(rows[0]), tuple(tuple(str(v) for v in r.values()) for r in rows))
        runs[path] = Run(
            path,
            Source(path + "/manifest.json", 0),
            probe="probes/bw.py",
            testbed=testbed,
            started=started,
            finished=started,
            tables={"results.csv": table},
        )
    return Report(
        claims=(), runs=runs, findings=(), verdicts={}, policy=DEFAULTS, run_states=dict.fromkeys(runs, RunState())
    )


def test_data_takes_the_latest_run_per_testbed_and_records_it():
    report = figure_report(
        {
            "measurements/bw/linux-1": [{"x": 1}],
            "measurements/bw/linux-2": [{"x": 2}],
            "measurements/bw/mac-3": [{"x": 3}],
        }
    )
    data = figure_api.Data(report)
    frame = data.frame("bw")
    assert list(frame["x"]) == [2, 3] and list(frame["testbed"]) == ["linux-cpu", "mac"]
    assert [run.path for run in data.used.runs] == ["measurements/bw/linux-2", "measurements/bw/mac-3"]
    assert data.used.kinds == ["measured"] and data.used.testbeds == ["linux-cpu", "mac"]


def test_data_cited_takes_the_newest_run_a_claim_cites_per_testbed_not_a_newer_uncited_one():
    import dataclasses

    from generator.records import Evidence

    report = figure_report(
        {
            "measurements/bw/linux-1": [{"x": 1}],
            "measurements/bw/linux-2": [{"x": 2}],  # newer, cited by no claim (replicates of another CPU, say)
            "measurements/bw/mac-3": [{"x": 3}],
        }
    )
    cites = [
        Claim(f"c{n}", "measured", Source("c.yaml", n), value=n, value_text=str(n), unit="GB/s",
              evidence=Evidence(run=run, file="results.csv", where={}, column="x"))
        for n, run in ((1, "measurements/bw/linux-1"), (3, "measurements/bw/mac-3"))
    ]  # fmt: skip
    report = dataclasses.replace(report, claims=tuple(cites))
    data = figure_api.Data(report)
    assert list(data.frame("bw")["x"]) == [2, 3]  # the newest per testbed
    cited = figure_api.Data(report)
    assert list(cited.frame("bw", cited=True)["x"]) == [1, 3]
    assert [run.path for run in cited.used.runs] == ["measurements/bw/linux-1", "measurements/bw/mac-3"]
    assert cited.used.claims == ()  # reading the claims' runs does not make the figure cite the claims


def test_data_gives_a_figure_the_interval_the_gate_decided_for_a_claim_and_records_the_claim():
    import dataclasses

    from generator.records import ClaimInterval

    between = ClaimInterval(43.8, 51.5, 0.99, "replicates", rounds=120, runs=3)
    judged = Claim("p90", "measured", Source("c.yaml", 1), value=47.5, value_text="47.5", unit="ms")
    bare = Claim("bare", "borrowed", Source("c.yaml", 9), value=3.0, value_text="3", unit="ms")
    report = dataclasses.replace(
        figure_report({"measurements/bw/linux-1": [{"x": 1}]}),
        claims=(judged, bare),
        verdicts={"p90": verdict_of(judged, interval=between), "bare": verdict_of(bare)},
    )
    data = figure_api.Data(report)
    assert data.interval("p90") == between  # what the claim's badge shows on hover, as decided once
    assert data.interval("bare") is None
    assert data.used.claims == (judged, bare)  # the caption names the claims a figure judged by
    with pytest.raises(figure_api.FigureError, match="no claim 'nope'"):
        data.interval("nope")


def test_figure_that_asks_for_missing_data_or_returns_the_wrong_thing_says_where():
    report = figure_report({"measurements/bw/linux-1": [{"x": 1}]})
    where = Source("figures/f.py", 4)
    missing = figure_api.draw(figure_api.Figure("chart", "c", lambda d: d.frame("nope"), where, "t"), report)
    assert missing.error == (
        "figures/f.py:4: chart 'c': no run of probe 'nope' under measurements/ (probes with runs: bw)"
    )
    wrong = figure_api.draw(figure_api.Figure("table", "t", lambda d: [1], where, "t"), report)
    assert wrong.error == "figures/f.py:4: table 't': returned list; a table returns a pandas DataFrame"
    chart = figure_api.draw(
        figure_api.Figure("chart", "c", lambda d: alt.Chart(d.frame("bw")).mark_point().encode(x="x:Q"), where, "t"),
        report,
    )
    assert chart.error == "" and chart.result["mark"] == {"type": "point"}


# -- the built site ------------------------------------------------------------------------------


def test_inline_claim_shows_value_kind_badge_and_links_to_its_page(built_site):
    page = article(built_site, "")
    assert (
        '<a class="ledger-claim ledger-claim--measured ledger-claim--asserted" href="claim/moe-speedup-b16/" '
        'title="MoE expert reads get faster per token at B=16 than at B=1 — exact; testbed linux-cpu; '
        'measured, asserted" data-claim="moe-speedup-b16"><span class="ledger-value">3.59×</span>'
        '<span class="ledger-badge ledger-badge--measured">measured</span></a>'
    ) in page
    assert (
        '<span class="ledger-value">3.6×</span><span class="ledger-badge ledger-badge--extrapolated">'
        "extrapolated</span>"
    ) in page
    assert (
        '<span class="ledger-badge ledger-badge--borrowed">borrowed</span>'
        '<span class="ledger-badge ledger-badge--agrees">agrees</span>'
    ) in page
    assert ">checked<" not in page  # a badge says how far its check reaches


def test_retired_claim_is_struck_through_and_a_lead_is_unverified(built_site):
    page = article(built_site, "")
    assert (
        'href="claim/batching-not-worth-it/" title="Batching saves nothing on this machine — testbed '
        'apple-m1-max; borrowed, refuted" data-claim="batching-not-worth-it"><span class="ledger-value">'
        '<del>1.0×</del></span><span class="ledger-badge ledger-badge--retired">refuted</span></a>'
    ) in page
    assert (
        '<span class="ledger-value">97%</span><span class="ledger-badge ledger-badge--lead">unverified lead</span></a>'
    ) in page


def test_claim_text_is_escaped_data_everywhere(built_site):
    escaped = (
        "Danger &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; {{ claim(&quot;moe-speedup-b16&quot;) }} "
        "{% if 1 %}yes{% endif %} *em* __strong__ [link](https://example.com) `code` &amp; "
        "&lt;b&gt;bold&lt;/b&gt;"
    )
    claim_page = article(built_site, "claim/m1max-moe-speedup-b16")
    assert f"<tr><th>statement</th><td>{escaped}</td></tr>" in claim_page
    assert "What is batching &lt;i&gt;actually&lt;/i&gt; saving?" in claim_page
    assert "MoE coverage &lt;script&gt;x&lt;/script&gt; 3.59x" in claim_page
    for html_file in built_site.rglob("*.html"):
        text = html_file.read_text(encoding="utf-8")
        assert '<script>alert("x")' not in text and "<script>x</script>" not in text, html_file
        assert "<em>em</em>" not in text and 'href="https://example.com"' not in text, html_file
        assert 'href="javascript:' not in text, html_file
    assert escaped in article(built_site, "claims")


def test_claim_page_shows_evidence_rows_manifest_lineage_and_citing_pages(built_site):
    page = article(built_site, "claim/moe-speedup-b16")
    run = next((built_site / "run/toy").iterdir()).name
    assert f'<a class="ledger-run" href="../../run/toy/{run}/"><code>toy/{run}</code></a>' in page
    assert (
        '<tr class="ledger-used-row"><td style="text-align: right" data-ledger-column="batch">16</td>'
        '<td style="text-align: right" data-ledger-column="speedup" class="ledger-used">3.6</td>'
    ) in page
    # the row narrowed to the columns the claim names; the rest of it folded, one column per line
    used, folded = page.split("<summary>All 3 columns of the row</summary>")
    assert "byte_ratio" not in used.split("The row used")[1]
    assert "<tr><td>byte_ratio</td><td " in folded.split("</details>")[0] and ">1.8</td></tr>" in folded
    assert f"<summary>Manifest of {run}</summary>" in page
    assert f'href="../../run/toy/{run}/#probe-source">every code file the run hashes</a>' in page
    # the probe's own file is one link away: the page of its text, which the build wrote
    text = re.search(
        r'The probe\'s source: <a href="\.\./\.\./(code/[0-9a-f]{16}/)"><code>probes/toy.py</code></a>', page
    )
    assert text and "(unchanged since the run)" in page
    assert "probes/toy.py" in (built_site / text.group(1) / "index.html").read_text(encoding="utf-8")
    assert f'sha256 of each file: <a href="../../run/toy/{run}/#data">' in page
    assert 'checks <a class="ledger-claim-id" href="../m1max-moe-speedup-b16/"' in page
    assert 'retired <a class="ledger-claim-id" href="../batching-not-worth-it/"' in page
    assert '<a href="../../"><code>docs/index.md:3:16</code></a>' in page


def test_extrapolated_and_borrowed_pages_show_formula_inputs_and_checks_side_by_side(built_site):
    predicted = article(built_site, "claim/moe-speedup-predicted-b16")
    assert "<p>Formula: <code>byte_ratio * 2</code></p>" in predicted
    assert 'uses as input <a class="ledger-claim-id" href="../byte-ratio-b16/"' in predicted
    assert "The formula gives <strong>3.6×</strong>" in predicted
    borrowed = article(built_site, "claim/m1max-moe-speedup-b16")
    assert "<th>relation</th><th>strength</th><th>this claim</th><th>the check</th><th>verdict</th>" in borrowed
    assert (
        '<td>within 1.05× of the claim</td><td><span class="ledger-badge ledger-badge--agrees">agrees</span></td>'
    ) in borrowed
    assert '<td style="text-align: right">3.59×</td><td style="text-align: right">3.6×</td>' in borrowed
    assert '<span class="ledger-badge ledger-badge--agrees">holds</span>' in borrowed
    assert 'href="javascript' not in borrowed


def test_retired_claim_page_names_what_retired_it(built_site):
    page = article(built_site, "claim/batching-not-worth-it")
    assert '<div class="admonition danger"><p class="admonition-title">Retired: refuted</p>' in page
    fell = article(built_site, "claims/fell")
    assert '<a class="ledger-claim-id" href="../../claim/batching-not-worth-it/"' in fell
    assert '<td><a class="ledger-claim-id" href="../../claim/moe-speedup-b16/"' in fell


def test_claims_index_counts_kinds_and_offers_filters(built_site):
    page = article(built_site, "claims")
    stats = dict(
        (label, int(n))
        for n, label in re.findall(r'ledger-stat-number">(\d+)</span><span class="ledger-stat-label">([^<]+)<', page)
    )
    assert stats == {
        "measured": 2,
        "extrapolated": 1,
        "borrowed, a check agrees": 1,
        "retired": 1,
        "unverified leads": 1,
        "borrowed, no check agrees": 0,
    }
    assert (
        '<tr data-kind="borrowed" data-status="refuted" data-check="none" data-testbed="apple-m1-max" '
        'data-freshness="fresh">'
    ) in page
    assert '<tr data-kind="borrowed" data-status="asserted" data-check="agrees" data-testbed="apple-m1-max"' in page
    for name in ("kind", "status", "check", "testbed", "freshness"):
        assert f'<select data-filter="{name}">' in page
    assert page.count('href="../claim/') == 6


def test_run_page_shows_environment_parameters_data_and_probe_source(built_site):
    run = next((built_site / "run/bandwidth").iterdir()).name
    page = article(built_site, f"run/bandwidth/{run}")
    assert "<tr><th><code>rounds</code></th><td><code>3</code></td></tr>" in page  # a value stays whole
    assert "<tr><th><code>backend</code></th><td><code>cpu</code></td></tr>" in page
    assert '<th style="text-align: right">size_mib</th>' in page and "<td>copy</td>" in page
    assert "First 20 of" not in page  # 12 rows: all shown
    assert "unchanged since the run" in page and "stand-in probe" not in page  # its text: one link away
    code = re.search(r'<a class="ledger-code-link" href="\.\./\.\./\.\./(code/[0-9a-f]{16})/">its text</a>', page)
    assert "stand-in probe" in article(built_site, code.group(1))
    index = article(built_site, "measurements")
    assert f'href="../run/bandwidth/{run}/"' in index


def test_chart_embeds_its_spec_ships_vega_and_an_svg_and_names_its_runs(built_site):
    page = read(built_site, "")
    spec = json.loads(re.search(r'class="ledger-chart-spec">(.*?)</script>', page).group(1))
    assert spec["mark"] == {"type": "line", "point": True} and spec["width"] == "container"
    assert len(next(iter(spec["datasets"].values()))) == 12
    assert '<img class="ledger-chart-fallback" src="assets/ledger/charts/bandwidth-sweep.svg"' in page
    assert (built_site / "assets/ledger/charts/bandwidth-sweep.svg").read_text().startswith("<svg")
    assert "vegaEmbed" in (built_site / "assets/ledger/vega.js").read_text()
    assert '<script src="assets/ledger/vega.js"></script><script src="assets/ledger/charts.js"></script>' in page
    run = next((built_site / "run/bandwidth").iterdir()).name
    assert (
        f'<span class="ledger-caption-title">Read bandwidth against buffer size</span><span class="ledger-'
        f'caption-text">Small buffers fit in the caches.</span><span class="ledger-caption-data"><span class='
        f'"ledger-badge ledger-badge--measured">measured</span> · run <a class="ledger-run" href="run/bandwidth/'
        f'{run}/"><code>bandwidth/{run}</code></a> · testbed <code>linux-cpu</code>'
    ) in page
    assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', page)


def test_table_figure_renders_claims_as_badges_and_numbers_with_units(built_site):
    page = article(built_site, "")
    table = page[page.index('id="table-speedups"') :]
    assert ">1,048,576</td>" in table
    assert '<td><a class="ledger-claim ledger-claim--measured' in table
    read = page[page.index('id="table-read-bandwidth"') :]
    assert '<th style="text-align: right">gb_per_s <span class="ledger-unit">(GB/s)</span></th>' in read
    assert '<td style="text-align: right" data-ledger-column="gb_per_s">2.222</td>' in read  # 20 / 9, a run's cell
    assert re.search(r'<tr data-ledger-run="[^"]+-linux-cpu" data-ledger-testbed="linux-cpu">', read)


def test_navigation_is_report_claims_measurements_gate_without_claim_or_run_pages(built_site):
    page = read(built_site, "claims")
    nav = page[page.index("md-nav--primary") : page.index("md-nav--secondary")]
    assert set(re.findall(r'href="([^"]+)"', nav)) == {"..", "./", "fell/", "../measurements/", "../gate/"}
    assert "The gate passes" in article(built_site, "gate")


def test_the_gate_page_lists_every_option_row_with_its_value(built_site):
    """The gate page iterates config.OPTIONS, as `ledger diff` does: a new option shows up without an edit."""
    from generator.inputs.config import OPTIONS

    page = article(built_site, "gate")
    shown = re.findall(r"<tr><th><code>([a-z_]+)</code></th><td>([^<]*)</td></tr>", page)
    assert [name for name, _ in shown] == [option.name for option in OPTIONS]
    assert ("max_run_age_days", "365") in shown  # the default, unset in the example


# -- builds with problems ------------------------------------------------------------------------


def test_unknown_reference_fails_the_build_with_page_and_line(tmp_path):
    a_ledger(tmp_path, '# R\n\nfine {{ claim("moe-speedup-b16") }}\n\nbad {{ chart("nope") }}\n')
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 1
    assert "docs/index.md:5:5: unknown-reference: page refers to unknown chart 'nope'" in result.errors


def test_in_serve_failures_show_as_banners_and_on_the_gate_page(tmp_path):
    a_ledger(tmp_path, REPORT + '\nGone: {{ claim("gone") }}\n')
    claims = tmp_path / "claims/moe.yaml"
    claims.write_text(
        claims.read_text().replace(
            'value: 3.59\n    unit: "×"\n    kind: measured', 'value: 2.5\n    unit: "×"\n    kind: measured'
        )
    )
    site = serve_build(tmp_path)
    banner = (
        '<div class="ledger-banner"><div class="admonition failure"><p class="admonition-title">'
        "4 gate failures on this page</p>"  # the refutation by the drifted claim rests on nothing fresh
    )
    assert banner in article(site, "")
    assert "moe-speedup-b16: <strong>drifted</strong>: stated 2.5×, evidence computes 3.6×" in article(site, "")
    assert '<span class="ledger-badge ledger-badge--failing">fails the gate</span>' in article(site, "")
    gate = article(site, "gate")
    assert '<div class="admonition failure"><p class="admonition-title">The gate fails</p>' in gate
    assert '<div class="admonition failure"><p class="admonition-title">drifted: claims/moe.yaml:4</p>' in gate
    assert '<div class="ledger-banner">' in article(site, "claim/moe-speedup-b16")
    assert (
        '<span class="ledger-missing" title="unknown claim &#x27;gone&#x27;">{{ claim(&quot;gone&quot;) }}</span>'
    ) in article(site, "")
    assert "page refers to unknown claim &#x27;gone&#x27;" in gate
    assert '<p>On the page <a href="../"><code>docs/index.md:15:7</code></a></p>' in gate


def serve_build(root):
    """Build as `mkdocs serve` does (the plugin told the command is serve), into root/site."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command="serve", dirty=False)
    build(config)
    return root / "site"


def test_figure_that_raises_fails_the_build_naming_its_file_and_line(tmp_path):
    a_ledger(tmp_path)
    figures = tmp_path / "figures/example.py"
    figures.write_text(figures.read_text().replace('frame = data.frame("bandwidth")', "frame = 1 / 0"))
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "figures/example.py:5: chart 'bandwidth-sweep' raised ZeroDivisionError: division by zero (at example.py:9)"
    ) in result.errors


def test_hand_written_page_in_the_way_of_a_generated_one_is_refused(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, {"docs/claims/index.md": "# mine\n"})
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 1
    assert "docs/claims/index.md is in the way of a generated page: rename or move it" in result.errors


def test_serve_watches_claims_measurements_probes_and_figures(tmp_path):
    from mkdocs.config import load_config

    from generator.site.plugin import LedgerPlugin

    a_ledger(tmp_path)
    config = load_config(str(tmp_path / "mkdocs.yml"))
    plugin = next(p for p in config.plugins.values() if isinstance(p, LedgerPlugin))
    plugin.on_config(config)

    class Server:  # records what the plugin asks mkdocs' live-reload server to watch
        watched: list = []

        def watch(self, path):
            self.watched.append(path)

    server = Server()
    plugin.on_serve(server, config, builder=None)
    folders = sorted(path for path in server.watched if Path(path).is_dir())
    assert folders == sorted(str(tmp_path / d) for d in ("claims", "measurements", "probes", "figures"))
    # Besides the folders, only the code files the last build's runs declare (mkdocs may reuse a plugin).
    assert all(Path(path).is_file() for path in server.watched if path not in folders)

    # The policy's probes_dir, not a hard-coded probes/ (reads.py: one list for cache, serve and extension).
    (tmp_path / "probes").rename(tmp_path / "tools")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text(config_file.read_text().replace("plugins: [search, ledger]", PLUGINS_WITH_TOOLS))
    config = load_config(str(config_file))
    plugin = next(p for p in config.plugins.values() if isinstance(p, LedgerPlugin))
    plugin.on_config(config)
    Server.watched = []
    plugin.on_serve(server, config, builder=None)
    assert str(tmp_path / "tools") in server.watched and str(tmp_path / "probes") not in server.watched


PLUGINS_WITH_TOOLS = "plugins:\n  - search\n  - ledger:\n      probes_dir: tools"


def test_a_tampered_run_is_named_with_the_same_file_on_every_page_that_shows_it(tmp_path):
    """The run's verdict is decided once: the gate page, the run page, the run index, a figure that
    reads the run, and `ledger show` all name the same changed file with the same hashes."""
    a_ledger(tmp_path)
    (tmp_path / "figures/toy.py").write_text(
        "import altair as alt\nfrom generator.site.figure_api import chart\n\n\n"
        '@chart("toy-speedups")\ndef toy_speedups(data):\n    """Speedup by batch"""\n'
        '    return alt.Chart(data.frame("toy")).mark_line().encode(x="batch:Q", y="speedup:Q")\n'
    )
    index = tmp_path / "docs/index.md"
    index.write_text(index.read_text() + '\n{{ chart("toy-speedups") }}\n')
    run = sorted((tmp_path / "measurements/toy").iterdir())[-1]
    data = run / "results.csv"
    committed = sha256_file(data)
    data.write_bytes(data.read_bytes().replace(b"3.6", b"3.7"))
    changed = f"results.csv has sha256 {sha256_file(data)[:12]}…, the manifest says {committed[:12]}…"
    run_page = f"run/toy/{run.name}"

    site = serve_build(tmp_path)
    assert changed in article(site, "gate")
    assert changed in article(site, run_page)
    assert f'title="{changed}"' in article(site, "measurements")
    assert ">tampered</span>" in article(site, "measurements")
    assert changed in article(site, "")  # the figure that reads the run
    shown = run_ledger("show", "moe-speedup-b16", cwd=tmp_path)
    assert f"(linux-cpu, finished {run.name[:10]}" in shown.output and f"tampered: {changed})" in shown.output
    assert "moe-speedup-b16 = 3.59× (measured, stale: tampered)" in shown.output


def test_a_measured_value_without_raw_rounds_shows_its_min_max_interval_on_hover_and_on_its_page(tmp_path):
    a_ledger(tmp_path)
    run = a_run(
        tmp_path,
        [{"batch": 1, "tok_per_s": 28.5, "tok_per_s_min": 26.1, "tok_per_s_max": 44.4, "rounds": 7}],
        probe="decode",
    )
    claims = tmp_path / "claims/decode.yaml"
    claims.write_text(
        "claims:\n  - id: b1-decode\n    statement: decode at B=1\n    kind: measured\n    value: 28.5\n"
        f"    unit: tok/s\n    testbed: linux-cpu\n    evidence: {{run: {run}, file: results.csv, where: {{batch: 1}}, column: tok_per_s}}\n"
    )
    index = tmp_path / "docs/index.md"
    index.write_text(index.read_text() + '\nDecode: {{ claim("b1-decode") }}\n')
    site = serve_build(tmp_path)
    shown = "98.4% interval 26.1–44.4 tok/s (min–max of 7 rounds; no raw rounds)"
    one_run = "one run: the interval does not include run-to-run variation"  # it cites one run, not a set
    index = article(site, "")  # the badge rounds to the interval's step (half-width 9.15: the units place)
    assert (
        f'title="decode at B=1 — stated 28.5 tok/s, {shown}; {one_run}; testbed linux-cpu; measured, asserted"' in index
    )
    assert '<span class="ledger-value">29 tok/s</span>' in index
    assert f"<tr><th>interval</th><td>{shown}</td></tr>" in article(site, "claim/b1-decode")
    assert "No raw rounds (the run has no samples.csv): the interval 26.1–44.4 tok/s is the row" in (
        article(site, "claim/b1-decode")
    )


def test_an_uncited_run_measured_with_older_code_is_a_note_on_its_page_not_a_failure(tmp_path):
    a_ledger(tmp_path)
    probe = tmp_path / "probes/bandwidth.py"
    probe.write_text(probe.read_text() + "# a later change to the probe\n")
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    run = sorted((tmp_path / "measurements/bandwidth").iterdir())[-1].name
    page = article(tmp_path / "site", f"run/bandwidth/{run}")
    assert '<p class="admonition-title">Measured with older code</p>' in page
    assert "probes/bandwidth.py changed since the run" in page
    assert "cannot be trusted" not in page
    index = article(tmp_path / "site", "measurements")
    assert '<span class="ledger-badge ledger-badge--lead">older code</span>' in index
