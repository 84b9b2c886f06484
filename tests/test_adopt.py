"""Adding the ledger to a site that already exists: the migration mode (`warn: [unbound-number]`) that
lets old pages keep their typed figures, counted, until the author makes the rule fail again."""

import html
import re

import pytest
from helpers import run_ledger, run_mkdocs, write_tree

A_LEAD = "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"
OLD_PAGE = "# Results\n\nThe old page says 3.5 GB/s and 12 ms.\n"


def migrating(warn: str) -> dict[str, str]:
    return {
        "mkdocs.yml": (
            "site_name: old site\ntheme: {name: material, font: false}\nplugins:\n  - search\n"
            f"  - ledger:\n      warn: {warn}\n"
        ),
        "claims/a.yaml": A_LEAD,
        "docs/index.md": OLD_PAGE,
    }


def page_text(path) -> str:
    body = path.read_text(encoding="utf-8")
    body = body[body.index("<article") : body.index("</article>")]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.mark.site
def test_migration_mode_builds_strict_counts_the_held_figures_and_fails_once_taken_out(tmp_path):
    write_tree(tmp_path, migrating("[unbound-number]"))
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 0
    assert checked.output.endswith("1 claim (1 borrowed; 1 lead) — 0 failures — 2 warnings: 2 unbound-number\n")
    built = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert built.exit_code == 0, built.errors
    gate = page_text(tmp_path / "site/gate/index.html")
    assert "The gate passes 1 claim (1 borrowed; 1 lead) — 0 failures — 2 warnings: 2 unbound-number" in gate
    assert (
        "unbound-number (2) Warnings, not failures: warn: in mkdocs.yml holds unbound-number . "
        "Take it out of warn: to make these fail the build."
    ) in gate  # (a space where a tag ended)
    assert "'3.5 GB/s' is typed into the page" in gate and "'12 ms' is typed into the page" in gate

    write_tree(tmp_path, migrating("[]"))
    assert run_ledger("check", cwd=tmp_path).exit_code == 1
    assert run_mkdocs("build", "--strict", cwd=tmp_path).exit_code != 0


@pytest.mark.site
def test_once_the_old_figures_are_gone_the_gate_page_says_to_take_the_rule_out_of_warn(tmp_path):
    write_tree(tmp_path, {**migrating("[unbound-number]"), "docs/index.md": "# Results\n\nNo figure here.\n"})
    built = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert built.exit_code == 0, built.errors
    gate = page_text(tmp_path / "site/gate/index.html")
    assert (
        "`warn:` holds unbound-number, which finds nothing now: take it out of `warn:` so that the next one fails"
    ) in gate
