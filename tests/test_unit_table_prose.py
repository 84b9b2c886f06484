"""unbound-number reads every unit of the unit table: each spelling the table knows (built-in, with its
prefixes, spelled-out names and abbreviations, and the project's own), typed after a number, is a figure
found at the number's line and column. The cases come from the table, so a hand-written list cannot pass."""

from __future__ import annotations

import pytest
from helpers import run_ledger, write_tree

from generator.lang import ownunits, units
from generator.lang.ownunits import UnitSpec
from generator.prose import numbers

OWN = (
    UnitSpec("prompts", "prompts"),
    UnitSpec("kWh", "J", 3.6e6),
    UnitSpec("px", "px", 1.0, "si"),
    UnitSpec("shards", "shards"),
)
TABLE = ownunits.table(OWN)
SPELLINGS = sorted({*TABLE.terms, *(text for text in units.RATIOS if text), *units.PROSE_ONLY})


def typed(spelling: str) -> str:
    """A figure in this unit as an author types it: a number, a space, the unit (one of a singular count)."""
    number = "1" if spelling in units.SINGULAR_COUNTS else "12.5"
    return f"{number} {spelling}"


def test_the_cases_cover_every_spelling_of_the_table_and_the_projects_own():
    assert {
        "ms",
        "milliseconds",
        "MiB",
        "gibibytes",
        "GB",
        "Gbps",
        "tok",
        "it/s",
        "QPS",
        "IOPS",
        "TOPS",
        "°C",
        "°F",
    } <= set(SPELLINGS)
    assert {"USD", "EUR", "$", "€", "J", "kJ", "W", "kilowatts", "rows", "queries", "operations"} <= set(SPELLINGS)
    assert {"prompts", "kWh", "px", "Mpx", "shards"} <= set(SPELLINGS)  # the project's own, prefixes too
    assert len(SPELLINGS) > 500


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_number_in_each_spelling_of_the_unit_table_is_a_figure(spelling):
    text = f"It ran at {typed(spelling)} here."
    found = [(figure.text, text[figure.start : figure.end]) for figure in numbers.figures(text, TABLE)]
    shown = numbers.normalise(typed(spelling))[0]
    assert found == [(shown, typed(spelling))], spelling


@pytest.mark.parametrize("spelling", [s for s in SPELLINGS if "/" not in s])
def test_each_spelling_per_second_and_per_token_is_a_rate_figure(spelling):
    for rate in (f"{spelling}/s", f"{spelling} per token"):
        found = [figure.text for figure in numbers.figures(f"at 7 {rate}, then", TABLE)]
        assert found == [numbers.normalise(f"7 {rate}")[0]], rate


GLUED_LABELS = {*numbers.SUFFIXES, "B"}  # 256K context, a 9B model: a glued magnitude letter is a label


@pytest.mark.parametrize("spelling", [s for s in SPELLINGS if s not in GLUED_LABELS and " " not in s])
def test_a_number_glued_to_a_unit_is_a_figure(spelling):
    number = "1" if spelling in units.SINGULAR_COUNTS else "64"
    found = [figure.text for figure in numbers.figures(f"took {number}{spelling}, then", TABLE)]
    assert found == [numbers.normalise(f"{number}{spelling}")[0]], spelling


@pytest.mark.parametrize(
    "text, figure",
    [
        ("1.2 million rows", "1.2 million rows"),
        ("3k req/s", "3k req/s"),
        ("4.5M tokens", "4.5M tokens"),
        ("a $4.5M budget", "$4.5M"),
        ("costs €3.50", "€3.50"),
        ("costs 3.50 €", "3.50 €"),
        ("£12", "£12"),
        ("¥300", "¥300"),
        ("₹ 80", "₹ 80"),
        ("at 25 °C", "25 °C"),
        ("at 77°F", "77°F"),
        ("two billion", "two billion"),
        ("twenty-five percent", "twenty-five percent"),
        ("Three times faster", "Three times"),
        ("twice as fast", "twice"),
        ("a tenfold gain", "tenfold"),
        ("a 3-fold gain", "3-fold"),
        ("nine queries per second", "nine queries per second"),
        ("forty milliseconds", "forty milliseconds"),
        ("1,500 prompts", "1,500 prompts"),
        ("3 Mpx", "3 Mpx"),
        ("a million rows", "a million rows"),
    ],
)
def test_magnitudes_currencies_temperatures_and_numbers_in_words_are_figures(text, figure):
    assert [found.text for found in numbers.figures(text, TABLE)] == [figure]


@pytest.mark.parametrize(
    "text",
    [
        "256K context, a 9B model, 35B-A3B, B=16, 4-bit, top-8, 8192×2048, 2 x 3",
        "one sequence at a time, a thousand ways, the two call times, per 256K sequence",
        "run twice in a row, twice a day",
        "A batch of one, or a thousand - Evidence ledger; 5 - 3",
    ],
)
def test_labels_articles_and_modifiers_are_not_figures(text):
    assert numbers.figures(text, TABLE) == []


def test_each_spelling_typed_into_a_page_fails_at_its_numbers_line_and_column(tmp_path):
    config = "site_name: t\nplugins:\n  - ledger:\n      units:\n" + "".join(
        f"        {spec.name}: {{dimension: {spec.dimension}, scale: {spec.scale:g}"
        + (f", prefixes: {spec.prefixes}" if spec.prefixes else "")
        + "}\n"
        for spec in OWN
    )
    pages = {}
    per_page = 150  # below the findings a page reports one by one
    for first in range(0, len(SPELLINGS), per_page):
        cases = SPELLINGS[first : first + per_page]
        pages[f"docs/p{first}.md"] = "\n".join(
            ["# Units", ""] + [f"- case {first + i}: {typed(spelling)}, as typed" for i, spelling in enumerate(cases)]
        )
    # A label and code with the same text first: the finding is where the figure is, not where its text first is.
    pages["docs/index.md"] = '<span class="ledger-label">12.5 ms</span> and `12.5 ms`, x=12.5ms\n\nthen 12.5 ms\n'
    write_tree(tmp_path, {"mkdocs.yml": config, "claims/a.yaml": "claims: []\n", **pages})
    output = run_ledger("check", cwd=tmp_path).output
    for index, spelling in enumerate(SPELLINGS):
        page, line = f"docs/p{index - index % per_page}.md", index % per_page + 3
        column = len(f"- case {index}: ") + 1
        shown = typed(spelling)  # the message quotes the figure as a reader sees it
        assert f"{page}:{line}:{column}: unbound-number: {shown!r} is typed into the page" in output, spelling
    assert "docs/index.md:3:6: unbound-number: '12.5 ms' is typed into the page" in output
    assert "docs/index.md:1:" not in output
