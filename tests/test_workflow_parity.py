"""The workflows `ledger init` writes match this repository's own, step by step (each difference listed
with its reason), and every job in both places grants the permissions its steps need."""

import pytest
from helpers import REPO
from helpers_workflows import (
    OWN,
    OWN_WORKFLOWS,
    TEMPLATE,
    TEMPLATE_WORKFLOWS,
    as_typed,
    differences,
    missing_permissions,
    workflow,
)

MAKEFILE = (REPO / "Makefile").read_text()
CACHE_KEY = "the pip cache is keyed on what each installs from: here pyproject.toml, in a project requirements.txt"
INSTALL = "make sets up this repository's .venv on first use; a project installs its requirements.txt"

# (workflow, job, step, field) -> why this repository's workflow and the template's differ there.
EXPECTED = {
    ("review.yml", "test", "job", "only in ours"): "this repository's own lint and test suite; a project has none",
    ("review.yml", "site", "actions/setup-python", "with.cache-dependency-path"): CACHE_KEY,
    ("review.yml", "site", "git worktree", "run"): "the base branch's ledger: here make's .venv set up in a "
    "worktree of the base, in a project the base's requirements.txt installed",
    ("publish.yml", "build", "actions/setup-python", "with.cache-dependency-path"): CACHE_KEY,
    ("publish.yml", "build", "python -m", "only in the template"): INSTALL,
    ("preview.yml", "preview", "make setup", "only in ours"): INSTALL,
    ("preview.yml", "preview", "python -m", "only in the template"): INSTALL,
}


@pytest.mark.parametrize(
    "command, typed",
    [
        ("make check CHECK_FLAGS=--no-cache", "ledger check --no-cache"),
        ("make check", "ledger check"),
        ("make site", "mkdocs build --strict"),
        (".venv/bin/ledger verify-site site", "ledger verify-site site"),
        ("make test", "make test"),  # two lines of recipe: kept as it is
        ('ledger diff "$BASE_SHA" > ledger-diff.md', 'ledger diff "$BASE_SHA" > ledger-diff.md'),
    ],
)
def test_a_make_target_reads_as_the_command_a_user_types(command, typed):
    assert as_typed(command, MAKEFILE) == typed


def test_the_comparison_finds_a_missing_step_a_changed_field_and_a_changed_trigger():
    ours = {
        "on": {"pull_request": None},
        "jobs": {"j": {"runs-on": "ubuntu-latest", "steps": [{"uses": "actions/checkout@v7"}, {"run": "make site"}]}},
    }
    theirs = {
        "on": {"push": None},
        "jobs": {"j": {"runs-on": "ubuntu-22.04", "steps": [{"uses": "actions/checkout@v6", "with": {"x": 1}}]}},
    }
    assert differences(ours, theirs, MAKEFILE) == {
        ("", "workflow", "on"): ({"pull_request": None}, {"push": None}),
        ("j", "job", "runs-on"): ("ubuntu-latest", "ubuntu-22.04"),
        ("j", "actions/checkout", "uses"): ("actions/checkout@v7", "actions/checkout@v6"),
        ("j", "actions/checkout", "with.x"): (None, 1),
        ("j", "mkdocs build", "only in ours"): ({"run": "mkdocs build --strict"}, None),
    }


@pytest.mark.parametrize("name", ["review.yml", "publish.yml", "preview.yml"])
def test_the_init_workflows_match_this_repositorys_step_by_step(name):
    found = differences(workflow(OWN / name), workflow(TEMPLATE / ".github/workflows" / name), MAKEFILE)
    expected = {key[1:]: reason for key, reason in EXPECTED.items() if key[0] == name}
    unexplained = {key: values for key, values in found.items() if key not in expected}
    assert unexplained == {}, "a difference with no reason in EXPECTED (or bring the template to parity)"
    assert sorted(set(expected) - set(found)) == [], "EXPECTED lists a difference that is gone: remove it"


def test_the_init_project_gets_the_same_pages_script_as_this_repository():
    # The workflows of both run .github/pages.py from the default branch's checkout: one script, two copies.
    assert (TEMPLATE / ".github/pages.py").read_bytes() == (OWN.parent / "pages.py").read_bytes()


COMMENT = {"uses": "actions/github-script@v9", "with": {"script": "github.rest.issues.createComment({})"}}


@pytest.mark.parametrize(
    "steps, permissions, problems",
    [
        ([{"uses": "actions/configure-pages@v6"}], {"contents": "read"},
         ["j step 1: actions/configure-pages needs pages: read; the job grants contents: read"]),
        ([{"uses": "actions/configure-pages@v6"}], {"contents": "read", "pages": "read"}, []),
        ([{"uses": "actions/deploy-pages@v5"}], {"pages": "write"},
         ["j step 1: actions/deploy-pages needs id-token: write; the job grants pages: write"]),
        ([{"uses": "actions/deploy-pages@v5"}], {"pages": "write", "id-token": "write"}, []),
        ([COMMENT], {"contents": "read"},
         ["j step 1: the ledger diff comment needs pull-requests: write; the job grants contents: read"]),
        ([COMMENT], {"pull-requests": "write"}, []),
        ([{"run": "git push origin x"}, {"run": "gh pr create --fill"}], {"contents": "read"},
         ["j step 1: git push needs contents: write; the job grants contents: read",
          "j step 2: gh pr create needs pull-requests: write; the job grants contents: read"]),
        ([{"uses": "actions/checkout@v7"}], "read-all", []),
        ([{"uses": "actions/checkout@v7"}], None, ["j step 1: actions/checkout needs contents: read; the job grants nothing"]),
        ([{"uses": "someone/unknown@v1"}], {}, ["j step 1: someone/unknown is not in the NEEDS table"]),
    ],
)  # fmt: skip
def test_a_step_without_the_permission_it_needs_is_named(steps, permissions, problems):
    job = {"steps": steps} if permissions is None else {"permissions": permissions, "steps": steps}
    assert missing_permissions({"on": {"push": None}, "jobs": {"j": job}}) == problems


def test_a_job_without_permissions_has_the_workflows():
    flow = {"permissions": {"contents": "read"}, "jobs": {"j": {"steps": [{"uses": "actions/checkout@v7"}]}}}
    assert missing_permissions(flow) == []


@pytest.mark.parametrize("path", OWN_WORKFLOWS + TEMPLATE_WORKFLOWS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_job_grants_what_its_steps_need_in_both_places(path):
    assert missing_permissions(workflow(path)) == []


def test_no_workflow_uses_configure_pages_whose_outputs_nothing_reads():
    # It needs pages: read and fails in a private repository or before Pages' source is GitHub Actions.
    for path in OWN_WORKFLOWS + TEMPLATE_WORKFLOWS:
        assert "actions/configure-pages" not in path.read_text(), path
