"""Serve's memory of the gate's page reading (site/incremental.py: KeptPages) decides what a fresh reading does.

A real ledger (helpers_site.a_ledger) with three more hand-written pages is checked once; then a series
of edits, each followed by check_pages() twice: through one KeptPages kept across the edits (what
`mkdocs serve` does) and afresh. Both Reports must agree on every page finding, reference, figure and
verdict; the edits change what the gate decides, so an agreement that missed an edit would fail.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import write_tree
from helpers_site import NOW, a_ledger

from generator import gate
from generator.inputs.config import read_policy
from generator.site.incremental import KeptPages

PAGES = {
    "docs/more.md": '# More\n\nThe speedup again: {{ claim("moe-speedup-b16") }}.\n',
    "docs/quiet.md": "# Quiet\n\nNo figures here.\n",
    "docs/snip.md": '# Snip\n\n--8<-- "includes/part.md"\n',
    "includes/part.md": "An included line.\n",
}
SNIPPETS = "markdown_extensions: [admonition, attr_list, md_in_html, tables, pymdownx.details, toc, pymdownx.snippets]"

# (file, new text, rule expected among that file's findings after the edit, or "" for none of these rules)
EDITS = [
    ("docs/more.md", "# More\n\nIt reads 42 GB/s here.\n", "unbound-number"),
    ("docs/more.md", '# More\n\nSee {{ claim("no-such-claim") }}.\n', "unknown-reference"),
    ("docs/more.md", '# More\n\nSee {{ table("no-such-table") }}.\n', "unknown-reference"),
    ("docs/more.md", "# More\n\nNothing to see.\n", ""),
    ("includes/part.md", "An included line at 17 GB/s.\n", "unbound-number"),  # the page including it is unchanged
    ("includes/part.md", "An included line.\n", ""),
    ("docs/new.md", "# New\n\n9.5× faster, typed.\n", "unbound-number"),  # a page added
    ("docs/quiet.md", "# Quiet\n\nStill no figures.\n", ""),
]
RULES = ("unbound-number", "unknown-reference")


def compared(report) -> tuple:
    """What check_pages decides: findings, references, typed figures, causes and verdicts."""
    return (report.findings, report.page_refs, dict(report.typed), report.causes, dict(report.verdicts))


@pytest.fixture
def ledger(tmp_path):
    a_ledger(tmp_path)
    write_tree(tmp_path, PAGES)
    config = tmp_path / "mkdocs.yml"
    config.write_text(config.read_text().replace(SNIPPETS.rsplit(",", 1)[0] + "]", SNIPPETS))
    policy = read_policy(config)
    assert any(name == "pymdownx.snippets" for name, _ in policy.markdown_extensions)
    return tmp_path, gate.check(tmp_path, policy, NOW)


def test_kept_pages_decide_what_a_fresh_reading_decides_edit_after_edit(ledger):
    root, first = ledger
    reader = KeptPages()
    kept = afresh = gate.check_pages(first, root, reader)
    assert compared(kept) == compared(gate.check_pages(first, root))
    quiet = reader.scans["docs/quiet.md"][1]
    for path, text, rule in EDITS:
        write_tree(root, {path: text})
        kept, afresh = gate.check_pages(kept, root, reader), gate.check_pages(afresh, root)
        assert compared(kept) == compared(afresh), path
        page = "docs/snip.md" if path.startswith("includes/") else path
        found = {f.rule for f in kept.findings if f.rule in RULES and f.where.path in (page, path)}
        assert found == ({rule} if rule else set()), (path, text)
        if path != "docs/quiet.md":
            assert reader.scans["docs/quiet.md"][1] is quiet  # the page no edit touched was not read again
    assert "docs/snip.md" not in reader.scans  # a page that includes a file is read every time


def test_a_kept_page_counts_against_the_render_budget_as_if_read_again(ledger):
    root, first = ledger
    reader = KeptPages()
    gate.check_pages(first, root, reader)
    spent = replace(first, policy=replace(first.policy, max_render_seconds=0.0))
    write_tree(root, {"docs/more.md": "# More\n\nEdited.\n"})
    kept, afresh = gate.check_pages(spent, root, reader), gate.check_pages(spent, root)
    assert compared(kept) == compared(afresh)
    assert any("render budget" in f.problem for f in kept.findings)
