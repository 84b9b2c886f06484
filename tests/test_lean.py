"""The lean gate: without the site stack (the [site] extra) `ledger check` runs and, where mkdocs.yml
declares the plugin, says what `mkdocs build` needs; the plugin, the site wing and `ledger pages` say
"install evidence-ledger[site]" without a traceback. The stack is hidden here by making its modules
unimportable in the child process; tests/test_new_user.py installs the lean package for real."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, write_tree

from generator.cli import VERBS
from generator.inputs import stack

INSTALL = 'install evidence-ledger[site] (pip install "evidence-ledger[site]")'
CLAIMS = {"claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"}


def without(modules: tuple[str, ...], code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Python running `code` with the given modules unimportable, as if they were not installed."""
    hide = f"import sys\nfor name in {modules!r}:\n    sys.modules[name] = None\n"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-c", hide + code, *args], cwd=cwd, capture_output=True, text=True, env=env)


LEDGER = "from generator.cli import main\nsys.exit(main(sys.argv[1:]))"


def test_the_site_stack_is_the_site_extra_and_the_gate_needs_none_of_it():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    names = lambda specs: {spec.split(">")[0].split("=")[0].split("<")[0].lower() for spec in specs}  # noqa: E731
    assert names(project["dependencies"]) == {"pyyaml", "markdown", "pymdown-extensions", "attrs"}
    assert names(project["optional-dependencies"]["site"]) == {
        "mkdocs", "mkdocs-material", "pandas", "altair", "vl-convert-python", "pygments",
    }  # fmt: skip
    assert stack.MODULES == ("mkdocs", "material", "pandas", "altair", "vl_convert", "pygments")


def test_ledger_check_without_the_site_stack_passes_and_says_what_mkdocs_build_needs(tmp_path):
    write_tree(tmp_path, {**CLAIMS, "mkdocs.yml": "site_name: s\nplugins:\n  - ledger\n"})
    done = without(stack.MODULES, LEDGER, "check", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 claim")
    assert done.stderr == (
        "note: mkdocs.yml declares the ledger plugin; `ledger check` runs without the site, but `mkdocs build` "
        f"needs mkdocs, material, pandas, altair, vl_convert, pygments: {INSTALL}\n"
    )


def test_ledger_check_without_the_plugin_declared_adds_no_note(tmp_path):
    write_tree(tmp_path, CLAIMS)
    done = without(stack.MODULES, LEDGER, "check", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""


def test_ledger_check_with_the_site_stack_adds_no_note(tmp_path):
    write_tree(tmp_path, {**CLAIMS, "mkdocs.yml": "site_name: s\nplugins:\n  - ledger\n"})
    done = without((), LEDGER, "check", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize(
    "module", ["generator.site.plugin", "generator.site.markdown_ext", "generator.site.figure_api"]
)
def test_importing_the_site_wing_without_the_stack_says_what_to_install(module, tmp_path):
    done = without(("pandas",), f"try:\n    import {module}\nexcept ImportError as e:\n    print(e)", cwd=tmp_path)
    assert done.stdout == f"the site needs pandas, not installed here: {INSTALL}\n", done.stderr


def test_ledger_pages_without_the_stack_exits_2_saying_what_to_install(tmp_path):
    write_tree(tmp_path, {**CLAIMS, "mkdocs.yml": "site_name: s\nplugins:\n  - ledger\n"})
    done = without(("altair", "vl_convert"), LEDGER, "pages", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(f"ledger: the site needs altair, vl_convert, not installed here: {INSTALL}\n")
    assert "Traceback" not in done.stderr


def test_mkdocs_build_without_the_rest_of_the_stack_is_a_configuration_error_not_a_traceback(tmp_path):
    write_tree(tmp_path, {**CLAIMS, "mkdocs.yml": "site_name: s\nplugins:\n  - ledger\n", "docs/index.md": "# s\n"})
    done = without(("pandas",), "from mkdocs.__main__ import cli\ncli()", "build", "--strict", cwd=tmp_path)
    assert done.returncode != 0
    assert f"the site needs pandas, not installed here: {INSTALL}" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_every_verbs_help_works_without_the_site_stack(verb, tmp_path):
    done = without(stack.MODULES, LEDGER, verb, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: ledger {verb}")


def test_ledger_help_and_a_bare_ledger_work_without_the_site_stack(tmp_path):
    helped = without(stack.MODULES, LEDGER, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "verify-site" in helped.stdout, helped.stderr
    bare = without(stack.MODULES, LEDGER, cwd=tmp_path)
    assert bare.returncode == 2 and "Traceback" not in bare.stderr
    assert bare.stderr.endswith("ledger: error: the following arguments are required: command\n")
