"""unsupported-word reads every word of the word table: each spelling, beside a ratio claim that asserts
the relation the word implies (no finding), one whose interval holds it unasserted (a finding whose fix is
the `asserts:` to add) and one whose interval does not (the word is wrong), and in sentences where the
word speaks of something else (two claims, another figure between, another sentence: no finding). The
cases come from the table, through the real `ledger check` on one project; numbers spelled in words are
figures to the prose scan (numbers.figures, and unbound-number through the CLI)."""

from __future__ import annotations

import json
import re

import pytest
from helpers import REPO, run_ledger, write_tree
from helpers_rounds import claim, rounds_run

from generator.lang import relations, wordtable
from generator.prose import numbers

# Each setting's raw rounds: 9 rounds, so their min–max is the interval the gate holds a relation at.
SETTINGS = {
    1: [0.95, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.05],  # near one, straddling it
    2: [1.9, 1.92, 1.95, 1.98, 2.0, 2.02, 2.05, 2.08, 2.1],  # twice
    10: [9.5, 9.7, 9.8, 9.9, 10.0, 10.1, 10.2, 10.3, 10.5],  # an order of magnitude
    16: [1.1, 1.2, 1.25, 1.3, 1.31, 1.35, 1.4, 1.45, 1.5],  # above one
}
CASES = [(word, spelling) for word in wordtable.WORD_TABLE for spelling in word.spellings]


def _holds(text: str, batch: int) -> bool:
    relation = relations.parse(text, field="asserts")
    return all(relation.holds(end) for end in (min(SETTINGS[batch]), max(SETTINGS[batch])))


def fit(word: wordtable.Word) -> tuple[int, str]:
    """A setting whose interval holds one of the word's relations, and the first such relation."""
    return next((batch, text) for batch in SETTINGS for text in word.implies if _holds(text, batch))


def misfit(word: wordtable.Word) -> int:
    """A setting whose interval holds none of the word's relations."""
    return next(batch for batch in SETTINGS if not any(_holds(text, batch) for text in word.implies))


def test_the_table_covers_the_words_the_issue_names():
    names = {word.name for word in wordtable.WORD_TABLE}
    assert {
        "faster", "slower", "more", "fewer", "higher", "lower", "gains", "no gain", "buys nothing", "barely moves",
        "flat", "unchanged", "close to", "nearly free", "doubles", "halves", "twice", "an order of magnitude",
    } <= names  # fmt: skip
    spellings = [spelling for _, spelling in CASES]
    assert len(spellings) == len(set(spellings)), "a spelling belongs to one word"
    for word in wordtable.WORD_TABLE:  # each relation reads, and the settings give each word a fit and a misfit
        assert fit(word)[0] != misfit(word), word.name


def _sentence(index: int, spelling: str, case: str) -> str:
    ref = f'{{{{ claim("{case}-{index}") }}}}'
    if case == "two":
        return f'The kernel is {spelling} here, {ref} against {{{{ claim("other") }}}}.'
    if case == "between":
        return f"{ref} beside a copy at 12 GB/s that is {spelling}."
    if case == "apart":
        return f"{ref} was measured. The copy is {spelling}."
    return f"The kernel is {spelling} here, at {ref}."


KINDS = ("asserted", "unasserted", "wrong", "two", "between", "apart")


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """One project: for each spelling, one claim per case and one page line per case; `ledger check` once."""
    root = tmp_path_factory.mktemp("words")
    run = rounds_run(root, SETTINGS)
    claims, lines = [claim("other", run, "1.31")], []
    for index, (word, spelling) in enumerate(CASES):
        for case in KINDS:
            batch, relation = (misfit(word), "") if case == "wrong" else fit(word)
            value = f"{sorted(SETTINGS[batch])[4]:g}"
            extra = f"\n    asserts: {json.dumps(relation)}" if case == "asserted" else ""
            claims.append(claim(f"{case}-{index}", run, value, batch=batch, extra=extra))
            lines.append(_sentence(index, spelling, case))
    write_tree(
        root,
        {
            "claims/words.yaml": "claims:" + "".join(claims),
            "docs/words.md": "\n\n".join(lines) + "\n",
            "mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      warn: [unbound-number]\n",
        },
    )
    result = run_ledger("check", cwd=root)
    assert "Traceback" not in result.output + result.errors
    found = {}
    for line in result.output.splitlines():
        match = re.match(r"docs/words\.md:(\d+):(\d+): ([a-z]+)-(\d+): unsupported-word: (.*)", line)
        if match:
            found[(match.group(3), int(match.group(4)))] = (int(match.group(1)), int(match.group(2)), match.group(5))
    fixes = {line for line in result.output.splitlines() if line.startswith("  fix: add `asserts:")}
    return found, fixes, result


@pytest.mark.parametrize("index", range(len(CASES)), ids=[spelling for _, spelling in CASES])
def test_each_spelling_is_held_to_the_relation_it_implies(checked, index):
    found, fixes, _ = checked
    word, spelling = CASES[index]
    line = 1 + 2 * (index * len(KINDS))  # each sentence is its own paragraph
    assert ("asserted", index) not in found, spelling
    at_line, column, problem = found[("unasserted", index)]
    assert (at_line, column) == (line + 2, 1 + len("The kernel is ")), spelling
    assert f"{spelling!r} says unasserted-{index} (" in problem and "does not assert it" in problem
    assert f'  fix: add `asserts: "{fit(word)[1]}"` to unasserted-{index}, so the gate keeps the word true' in fixes
    at_line, column, problem = found[("wrong", index)]
    assert at_line == line + 4 and problem.endswith("is not: the word is wrong"), (spelling, problem)
    for case in ("two", "between", "apart"):  # the word speaks of something else
        assert (case, index) not in found, (spelling, case)


def test_the_findings_fail_the_gate_by_default(checked):
    found, _, result = checked
    assert result.exit_code == 1
    assert f"{len(found)} unsupported-word" in result.output
    assert len(found) == 2 * len(CASES)


@pytest.mark.parametrize(
    "text, figure",
    [
        ("two and a half times faster", "two and a half times"),
        ("one and a half times the bytes", "one and a half times"),
        ("the rate doubled", "doubled"),
        ("it doubles the rate", "doubles"),
        ("tripled", "tripled"),
        ("halved the time", "halved"),
        ("three-quarters of the time", "three-quarters"),
        ("two thirds of the rows", "two thirds"),
        ("one-half of it", "one-half"),
        ("an order of magnitude faster", "an order of magnitude"),
        ("two orders of magnitude", "two orders of magnitude"),
        ("3.7×faster", "3.7×"),
    ],
)
def test_multipliers_and_fractions_in_words_are_figures(text, figure):
    assert [found.text for found in numbers.figures(f"It ran {text} here.")] == [figure]


@pytest.mark.parametrize("text", ["8×H100", "8192×2048", "the two halves", "double precision", "one sequence"])
def test_labels_and_plain_words_are_not(text):
    assert numbers.figures(f"It ran {text} here.") == []


def test_a_spelled_multiplier_on_a_page_is_an_unbound_number(tmp_path):
    page = "# T\n\nBatching made it an order of magnitude faster, 3.7×faster.\n"
    write_tree(
        tmp_path,
        {"docs/index.md": page, "mkdocs.yml": "site_name: t\nplugins:\n  - ledger\n", "claims/a.yaml": "claims: []\n"},
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    line = page.splitlines()[2]
    for figure in ("an order of magnitude", "3.7×"):
        at = line.index(figure) + 1
        assert f"docs/index.md:3:{at}: unbound-number: {figure!r} is typed into the page" in result.output


def test_the_guide_shows_every_row_of_the_table():
    guide = (REPO / "guide" / "checks.md").read_text()
    for word in wordtable.WORD_TABLE:
        implies = " or ".join(f"`{text}`" for text in word.implies)
        assert f"| {word.name} | {', '.join(word.spellings)} | {implies} |" in guide, word.name
