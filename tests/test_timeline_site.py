"""A claim's history on the site: the timeline chart (a Vega-Lite spec loading the series' points from
one CSV asset, the cited run marked, the step drawn), the table of points (bounded however long the
series), the claims index sorting by 'moved since cited', and the Vega bundle shipped for it."""

import csv
import io
import json
import re
import shutil

import pytest
from helpers import run_ledger, run_mkdocs, write_tree
from helpers_series import LEVEL_A, LEVEL_B, SITE, ledger, runs_of
from helpers_site import article, read

pytestmark = pytest.mark.site

SPEC = re.compile(r'<script type="application/json" class="ledger-chart-spec">(.*?)</script>', re.S)


def points_of(site, page: str) -> tuple[dict, list[dict]]:
    """A claim page's timeline spec, and the rows of the CSV asset its points layers load."""
    spec = json.loads(SPEC.search(page).group(1))
    urls = {layer["data"]["url"] for layer in spec["layer"] if "url" in layer.get("data", {})}
    assert len(urls) == 1 and next(iter(urls)).startswith("../../assets/ledger/series/")
    text = (site / next(iter(urls)).removeprefix("../../")).read_text(encoding="utf-8")
    return spec, list(csv.DictReader(io.StringIO(text)))


def test_a_claim_page_draws_its_timeline_from_the_series(series_site):
    site, runs = series_site
    page = article(site, "claim/moe-speedup-b16")
    assert page.count('class="ledger-figure ledger-chart ledger-timeline"') == 1
    spec, points = points_of(site, page)
    assert [float(p["value"]) for p in points] == LEVEL_A + LEVEL_B
    assert [p["path"] for p in points] == runs and [p["run"] for p in points] == [r.rsplit("/", 1)[-1] for r in runs]
    assert [p["n"] for p in points] == [str(n) for n in range(1, 13)]
    roles = {json.dumps(layer.get("transform")) for layer in spec["layer"] if "url" in layer.get("data", {})}
    assert roles == {json.dumps([{"calculate": "datum.n === 3 ? 'cited' : 'run'", "as": "role"}])}  # the third run
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


@pytest.fixture(scope="module")
def long_site(tmp_path_factory):
    """Thirty runs (a step after the twentieth) and two claims reading the same cells of them, one
    citing the third run and one the twenty-sixth."""
    root = tmp_path_factory.mktemp("long")
    runs = runs_of(root, [3.6] * 20 + [4.4] * 10)
    ledger(root, runs[2])
    claims = root / "claims/moe.yaml"
    later = claims.read_text().replace("moe-speedup-b16", "moe-speedup-b16-later").replace("claims:\n", "")
    later = later.replace(runs[2], runs[25]).replace("value: 3.6", "value: 4.4")
    claims.write_text(claims.read_text() + later)
    write_tree(root, {"mkdocs.yml": SITE})
    result = run_mkdocs("build", "--strict", cwd=root)
    assert result.exit_code == 0, result.errors
    return root / "site", runs


def test_claims_reading_the_same_cells_share_one_series_asset_holding_every_run(long_site):
    site, runs = long_site
    first, later = article(site, "claim/moe-speedup-b16"), article(site, "claim/moe-speedup-b16-later")
    (spec, points), (later_spec, later_points) = points_of(site, first), points_of(site, later)
    assert points == later_points and [p["path"] for p in points] == runs
    assert len(list((site / "assets/ledger/series").iterdir())) == 1
    assert spec["layer"][0]["data"] == later_spec["layer"][0]["data"]
    assert "datum.n === 26 ? 'cited'" in json.dumps(later_spec)


def test_a_long_history_lists_the_cited_run_the_step_and_the_last_runs_and_links_the_whole_series(long_site):
    site, runs = long_site
    page = article(site, "claim/moe-speedup-b16")
    table = page[page.index('<div class="ledger-series">') :]
    listed = re.findall(r"<tr><td>(\d+)</td>", table)
    # the segment's start, cited, the last ten (the step at 21)
    assert listed == ["1", "3"] + [str(n) for n in range(21, 31)]
    assert re.findall(r'<tr class="ledger-gap"><td colspan="6">… (\d+) runs?</td></tr>', table) == ["1", "17"]
    assert "The table lists 12 of its 30 runs: the last 10 and those where something happens." in table
    assert re.search(r'Every run is in <a href="\.\./\.\./assets/ledger/series/[0-9a-f]{20}\.csv">', table)
    assert "step 3.6× → 4.4×" in table and "<td>cited</td>" in table


def test_verify_site_holds_each_series_csv_to_the_ledger(long_site, tmp_path):
    site, _ = long_site
    copy = tmp_path / "ledger"
    shutil.copytree(site.parent, copy, ignore=shutil.ignore_patterns(".cache"))
    verify = ("--root", str(copy), "verify-site", str(copy / "site"))
    result = run_ledger(*verify, cwd=copy)  # this ledger's "9 rounds" labels fail verify-site on their own
    assert "Traceback" not in result.errors and "assets/ledger/series" not in result.output, result.output
    assert "runs' in <td>" not in result.output and "30 runs' in <p>" not in result.output  # the table's counts
    (asset,) = (copy / "site/assets/ledger/series").iterdir()
    asset.write_text(asset.read_text(encoding="utf-8").replace(",4.4,", ",9.9,", 1), encoding="utf-8")
    result = run_ledger(*verify, cwd=copy)
    assert result.exit_code == 1 and "is no series of the ledger's" in result.output, result.output
    assert asset.name in result.output


def test_the_timeline_spec_pages_embed_is_the_one_altair_makes():
    """Kept in the package (timeline.SPEC) so that a claim page renders without Altair: key for key, in order."""
    from generator.site import timeline

    assert json.dumps(timeline.template()) == json.dumps(timeline.altair_spec())
