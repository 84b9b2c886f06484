"""Agreement that noise cannot widen (issue 28), in a fresh `ledger init` project and the real CLI: a
check agrees only when the checker's interval lies inside the band it is judged with, else it is
inconclusive (or disagrees) and supports nothing; borrowed claims state bounds and ranges; `within Nx`
on a ratio never flips direction; the strength every display shows includes inconclusive."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import git, run_ledger, write_tree
from helpers_rounds import rounds_run

SOURCE = "git+https://example.invalid/evidence-ledger@0123456789abcdef0123456789abcdef01234567"
NOISY = [24.5, 30.0, 35.2, 38.0, 41.5, 47.0, 55.3, 66.0, 79.1]  # median 41.5×; 9 rounds: min–max at 99.6%
NARROW = [40.9, 41.1, 41.2, 41.4, 41.5, 41.6, 41.8, 41.9, 42.1]  # median 41.5×, 40.9–42.1×
SLOWDOWN = [0.960, 0.962, 0.965, 0.968, 0.970, 0.972, 0.975, 0.978, 0.980]  # median 0.97×: every round below 1
ABOUT_ONE = [0.95, 0.97, 0.98, 0.99, 1.01, 1.02, 1.03, 1.04, 1.05]  # median 1.01×, across 1


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """An init project with one more run, of four settings whose rounds are planted (the real run writer)."""
    root = tmp_path_factory.mktemp("init") / "agree"
    result = run_ledger("init", str(root), "--source", SOURCE, cwd=root.parent)
    assert result.exit_code == 0, result.errors
    run = rounds_run(root, {1: NOISY, 2: NARROW, 3: SLOWDOWN, 4: ABOUT_ONE})
    write_tree(root, {"claims/toy.yaml": "claims:" + "".join(measured(n, run) for n in (1, 2, 3, 4))})
    commit(root, "planted run")
    output = run_ledger("check", cwd=root).output
    assert " 0 failures" in output, output  # the project and its planted run pass before a borrowed claim
    return root


def commit(root: Path, message: str) -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def measured(batch: int, run: str) -> str:
    value = {1: "41.5", 2: "41.5", 3: "0.97", 4: "1.01"}[batch]
    return (
        f'\n  - id: m{batch}\n    value: {value}\n    unit: "×"\n    kind: measured\n'
        f"    evidence: {{run: {run}, file: results.csv, where: {{batch: {batch}}}, column: speedup}}\n"
        "    tolerance: 5%\n"
    )


@pytest.fixture
def project(made, tmp_path) -> Path:
    copy = tmp_path / "p"
    shutil.copytree(made, copy)
    return copy


def borrowed(claim_id: str, check: str, value: float | None = None, extra: str = "", expects: str = "") -> str:
    stated = f"    value: {value!r}\n" if value is not None else ""
    checked = f"[{{claim: {check}, expects: {expects!r}}}]" if expects else f"[{check}]"
    return (
        f'  - id: {claim_id}\n{stated}    unit: "×"\n    kind: borrowed\n'
        f'    source: {{title: "a write-up"}}\n    checked_by: {checked}\n{extra}'
    )


def check(root: Path, *claims: str) -> tuple[str, dict]:
    """ledger check's text and its JSON verdicts, with the borrowed claims added."""
    write_tree(root, {"claims/borrowed.yaml": "claims:\n" + "".join(claims)})
    text = run_ledger("check", cwd=root).output
    verdicts = json.loads(run_ledger("check", "--format", "json", cwd=root).output)["verdicts"]
    return text, verdicts


def test_a_borrowed_value_half_or_twice_a_noisy_measurement_is_inconclusive_never_agrees(project):
    output, verdicts = check(project, borrowed("low", "m1", 23.0), borrowed("twice", "m1", 83.0))
    for claim_id in ("low", "twice"):  # each value's 10% band overlaps the interval 24.5–79.1×: no agreement
        assert verdicts[claim_id]["strength"] == "inconclusive", verdicts[claim_id]
        assert (
            f"{claim_id}: only-borrowed: borrowed, and no check here agrees with its value: its check m1 is " in output
        )
    assert (
        "its check m1 is inconclusive: the measurement's 99.6% interval 24.5–79.1× is wider than the 10% "
        "tolerance: more rounds, or a looser stated tolerance"
    ) in output, output
    assert "fix: narrow m1's interval with more rounds (`ledger measure toy`, or cite its replicates)" in output
    assert " 2 failures" in output


def test_a_borrowed_value_wholly_outside_a_noisy_measurement_disagrees(project):
    output, verdicts = check(project, borrowed("far", "m1", 120.0))  # its band 115.85–124.15× is past 79.1×
    assert verdicts["far"]["strength"] == "", verdicts["far"]
    assert "far: contradicted: stated 120×, but m1 gives 41.5× (99.6% interval 24.5–79.1× (9 rounds))" in output


def test_a_borrowed_value_inside_a_narrow_measurements_tolerance_still_agrees(project):
    output, verdicts = check(project, borrowed("near", "m2", 43.0), borrowed("same", "m2", 41.5))
    assert verdicts["near"]["strength"] == verdicts["same"]["strength"] == "agrees"
    assert " 0 failures" in output, output


def test_a_narrow_interval_reaching_past_the_band_is_inconclusive(project):
    output, verdicts = check(project, borrowed("edge", "m2", 45.6))  # band 41.45–49.75×; the interval 40.9–42.1×
    assert verdicts["edge"]["strength"] == "inconclusive"
    assert "the measurement's 99.6% interval 40.9–42.1× reaches past the 10% tolerance" in output, output


@pytest.mark.parametrize(
    ("extra", "strength", "failure"),
    [
        ('    states: ">= 30"\n', "agrees", ""),
        ('    states: ">= 10"\n', "bounded", "too loose, every value within 2× of m2 satisfies it"),  # from 20.75×
        ('    states: "> 4000 %"\n', "agrees", ""),  # 40 ×, in a unit of its dimension
        ("    range: [40, 45]\n", "agrees", ""),
        ('    states: ">= 50"\n', "", "contradicted: stated >= 50, but m2 gives 41.5×"),
        ("    range: [41.5, 60]\n", "inconclusive", "only-borrowed"),
        ('    states: "< 42"\n', "inconclusive", "reaches past what its source states (< 42)"),
    ],
)
def test_a_source_that_states_a_bound_or_range_holds_when_the_interval_lies_inside_it(
    project, extra, strength, failure
):
    output, verdicts = check(project, borrowed("vendor", "m2", extra=extra))
    assert verdicts["vendor"]["strength"] == strength, (verdicts["vendor"], output)
    if failure:
        assert f"vendor: {failure}" in output or failure in output, output
    else:
        assert " 0 failures" in output, output


def test_a_claim_that_states_a_bound_is_shown_by_it(project):
    check(project, borrowed("vendor", "m2", extra='    states: ">= 30"\n'))
    shown = run_ledger("show", "vendor", cwd=project).output
    assert shown.startswith("vendor = >= 30× (borrowed, agrees, "), shown
    assert "checked by (agrees: what its source states (>= 30), holds) m2" in shown, shown


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (
            '    states: ">= 10"\n    range: [5, 15]\n',
            "a claim states a bound (`states`) or a range (`range`), not both",
        ),
        ("    range: [15, 5]\n", "`range: [15, 5]`: the first number must be smaller than the second"),
        ("    range: [1, two]\n", "`range` must be two finite numbers"),
        ('    states: "above"\n', "`states: above` compares with another claim; a source states a bound"),
        ('    states: ">= 10 GB/s"\n', "`states: >= 10 GB/s` states bytes per second (GB/s), the claim "),
    ],
)
def test_a_bound_or_range_that_cannot_be_read_is_invalid_at_its_line(project, extra, why):
    output, _ = check(project, borrowed("vendor", "m2", 41.5, extra=extra))
    assert "claims/borrowed.yaml:" in output and f"vendor: invalid: {why}" in output, output


def test_states_on_a_measured_claim_is_refused(project):
    write_tree(project, {"claims/toy.yaml": (project / "claims/toy.yaml").read_text() + '    states: ">= 1"\n'})
    output = run_ledger("check", cwd=project).output
    assert "m4: invalid: `states` applies to borrowed claims, not measured" in output, output


def test_within_a_factor_never_lets_a_slowdown_agree_with_a_speedup(project):
    output, verdicts = check(project, borrowed("speedup", "m3", 1.02, expects="within 1.1x"))
    assert verdicts["speedup"]["strength"] == ""
    assert (
        "speedup: contradicted: stated 1.02×, but m3 gives 0.97× (99.6% interval 0.96–0.98× (9 rounds)) "
        "(expected: within 1.1× of the claim, above 1×)"
    ) in output, output


def test_within_a_factor_agrees_on_the_same_side_of_one(project):
    output, verdicts = check(project, borrowed("slowdown", "m3", 0.95, expects="within 1.1x"))
    assert verdicts["slowdown"]["strength"] == "agrees", output
    assert " 0 failures" in output, output


def test_within_a_factor_of_a_ratio_whose_interval_spans_one_is_inconclusive(project):
    output, verdicts = check(project, borrowed("gain", "m4", 1.03, expects="within 1.1x"))
    assert verdicts["gain"]["strength"] == "inconclusive"
    assert "the measurement's 99.6% interval 0.95–1.05× spans 1×: it does not say which way" in output, output


def test_show_and_diff_name_an_inconclusive_check(project):
    for claims in (borrowed("low", "m2", 41.0), borrowed("low", "m1", 23.0)):  # agrees, then inconclusive
        check(project, claims)
        commit(project, "borrowed")
    shown = run_ledger("show", "low", cwd=project).output
    assert shown.startswith("low = 23.0× (borrowed, inconclusive, "), shown
    assert "checked by (inconclusive: the same quantity (within 10%), the measurement's 99.6% interval" in shown
    diff = run_ledger("diff", "HEAD~1", "HEAD", cwd=project).output
    assert (
        "| rests on borrowed figures, value moved | `low` | rests on borrowed figures: borrowed, and no check here "
        "agrees with its value: its check m1 is inconclusive: the measurement's 99.6% interval 24.5–79.1× is wider "
        "than the 10% tolerance"
    ) in diff, diff
    assert "also changed: checked by" in diff
