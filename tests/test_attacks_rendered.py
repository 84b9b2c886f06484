"""The rendered-text scan reads what a browser shows (issue 29, class 9): text that direction controls
reorder, documents embedded in attributes, form values, text CSS generates, math a Markdown math
extension leaves for the browser; and it quotes each figure as the reader sees it (a fraction, a decimal
comma or another script's separator, a combining mark). Each page goes through the real `ledger check`."""

import pytest
from helpers import project, run_ledger

CONFIG = "site_name: t\nplugins:\n  - ledger\nmarkdown_extensions: [md_in_html, attr_list]\n"
MATH = "site_name: t\nplugins:\n  - ledger\nmarkdown_extensions:\n  - pymdownx.arithmatex: {generic: true}\n"


def check(tmp_path, page: str, config: str = CONFIG):
    project(tmp_path, config, {"docs/index.md": page})
    return run_ledger("check", "--no-cache", cwd=tmp_path)


def typed(result) -> list[str]:
    """The figures `unbound-number` quotes, as the messages quote them."""
    assert "Traceback" not in result.errors, result.errors
    return [
        line.split("unbound-number: ", 1)[1].split(" is typed", 1)[0]
        for line in result.output.splitlines()
        if "unbound-number: " in line
    ]


@pytest.mark.parametrize(
    "page, seen",
    [
        ("Batching is \u202e%5\u202c faster.\n", "'5%'"),  # an override: stored '%5', shown '5%'
        ("Batching reaches \u202bGB/s 9\u202c here.\n", "'9 GB/s'"),  # an embedding: its runs right to left
        ('A frame:\n\n<iframe srcdoc="&lt;p&gt;It is 9.9× faster&lt;/p&gt;"></iframe>\n', "'9.9×'"),
        ('A frame:\n\n<iframe src="data:text/html,%3Cp%3E7.5%20GB/s%3C/p%3E"></iframe>\n', "'7.5 GB/s'"),
        ('A form:\n\n<input type="text" value="3.5 ms per token">\n', "'3.5 ms per token'"),
        ('A button:\n\n<input type="submit" value="2× faster">\n', "'2×'"),
        ('A style:\n\n<style>.x::after { content: "\\35  GB/s" }</style>\n', "'5 GB/s'"),  # an escape ends at a space
        (
            "An attribute a stylesheet shows:\n\n<style>.y::after { content: attr(data-note) }</style>\n"
            '<span class="y" data-note="8 GB/s"></span>\n',
            "'8 GB/s'",
        ),
    ],
    ids=["override", "embedding", "srcdoc", "data-url", "text-field", "button", "css-escape", "css-attr"],
)
def test_what_a_browser_shows_beyond_the_text_is_read(tmp_path, page, seen):
    result = check(tmp_path, page)
    assert result.exit_code == 1, result.output
    assert seen in typed(result), result.output


def test_math_a_markdown_math_extension_renders_is_read_as_the_text_it_becomes(tmp_path):
    result = check(tmp_path, "The bandwidth is $5\\,\\mathrm{GB/s}$ at B=1.\n", MATH)
    assert result.exit_code == 1, result.output
    assert "'5 GB/s'" in typed(result), result.output


@pytest.mark.parametrize(
    "page, seen",
    [
        ("It is 3,5 % slower.\n", "'3,5 %'"),
        ("It is 3٫5% slower.\n", "'3٫5%'"),
        ("It takes ½ GB more.\n", "'½ GB'"),
        ("It takes 2½ GB more.\n", "'2½ GB'"),
        ("It reaches ٣٫٥٪ more.\n", "'٣٫٥٪'"),
        ("It reaches 5 GB\u0301/s.\n", "'5 GB\u0301/s'"),
        ("It takes 1\u202f234 ms.\n", "'1 234 ms'"),  # quoted with the space a reader sees
        ("It takes 12\u2009345\u2009678 B.\n", "'12 345 678 B'"),
        ("It takes 1\u00a0234.5 GB.\n", "'1 234.5 GB'"),
        ("It takes 1'234 ms.\n", '"1\'234 ms"'),
        ("It takes 1\u2019234 ms.\n", "'1\u2019234 ms'"),
        ("It takes 1_234 ms.\n", "'1_234 ms'"),
    ],
    ids=[
        "decimal-comma",
        "arabic-separator",
        "fraction",
        "mixed-fraction",
        "arabic-digits",
        "combining-mark",
        "narrow-space-groups",
        "thin-space-groups",
        "no-break-space-groups",
        "apostrophe-groups",
        "right-quote-groups",
        "underscore-groups",
    ],  # fmt: skip
)
def test_a_figure_is_quoted_as_the_reader_sees_it(tmp_path, page, seen):
    result = check(tmp_path, page)
    assert result.exit_code == 1, result.output
    assert typed(result) == [seen], result.output
