"""The site shows intervals (hover, claim page), and after `ledger refresh --write` a page never shows
two values for one quantity: the stated value, the run's row beside it and the dependents agree."""

import re
from datetime import timedelta

import pytest
from helpers import RUN_TIME, run_ledger, run_mkdocs, write_tree
from helpers_rounds import claim, rounds_run
from helpers_site import MKDOCS, article

pytestmark = pytest.mark.site

DOUBLED = """
  - id: doubled
    kind: extrapolated
    formula: 2 * s
    inputs: {s: s16}
    value: 7.2
    tolerance: 5%
"""
PAGE = 'The speedup is {{ claim("s16") }}, twice that is {{ claim("doubled") }}.\n'
OLD = [3.5, 3.52, 3.55, 3.58, 3.6, 3.61, 3.62, 3.64, 3.7]  # median 3.6
NEW = [3.55, 3.6, 3.62, 3.64, 3.65, 3.66, 3.67, 3.7, 3.72]  # median 3.65: within the 5% tolerance


def site_of(root):
    result = run_mkdocs("build", "--strict", cwd=root)
    assert result.exit_code == 0, result.output + result.errors
    return root / "site"


def project(root):
    run = rounds_run(root, {1: [1.0] * 9, 16: OLD})
    write_tree(
        root,
        {
            "mkdocs.yml": MKDOCS,
            "claims/a.yaml": "claims:" + claim("s16", run, "3.6", extra='\n    asserts: "> 3"') + DOUBLED,
            "docs/index.md": PAGE,
        },
    )


def test_the_claim_page_and_the_hover_show_the_interval_how_it_was_found_and_what_it_asserts(tmp_path):
    project(tmp_path)
    site = site_of(tmp_path)
    page = article(site, "claim/s16")
    assert "<tr><th>interval</th><td>99.6% interval 3.5–3.7× (9 rounds)</td></tr>" in page
    assert "the median's order-statistic interval of its 9 raw rounds (covers the median with 99.6%)" in page
    assert "<tr><th>asserts</th><td>&gt; 3: holds: its 99.6% interval is 3.5–3.7× (9 rounds)</td></tr>" in page
    assert (
        'title="s16 — 99.6% interval 3.5–3.7× (9 rounds); one run: the interval does not include run-to-run variation; testbed linux-cpu'
        in article(site, "")
    )
    doubled = article(site, "claim/doubled")
    assert "carried through the formula by interval arithmetic over its inputs' intervals" in doubled


def test_after_refresh_write_the_page_shows_one_value_for_each_quantity(tmp_path):
    project(tmp_path)
    rounds_run(tmp_path, {1: [1.0] * 9, 16: NEW}, when=RUN_TIME + timedelta(hours=1))
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 0, result.output + result.errors
    site = site_of(tmp_path)
    page = article(site, "claim/s16")
    stated = re.search(r"<tr><th>value</th><td><strong>([^<]*)</strong>", page).group(1)
    computed = re.search(r"<tr><th>evidence computes</th><td>([^<]*)</td>", page).group(1)
    assert stated == computed == "3.65×"
    assert 'class="ledger-mark">3.65<' in page or ">3.65</td>" in page  # the run's row beside it
    doubled = article(site, "claim/doubled")
    stated = re.search(r"<tr><th>value</th><td><strong>([^<]*)</strong>", doubled).group(1)
    computed = re.search(r"<tr><th>formula gives</th><td>([^<]*)</td>", doubled).group(1)
    assert (stated, computed) == ("7.30", "7.3")  # the stated digits, and the same number computed
    index = article(site, "")
    assert ">3.65×<" in index and ">7.30<" in index and ">3.6×<" not in index and ">7.2<" not in index


NOISY = [17.0, 18.0, 19.0, 21.0, 22.0, 24.0, 27.0, 31.0, 34.0]  # median 22; its 99.6% interval 17–34


def test_a_badge_shows_the_digits_its_interval_supports_and_the_full_value_on_hover_and_its_page(tmp_path):
    run = rounds_run(tmp_path, {16: NOISY})
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": MKDOCS,
            "claims/a.yaml": "claims:" + claim("noisy", run, "22.0341"),
            "docs/index.md": 'The speedup is {{ claim("noisy") }}.\n',
        },
    )
    site = site_of(tmp_path)
    index = article(site, "")
    assert '<span class="ledger-value">22×</span>' in index  # half-width 8.5: the units place
    assert 'title="noisy — stated 22.0341×, 99.6% interval 17–34× (9 rounds)' in index
    page = article(site, "claim/noisy")
    assert "<tr><th>value</th><td><strong>22.0341×</strong>" in page  # the claim page keeps every digit
    assert "<tr><th>interval</th><td>99.6% interval 17–34× (9 rounds)</td></tr>" in page
    verified = run_ledger("verify-site", "site", cwd=tmp_path)
    assert verified.exit_code == 0, verified.output + verified.errors
