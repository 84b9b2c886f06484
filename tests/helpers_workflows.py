"""GitHub workflows as data: what each step needs from the job's token, and a step-by-step comparison
of two workflows, with this repository's make targets read as the commands a user types."""

from __future__ import annotations

import difflib
import re
import shlex
from pathlib import Path

import yaml
from helpers import REPO

OWN = REPO / ".github" / "workflows"
TEMPLATE = REPO / "generator" / "commands" / "template"
TEMPLATE_WORKFLOWS = sorted(
    [*TEMPLATE.glob(".github/workflows/*.yml"), *TEMPLATE.glob("fleet/.github/workflows/*.yml")]
)
OWN_WORKFLOWS = sorted(OWN.glob("*.yml"))

# What a step needs from its job's GITHUB_TOKEN: (the step, the permissions, why). A step that matches
# no row fails the permission test: add its row here first.
NEEDS = (
    ("actions/checkout", {"contents": "read"}, "clones the repository"),
    ("actions/setup-python", {}, "installs Python; its pip cache goes through the runner's cache service"),
    ("actions/configure-pages", {"pages": "read"}, "reads the Pages site (actions/configure-pages#188)"),
    ("actions/upload-pages-artifact", {}, "uploads the built site as an artifact of this run"),
    ("actions/deploy-pages", {"pages": "write", "id-token": "write"}, "deploys it, proving the run with OIDC"),
    ("actions/upload-artifact", {}, "an artifact of this run"),
    ("actions/cache", {}, "restores and saves a folder through the runner's cache service (pip's, here)"),
    ("actions/download-artifact", {}, "artifacts of this same run (another run's would need actions: read)"),
    ("pypa/gh-action-pypi-publish", {"id-token": "write"}, "publishes to PyPI as a trusted publisher (OIDC)"),
    ("the ledger diff comment", {"pull-requests": "write"}, "creates or updates a pull-request comment"),
    ("git push", {"contents": "write"}, "pushes a branch"),
    ("gh pr create", {"pull-requests": "write"}, "opens a pull request"),
    ("another run's artifact", {"actions": "read"}, "downloads an artifact of another run (run-id)"),
    ("pages.py publish", {"contents": "write"}, "pushes the site or a preview to the gh-pages branch"),
    ("pages.py remove", {"contents": "write"}, "pushes the gh-pages branch without a preview"),
    ("gh api", {"pull-requests": "read"}, "reads pull requests (their number, state and labels)"),
)
LEVELS = {"none": 0, "read": 1, "write": 2}


def workflow(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True)  # YAML 1.1 reads the key `on` as true
    return data


def what_steps_do(step: dict) -> list[str]:
    """The NEEDS rows a step matches (an unknown action is its own name, which matches no row)."""
    found = []
    if "uses" in step:
        action = step["uses"].split("@")[0]
        script = (step.get("with") or {}).get("script", "")
        comment = action == "actions/github-script" and re.search(r"\.(create|update)Comment\(", script)
        another_run = action == "actions/download-artifact" and "run-id" in (step.get("with") or {})
        found.append("the ledger diff comment" if comment else "another run's artifact" if another_run else action)
    for command in ("git push", "gh pr create", "pages.py publish", "pages.py remove", "gh api"):
        if command in step.get("run", ""):
            found.append(command)
    return found


def granted(job: dict, flow: dict) -> dict[str, str]:
    """The job's token permissions: its own `permissions:`, else the workflow's (none when neither says)."""
    permissions = job.get("permissions", flow.get("permissions", {}))
    if permissions in ("read-all", "write-all"):
        level = permissions.split("-")[0]
        return {scope: level for row in NEEDS for scope in row[1]} | {"contents": level}
    return dict(permissions or {})


def missing_permissions(flow: dict) -> list[str]:
    """Every step that needs a permission its job does not grant, and every step the table does not know."""
    table = {row[0]: row[1] for row in NEEDS}
    problems = []
    for name, job in flow["jobs"].items():
        has = granted(job, flow)
        for number, step in enumerate(job.get("steps", []), start=1):
            for what in what_steps_do(step):
                if what not in table:
                    problems.append(f"{name} step {number}: {what} is not in the NEEDS table")
                    continue
                for scope, level in table[what].items():
                    if LEVELS[has.get(scope, "none")] < LEVELS[level]:
                        grants = ", ".join(f"{key}: {value}" for key, value in sorted(has.items())) or "nothing"
                        problems.append(f"{name} step {number}: {what} needs {scope}: {level}; the job grants {grants}")
    return problems


def make_recipes(makefile: str) -> dict[str, str]:
    """Targets with a one-line recipe -> that line (make's own variables left in)."""
    found = re.findall(r"^([a-z][\w-]*):[^\n=]*\n\t([^\n]+)\n(?!\t)", makefile, re.M)
    return dict(found)


def as_typed(command: str, makefile: str) -> str:
    """A run step as a user types it: `make check CHECK_FLAGS=--no-cache` -> `ledger check --no-cache`,
    `.venv/bin/ledger ...` -> `ledger ...` (the make targets' own virtual environment left out)."""
    try:
        words = shlex.split(command)  # CHECK_FLAGS="--no-cache --require-history" is one word
    except ValueError:
        words = command.split()
    recipes = make_recipes(makefile)
    if len(words) >= 2 and words[0] == "make" and words[1] in recipes:
        assigned = dict(word.split("=", 1) for word in words[2:] if "=" in word)
        recipe = recipes[words[1]].replace("$(VENV)/bin/", "")
        command = re.sub(r"\$\((\w+)\)", lambda m: assigned.get(m.group(1), ""), recipe)
        command = " ".join(command.split())
    return command.replace(".venv/bin/", "")


def _flat(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        found: dict[str, object] = {}
        for key, inner in value.items():
            found.update(_flat(inner, f"{prefix}.{key}" if prefix else str(key)))
        return found
    return {prefix: value}


def _step(step: dict, makefile: str) -> dict[str, object]:
    step = {key: value for key, value in step.items() if key != "name"}  # names describe; the rest acts
    if "run" in step:
        step["run"] = "\n".join(as_typed(line, makefile) for line in step["run"].splitlines())
    return _flat(step)


def step_key(step: dict[str, object]) -> str:
    """What a step is, to pair it across workflows: its action, or its command's first two words."""
    if "uses" in step:
        return str(step["uses"]).split("@")[0]
    return " ".join(str(step.get("run", "")).split()[:2])


def differences(ours: dict, theirs: dict, makefile: str) -> dict[tuple[str, str, str], tuple]:
    """(job, step or 'job' or 'workflow', field) -> (our value, their value), step by step in order."""
    found: dict[tuple[str, str, str], tuple] = {}
    for field in sorted((set(ours) | set(theirs)) - {"jobs", "name"}):
        if ours.get(field) != theirs.get(field):
            found[("", "workflow", field)] = (ours.get(field), theirs.get(field))
    for job in sorted(set(ours["jobs"]) | set(theirs["jobs"])):
        if job not in ours["jobs"] or job not in theirs["jobs"]:
            found[(job, "job", "only in ours" if job in ours["jobs"] else "only in the template")] = (None, None)
            continue
        a, b = ours["jobs"][job], theirs["jobs"][job]
        for field in sorted((set(a) | set(b)) - {"steps", "name"}):
            if a.get(field) != b.get(field):
                found[(job, "job", field)] = (a.get(field), b.get(field))
        found.update(_step_differences(job, a.get("steps", []), b.get("steps", []), makefile))
    return found


def _step_differences(job: str, a: list[dict], b: list[dict], makefile: str) -> dict[tuple[str, str, str], tuple]:
    ours, theirs = [_step(s, makefile) for s in a], [_step(s, makefile) for s in b]
    keys_a, keys_b = [step_key(s) for s in ours], [step_key(s) for s in theirs]
    found: dict[tuple[str, str, str], tuple] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        if tag == "equal":
            for x, y in zip(ours[i1:i2], theirs[j1:j2], strict=True):
                for field in sorted(set(x) | set(y)):
                    if x.get(field) != y.get(field):
                        found[(job, step_key(x), field)] = (x.get(field), y.get(field))
            continue
        for step in ours[i1:i2]:
            found[(job, step_key(step), "only in ours")] = (step, None)
        for step in theirs[j1:j2]:
            found[(job, step_key(step), "only in the template")] = (None, step)
    return found
