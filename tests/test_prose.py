"""Numbers in prose: a figure a reader reads outside a claim reference is a finding, wherever MkDocs
puts the text (containers, titles, navigation, site metadata, included files)."""

from pathlib import Path

import pytest
from helpers import run_ledger, write_tree

from generator.prose import numbers, rendered
from generator.prose import scan as prose
from generator.prose.references import find

A_LEAD = "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"
FIX = '  fix: cite the claim that holds it with {{ claim("some-id") }}, or mark a label: <span class="ledger-label">…</span>\n'


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("It is 3.71× faster, 42 GB/s, 15% slower.", ["3.71×", "42 GB/s", "15%"]),
        ("KV is 20,480 B per token; a step takes 1.2 s and 35 ms.", ["20,480 B per token", "1.2 s", "35 ms"]),
        ("Copy ran at 3.5x and 64GB of memory.", ["3.5x", "64GB"]),
        ("B=16, 4-bit, 2048-row, 8192×2048, 256K context, 35B-A3B, a 9B model, 1/B, the two call times.", []),
        ("at 4 bits, 256 experts, 2K tokens, 12 QPS, 3k req/s, 1.2 million rows, $4.5M, 12 €, 25 °C", None),
        (
            "Three times, twenty percent, two milliseconds, twice as fast, tenfold, two million; a thousand, one sequence",
            ["Three times", "twenty percent", "two milliseconds", "twice", "tenfold", "two million"],
        ),
        ("1. a list item, 2 x 3, 4 × 8, 0x1F, top-8x", []),
        ("signed: -15%, +3 %, ±0.4 ms; a range 3–5%", ["-15%", "+3 %", "±0.4 ms", "5%"]),
        ("spelled: 3.7 times, 12 percent, 5 per cent, 2 milliseconds, 4 gigabytes per second", None),
        ("look-alikes: 3.7\u200b×, 1\u00a0GB/s, ３．７％, 3.7✕, 2.5х, 9\u2009ms, ٣٫٥ %", None),
    ],
)
def test_figures_in_text_signed_glued_spelled_and_look_alike(text, figures):
    found = [figure.text for figure in numbers.figures(text)]
    if figures is None:  # every phrase after the colon is one figure
        assert len(found) == text.count(",") + text.count(";") + 1, found
    else:
        assert found == figures
    for figure in numbers.figures(text):
        assert text[figure.start : figure.end].strip()  # offsets point into the text as written


def test_normalise_keeps_where_each_character_came_from():
    seen, origin = numbers.normalise("a\u00a0\u2009\u200b3．5％")
    assert seen == "a  3.5%"
    assert list(origin) == [0, 1, 2, 4, 5, 6, 7]


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ("<p>3.<em>7</em>&times; faster</p>", "3.7× faster"),
        ('<p>a <abbr title="9 ms">x</abbr></p>', "a 9 ms x"),
        ('<img alt="12 GB/s chart">', "12 GB/s chart"),
        ("<p>x<code>5 ms</code><pre>6 ms</pre><!-- 7 ms --></p>", "x"),
        ('<p><span class="ledger-label">128 MiB</span> ok</p>', "ok"),
        ("<script>document.write('8 ms')</script>", "8 ms"),
        ('<style>.a::before{content:"4%"}</style>', "4%"),
    ],
)
def test_visible_text_is_what_a_reader_reads(html, text):
    assert " ".join(rendered.visible(html).split()) == text


def page_findings(tmp_path, files: dict, config: str = "") -> list[str]:
    write_tree(tmp_path, {"claims/a.yaml": A_LEAD, "mkdocs.yml": config or "site_name: t\n", **files})
    result = run_ledger("check", cwd=tmp_path)
    assert "Traceback" not in result.errors
    return [
        line.split(": unbound-number: ")[0] + " " + line.split("'")[1]
        for line in result.output.splitlines()
        if ": unbound-number: " in line
    ]


CONTAINERS = """\
# Report

!!! note "Headline"
    Batching made it 3.7× faster.

| op | gain |
| --- | --- |
| copy | 12% |

Term
:   takes 9 ms

A footnote[^1] on the GPU.

[^1]: measured at 42 GB/s

*[GPU]: a 3 GHz part

- item
    - nested 5 ms

<div markdown>
In a block: 2.5 s
</div>

Escaped 4\\.5&nbsp;ms and 6.<em>5</em>% joined.
"""


def test_every_markdown_container_is_read_with_its_line(tmp_path):
    extensions = "markdown_extensions: [admonition, tables, def_list, footnotes, abbr, attr_list, md_in_html]\n"
    found = page_findings(tmp_path, {"docs/index.md": CONTAINERS}, "site_name: t\n" + extensions)
    assert found == [
        "docs/index.md:4:22 3.7×",
        "docs/index.md:8:10 12%",
        "docs/index.md:11:11 9 ms",
        "docs/index.md:15:19 42 GB/s",
        "docs/index.md:17:11 3 GHz",
        "docs/index.md:20:14 5 ms",
        "docs/index.md:23:13 2.5 s",
        "docs/index.md:26:9 4.5 ms",
        "docs/index.md:26:26 6.5%",
    ]


def test_titles_navigation_site_metadata_and_front_matter_are_read(tmp_path):
    config = (
        'site_name: "Runs 2× faster"\nsite_description: a 5 ms step\ncopyright: 3% off\n'
        "nav:\n  - Home at 9 GB/s: index.md\n"
    )
    page = "---\ntitle: A 7 ms page\n---\nplain\n"
    meta = "Title: 8 ms here\nSummary: fine\n\nbody 1 µs\n"
    found = page_findings(tmp_path, {"docs/index.md": page, "docs/meta.md": meta}, config)
    assert found == [
        "docs/index.md:2:10 7 ms",
        "docs/meta.md:1:8 8 ms",
        "docs/meta.md:4:6 1 µs",
        "mkdocs.yml:1:18 2×",
        "mkdocs.yml:2:21 5 ms",
        "mkdocs.yml:3:12 3%",
        "mkdocs.yml:5:13 9 GB/s",
    ]


def test_an_included_snippet_is_read_at_its_own_line(tmp_path):
    config = "site_name: t\nmarkdown_extensions: [pymdownx.snippets]\n"
    files = {"docs/index.md": 'Intro\n\n--8<-- "parts/x.md"\n', "parts/x.md": "first\n\nthen 11 ms\n"}
    assert page_findings(tmp_path, files, config) == ["parts/x.md:3:6 11 ms"]


def test_a_figure_in_a_claim_statement_or_note_is_a_warning(tmp_path):
    claims = A_LEAD + '    statement: "runs 3.2× faster"\n    note: "the write-up says 40%"\n'
    write_tree(tmp_path, {"claims/a.yaml": claims})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0
    assert "claims/a.yaml:6: a: unbound-number: '3.2×' is typed into the statement" in result.output
    assert "claims/a.yaml:7: a: unbound-number: '40%' is typed into the note" in result.output
    assert result.output.endswith("0 failures — 2 warnings: 2 unbound-number\n")


def test_references_code_and_labels_are_not_read(tmp_path):
    page = (
        'A {{ claim("a") }} value, `12 ms` in code, <span class="ledger-label">128 MiB</span>.\n\n'
        "```\n3.7× in a block\n```\n\n    8 ms indented code\n"
    )
    assert page_findings(tmp_path, {"docs/index.md": page}) == []


def test_a_planted_figure_fails_the_gate_with_file_line_and_column(tmp_path):
    write_tree(
        tmp_path,
        {"claims/a.yaml": A_LEAD, "docs/index.md": "# Report\n\nBatching made it 3.71× faster, 42 GB/s, 15% slower.\n"},
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output == (
        "docs/index.md:3:18: unbound-number: '3.71×' is typed into the page; the gate cannot keep it true\n"
        + FIX
        + "docs/index.md:3:32: unbound-number: '42 GB/s' is typed into the page; the gate cannot keep it true\n"
        + FIX
        + "docs/index.md:3:41: unbound-number: '15%' is typed into the page; the gate cannot keep it true\n"
        + FIX
        + "1 claim (1 borrowed; 1 lead) — 3 failures: 3 unbound-number\n"
    )


def test_policy_can_make_unbound_numbers_warnings(tmp_path):
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      warn: [unbound-number]\n",
            "claims/a.yaml": A_LEAD,
            "docs/index.md": "It is 3.71× faster.\n",
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0
    assert "docs/index.md:1:7: unbound-number: '3.71×' is typed into the page" in result.output
    assert result.output.endswith("0 failures — 1 warning: 1 unbound-number\n")


def test_a_prose_rule_held_as_a_warning_that_finds_nothing_says_to_make_it_fail_again(tmp_path):
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      warn: [too-old, unbound-number, lead-premise]\n",
            "claims/a.yaml": A_LEAD,
            "docs/index.md": "It is {{ claim('a') }} now; the old 3.71× is gone.\n",
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0
    assert result.output.splitlines()[-2:] == [  # too-old is not a prose rule: held on purpose, no note
        "note: `warn:` holds lead-premise, which finds nothing now: take it out of `warn:` so that the next one fails",
        "1 claim (1 borrowed; 1 lead) — 0 failures — 1 warning: 1 unbound-number",
    ]
    assert "holds unbound-number" not in result.output and "holds too-old" not in result.output


def test_a_page_python_markdown_cannot_finish_is_a_finding_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(prose, "RENDER_SECONDS", 0.5)
    page = "[" * 20_000  # Python-Markdown's link scanner takes over a minute on this
    found, problem = prose.page_figures(page, "docs/x.md", [], ["toc", "tables", "fenced_code"], {}, Path("."))
    assert problem is not None and str(problem.where) == "docs/x.md"
    assert "takes more than 1 s to render with Python-Markdown" in problem.problem


def test_the_core_scan_never_imports_an_extension_the_project_names_outside_markdown_and_pymdownx():
    names, _ = rendered.extension_list((("evil_module", "{}"), ("pymdownx.details", "{}"), ("abbr", "{}")), Path("."))
    assert names == ["toc", "tables", "fenced_code", "pymdownx.details", "abbr"]


def test_reference_spans_are_read_as_placeholders_without_digits():
    text = 'x {{ claim("b16-gain") }} y\n'
    found, problem = prose.page_figures(text, "p.md", find(text, "p.md"), ["toc"], {}, Path("."))
    assert (found, problem) == ([], None)


def test_a_figure_in_an_attribute_or_an_included_snippet_is_reported_where_it_is_typed(tmp_path):
    """Both were reported at line 1 of the page: an attribute's figure at its own line and column; a snippet's
    (found in pymdownx.snippets' base_path) at its line in the snippet, with the line of its include."""
    config = (
        "site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [parts]\nplugins:\n  - ledger\n"
    )
    page = '# T\n\nSome text.\n\n<img src="x.png"\n     alt="rate 3 GB/s">\n\nMore.\n\n--8<-- "part.md"\n'
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": config,
            "claims/a.yaml": "claims: []\n",
            "docs/index.md": page,
            "parts/part.md": "one\n\nIt takes 5 ms here.\n",
        },
    )
    found = run_ledger("check", "--no-cache", cwd=tmp_path).output
    assert "docs/index.md:6:16: unbound-number: '3 GB/s' is typed into the page;" in found
    assert "parts/part.md:3:10: unbound-number: '5 ms' is typed into the page (included at docs/index.md:10);" in found
    assert "docs/index.md:1:" not in found
