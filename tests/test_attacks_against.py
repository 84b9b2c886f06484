"""`verify-site --against` is not sidestepped (issue 29, class 8): a published run's evidence cannot be
replaced by deleting the run and citing another, a run published before is retired only explicitly (and
the site says so), and a registry it cannot read is an error. A real example ledger, built and
published (copied, or served over http), then changed the way a later push would change it."""

import re
import shutil

import pytest
from helpers import a_run, run_ledger, run_mkdocs, write_tree
from helpers_site import MKDOCS, NOW, a_ledger, serving

pytestmark = pytest.mark.site


def published(tmp_path):
    """An example ledger built once; that build's site kept as the published one."""
    root = tmp_path / "ledger"
    a_ledger(root)
    assert run_mkdocs("build", "--strict", cwd=root).exit_code == 0
    shutil.copytree(root / "site", tmp_path / "published")
    return root


def replace_the_cited_run(root):
    """Delete the run the measured claims cite and cite a new run with other numbers instead."""
    old = sorted((root / "measurements/toy").iterdir())[0]
    rows = [{"batch": 1, "speedup": 1.0, "byte_ratio": 1.0}, {"batch": 16, "speedup": 3.59, "byte_ratio": 1.8}]
    from datetime import timedelta

    new = a_run(root, rows, when=NOW - timedelta(hours=1))
    claims = root / "claims/moe.yaml"
    claims.write_text(claims.read_text().replace(old.relative_to(root).as_posix(), new))
    shutil.rmtree(old)
    return old.relative_to(root).as_posix()


def test_a_published_run_deleted_and_replaced_by_another_is_refused(tmp_path):
    root = published(tmp_path)
    gone = replace_the_cited_run(root)
    assert run_mkdocs("build", "--strict", cwd=root).exit_code == 0  # the gate itself has nothing against it
    result = run_ledger("verify-site", "site", "--against", str(tmp_path / "published"), cwd=root)
    assert result.exit_code == 1, result.output
    assert gone in result.output and "Traceback" not in result.errors


def test_a_published_run_retired_explicitly_passes_and_the_site_says_why(tmp_path):
    root = published(tmp_path)
    gone = replace_the_cited_run(root)
    config = MKDOCS.replace(
        "plugins: [search, ledger]",
        "plugins:\n  - search\n  - ledger:\n      retired_runs:\n"
        f"        - {{run: {gone}, reason: 'measured with the probe bug of issue 7'}}",
    )
    write_tree(root, {"mkdocs.yml": config})
    build = run_mkdocs("build", "--strict", cwd=root)
    assert build.exit_code == 0, build.errors
    result = run_ledger("verify-site", "site", "--against", str(tmp_path / "published"), cwd=root)
    assert result.exit_code == 0, result.output
    assert gone in result.output and "measured with the probe bug of issue 7" in result.output
    page = (root / "site/measurements/index.html").read_text()
    assert gone in page and "measured with the probe bug of issue 7" in page  # fmt: skip


def test_a_site_that_is_published_but_whose_registry_is_gone_is_an_error(tmp_path):
    root = published(tmp_path)
    pages = tmp_path / "pages"
    shutil.copytree(tmp_path / "published", pages / "site")
    (pages / "site/assets/ledger/runs.json").unlink()  # the site is there, its registry is not
    with serving(pages) as base:
        result = run_ledger("verify-site", "site", "--against", base + "site/", cwd=root)
    assert result.exit_code == 1, result.output
    assert "registry" in result.output and "Traceback" not in result.errors


def test_a_registry_path_that_does_not_exist_is_an_error(tmp_path):
    root = published(tmp_path)
    result = run_ledger("verify-site", "site", "--against", str(tmp_path / "publishd"), cwd=root)  # a typo
    assert result.exit_code == 1, result.output
    assert "publishd" in result.output


# -- an empty registry, or one that is not where --against names it, is an error (issue 47) ----------------


@pytest.fixture(scope="module")
def one_build(tmp_path_factory):
    """An example ledger built once, its site kept as the published one (tests copy the folder to change it)."""
    folder = tmp_path_factory.mktemp("against")
    return published(folder), folder / "published"


def test_an_empty_against_names_no_registry_and_is_an_error(one_build):
    root, _ = one_build
    result = run_ledger("verify-site", "site", "--against", "", cwd=root)  # LEDGER_SITE_URL set to nothing
    assert result.exit_code == 1, result.output
    assert "--against '': the published registry cannot be read: names no registry (an empty value" in result.output


def test_a_registry_that_lists_no_run_is_an_error_naming_it(one_build, tmp_path):
    root, before = one_build
    emptied = tmp_path / "published"
    shutil.copytree(before, emptied)
    registry = emptied / "assets/ledger/runs.json"
    registry.write_text('{"runs": {}, "retired": {}}\n')
    result = run_ledger("verify-site", "site", "--against", str(emptied), cwd=root)
    assert result.exit_code == 1, result.output
    assert f"the published registry {registry} lists no run, while this ledger holds 2:" in result.output
    # the problem is the registry's, on no page: counted apart, never as one more page than the site has
    assert re.fullmatch(
        r"1 problem \(0 of \d+ pages; 1 elsewhere: the site's other files, or the runs it published before\)",
        result.output.splitlines()[-1],
    ), result.output


def test_a_registry_file_named_at_an_address_where_it_is_not_is_an_error(one_build, tmp_path):
    root, _ = one_build
    (tmp_path / "pages").mkdir()
    with serving(tmp_path / "pages") as base:  # nothing there: the file --against names is not found
        result = run_ledger("verify-site", "site", "--against", base + "site/assets/ledger/runs.json", cwd=root)
    assert result.exit_code == 1, result.output
    assert "assets/ledger/runs.json: HTTP 404: no registry at the file --against names" in result.output


def test_verify_site_counts_as_pages_only_the_pages_and_the_rest_apart(one_build, tmp_path):
    root, _ = one_build
    site = tmp_path / "site"
    shutil.copytree(root / "site", site)
    (site / "assets/ledger/runs.json").write_text('{"runs": {}}\n')  # a problem with a file that is no page
    page = site / "index.html"
    page.write_text(page.read_text().replace("</main>", "<p>It runs 9.9× faster.</p></main>", 1))
    result = run_ledger("verify-site", str(site), cwd=root)
    assert result.exit_code == 1, result.output
    pages = len(list(site.rglob("*.html")))
    assert result.output.splitlines()[-1] == (
        f"2 problems (1 of {pages} pages; 1 elsewhere: the site's other files, or the runs it published before)"
    ), result.output
