"""Timing for the MLX probes: generator.timing's clock with MLX's finish, and per-round figures -> rows.

The clock, the rounds, the stopping rule and the row convention are generator.timing's (standard
library, shared with generator.probe); this module adds what needs MLX (mlx_finish, kernel) and the
figures the kernel probes derive from a setting and its B=1 setting, one value per round, so every
summarised column is the median of its rounds and every ratio is paired by round.
"""

from __future__ import annotations

from typing import Callable, Sequence

import mlx.core as mx

from generator.timing import (  # noqa: F401  (re-exported: the probes' one timing module)
    PerRound,
    Sample,
    Setting,
    Spread,
    Stop,
    Stopwatch,
    Timed,
    each,
    fixed,
    median_interval,
    paired,
    samples_file,
    spread,
    summarise,
    time_interleaved,
)

SPREAD_OF = ("ms", "ms_per_token", "gb_per_s", "speedup", "bandwidth_ratio", "predicted_speedup")


def mlx_finish(out: object) -> None:
    """Block until `out` (MLX arrays, lists of them, or None) is computed and the device is idle."""
    if out is not None:
        mx.eval(out)
    mx.synchronize()


def kernel(fn: Callable[[], object], finish: Callable[[object], None] = mlx_finish, stop: Stop | None = None) -> Setting:
    """A setting that times `reps` calls of fn() and waits for all of them (finish) before the clock stops."""

    def run(watch: Stopwatch, reps: int) -> None:
        finish(None)
        watch.start()
        outs = [fn() for _ in range(reps)]
        finish(outs)
        watch.stop()

    return Setting(run, stop=stop)


def batching_values(batch: int, timed: Timed, bytes_per_call: float, base: Timed,
                    base_bytes_per_call: float) -> dict[str, dict[int, float]]:
    """One setting's per-round figures against its mode's B=1 setting (seconds are per call).

    ms per call; ms_per_token; gb_per_s; speedup = B * t1 / tB; bandwidth_ratio = bytes/s at B over
    bytes/s at B=1; predicted_speedup = byte_ratio * bandwidth_ratio, which equals the speedup in
    every round by construction (the formula decomposes a measured speedup, it does not test it).
    Ratios pair the two settings round by round.
    """
    ratio = byte_ratio(batch, bytes_per_call, base_bytes_per_call)
    return {
        "ms": each(timed, lambda s: s * 1e3),
        "ms_per_token": each(timed, lambda s: s / batch * 1e3),
        "gb_per_s": each(timed, lambda s: bytes_per_call / s / 1e9),
        "speedup": paired(base, timed, lambda b, s: batch * b / s),
        "bandwidth_ratio": paired(base, timed, lambda b, s: bytes_per_call / s / (base_bytes_per_call / b)),
        "predicted_speedup": paired(base, timed, lambda b, s: ratio * bytes_per_call / s / (base_bytes_per_call / b)),
    }


def byte_ratio(batch: int, bytes_per_call: float, base_bytes_per_call: float) -> float:
    """Bytes per token at B=1 over bytes per token at B."""
    return base_bytes_per_call / (bytes_per_call / batch)


def rows_of(keys: dict, timed: Timed, values: dict[str, PerRound], constants: dict | None = None,
            spread_of: Sequence[str] = SPREAD_OF) -> tuple[dict, list[dict]]:
    """(results row, samples rows): summarise() with reps and the setting's constant columns in the row."""
    row, rounds = summarise(keys, timed, values, [name for name in spread_of if name in values])
    return {**row, "reps": timed.reps, **(constants or {})}, rounds


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least squares y = intercept + slope * x -> (intercept, slope, r2); r2 is 1.0 for an exact fit."""
    n = len(xs)
    if n < 2 or len(ys) != n:
        raise ValueError("a line needs at least two points")
    mx_, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx_) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("a line needs two distinct x values")
    slope = sum((x - mx_) * (y - my) for x, y in zip(xs, ys)) / sxx
    intercept = my - slope * mx_
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return intercept, slope, 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0


# -- min-max columns from a Spread: whole_graph and prefill still write these (until they move to rows_of) --


def span(name: str, median: float, low: float, high: float) -> dict[str, float]:
    """{name: median, name_min: low, name_max: high}."""
    return {name: median, f"{name}_min": low, f"{name}_max": high}


def time_span(name: str, seconds: Spread, per: float = 1.0, scale: float = 1e3) -> dict[str, float]:
    """A time column (default ms) divided by `per`, with its _min/_max across rounds."""
    return span(name, seconds.median / per * scale, seconds.low / per * scale, seconds.high / per * scale)


def rate_span(name: str, amount: float, seconds: Spread) -> dict[str, float]:
    """amount / seconds with its _min (slowest round) and _max (fastest round)."""
    return span(name, amount / seconds.median, amount / seconds.high, amount / seconds.low)


def ratio_span(name: str, numerator: Spread, denominator: Spread, factor: float = 1.0) -> dict[str, float]:
    """factor * numerator.median / denominator.median, with _min/_max over the round-paired ratios."""
    central = factor * numerator.median / denominator.median
    pairs = [factor * a / b for a, b in zip(numerator.samples, denominator.samples) if b > 0] + [central]
    return span(name, central, min(pairs), max(pairs))


def timing_columns(seconds: Spread, per: float = 1.0) -> dict[str, float | int]:
    """rounds, ms_min, ms_median, ms_max of a Spread in seconds, divided by `per` (e.g. tokens)."""
    return {
        "rounds": seconds.rounds,
        "ms_min": seconds.low / per * 1e3,
        "ms_median": seconds.median / per * 1e3,
        "ms_max": seconds.high / per * 1e3,
    }
