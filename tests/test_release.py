"""The release: `python -m build` makes an sdist and, from it, a wheel; both pass `twine check --strict`; the
wheel holds every file of the package this repository tracks (the init template and the site's assets
included) and the schema, the sdist the package's sources; neither holds the report (docs/, claims/,
measurements/) or the tests; both declare the MIT licence and carry LICENSE; the version has one source,
generator/__init__.py, which `ledger --version` prints. The release workflow runs the same build and this
suite's install test on Linux and macOS before it publishes (tests/test_workflows.py lints it)."""

import email
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml
from helpers import REPO, run_ledger

import generator

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """Built from a copy of the working tree's files (a build writes egg-info into its source tree: builds
    running side by side, or a test beside them, must not share one)."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    for name in tracked("."):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)], capture_output=True, text=True, cwd=out
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def tracked(under: str) -> set[str]:
    """The files under a folder git tracks or would (new files not yet added, never ignored ones)."""
    command = ["git", "ls-files", "--cached", "--others", "--exclude-standard", under]
    listed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
    return set(listed.stdout.split())


def test_the_sdist_and_wheel_pass_twine_check_strict(dist):
    files = sorted(str(path) for path in dist.iterdir())
    assert sorted(Path(f).suffix for f in files) == [".gz", ".whl"]
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_package_and_its_data_and_nothing_of_the_report(dist):
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {name for name in names if name.startswith("generator/")}
    schemas = {"generator/" + name for name in tracked("schema")}  # schema/ is shipped as generator/schema/
    assert {"generator/schema/claims.schema.json", "generator/schema/check-report-1.schema.json"} <= schemas
    assert tracked("generator") | schemas == package  # templates, assets, all
    assert not {name for name in names if name.split("/")[0] in ("docs", "claims", "measurements", "tests", "probes")}
    info = next(name for name in names if name.endswith(".dist-info/METADATA"))
    metadata = email.message_from_bytes(zipfile.ZipFile(wheel).read(info))
    assert metadata["Version"] == generator.__version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "## Your own ledger in" in metadata.get_payload()  # the README is the long description
    lean = {r.split(">")[0] for r in metadata.get_all("Requires-Dist") if "extra ==" not in r}
    assert lean == {"PyYAML", "Markdown", "pymdown-extensions", "attrs"}  # the gate's records need attrs
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def test_the_sdist_holds_the_sources_and_nothing_of_the_report_or_the_tests(dist):
    (sdist,) = dist.glob("*.tar.gz")
    top = f"evidence_ledger-{generator.__version__}/"
    names = {name.removeprefix(top) for name in tarfile.open(sdist).getnames()}
    assert tracked("generator") <= names and {"LICENSE", "README.md", "pyproject.toml"} <= names
    assert "schema/claims.schema.json" in names
    assert not {name for name in names if name.split("/")[0] in ("docs", "claims", "measurements", "tests", "probes")}
    assert not [name for name in names if "__pycache__" in name]


def test_the_version_has_one_source_and_ledger_version_prints_it():
    assert "version = " not in (REPO / "pyproject.toml").read_text().split("[project]")[1].split("[")[0]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f'pip install "evidence-ledger[site]=={generator.__version__}"' in readme  # the install line, current
    assert run_ledger("--version", cwd=REPO).output == f"ledger (evidence-ledger) {generator.__version__}\n"


def test_the_release_workflow_tests_the_built_wheel_on_linux_and_macos_then_publishes_with_a_trusted_publisher():
    flow = yaml.safe_load((REPO / ".github/workflows/release.yml").read_text(encoding="utf-8"))
    on = flow.get("on", flow.get(True))
    assert on["push"]["tags"] == ["v*"]
    jobs = flow["jobs"]
    assert set(jobs) == {"build", "test", "publish"}
    build = "\n".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "python -m build" in build and "twine check --strict" in build
    assert "__version__" in build  # the tag names the version the package declares
    assert set(jobs["test"]["strategy"]["matrix"]["os"]) == {"ubuntu-latest", "macos-latest"}
    assert jobs["test"]["needs"] == "build" and jobs["publish"]["needs"] == ["build", "test"]
    publish = jobs["publish"]
    assert publish["permissions"] == {"id-token": "write"}  # a trusted publisher: no token stored
    assert publish["environment"]["name"] == "pypi"
    (upload,) = [step for step in publish["steps"] if "pypa/gh-action-pypi-publish" in step.get("uses", "")]
    assert upload["with"]["attestations"] is True
    assert flow["permissions"] == {"contents": "read"}
