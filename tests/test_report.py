"""The report's own pages, read as text: no glitch a reader would trip on (units twice, counts with
decimals, raw byte counts), and no figure typed outside a claim (the gate's unbound-number rule); the
front page's scope said first; which-B cells decided on their intervals; a gate that warns only where
the frozen runs must."""

import html
import re
from datetime import datetime, timezone

import pytest
from helpers import REPO, run_ledger

from generator.gate import check_project

pytestmark = pytest.mark.site

PAGES = ["", "report/batching", "report/batch-of-one", "report/testbeds", "report/method"]
GLITCHES = {
    "a unit written twice": r"\b(rounds|tokens|sequences|layers|experts) \1\b",
    "a whole count with decimals": r"\b\d+\.0+ (layers|experts|sequences|rounds|tokens)\b",  # a mean (101.9 experts) may have them
    "whole tokens with a decimal": r"\b\d+\.0 tokens\b",
    "a raw byte count": r"\b\d{7,} B\b",
    "a count of a count": r"\b(\d+) (sequences|tokens) of \1 \2\b",
}


def page_text(site, page: str) -> str:
    markup = (site / page / "index.html").read_text(encoding="utf-8")
    article = markup[markup.index("<article") : markup.index("</article>")]
    article = re.sub(r'<span class="ledger-badge[^"]*">[^<]*</span>', " ", article)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", article)).split())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "index")
def test_report_pages_read_without_glitches(report_site, page):
    text = page_text(report_site, page)
    found = {name: re.findall(pattern, text) for name, pattern in GLITCHES.items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_glitch_patterns_catch_what_the_issue_saw():
    seen = "7 rounds rounds, 40.00 layers, 64389120 B, 16 sequences of 16 sequences, 528.0 tokens"
    assert all(re.search(pattern, seen) for pattern in GLITCHES.values())


def test_a_claim_page_names_its_runs_long_manifest_fields_and_the_run_page_shows_them(report_site):
    """A claim page's size does not grow with its run's manifest: a long parameter (here the probe's own
    description of its timing) is named and linked on the claim page, and shown on the run's page."""
    claim = (report_site / "claim/h200-grid-b1-gb-per-s/index.html").read_text(encoding="utf-8")
    run = re.search(r'href="\.\./\.\./(run/whole_graph/[^"#]+/)"', claim).group(1)
    described = html.escape("per sample: decode_steps steps", quote=False)
    assert re.search(
        r"\d+ longer parameters \(<a href=\"[^\"]*#parameters\">on the run's page</a>\): [^;]*<code>timing</code>",
        claim,
    )
    assert described not in claim
    assert described in (report_site / run / "index.html").read_text(encoding="utf-8")


def rendered_words(site, page: str) -> list[str]:
    """The words a reader sees in a page's article, in order: its text with badges, tables and captions,
    without scripts, styles or the headings' permalink marks (a chart's words are drawn from its script)."""
    markup = (site / page / "index.html").read_text(encoding="utf-8")
    article = markup[markup.index("<article") : markup.index("</article>")]
    article = re.sub(r"<(script|style)\b.*?</\1>", " ", article, flags=re.S)
    article = re.sub(r'<a class="headerlink".*?</a>', " ", article, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", article)).split()


SCOPE = {  # what the front page must say before a reader meets a figure: what was and was not measured
    "no Mac": "no Mac was measured",
    "the GPU stack": "MLX's CUDA backend, one decode step at a time from Python",
    "not the GPU's limit": "not the GPU's limit",
    "the CPU's cores": "two cores of an AMD EPYC",
    "the CPU's backend": "MLX's CPU backend",
    "the CPU's model": "a scaled-down model",
    "the weights": "random weights",
}


def test_the_front_page_says_what_was_measured_within_its_first_250_words_and_stays_under_900(report_site):
    words = rendered_words(report_site, "")
    opening = " ".join(words[:250])
    assert {name: said for name, said in SCOPE.items() if said not in opening} == {}
    assert len(words) < 900


SAMPLE = (
    '<article><h1 id="t">Title<a class="headerlink" href="#t">&para;</a></h1><p>One <a class="ledger-claim">'
    '<span class="ledger-value">3 ms</span><span class="ledger-badge">measured</span></a> step.</p>'
    '<script type="application/json">{"a": "not read"}</script><style>p {}</style></article>'
)


def test_rendered_words_skip_scripts_styles_and_permalinks_and_keep_badges(tmp_path):
    (tmp_path / "index.html").write_text(SAMPLE, encoding="utf-8")
    assert rendered_words(tmp_path, "") == ["Title", "One", "3", "ms", "measured", "step."]


def report_tables(site, page: str, figure: str) -> list[dict[str, str]]:
    """A built figure table's rows, each cell as its text and (for a claim's cell) `<column>#claim`: its id."""
    markup = (site / page / "index.html").read_text(encoding="utf-8")
    table = re.search(rf'<figure[^>]*id="table-{figure}".*?</figure>', markup, flags=re.S).group(0)
    head = [html.unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    body = table[table.index("<tbody>") : table.index("</tbody>")]
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        found = {}
        for column, cell in zip(head, cells, strict=True):
            found[column] = html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            cited = re.search(r'data-claim="([^"]+)"', cell)
            if cited:
                found[column + "#claim"] = cited.group(1)
        rows.append(found)
    return rows


@pytest.mark.parametrize(("page", "figure", "rows"), [("", "which-b-grid", 9), ("report/testbeds", "which-b", 16)])
def test_which_b_cells_are_decided_on_the_p90_steps_interval_between_replicate_runs(report_site, page, figure, rows):
    report = check_project(REPO, None, datetime.now(timezone.utc))
    table = report_tables(report_site, page, figure)
    assert len(table) == rows
    targets = [column for column in table[0] if re.fullmatch(r"\d+ ms", column)]
    assert len(targets) == 3
    decided = []
    for row in table:
        interval = report.verdict(row["p90 step#claim"]).interval
        assert interval.basis == "replicates" and interval.runs >= 3
        for target in targets:
            limit = float(target.split()[0])
            expected = "within" if interval.high <= limit else "over" if interval.low > limit else "borderline"
            decided.append((row["p90 step#claim"], target, row[target], expected))
    assert [cell for cell in decided if cell[2] != cell[3]] == []
    caption = (report_site / page / "index.html").read_text(encoding="utf-8")
    caption = re.search(rf'id="table-{figure}".*?<figcaption>(.*?)</figcaption>', caption, flags=re.S).group(1)
    assert "one H200 host" in html.unescape(caption) and "MLX's CUDA backend" in html.unescape(caption)


def test_this_repositorys_gate_warns_only_where_the_frozen_runs_declare_nothing(report_site):
    """0 failures; the warnings are the frozen CPU whole-graph run's load_1m, which it declares no unit or kind
    for (a re-measure declares it), and no report page shows readers a gate box about them."""
    checked = run_ledger("check", cwd=REPO)
    assert checked.exit_code == 0, checked.output
    findings = [line for line in checked.output.splitlines() if re.match(r"\S+:\d+: ", line)]
    assert findings and all("(warning)" in line and "samples.csv" in line and "load_1m" in line for line in findings)
    assert checked.output.rstrip().endswith("— 0 failures — 3 warnings: 2 unit-undeclared, 1 undeclared-kind")
    shown = {page: "ledger-banner" in (report_site / page / "index.html").read_text() for page in PAGES}
    assert shown == dict.fromkeys(PAGES, False)
