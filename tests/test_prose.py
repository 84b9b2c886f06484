"""Numbers in prose: a figure typed into a page outside a claim reference is a finding."""

import pytest
from helpers import run_ledger, write_tree

from generator.prose import typed_figures


@pytest.mark.parametrize(
    ("line", "figures"),
    [
        ("It is 3.71× faster, 42 GB/s, 15% slower.", ["3.71×", "42 GB/s", "15%"]),
        ("KV is 20,480 B per token; a step takes 1.2 s and 35 ms.", ["20,480 B", "1.2 s", "35 ms"]),
        ("Copy ran at 3.5x and 64GB of memory.", ["3.5x", "64GB"]),
        ("B=16, 4-bit, 2048-row, 8192×2048, 256K context, 35B-A3B, a 9B model, 1/B.", []),
        ("1. a list item, 2 x 3, 50 % off", []),
        ('`12 ms` in code, {{ claim("x") }}, <span class="ledger-label">128 MiB</span>', []),
        ('<img width="100%"> and [a link](https://example.com/5%)', []),
    ],
)
def test_figures_in_prose_and_labels(line, figures):
    assert [f.text for f in typed_figures(line, "p.md")] == figures


def test_code_blocks_and_front_matter_are_skipped():
    text = "---\ntitle: 5 GB/s\n---\n```\n3.7× in a block\n```\n    12 ms indented\nthen 2 ms\n"
    [found] = typed_figures(text, "p.md")
    assert (str(found.where), found.text) == ("p.md:8:6", "2 ms")


def test_a_planted_figure_fails_the_gate_with_file_line_and_column(tmp_path):
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n",
            "docs/index.md": "# Report\n\nBatching made it 3.71× faster, 42 GB/s, 15% slower.\n",
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    fix = '  fix: cite the claim that holds it with {{ claim("some-id") }}, or mark a label: <span class="ledger-label">…</span>\n'
    assert result.output == (
        "docs/index.md:3:18: unbound-number: '3.71×' is typed into the page; the gate cannot keep it true\n"
        + fix
        + "docs/index.md:3:32: unbound-number: '42 GB/s' is typed into the page; the gate cannot keep it true\n"
        + fix
        + "docs/index.md:3:41: unbound-number: '15%' is typed into the page; the gate cannot keep it true\n"
        + fix
        + "1 claim (1 borrowed; 1 lead) — 3 failures: 3 unbound-number\n"
    )


def test_policy_can_make_unbound_numbers_warnings(tmp_path):
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      warn: [unbound-number]\n",
            "claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n",
            "docs/index.md": "It is 3.71× faster.\n",
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0
    assert "docs/index.md:1:7: unbound-number: '3.71×' is typed into the page" in result.output
    assert result.output.endswith("0 failures — 1 warning: 1 unbound-number\n")
