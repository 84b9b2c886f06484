"""The statistics module: intervals, the "changed" test, interval arithmetic — and tests of the tests.

Everything seeded; the whole file runs in about a second.
"""

import itertools
import math
import random

import pytest
from helpers import REPO  # noqa: F401  (puts the repository on sys.path)

from generator import timing
from generator.lang import formula, stats
from generator.lang.stats import Estimate, Interval
from generator.timing import median_coverage


@pytest.mark.parametrize(
    "values, expected",
    [
        ([3.0], Interval(3.0, 3.0, 0.0, 1)),
        ([5, 1, 4, 2, 3, 7, 6], Interval(1.0, 7.0, 1 - 2 / 2**7, 1)),  # 98.4%: min–max, level below 99%
        (list(range(1, 10)), Interval(1.0, 9.0, 1 - 2 / 2**9, 1)),  # 99.6%
        (list(range(1, 16)), Interval(3.0, 13.0, median_coverage(15, 3), 3)),  # the narrowest >= 99%
    ],
)
def test_median_interval_is_the_narrowest_with_at_least_99_percent(values, expected):
    assert stats.median_interval(values) == expected


def test_median_interval_at_a_lower_level_is_narrower():
    found = stats.median_interval(range(1, 16), level=0.9)
    assert found.k > stats.median_interval(range(1, 16)).k and found.level >= 0.9


@pytest.mark.parametrize("values", [[], [1.0, math.nan], [math.inf], [1.0] * (stats.MAX_ROUNDS + 1)])
def test_median_interval_refuses_no_values_values_that_are_not_finite_or_too_many_rounds(values):
    with pytest.raises(ValueError):
        stats.median_interval(values)


@pytest.mark.parametrize("n", [1, 2, 7, 9, 15, 50, 101])
def test_the_gates_median_interval_is_the_probes_clocks(n):
    values = stats.lognormal_rounds(random.Random(n), n, 0.1)
    for level in (0.99, 0.9):
        assert stats.median_interval(values, level) == timing.median_interval(values, level)


def enumerated_p(a, b):
    """Two-sided Mann–Whitney p by enumerating every way to split the pooled ranks (no ties)."""
    m, n = len(a), len(b)
    observed = sum(x > y for x in a for y in b)
    centre = m * n / 2
    extreme = total = 0
    for chosen in itertools.combinations(range(m + n), m):
        others = [j for j in range(m + n) if j not in chosen]
        u = sum(i > j for i in chosen for j in others)
        total += 1
        extreme += abs(u - centre) >= abs(observed - centre)
    return extreme / total


@pytest.mark.parametrize("m, n", [(m, n) for m in range(1, 7) for n in range(1, 7)])
def test_exact_mann_whitney_p_matches_enumeration_up_to_six_rounds(m, n):
    rng = random.Random(m * 10 + n)
    for shift in (0.0, 0.4, 1.5):
        a = [rng.random() for _ in range(m)]
        b = [rng.random() + shift for _ in range(n)]
        assert stats.mann_whitney_p(a, b) == pytest.approx(enumerated_p(a, b), abs=1e-12)


def test_ties_are_broken_the_least_significant_way():
    a, b = [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]
    assert stats.mann_whitney_p(a, b) == 1.0
    separated = stats.mann_whitney_p([1, 2, 3], [4, 5, 6])
    assert stats.mann_whitney_p([1, 2, 3, 4], [4, 5, 6, 7]) >= stats.mann_whitney_p([1, 2, 3, 4], [4.5, 5, 6, 7])
    assert separated == pytest.approx(2 / math.comb(6, 3))


def test_large_samples_use_the_normal_approximation_close_to_exact():
    rng = random.Random(3)
    a = [rng.random() for _ in range(50)]
    b = [rng.random() + 0.1 for _ in range(50)]
    exact = stats.mann_whitney_p(a, b)  # 50·50 = EXACT_LIMIT: still exact
    approximate = stats.mann_whitney_p(a, b + [rng.random() + 0.1])  # one more: normal
    assert exact == pytest.approx(approximate, rel=0.5)


def test_smallest_p_allows_the_rank_test_from_seven_rounds_a_side():
    assert stats.smallest_p(6, 6) > stats.CHANGE_P > stats.smallest_p(7, 7)


# -- tests of the tests: plant a shift, count how often it is found ------------------------------


def trials(shift: float, count: int = 500, rounds: int = 9, cv: float = 0.10, seed: int = 18) -> int:
    rng = random.Random(seed)
    found = 0
    for _ in range(count):
        old = Estimate(1.0, tuple(stats.lognormal_rounds(rng, rounds, cv)))
        new = Estimate(1.0 + shift, tuple(stats.lognormal_rounds(rng, rounds, cv, scale=1.0 + shift)))
        found += bool(stats.changed(old, new, allowed=0.0).changed)
    return found


def test_a_30_percent_shift_in_9_against_9_rounds_at_10_percent_cv_is_found_in_90_percent_of_trials():
    assert trials(0.30) >= 450


def test_a_and_a_pairs_of_9_rounds_at_10_percent_cv_are_flagged_at_most_half_a_percent_of_the_time():
    assert trials(0.0) <= 2  # 0.5% of 500; allowed = 0, so the rank test alone decides


def test_detectable_shift_agrees_with_the_planted_shift_trials():
    shift, test = stats.detectable_shift(9, cv=0.10, power=0.90)
    assert test == "Mann–Whitney U"
    assert trials(shift + 0.03) >= 450 > trials(shift - 0.08)


def test_more_rounds_detect_smaller_shifts_once_the_rank_test_applies():
    shifts = [stats.detectable_shift(n, trials=400)[0] for n in (7, 9, 15, 25)]
    assert shifts == sorted(shifts, reverse=True)
    assert stats.detectable_shift(5, trials=400)[1] == "intervals"


@pytest.mark.parametrize(
    "old, new, allowed, expected",
    [
        # without raw rounds: the intervals decide
        (Estimate(1.0, low=0.9, high=1.1), Estimate(1.5, low=1.4, high=1.6), 0.0, (True, True, "intervals")),
        (Estimate(1.0, low=0.9, high=1.1), Estimate(1.05, low=1.0, high=1.2), 0.0, (False, False, "intervals")),
        # significant, but within the claim's tolerance: not changed
        (Estimate(1.0, low=0.9, high=1.1), Estimate(1.5, low=1.4, high=1.6), 0.6, (False, True, "intervals")),
        # neither side has an interval: unknown
        (Estimate(1.0), Estimate(2.0), 0.0, (None, None, "none")),
        # 5 rounds a side cannot reach p < 0.002: the intervals decide
        (
            Estimate(1.0, (1, 1.1, 0.9, 1, 1), low=0.9, high=1.1),
            Estimate(2.0, (2, 2.1, 1.9, 2, 2), low=1.9, high=2.1),
            0.0,
            (True, True, "intervals"),
        ),
    ],
)
def test_changed_needs_significance_and_a_move_beyond_tolerance(old, new, allowed, expected):
    found = stats.changed(old, new, allowed)
    assert (found.changed, found.significant, found.test) == expected


def test_paired_interval_uses_only_rounds_all_inputs_ran_and_cancels_common_drift():
    drift = {r: 1 + 0.5 * (r % 3) for r in range(9)}  # the machine slows down in some rounds
    looped = {r: 2.0 * drift[r] for r in range(9)}
    batched = {r: 1.0 * drift[r] for r in range(1, 9)}  # round 0 missing
    found = stats.paired_interval(lambda p: p["a"] / p["b"], {"a": looped, "b": batched})
    assert found is not None and found[0] == Interval(2.0, 2.0, median_coverage(8, 1), 1)
    assert [index for index, _ in found[1]] == list(range(1, 9))
    assert stats.paired_interval(lambda p: p["a"] / p["b"], {"a": {0: 1.0}, "b": {1: 1.0}}) is None


def test_joint_level_is_the_bonferroni_bound():
    assert stats.joint_level([0.996, 0.984]) == pytest.approx(0.980)
    assert stats.joint_level([0.996, None]) is None
    assert stats.joint_level([]) == 1.0


# -- interval arithmetic through a formula -------------------------------------------------------


@pytest.mark.parametrize(
    "text, intervals, expected",
    [
        ("a + b", {"a": (1, 2), "b": (10, 20)}, (11, 22)),
        ("a - b", {"a": (1, 2), "b": (10, 20)}, (-19, -8)),
        ("a * b", {"a": (-1, 2), "b": (3, 4)}, (-4, 8)),
        ("a / b", {"a": (1, 2), "b": (2, 4)}, (0.25, 1)),
        ("a / b", {"a": (-1, 2), "b": (-4, -2)}, (-1, 0.5)),
        ("x ** 2", {"x": (-1, 3)}, (0, 9)),  # an even power of an interval around 0 starts at 0
        ("x ** 2", {"x": (-3, -1)}, (1, 9)),
        ("x ** 3", {"x": (-1, 2)}, (-1, 8)),
        ("x ** -1", {"x": (2, 4)}, (0.25, 0.5)),
        ("x ** 0.5", {"x": (4, 9)}, (2, 3)),
        ("2 ** x", {"x": (1, 3)}, (2, 8)),
        ("-x", {"x": (1, 2)}, (-2, -1)),
        ("min(a, b)", {"a": (1, 5), "b": (2, 3)}, (1, 3)),
        ("max(a, b, 4)", {"a": (1, 5), "b": (2, 3)}, (4, 5)),
        ("byte_ratio × bandwidth_ratio", {"byte_ratio": (4, 4), "bandwidth_ratio": (0.8, 0.9)}, (3.2, 3.6)),
    ],
)
def test_interval_arithmetic(text, intervals, expected):
    assert formula.evaluate_interval(text, intervals) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text, intervals, problem",
    [
        ("a / b", {"a": (1, 2), "b": (-1, 1)}, "contains 0"),
        ("a / b", {"a": (1, 2), "b": (0, 1)}, "contains 0"),
        ("x ** -2", {"x": (-1, 1)}, "unbounded"),
        ("x ** 0.5", {"x": (-1, 1)}, "not a real number"),
        ("x ** 400", {"x": (1, 1e10)}, "too large"),
    ],
)
def test_interval_arithmetic_refuses_what_has_no_finite_real_interval(text, intervals, problem):
    with pytest.raises(formula.FormulaError, match=problem):
        formula.evaluate_interval(text, intervals)


FORMULAS = ["a * b / c", "(a - b) ** 2 + c", "max(a, b) / min(b, c)", "a ** 0.5 * c - b", "-(a + 1) / (c + 3)"]


@pytest.mark.parametrize("text", FORMULAS)
def test_every_point_inside_the_inputs_evaluates_inside_the_interval(text):
    rng = random.Random(text)
    for _ in range(200):
        intervals = {name: tuple(sorted((rng.uniform(0.1, 5), rng.uniform(0.1, 5)))) for name in "abc"}
        low, high = formula.evaluate_interval(text, intervals)
        point = {name: rng.uniform(*span) for name, span in intervals.items()}
        value = formula.evaluate(text, point)
        assert low - 1e-9 * abs(low) <= value <= high + 1e-9 * abs(high)
