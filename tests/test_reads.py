"""reads.py is the one list of what the gate reads: the check cache, serve's watch list, the site's
incremental build and the Markdown extension's signature take it from there (their own behaviour is
tested in test_check_cache.py and test_site.py), and no other module lists the policy's folders."""

import ast

import pytest
from helpers import REPO

FOLDERS = {"claims_dir", "measurements_dir", "probes_dir", "docs_dir", "FIGURES"}
CONSUMERS = (
    "generator/commands/check.py",  # the check cache's key
    "generator/site/plugin.py",  # serve's watch list
    "generator/site/incremental.py",  # what a rebuild compares
    "generator/site/markdown_ext.py",  # the extension's signature
)


def folder_lists(path):
    """Lines of tuples, lists and sets that name two or more of the folders the gate reads."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            named = {getattr(item, "attr", getattr(item, "id", "")) for item in node.elts} & FOLDERS
            if len(named) >= 2:
                yield node.lineno


def test_no_module_but_reads_lists_the_folders_the_gate_reads():
    modules = sorted((REPO / "generator").rglob("*.py"))
    found = [
        f"{path.relative_to(REPO)}:{line}" for path in modules if path.name != "reads.py" for line in folder_lists(path)
    ]
    assert len(modules) > 80 and found == []


def test_the_check_finds_a_folder_list():
    assert list(folder_lists(REPO / "generator/inputs/reads.py"))  # reads.py's own list: the walk sees one


@pytest.mark.parametrize("path", CONSUMERS)
def test_each_consumer_takes_its_list_from_reads(path):
    text = (REPO / path).read_text(encoding="utf-8")
    assert "reads.files(" in text and "reads.declared_code(" in text
    assert "reads.folders(" in text or "reads.data_folders(" in text
