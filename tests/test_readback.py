"""The site build reads back what it wrote: a figure on a built page that `ledger check` did not see
fails the build, and on the report the two readings agree page by page."""

from collections import Counter
from datetime import datetime, timezone

import pytest
from helpers import REPO, run_ledger, run_mkdocs, write_tree
from helpers_site import a_ledger, article

from generator.gate import check_project
from generator.prose.readback import figures_in

pytestmark = pytest.mark.site

HOOK = """
def on_page_content(html, page, config, files):
    return html + "<p>Now 3.7\\u00d7 faster.</p>"
"""


def test_a_figure_the_gate_did_not_see_fails_the_build(tmp_path):
    a_ledger(tmp_path)
    config = (tmp_path / "mkdocs.yml").read_text() + "hooks: [hooks.py]\n"
    write_tree(tmp_path, {"mkdocs.yml": config, "hooks.py": HOOK})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # the gate reads the pages, not the hook
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 1
    assert "unbound-number missed by ledger check: docs/index.md: '3.7×' in the page's text" in result.errors


CONTAINERS = """\
---
title: Containers
---
# A page of containers

!!! note "A 2 ms title"
    Inside: 3.7× faster.

??? tip "Folded"
    Hidden until opened: 12 GB/s.

| op | gain |
| --- | --- |
| copy | 15% |

A footnote[^1] and <abbr title="a 9 ms step">x</abbr>.

[^1]: at 4.5&nbsp;ms

- a list
    - nested 6.<em>5</em> s
"""


def test_the_gate_and_the_built_page_read_the_same_figures(tmp_path):
    a_ledger(tmp_path)
    config = (tmp_path / "mkdocs.yml").read_text()
    config = config.replace(
        "plugins: [search, ledger]", "plugins:\n  - search\n  - ledger:\n      warn: [unbound-number]"
    )
    config = config.replace("pymdownx.details, toc]", "pymdownx.details, toc, footnotes]")
    config = config.replace("  - Report: [index.md]", "  - Report: [index.md, containers.md]")
    write_tree(tmp_path, {"mkdocs.yml": config, "docs/containers.md": CONTAINERS})
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "missed by ledger check" not in result.errors
    report = check_project(tmp_path, None, datetime.now(timezone.utc))
    core = Counter(text for text, _ in report.typed["docs/containers.md"])
    assert core == Counter(["2 ms", "3.7×", "12 GB/s", "15%", "9 ms", "4.5 ms", "6.5 s"])
    assert Counter(figures_in(article(tmp_path / "site", "containers"))) == core


def test_on_the_report_the_gate_and_the_built_pages_agree(report_site):
    report = check_project(REPO, None, datetime.now(timezone.utc))
    pages = [path for path in report.typed if path.startswith("docs/")]
    assert len(pages) >= 5
    for path in pages:
        name = path.removeprefix("docs/").removesuffix(".md").removesuffix("index")
        assert Counter(figures_in(article(report_site, name))) == Counter(text for text, _ in report.typed[path]), path
