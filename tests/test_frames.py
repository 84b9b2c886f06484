"""Claim and run pages written in their frames (generator/site/frame.py) are the pages MkDocs' own page
pipeline writes: the same small site built both ways (LEDGER_FRAMES=off sends every generated page
through MkDocs), every file compared byte for byte, the sitemap and the search index included; with
site_url and permalinks, without directory URLs, with a theme override that does more with a title
than print it (the frame's check sees it), and with a hook that sees every page (frames are off)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO
from helpers_site import a_ledger

pytestmark = pytest.mark.site


def build(root: Path, site: str, frames: bool) -> Path:
    env = dict(os.environ, PYTHONPATH=str(REPO), LEDGER_FRAMES="on" if frames else "off")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (root / f"{site}.log").write_text(done.stderr)
    return root / site


def logged(root: Path, site: str) -> str:
    """The plugin's line on the pages it wrote in frames."""
    lines = [line for line in (root / f"{site}.log").read_text().splitlines() if "outside the navigation:" in line]
    return lines[0].split("navigation: ", 1)[1] if lines else ""


def files_of(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*")) if path.is_file()}


def both_ways(root: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    return files_of(build(root, "framed", True)), files_of(build(root, "whole", False))


def a_site(root: Path, extra: str = "") -> None:
    """The site tests' ledger; its report links to a claim page and a run page in Markdown (--strict:
    a link MkDocs cannot resolve fails the build)."""
    a_ledger(root)
    run = sorted((root / "measurements/toy").iterdir())[-1].name
    with (root / "docs/index.md").open("a") as page:
        page.write(f"\nSee [the claim](claim/moe-speedup-b16.md) and [its run](run/toy/{run}.md#data).\n")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("site_name: site test\n", "site_name: site test\n" + extra))


def assert_same(framed: dict[str, bytes], whole: dict[str, bytes]) -> None:
    assert framed.keys() == whole.keys()
    different = [path for path in framed if framed[path] != whole[path]]
    assert not different, different[:5]
    assert any(path.startswith("claim/") for path in framed) and any(path.startswith("run/") for path in framed)


def test_framed_pages_are_mkdocs_own(tmp_path):
    a_site(tmp_path, "site_url: https://example.org/report/\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(config.read_text().replace("pymdownx.details, toc]", "pymdownx.details, toc: {permalink: true}]"))
    framed, whole = both_ways(tmp_path)
    assert_same(framed, whole)
    sitemap = framed["sitemap.xml"].decode()
    assert "https://example.org/report/claim/moe-speedup-b16/" in sitemap
    assert sitemap.count("<loc>") == sum(path.endswith("index.html") for path in framed)
    page = framed["claim/moe-speedup-b16/index.html"].decode()
    assert '<h1 id="moe-speedup-b16">moe-speedup-b16<a class="headerlink"' in page
    assert 'data-ledger-path="claim/moe-speedup-b16/index.html"' in page  # the stamp, bound to the page
    assert b'<a href="claim/moe-speedup-b16/">the claim</a>' in framed["index.html"]
    pages = sum(path.startswith(("claim/", "run/", "code/")) and path.endswith(".html") for path in framed)
    written = re.fullmatch(r"(\d+) written in (\d+) frames, 0 of them whole", logged(tmp_path, "framed"))
    assert written and int(written[1]) == pages and 2 <= int(written[2]) < pages  # a frame per kind of page
    assert logged(tmp_path, "whole") == ""


def test_framed_pages_without_directory_urls(tmp_path):
    a_site(tmp_path, "use_directory_urls: false\n")
    framed, whole = both_ways(tmp_path)
    assert_same(framed, whole)
    assert "claim/moe-speedup-b16.html" in framed
    assert b'<a href="claim/moe-speedup-b16.html">the claim</a>' in framed["index.html"]


def test_a_frame_that_differs_renders_every_page_whole(tmp_path):
    """A template that upper-cases the title: the frame's placeholder survives it, a real title does not;
    the first page's comparison sees it and every page of that kind is rendered whole."""
    a_site(tmp_path)
    config = tmp_path / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: overrides\n"))
    (tmp_path / "overrides").mkdir()
    (tmp_path / "overrides/main.html").write_text(
        '{% extends "base.html" %}\n{% block htmltitle %}<title>{{ page.title | upper }}</title>{% endblock %}\n'
    )
    framed, whole = both_ways(tmp_path)
    assert_same(framed, whole)
    assert b"<title>MOE-SPEEDUP-B16</title>" in framed["claim/moe-speedup-b16/index.html"]
    pages = sum(path.startswith(("claim/", "run/", "code/")) and path.endswith(".html") for path in framed)
    assert logged(tmp_path, "framed") == f"{pages} written in 0 frames, {pages} of them whole"


def test_another_plugin_sees_every_generated_page(tmp_path):
    """A hook (a plugin) may change pages: with one, generated pages go through MkDocs' pipeline."""
    a_site(tmp_path, "hooks: [hook.py]\n")
    (tmp_path / "hook.py").write_text(
        "def on_page_content(html, page, config, files):\n    return html + '<p>seen by the hook</p>'\n"
    )
    framed = files_of(build(tmp_path, "framed", True))
    assert b"seen by the hook" in framed["claim/moe-speedup-b16/index.html"]
    assert b"seen by the hook" in framed[next(path for path in framed if path.startswith("run/"))]
    assert logged(tmp_path, "framed") == ""
