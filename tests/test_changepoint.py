"""The change-point detector: Student's t, E-divisive candidates, the merge step — and tests of the
tests on series made from this repository's own noise (helpers_series.py). Everything seeded."""

import math
import random
import time
from datetime import datetime, timedelta, timezone

import pytest
from helpers_series import a_series, repository_noise

from generator.points import Point
from generator.series import changepoint
from generator.series.changepoint import change_points, student_p, t_test
from generator.series.stage import segment_changes


@pytest.mark.parametrize(
    "t, df, p",
    [
        (0.0, 5, 1.0),
        (12.706, 1, 0.05),  # Student's t tables, two-sided
        (636.62, 1, 0.001),
        (2.228, 10, 0.05),
        (4.221, 13, 0.001),
        (8.610, 4, 0.001),
        (1.960, 100000, 0.05),  # the normal limit
        (math.inf, 3, 0.0),
    ],
)
def test_student_p_matches_the_tables(t, df, p):
    assert student_p(t, df) == pytest.approx(p, rel=2e-3, abs=1e-12)


@pytest.mark.parametrize(
    "a, b, p",
    [
        ([1.0, 1.0], [1.0, 1.0], 1.0),  # no spread, no difference
        ([1.0, 1.0], [2.0, 2.0], 0.0),  # no spread, a difference
        ([1.0], [2.0], 1.0),  # no degree of freedom
        ([], [1.0, 2.0], 1.0),
        ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 1.0),
    ],
)
def test_t_test_edge_cases(a, b, p):
    assert t_test(a, b) == p


def test_t_test_agrees_with_a_worked_example():
    # t = 2.828 with 4 degrees of freedom for these two samples (pooled variance 0.5)
    assert t_test([1.0, 2.0, 3.0], [3.0, 4.0, 5.0]) == pytest.approx(student_p(math.sqrt(6), 4), rel=1e-12)


STEP = [1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.02, 2.0, 2.1, 1.9, 2.0, 2.05]
TWO_STEPS = [1.0, 1.1, 0.9, 1.0, 1.05, 3.0, 3.1, 2.9, 3.0, 3.05, 1.0, 1.1, 0.9, 1.0, 1.05]


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1.0] * 12, []),  # flat, no spread
        ([1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.02, 0.98, 1.01], []),  # flat with noise
        (STEP, [8]),  # the first point of the new level
        (TWO_STEPS, [5, 10]),
        ([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [4]),
        ([1.0] * 7 + [5.0], [7]),  # the newest point alone, with no spread before it
    ],
)
def test_change_points_are_found_where_the_level_moves(values, expected):
    assert [found.index for found in change_points(values)] == expected


def test_a_change_point_carries_its_test_and_the_levels_either_side():
    (found,) = change_points(STEP)
    assert found.before == pytest.approx(sum(STEP[:8]) / 8) and found.after == pytest.approx(sum(STEP[8:]) / 5)
    assert found.p < changepoint.P_VALUE


def test_a_step_past_the_first_window_is_found_by_the_next():
    rng = random.Random(7)
    values = [10 + rng.gauss(0, 0.2) for _ in range(90)] + [12 + rng.gauss(0, 0.2) for _ in range(30)]
    assert [found.index for found in change_points(values)] == [90]


def test_a_level_that_comes_back_is_two_steps():
    assert [found.index for found in change_points([1.0, 1.1, 0.9, 1.0, 3.0, 3.1, 2.9, 3.0, 1.0, 1.1, 0.9, 1.0])] == [
        4,
        8,
    ]


def test_the_merge_step_drops_a_weak_point_and_retests_its_neighbours():
    values = [1.0, 1.2, 0.9, 1.1, 1.15, 1.0, 1.2, 1.05, 3.0, 3.02, 2.98, 3.0]  # no level change at 4
    (found,) = change_points(values)  # the level before it is all eight points' (none found at 4 stands)
    assert (found.index, found.before, found.after) == (8, pytest.approx(sum(values[:8]) / 8), pytest.approx(3.0))


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 9.0, 1.0, 1.02, 0.98, 1.0, 1.01], []),  # one run in the middle
        ([9.0, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02], []),  # the first run
        ([1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 9.0], [8]),  # the newest run may start a level
        ([1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 9.0, 9.1, 1.0, 1.02, 0.98, 1.0], [6, 8]),  # two runs are a level
    ],
)
def test_a_single_run_is_a_level_only_when_it_is_the_newest(values, expected):
    assert [found.index for found in change_points(values)] == expected


@pytest.mark.parametrize("values", [[1.0, math.nan], [math.inf, 1.0]])
def test_values_that_are_not_finite_are_refused(values):
    with pytest.raises(ValueError):
        change_points(values)


def test_one_or_two_points_have_no_step():
    assert change_points([]) == () and change_points([1.0]) == () and change_points([1.0, 9.0]) == ()


# -- tests of the tests: series from this repository's noise -----------------------------------------


def test_repository_noise_comes_from_committed_runs():
    source, samplers = repository_noise()
    assert source in ("raw rounds", "min–max spreads of the newest runs")
    assert len(samplers) >= 20


def test_a_step_of_twice_the_interval_half_width_after_point_10_is_found_in_90_percent_of_200_series():
    # the gate's rule for one segment: E-divisive, t-test, and a move larger than the points' own noise
    start = time.perf_counter()
    _, samplers = repository_noise()
    rng = random.Random(21)
    found = 0
    for _ in range(200):
        points = a_series(rng, rng.choice(samplers), step_after=10)
        found += any(abs(step.index - 10) <= 1 for step in segment_changes(points))
    flat = [segment_changes(a_series(rng, rng.choice(samplers))) for _ in range(50)]
    assert found >= 180, found
    assert [steps for steps in flat if steps] == []
    assert time.perf_counter() - start < 10


def test_a_step_no_larger_than_the_points_own_noise_is_no_step():
    values = [1.0, 1.01, 0.99] * 4 + [1.05, 1.06, 1.04] * 4  # significant across 24 runs
    assert [c.index for c in change_points(values)] == [12]
    assert change_points(values, min_step=0.06) == ()  # each run's own noise is ±6%: no run shows it


@pytest.mark.parametrize(
    "newest_interval, steps",
    [
        ((1.30, 1.40), [9]),  # its own rounds exclude the level before it: a new level, so far
        ((0.95, 1.45), []),  # its own rounds reach back to the level before it: judged without it
    ],
)
def test_the_newest_run_alone_is_a_level_only_when_its_own_interval_excludes_the_level_before(newest_interval, steps):
    values = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99]
    when = datetime(2026, 11, 29, tzinfo=timezone.utc)
    points = [Point(f"r{i}", when + timedelta(hours=i), v, v - 0.03, v + 0.03, "rounds") for i, v in enumerate(values)]
    points.append(Point("r9", when + timedelta(hours=9), 1.35, *newest_interval, "rounds"))
    assert [found.index for found in segment_changes(points)] == steps
