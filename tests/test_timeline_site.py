"""A claim's history on the site: the timeline chart (a Vega-Lite spec with the series' points, the
cited run marked, the step drawn), the table of points, the claims index sorting by 'moved since
cited', and the Vega bundle shipped for it."""

import json
import re

import pytest
from helpers_series import LEVEL_A, LEVEL_B
from helpers_site import article, read

pytestmark = pytest.mark.site

SPEC = re.compile(r'<script type="application/json" class="ledger-chart-spec">(.*?)</script>', re.S)


def test_a_claim_page_draws_its_timeline_from_the_series(series_site):
    site, runs = series_site
    page = article(site, "claim/moe-speedup-b16")
    assert page.count('class="ledger-figure ledger-chart ledger-timeline"') == 1
    spec = json.loads(SPEC.search(page).group(1))
    points = spec["datasets"]["points"]
    assert [p["value"] for p in points] == LEVEL_A + LEVEL_B
    assert [p["role"] for p in points] == ["run", "run", "cited"] + ["run"] * 9
    assert [p["run"] for p in points] == [run.rsplit("/", 1)[-1] for run in runs]
    assert [(m["kind"], m["text"]) for m in spec["datasets"]["marks"]] == [("step", "3.6× → 4.4×")]
    assert spec["layer"][0]["encoding"]["y"]["title"] == "value (×)"


def test_a_claim_page_lists_every_point_and_says_it_moved(series_site):
    site, runs = series_site
    page = article(site, "claim/moe-speedup-b16")
    table = page[page.index('<div class="ledger-series">') :]
    assert table.count("<tr><td>") == 12
    assert "<td>cited</td>" in table and "step 3.6× → 4.4× (t-test, p = " in table
    assert (
        f"<strong>Moved since cited:</strong> 3.6× → 4.4× from run <code>{runs[8].rsplit('/', 1)[-1]}</code> on."
        in page
    )


def test_the_claims_index_sorts_by_moved_since_cited(series_site):
    site, _ = series_site
    page = article(site, "claims")
    assert (
        '<th data-sort-type="number" class="ledger-narrow"><abbr title="moved since cited: the newest level against the cited run">moved</abbr></th>'
        in page
    )
    assert re.search(
        r'<td class="ledger-narrow" data-sort="0\.222\d*"><span class="ledger-badge ledger-badge--warning">\+22\.2%</span></td>',
        page,
    )


def test_the_site_ships_the_vega_bundle_for_timelines_and_the_build_warns(series_site):
    site, _ = series_site
    assert (site / "assets/ledger/vega.js").stat().st_size > 100_000
    assert "moved-since-cited" in read(site, "gate")
