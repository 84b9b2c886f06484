"""The probes' clock (generator.timing): the median's interval, the stopping rule, interleaved rounds,
and the rows a setting becomes. Settings here add chosen seconds to the stopwatch, so nothing waits."""

import dataclasses
import itertools
import math
import statistics

import pytest

from generator import timing
from generator.timing import Stop


def enumerated_coverage(n: int, k: int) -> float:
    """P(x_(k) <= median <= x_(n+1-k)) by enumerating which of n values fall below the median."""
    covered = sum(k <= sum(below) <= n - k for below in itertools.product((0, 1), repeat=n))
    return covered / 2**n


@pytest.mark.parametrize("n", range(1, 13))
def test_median_coverage_matches_enumeration(n):
    for k in range(1, (n + 1) // 2 + 1):
        assert timing.median_coverage(n, k) == pytest.approx(enumerated_coverage(n, k), abs=1e-15)


@pytest.mark.parametrize(
    "n, k, expected",
    [(7, 1, 1 - 2 / 2**7), (9, 1, 1 - 2 / 2**9), (9, 2, 1 - 2 * 10 / 2**9), (20, 4, 1 - 2 * 1351 / 2**20)],
)
def test_median_coverage_is_one_minus_twice_the_binomial_tail(n, k, expected):
    assert timing.median_coverage(n, k) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "values, level, expected",
    [
        # 20 values: k=4 covers 99.74%, k=5 only 98.8%, so [x_(4), x_(17)]
        (list(range(20, 0, -1)), 0.99, timing.Interval(4, 17, 1 - 2 * 1351 / 2**20, 4)),
        # 9 values: only min-max reaches 99% (99.6%)
        ([5, 1, 9, 3, 7, 2, 8, 4, 6], 0.99, timing.Interval(1, 9, 1 - 2 / 2**9, 1)),
        # 9 values at 95%: k=2 covers 96.1%
        ([5, 1, 9, 3, 7, 2, 8, 4, 6], 0.95, timing.Interval(2, 8, 1 - 2 * 10 / 2**9, 2)),
        # too few for 99%: min-max with its true coverage (98.4% at 7, none at 1)
        ([3, 1, 2, 7, 5, 4, 6], 0.99, timing.Interval(1, 7, 1 - 2 / 2**7, 1)),
        ([2.5], 0.99, timing.Interval(2.5, 2.5, 0.0, 1)),
    ],
)
def test_median_interval_is_the_narrowest_order_statistic_pair_reaching_the_level(values, level, expected):
    assert timing.median_interval(values, level) == expected


@pytest.mark.parametrize("n", [9, 15, 30, 50, 101])
def test_median_interval_level_is_met_and_the_next_k_would_miss_it(n):
    got = timing.median_interval([float(x) for x in range(n)])
    assert got.level >= 0.99 and got.level == timing.median_coverage(n, got.k)
    if got.k + 1 <= (n + 1) // 2:
        assert timing.median_coverage(n, got.k + 1) < 0.99


@pytest.mark.parametrize("values, level", [([], 0.99), ([1.0], 1.0), ([1.0], 0.0)])
def test_median_interval_refuses_no_values_or_an_impossible_level(values, level):
    with pytest.raises(ValueError):
        timing.median_interval(values, level)


NINE_TIGHT = [1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00]  # min-max 0.98-1.02: half-width 2%
NINE_WIDE = [1.0, 1.5, 0.7, 1.2, 0.9, 1.0, 1.1, 0.8, 1.3]  # half-width 40%


@pytest.mark.parametrize(
    "stop, seconds, elapsed, expected",
    [
        (Stop(), NINE_TIGHT[:8], 100.0, None),  # fewer than min_rounds: go on, whatever the clock
        (Stop(), NINE_TIGHT, 0.0, "target"),
        (Stop(target=0.01), NINE_TIGHT, 0.0, None),
        (Stop(), NINE_WIDE, 0.0, None),
        (Stop(max_seconds=5.0), NINE_WIDE, 5.0, "time cap"),
        (Stop(max_rounds=9), NINE_WIDE, 0.0, "round cap"),
        (Stop(max_rounds=9, max_seconds=0.0), NINE_WIDE, 1.0, "round cap"),
        (timing.fixed(9), NINE_WIDE, 0.0, "fixed"),
        (timing.fixed(3), [1.0, 2.0], 0.0, None),
    ],
)
def test_stop_reason_needs_min_rounds_then_the_target_or_a_cap(stop, seconds, elapsed, expected):
    assert timing.stop_reason(stop, seconds, elapsed) == expected


@pytest.mark.parametrize("min_rounds, max_rounds", [(0, 5), (9, 8)])
def test_a_stop_refuses_impossible_rounds(min_rounds, max_rounds):
    with pytest.raises(ValueError, match="min_rounds"):
        Stop(min_rounds=min_rounds, max_rounds=max_rounds)


@pytest.mark.parametrize(
    "one_call_s, min_sample_s, max_reps, min_reps, expected",
    [
        ([0.001], 0.01, 64, 1, 10),
        ([0.05, 0.001, 0.002], 0.01, 64, 1, 10),  # the fastest call decides: a stall cannot cut reps
        ([1e-7], 0.01, 64, 1, 64),
        ([0.5], 0.01, 64, 1, 1),
        ([0.001], 0.0, 64, 4, 4),  # no sample length: min_reps
        ([0.001], 0.01, 1, 1, 1),
    ],
)
def test_reps_fill_a_sample_from_the_fastest_call(one_call_s, min_sample_s, max_reps, min_reps, expected):
    assert timing.reps_for(one_call_s, min_sample_s, max_reps, min_reps) == expected


def scripted(seconds, calls=None, stop=None, repeatable=True):
    """A setting whose successive calls take the given seconds (cycling), added to the stopwatch."""
    feed = itertools.cycle(seconds)

    def run(watch, reps):
        for _ in range(reps):
            watch.seconds += next(feed)
        if calls is not None:
            calls.append(reps)

    return timing.Setting(run, repeatable=repeatable, stop=stop)


def test_rounds_interleave_settings_and_each_stops_on_its_own_rule():
    order = []

    def tagged(name, seconds, stop=None):
        inner = scripted(seconds, stop=stop)
        return timing.Setting(lambda watch, reps: (order.append(name), inner.run(watch, reps)), stop=stop)

    timed = timing.time_interleaved(
        {
            "b1": tagged("b1", [1.0, 1.6, 0.6]),  # wide: runs to the round cap
            "b64": tagged("b64", [2.0, 2.0, 2.02], stop=Stop(min_rounds=9, max_rounds=12)),  # tight: target
        },
        Stop(min_rounds=9, max_rounds=20),
        warmup=1,
    )
    assert order[:2] == ["b1", "b64"]  # warm-up
    assert order[2:20] == ["b1", "b64"] * 9  # rounds outside, settings inside
    assert order[20:] == ["b1"] * 11  # b64 met its target at round 9; b1 goes on to its cap
    assert (timed["b64"].stop, timed["b64"].spread.rounds) == ("target", 9)
    assert (timed["b1"].stop, timed["b1"].spread.rounds) == ("round cap", 20)
    assert [s.round for s in timed["b1"].samples] == list(range(20))  # global indices: pairable
    assert [s.round for s in timed["b64"].samples] == list(range(9))


def test_a_time_cap_ends_the_rounds_after_min_rounds():
    timed = timing.time_interleaved({"wide": scripted([1.0, 2.0])}, Stop(max_seconds=0.0))
    assert (timed["wide"].stop, timed["wide"].spread.rounds) == ("time cap", 9)


def test_fixed_rounds_and_the_sample_context():
    timed = timing.time_interleaved({"a": scripted([0.25])}, timing.fixed(3), warmup=0)["a"]
    assert timed.stop == "fixed" and timed.spread == timing.Spread(0.25, 0.25, 0.25, 3)
    for sample in timed.samples:
        assert sample.reps == 1 and sample.seconds == 0.25
        assert sample.started > 1.7e9 and sample.wall_s >= 0 and sample.cpu_s >= 0
        assert sample.load_1m is None or sample.load_1m >= 0


def test_reps_come_from_the_fastest_of_three_calls_so_one_stall_does_not_cut_them():
    calls = []
    stalled_first = scripted([0.05, 0.001, 0.001], calls)
    timed = timing.time_interleaved({"a": stalled_first}, timing.fixed(2), warmup=1, min_sample_s=0.01, max_reps=64)
    assert calls == [1, 1, 1, 10, 10] and timed["a"].reps == 10


def test_long_calls_are_not_repeated_and_unrepeatable_settings_run_once_per_sample():
    long_calls, once = [], []
    timed = timing.time_interleaved(
        {"long": scripted([0.5], long_calls), "once": scripted([0.001], once, repeatable=False)},
        timing.fixed(2),
        warmup=1,
        min_sample_s=0.01,
        max_reps=64,
        min_reps=2,
    )
    assert long_calls == [1, 1, 2, 2] and timed["long"].reps == 2  # two long calls end the calibration
    assert once == [1, 1, 1] and timed["once"].reps == 1


def test_summarise_gives_medians_of_the_rounds_and_one_samples_row_per_round():
    base = timing.time_interleaved({"b": scripted([0.004, 0.002, 0.003])}, timing.fixed(5), warmup=0)["b"]
    fast = timing.time_interleaved({"f": scripted([0.001, 0.002])}, timing.fixed(4), warmup=0)["f"]
    values = {
        "ms": timing.each(fast, lambda s: s * 1e3),
        "speedup": timing.paired(base, fast, lambda b, f: b / f),
    }
    row, rounds = timing.summarise({"batch": 4}, fast, values, spread_of=("speedup",))
    assert [r["round"] for r in rounds] == [0, 1, 2, 3]
    assert [r["speedup"] for r in rounds] == [4.0, 1.0, 3.0, 2.0]  # paired by round
    assert row == {
        "batch": 4,
        "rounds": 4,
        "stop": "fixed",
        "ms": statistics.median(r["ms"] for r in rounds),
        "speedup": 2.5,
        "speedup_min": 1.0,
        "speedup_max": 4.0,
    }
    assert set(rounds[0]) == {"batch", "round", "reps", "ms", "speedup", *timing.CONTEXT_COLUMNS}


def test_a_ratio_is_blank_in_rounds_its_other_setting_did_not_run():
    long = timing.time_interleaved({"l": scripted([1.0])}, timing.fixed(4), warmup=0)["l"]
    halves = tuple(dataclasses.replace(s, seconds=2.0) for s in long.samples[:2])
    short = timing.Timed(timing.spread([2.0, 2.0]), 1, halves, "fixed")
    row, rounds = timing.summarise({}, long, {"ratio": timing.paired(long, short, lambda a, b: a / b)})
    assert [r["ratio"] for r in rounds] == [0.5, 0.5, "", ""] and row["ratio"] == 0.5


def test_relative_half_width_of_a_zero_median_is_infinite():
    assert timing.relative_half_width([0.0, 0.0, 0.0]) == math.inf
