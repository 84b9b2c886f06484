"""The report's own pages, read as text: no glitch a reader would trip on (units twice, counts with
decimals, raw byte counts), and no figure typed outside a claim (the gate's unbound-number rule)."""

import html
import re

import pytest

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
