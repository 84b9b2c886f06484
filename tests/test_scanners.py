"""Page scanners: references in any case, across lines and after an unclosed fence are found (or refused
with a finding), never skipped; every scan is linear, so a page at the size cap is checked, not hung on."""

import re

import pytest
from helpers import run_ledger, write_tree

from generator.inputs.load import MAX_PAGE_BYTES
from generator.prose import numbers, references
from generator.prose.references import find, mask_code

A_LEAD = "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"


@pytest.mark.parametrize(
    ("page", "found"),
    [
        ('a {{ claim("x") }} b', [(1, 3, "claim", "x")]),
        ('{{{ claim("x") }}}', [(1, 2, "claim", "x")]),
        ('`{{ claim("x") }}` ``{{ claim("y") }}``', []),
        ('```\n{{ claim("x") }}\n```\n', []),
        ('```\n{{ claim("x") }}\n~~~\n', [(2, 1, "claim", "x")]),  # never closed: Python-Markdown reads prose
        ('````x\n{{ claim("x") }}\n', [(2, 1, "claim", "x")]),
        ('  !!! note\n      ```\n      {{ claim("x") }}\n      ```\n', []),  # a fence inside an admonition
        (
            '{{ Claim("x") }}',
            [(1, 1, "malformed", '{{ Claim("x") }} (is not lower-case ASCII: write claim(...) as shown)')],
        ),
        (
            '{{ ｃｌａｉｍ("x") }}',
            [(1, 1, "malformed", '{{ ｃｌａｉｍ("x") }} (is not lower-case ASCII: write claim(...) as shown)')],
        ),
        ('{{ claim(\n"x") }}', [(1, 1, "malformed", "{{ claim( (spans lines: write a reference on one line)")]),
        ('{{ chart("c")', [(1, 1, "malformed", '{{ chart("c") (is never closed with }})')]),
        ("{{ claims }} {{ claim_total }} {{ x }}", []),
        ("{{ claim(a-b) }}", [(1, 1, "malformed", "{{ claim(a-b) }}")]),
    ],
)
def test_references_in_any_form_are_found_or_refused(page, found):
    assert [(r.where.line, r.where.column, r.kind, r.name) for r in find(page, "p.md")] == found


def test_a_reference_in_another_case_fails_the_gate_with_its_line_and_column(tmp_path):
    write_tree(tmp_path, {"claims/a.yaml": A_LEAD, "docs/index.md": 'Intro\n\nIt is {{ CLAIM("a") }} fast.\n'})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        'docs/index.md:3:7: unknown-reference: malformed reference {{ CLAIM("a") }} (is not lower-case ASCII: '
        "write claim(...) as shown)\n"
    ) in result.output


def test_masking_keeps_offsets_and_lines():
    page = "a `x` b\n```\ncode\n```\n{{ c }}\n"
    masked = mask_code(page)
    assert len(masked) == len(page) and masked.count("\n") == page.count("\n")
    assert masked.splitlines() == ["a     b", "   ", "    ", "   ", "{{ c }}"]


ADVERSARIAL = [
    "{{ claim(" * 4,  # openers that never close (the old scanner restarted from each)
    "`" * 3 + "a" + "`" * 5 + "b",  # backtick runs of different lengths (old: quadratic pairing)
    "````x\n",  # fence openers that never close (old: scanned the rest of the page from each)
    "12345678901234567890 ",  # digit runs without a unit
    '{{ CLAIM("a") }} 3.7\u200b× ',  # a malformed reference and a figure to report
]


@pytest.mark.parametrize("piece", ADVERSARIAL)
def test_each_scanner_reads_a_page_at_the_size_cap(piece):
    page = (piece * (MAX_PAGE_BYTES // len(piece.encode())))[: MAX_PAGE_BYTES - 1]
    # Each completes (a quadratic scan of 4 MiB would run for hours; these are linear).
    find(page, "p.md")
    mask_code(page)
    numbers.figures(page)
    assert references.locate(references.line_starts(page), len(page) - 1)[0] == page[:-1].count("\n") + 1


def test_ledger_check_on_a_page_at_the_size_cap_ends_with_findings_not_a_hang(tmp_path):
    piece = "".join(ADVERSARIAL)
    page = (piece * (MAX_PAGE_BYTES // len(piece.encode())))[: MAX_PAGE_BYTES // 2]
    # the pieces alone render in about 4 s on a quiet machine, under the page's 9 s budget: a run of '['
    # (Python-Markdown's link scanner takes over a minute on it) makes the page too slow on any machine
    page += "\n\n" + "[" * 20_000
    write_tree(tmp_path, {"claims/a.yaml": A_LEAD, "docs/big.md": page})
    done = run_ledger("check", "--no-cache", cwd=tmp_path, timeout=300)  # a hang fails the test
    assert done.exit_code == 1
    assert "Traceback" not in done.errors
    assert "docs/big.md:1:1: unknown-reference: malformed reference {{ claim({{ claim(" in done.output
    # Python-Markdown itself pairs backtick runs in quadratic time (so would the site build): a finding.
    assert "docs/big.md: invalid: page takes more than 9 s to render with Python-Markdown" in done.output


def _every_character() -> str:
    return "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)


_WORD_FIRSTS = "".join(
    sorted({word[0] for word in (*numbers._SMALL, *numbers._TENS, "one", "a", "twice", "thrice")})
)  # the first letters of every number word _WORDS and _MULTIPLIER start with


@pytest.mark.parametrize(
    ("starts", "first"),
    [
        (numbers._NUMBER_START, rf"[+±-]|[{numbers.CURRENCY_SIGNS}]|\d|\."),  # a sign, a currency, a number
        (numbers._WORD_START, f"(?i)[{_WORD_FIRSTS}]"),
        (numbers._MULTIPLIER_START, rf"(?i)[{_WORD_FIRSTS}]|\d"),
    ],
    ids=["number", "words", "multiplier"],
)
def test_a_figure_pattern_is_tried_at_every_character_it_can_start_with(starts, first):
    """figures() tries _NUMBER, _WORDS and _MULTIPLIER only where a class of first characters is: every
    character a match can start with (as IGNORECASE reads it too: ſ is an s) must be in that class."""
    can_start = set(re.findall(first, _every_character()))
    klass = starts.pattern.split("](", 1)[0] + "]"
    assert len(can_start) > 10
    assert [char for char in can_start if not re.fullmatch(klass, char)] == []


TEXTS = [
    "two times, ten ms and aten three-fold; Twenty percent; ſix times; x-two times",
    "5 GB, +5%, −3 ms, $4.5M, a=5 GB, B=16, 35B-A3B, top-8, 1,024 MB/s, .5 GB, 3.7x, 2 x 3",
    "ten-fold, 3-fold, twice as fast, thrice the cost, a hundred times, one million rows, two million",
    "5 GB\u202e sm 5\u202c and \u2067two times\u2069, ١٢ ms and ５ＧＢ",
    "",
    "9",
    "twice",
]


@pytest.mark.parametrize("text", TEXTS)
def test_figures_tried_where_they_can_start_are_those_a_full_scan_finds(text):
    seen, _ = numbers.normalise(text)
    for starts, pattern in (
        (numbers._NUMBER_START, numbers._NUMBER),
        (numbers._WORD_START, numbers._WORDS),
        (numbers._MULTIPLIER_START, numbers._MULTIPLIER),
    ):
        assert [m.span() for m in numbers.tried_matches(starts, pattern, seen)] == [
            m.span() for m in pattern.finditer(seen)
        ]
