"""README.md and guide/ are true to the code: every rule, verb and policy option is documented,
links and anchors resolve, the README stays a front door, and the pre-commit `rev:` is a real commit."""

import re
import subprocess
from dataclasses import fields, replace

import pytest
from helpers import REPO

from generator.inputs.config import DEFAULTS, OPTIONS, shown_settings
from generator.records import Policy
from generator.rules import RULES

GUIDE = REPO / "guide"
PENDING = {"guide/checks.md"}  # written by the trust issue (checks, units, spreads); linked already
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def documents() -> dict[str, str]:
    found = {name: (REPO / name).read_text() for name in ("README.md", "CHANGELOG.md")}
    found.update({f"guide/{p.name}": p.read_text() for p in sorted(GUIDE.glob("*.md"))})
    return found


def everything() -> str:
    return "\n".join(documents().values())


def slug(heading: str) -> str:
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", heading.strip().lower()))


def test_readme_is_a_front_door_of_at_most_250_lines():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    text = "\n".join(lines)
    for step in ["make serve", "make test", "ledger init", "ledger measure", "ledger check", "mkdocs serve"]:
        assert step in text, step


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_is_documented(rule):
    assert f"`{rule}`" in everything()


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
def test_every_policy_option_is_documented_in_the_policy_guide_with_its_default(option):
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \|", (GUIDE / "policy.md").read_text(), re.M)
    documented = {name: default.strip().strip("`") for name, default in rows}
    assert (
        documented.get(option.name)
        == shown_settings(replace(DEFAULTS, **{option.name: option.parse(option.default)}))[option.name]
    )


def test_every_policy_field_is_an_option_or_read_from_elsewhere():
    """A new Policy field is an option row (documented, carrying its default: config.DEFAULTS is built from the
    rows) or says here where it comes from."""
    from_mkdocs_yml = {"docs_dir", "problems", "config_path", "config_files", "markdown_extensions", "site_texts"}
    assert {field.name for field in fields(Policy)} - from_mkdocs_yml == {option.name for option in OPTIONS}


def test_links_and_anchors_in_readme_and_guide_resolve():
    docs = documents()
    broken = []
    for name, text in docs.items():
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (REPO / name).parent / path if path else REPO / name
            relative = resolved.resolve().relative_to(REPO).as_posix()
            if relative in PENDING and not resolved.exists():
                continue
            if not resolved.exists():
                broken.append(f"{name}: {target}")
            elif anchor and resolved.suffix == ".md":
                headings = [slug(h) for h in re.findall(r"^#+\s+(.*)$", resolved.read_text(), re.M)]
                if anchor not in headings:
                    broken.append(f"{name}: {target} (no heading #{anchor})")
    assert broken == []


def test_the_guide_lives_outside_the_report_site():
    assert GUIDE.is_dir() and not (REPO / "docs" / "guide").exists()


def test_the_precommit_rev_shown_is_a_commit_of_this_repository():
    revs = set(re.findall(r"rev: ([0-9a-f]{40})", everything() + (REPO / ".pre-commit-hooks.yaml").read_text()))
    assert revs
    for rev in revs:
        found = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True)
        if found.returncode != 0 and not (REPO / ".git").exists():
            pytest.skip("not a git checkout")
        assert found.returncode == 0, f"rev {rev} is not a commit here"


def test_migration_notes_live_in_the_changelog_not_in_the_guide():
    changelog = (REPO / "CHANGELOG.md").read_text()
    assert "### Migrating a ledger from the first edition" in changelog and "The report's 178 checks" in changelog
    guide = "\n".join(text for name, text in documents().items() if name.startswith("guide/"))
    assert "Migrating" not in guide and "178 checks" not in guide
    assert "(../CHANGELOG.md#migrating-a-ledger-from-the-first-edition)" in (GUIDE / "checks.md").read_text()


def test_the_guide_names_the_import_name_of_the_installed_package():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["name"] == "evidence-ledger"
    assert all(package.split(".")[0] == "generator" for package in project["tool"]["setuptools"]["packages"])
    text = (GUIDE / "index.md").read_text()
    assert "pip installs **`evidence-ledger`**; Python imports it as **`generator`**" in text


def test_every_test_the_security_guide_names_exists():
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", (GUIDE / "security.md").read_text()))
    defined = {
        name
        for path in (REPO / "tests").glob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(), re.M)
    }
    assert named and named <= defined, sorted(named - defined)


def test_the_detectable_shift_table_in_the_checks_guide_is_the_one_the_statistics_module_computes():
    from generator.lang import stats

    assert stats.shift_table() in (GUIDE / "checks.md").read_text()
