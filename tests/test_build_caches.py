"""A build's caches have one owner: what the pages of a build share belongs to that build (assemble.Site,
render.Shared), and what verify-site keeps from page to page to its one verify() call (framed.Kept). Nothing
of either is left in a module of the site or of verify-site, so two builds in one process (serve, a test
run, an assistant driving the ledger) cannot see each other's."""

import sys
from dataclasses import fields, is_dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers_series import series_ledger
from helpers_site import a_ledger

from generator.gate import check_project
from generator.verify import verify

pytestmark = pytest.mark.site

OWNED = ("generator.site.", "generator.verify.")


def module_state() -> dict[str, int]:
    """Each dict, list and set held by a module of the site or verify-site, by name -> its length."""
    return {
        f"{name}.{key}": len(value)
        for name, module in list(sys.modules.items())
        if name.startswith(OWNED)
        for key, value in vars(module).items()
        if isinstance(value, (dict, list, set))
    }


def held_by_the_site() -> tuple[list[str], dict[str, int]]:
    """What the site's modules could remember from one build to the next: each function that keeps its
    results (a functools cache), and each dict, list and set that one of its modules holds, or an object of
    the site's that one of them holds (by name -> its length)."""
    cached, held = [], {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("generator.site."):
            continue
        for key, value in vars(module).items():
            if isinstance(value, (dict, list, set)):
                held[f"{name}.{key}"] = len(value)
            elif hasattr(value, "cache_info"):
                cached.append(f"{name}.{key}")
            elif type(value).__module__.startswith("generator.site.") and not isinstance(value, type):
                names = [f.name for f in fields(value)] if is_dataclass(value) else list(vars(value))
                for attribute in names:
                    found = getattr(value, attribute)
                    if isinstance(found, (dict, list, set)):
                        held[f"{name}.{key}.{attribute}"] = len(found)
    return cached, held


def rendered_by_the_extension(root: Path) -> str:
    """A page of the project as a builder that runs only the Markdown extension renders it."""
    import markdown

    from generator.site import markdown_ext

    text = (root / "docs/index.md").read_text(encoding="utf-8")
    return markdown.markdown(text, extensions=["tables", markdown_ext.makeExtension(root=str(root))])


def build_and_verify(root: Path, site: Path) -> None:
    """`mkdocs build --strict`, then verify-site's verify(), in this process."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(root / "mkdocs.yml"), site_dir=str(site), strict=True))
    report = check_project(root, None, datetime.now(timezone.utc), every_table=True)
    pages, problems = verify(site, report, root.resolve(), root / "mkdocs.yml")
    assert pages and problems == [], problems[:5]


def test_a_build_and_its_verification_leave_nothing_in_the_modules_for_the_next(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    a_ledger(first)
    series_ledger(second)
    monkeypatch.chdir(first)
    build_and_verify(first, tmp_path / "site-first")  # (every module either loads is loaded now)
    before = module_state()
    monkeypatch.chdir(second)
    build_and_verify(second, tmp_path / "site-second")  # another ledger: other claims, runs, pages and links
    after = module_state()
    assert {name: (before[name], after[name]) for name in before if before[name] != after.get(name)} == {}


def test_no_module_of_the_site_remembers_what_a_build_made(tmp_path, monkeypatch):
    """Display functions are plain: what a build's pages share is the build's (render.Shared, the series'
    SeriesAssets). The Markdown extension, made afresh for every part of every page, keeps its project's
    site in one memo (markdown_ext.Sites) that holds the last project's alone."""
    first, second = tmp_path / "first", tmp_path / "second"
    a_ledger(first)
    series_ledger(second)
    monkeypatch.chdir(first)
    assert "ledger-stamp" in rendered_by_the_extension(first)
    build_and_verify(first, tmp_path / "site-first")
    cached, before = held_by_the_site()
    monkeypatch.chdir(second)
    assert "ledger-stamp" in rendered_by_the_extension(second)
    build_and_verify(second, tmp_path / "site-second")
    again, after = held_by_the_site()
    assert (cached, again) == ([], [])
    assert {
        name: (before.get(name), after.get(name))
        for name in before.keys() | after.keys()
        if before.get(name) != after.get(name)
    } == {}
