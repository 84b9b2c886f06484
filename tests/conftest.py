"""Shared fixtures: the example site and this repository's report, each built once per test session.

A slow file says so itself (`pytestmark = pytest.mark.site`, `browser`, `probes` or `slow`, as
pyproject.toml declares them); `make test-fast` deselects those groups.
"""

from pathlib import Path

import pytest
from helpers import REPO, run_mkdocs
from helpers_series import series_ledger
from helpers_site import a_ledger


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
