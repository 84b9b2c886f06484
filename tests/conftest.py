"""Shared fixtures (the example site, built once per test session) and the slow groups' markers.

`make test-fast` deselects the groups marked here: site builds, the browser, the MLX probes, and the
slow installs (wheels, fresh virtual environments).
"""

from pathlib import Path

import pytest
from helpers import REPO, run_mkdocs
from helpers_series import series_ledger
from helpers_site import a_ledger

# test module -> the slow group it belongs to (a test may also carry @pytest.mark.slow itself)
GROUPS = {
    "test_site.py": "site",
    "test_build_gate.py": "site",
    "test_builders.py": "site",
    "test_markdown_ext.py": "site",
    "test_verify_site.py": "site",
    "test_incremental.py": "site",
    "test_report.py": "site",
    "test_readback.py": "site",
    "test_interval_site.py": "site",
    "test_timeline_site.py": "site",
    "test_browser.py": "browser",
    "test_probes.py": "probes",
    "test_harness.py": "probes",
}


def pytest_collection_modifyitems(items):
    for item in items:
        group = GROUPS.get(item.path.name)
        if group:
            item.add_marker(group)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The ledger above built with `mkdocs build --strict`; returns the site folder."""
    root = tmp_path_factory.mktemp("ledger")
    a_ledger(root)
    result = run_mkdocs("build", "--strict", cwd=root)
    assert result.exit_code == 0, result.errors
    return root / "site"


@pytest.fixture(scope="session")
def report_site(tmp_path_factory) -> Path:
    """This repository's own report, built with the gate on, as a reader gets it."""
    out = tmp_path_factory.mktemp("report") / "site"
    result = run_mkdocs("build", "--strict", "--site-dir", str(out), cwd=REPO)
    assert result.exit_code == 0, result.errors
    return out


@pytest.fixture(scope="session")
def series_site(tmp_path_factory) -> tuple[Path, list[str]]:
    """A claim whose series of 12 runs steps after the run it cites, built with `mkdocs build --strict`
    (a warning: the build passes); returns the site folder and the runs."""
    root = tmp_path_factory.mktemp("series")
    runs = series_ledger(root)
    result = run_mkdocs("build", "--strict", cwd=root)
    assert result.exit_code == 0, result.errors
    return root / "site", runs
