"""Adding the ledger to a site that already exists: the migration mode (`warn: [unbound-number]`) that
lets old pages keep their typed figures, counted, until the author makes the rule fail again."""

import html
import re

import pytest
import yaml
from helpers import run_ledger, run_mkdocs, write_tree

from generator.commands import adopt

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


# `ledger init --adopt` in an existing Material site: its own nav, palette, search and tags.
MATERIAL_SITE = {
    "mkdocs.yml": """\
site_name: Old site
# The site's own comment: adopting keeps it, and every other line.
theme:
  name: material
  font: false
  palette:
    - scheme: default
      primary: teal     # the site's colour
  features: [navigation.tabs]
nav:
  - Home: index.md
  - Notes:
      - notes/one.md    # a note
plugins:
  - search              # the site's search
  - tags
markdown_extensions:
  - toc:
      permalink: true
""",
    "docs/index.md": OLD_PAGE,
    "docs/notes/one.md": "---\ntags: [hashing]\n---\n# One note\n\nA note without figures.\n",
    ".gitignore": "/site/\n",
    "requirements.txt": "mkdocs-material\n",
    "README.md": "# Old site\n\nIts pages load in 40 ms.\n",
}


def tree_bytes(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.site
def test_init_adopt_adds_the_ledger_to_a_material_site_that_then_builds_strict(tmp_path):
    write_tree(tmp_path, MATERIAL_SITE)
    before = (tmp_path / "mkdocs.yml").read_text(encoding="utf-8")
    adopted = run_ledger("init", "--adopt", "--source", "evidence-ledger==0.1.0", cwd=tmp_path)
    assert adopted.exit_code == 0, adopted.errors
    out = adopted.output
    for path in (".github/workflows/review.yml", ".github/workflows/publish.yml", ".pre-commit-config.yaml"):
        assert f"  wrote {path}\n" in out
    assert "  wrote .gitattributes\n" in out and "measurements/** -text" in (tmp_path / ".gitattributes").read_text()
    assert "  skipped requirements.txt: it exists" in out  # never overwritten
    assert (tmp_path / "requirements.txt").read_text() == "mkdocs-material\n"
    assert "  added to .gitignore: " in out and "/.cache/" in out
    ignore = (tmp_path / ".gitignore").read_text().splitlines()
    assert ignore[0] == "/site/" and ignore.count("/site/") == 1 and "/.cache/" in ignore
    assert (tmp_path / "docs/index.md").read_text() == OLD_PAGE  # the site's pages untouched

    config = (tmp_path / "mkdocs.yml").read_text(encoding="utf-8")
    kept = [line for line in config.splitlines() if line in before.splitlines()]
    assert kept == before.splitlines()  # every line and comment of the site's mkdocs.yml, in order
    assert "      - notes/one.md    # a note\n  - Ledger:\n      - claims/index.md\n" in config
    assert "  - tags\n  - ledger:\n" in config
    assert "warn: [unbound-number]" in config  # the old page's typed figures: warnings, counted
    assert "    surfaces: [README.md]" in config  # the README found is read as the pages are
    assert "the ledger plugin, last in plugins: (README.md under surfaces:" in out
    assert (tmp_path / "README.md").read_text() == MATERIAL_SITE["README.md"]

    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output
    assert "README.md:3:19: unbound-number: '40 ms' is typed into the file" in checked.output
    built = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert built.exit_code == 0, built.errors
    home = (tmp_path / "site/index.html").read_text(encoding="utf-8")
    assert 'data-md-color-primary="teal"' in home  # the palette kept
    for page in ("claims/", "claims/fell/", "measurements/", "gate/"):
        assert (tmp_path / "site" / page / "index.html").is_file()
        assert f'href="{page}"' in home  # in the site's own nav
    assert (tmp_path / "site/search/search_index.json").is_file()
    assert "hashing" in (tmp_path / "site/notes/one/index.html").read_text(encoding="utf-8")  # its tag

    again_before = tree_bytes(tmp_path)
    again = run_ledger("init", "--adopt", "--source", "evidence-ledger==0.1.0", cwd=tmp_path)
    assert again.exit_code == 0, again.errors
    assert "nothing to write" in again.output and "  wrote " not in again.output
    assert "  skipped mkdocs.yml: the ledger plugin is there already\n" in again.output
    assert "  skipped mkdocs.yml: nav lists the generated pages already\n" in again.output
    assert tree_bytes(tmp_path) == again_before


def test_init_adopt_refuses_a_folder_without_mkdocs_yml_and_writes_nothing(tmp_path):
    (tmp_path / "README.md").write_text("# not a site\n")
    result = run_ledger("init", "--adopt", cwd=tmp_path)
    assert result.exit_code == 2
    assert "no mkdocs.yml; --adopt adds the ledger to an existing MkDocs project" in result.errors
    assert len(result.errors.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]


PLUGIN_LINES = "- ledger:\n    max_run_age_days: 365"


@pytest.mark.parametrize(
    "config, has, skipped",
    [
        # no plugins: search (MkDocs' default) is kept beside the ledger
        ("site_name: s\n", ["plugins:\n  - search ", "\n  - ledger:\n      max_run_age_days: 365"], []),
        # an indentless list, a mapping item last, a trailing comment that stays after the insertion
        (
            "site_name: s\nplugins:\n- search\n- tags:\n    tags_file: tags.md\n# about the theme\ntheme: x\n",
            ["    tags_file: tags.md\n- ledger:\n    max_run_age_days: 365", "\n# about the theme\ntheme: x\n"],
            [],
        ),
        # a file without a final newline
        ("site_name: s\nplugins:\n  - search", ["  - search\n  - ledger:\n"], []),
        # a flow list is left alone and named
        ("site_name: s\nplugins: [search]\n", ["plugins: [search]\n"], ["mkdocs.yml: plugins: is not a block list"]),
        # the plugin already there, by name or as a mapping
        ("site_name: s\nplugins:\n  - ledger\n", [], ["mkdocs.yml: the ledger plugin is there already"]),
        ("site_name: s\nplugins:\n  - ledger: {warn: []}\n", [], ["mkdocs.yml: the ledger plugin is there already"]),
        # a nav naming one generated page already: the rest are named for the author to add
        (
            "site_name: s\nnav:\n  - index.md\n  - gate/index.md\nplugins:\n  - ledger\n",
            [],
            ["mkdocs.yml: nav: add claims/index.md, claims/fell.md, measurements/index.md to it by hand"],
        ),
        # a nav: the generated pages as a section after the last item
        (
            "site_name: s\nnav:\n  - Home: index.md\n\nplugins:\n  - ledger\n",
            ["  - Home: index.md\n  - Ledger:\n      - claims/index.md\n", "      - gate/index.md\n\nplugins:"],
            ["mkdocs.yml: the ledger plugin is there already"],
        ),
    ],
)
def test_adopted_config_inserts_whole_lines_and_keeps_the_rest(config, has, skipped):
    text, _added, found = adopt.adopted_config(config)
    for part in has:
        assert part in text
    assert [line for line in text.splitlines() if line in config.splitlines()] == config.splitlines()
    if skipped:
        assert all(any(line.startswith(s) for line in found) for s in skipped), found
    else:
        assert found == []
    assert yaml.compose(text, Loader=yaml.SafeLoader) is not None  # still YAML


def test_adopt_names_the_generated_pages_the_site_makes():
    from generator.site import render

    assert (adopt.CLAIMS_INDEX, adopt.FELL, adopt.MEASUREMENTS, adopt.GATE) == (
        render.CLAIMS_INDEX,
        render.FELL,
        render.MEASUREMENTS,
        render.GATE,
    )
