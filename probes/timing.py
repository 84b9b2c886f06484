"""Timing: settings (callables that bracket their work) -> interleaved rounds -> Spread, and spread columns.

The only clock in probes/ is here (Stopwatch, time_interleaved). Every figure derived from timings is
written with its low and high across rounds: for a column X, X_min and X_max (for a rate, X_min comes
from the slowest round), next to `rounds`.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import mlx.core as mx


@dataclass(frozen=True)
class Spread:
    """Median and range of repeated timings (seconds), with the number of rounds behind them."""

    median: float
    low: float
    high: float
    rounds: int
    samples: tuple[float, ...] = field(default=(), compare=False, repr=False)  # one per round, in order

    @property
    def ratio(self) -> float:
        """Slowest round / fastest round (1.0 = no spread)."""
        return self.high / self.low if self.low > 0 else math.inf


def spread(samples: Sequence[float]) -> Spread:
    """Samples -> Spread(median, low, high, rounds), keeping the samples in round order."""
    if not samples:
        raise ValueError("spread of no samples")
    return Spread(statistics.median(samples), min(samples), max(samples), len(samples), tuple(samples))


def span(name: str, median: float, low: float, high: float) -> dict[str, float]:
    """{name: median, name_min: low, name_max: high}."""
    return {name: median, f"{name}_min": low, f"{name}_max": high}


def time_span(name: str, seconds: Spread, per: float = 1.0, scale: float = 1e3) -> dict[str, float]:
    """A time column (default ms) divided by `per`, with its _min/_max across rounds."""
    return span(name, seconds.median / per * scale, seconds.low / per * scale, seconds.high / per * scale)


def rate_span(name: str, amount: float, seconds: Spread) -> dict[str, float]:
    """amount / seconds with its _min (slowest round) and _max (fastest round)."""
    return span(name, amount / seconds.median, amount / seconds.high, amount / seconds.low)


def paired_ratios(numerator: Spread, denominator: Spread) -> list[float]:
    """Round-by-round numerator / denominator (settings interleaved, so round i of each ran together)."""
    pairs = zip(numerator.samples, denominator.samples)
    return [a / b for a, b in pairs if b > 0]


def ratio_span(name: str, numerator: Spread, denominator: Spread, factor: float = 1.0) -> dict[str, float]:
    """factor * numerator.median / denominator.median, with _min/_max over the round-paired ratios.

    The range is widened to include the ratio of medians, which need not lie among the paired ratios.
    """
    central = factor * numerator.median / denominator.median
    paired = [factor * r for r in paired_ratios(numerator, denominator)] + [central]
    return span(name, central, min(paired), max(paired))


def timing_columns(seconds: Spread, per: float = 1.0) -> dict[str, float | int]:
    """rounds, ms_min, ms_median, ms_max of a Spread in seconds, divided by `per` (e.g. tokens)."""
    return {
        "rounds": seconds.rounds,
        "ms_min": seconds.low / per * 1e3,
        "ms_median": seconds.median / per * 1e3,
        "ms_max": seconds.high / per * 1e3,
    }


def batching_figures(
    batch: int,
    seconds: Spread,
    bytes_per_call: float,
    base_seconds: Spread,
    base_bytes_per_call: float,
) -> dict[str, float]:
    """One setting's per-token figures against its mode's B=1 setting (seconds are per call).

    speedup = per-token time at B=1 / per-token time at B; byte_ratio = bytes per token at B=1 /
    bytes per token at B; bandwidth_ratio = bytes/s at B / bytes/s at B=1; predicted_speedup is
    their product. With both ratios measured in the same run the product equals the speedup
    (B * t1 / tB) by construction: the formula decomposes a measured speedup, it does not test it.
    Each figure that varies by round also comes as _min/_max (ratios paired round by round).
    """
    ms_per_token = seconds.median / batch * 1e3
    base_ms_per_token = base_seconds.median * 1e3
    gb_per_s = bytes_per_call / seconds.median / 1e9
    base_gb_per_s = base_bytes_per_call / base_seconds.median / 1e9
    byte_ratio = base_bytes_per_call / (bytes_per_call / batch)
    bandwidth_ratio = gb_per_s / base_gb_per_s
    speedup = ratio_span("speedup", base_seconds, seconds, factor=batch)
    bandwidth = ratio_span("bandwidth_ratio", base_seconds, seconds,
                           factor=bytes_per_call / base_bytes_per_call)
    return {
        **time_span("ms_per_token", seconds, per=batch),
        "ms_per_token": ms_per_token,
        "bytes_per_token": bytes_per_call / batch,
        **rate_span("gb_per_s", bytes_per_call / 1e9, seconds),
        "gb_per_s": gb_per_s,
        **speedup,
        "speedup": base_ms_per_token / ms_per_token,
        "byte_ratio": byte_ratio,
        **bandwidth,
        "bandwidth_ratio": bandwidth_ratio,
        "predicted_speedup": byte_ratio * bandwidth_ratio,
        "predicted_speedup_min": byte_ratio * bandwidth["bandwidth_ratio_min"],
        "predicted_speedup_max": byte_ratio * bandwidth["bandwidth_ratio_max"],
    }


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


class Stopwatch:
    """Accumulates wall seconds between start() and stop(); the probes' only clock."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._since: float | None = None

    def start(self) -> None:
        self._since = time.perf_counter()

    def stop(self) -> None:
        assert self._since is not None, "stop() without start()"
        self.seconds += time.perf_counter() - self._since
        self._since = None


def mlx_finish(out: object) -> None:
    """Block until `out` (MLX arrays, lists of them, or None) is computed and the device is idle."""
    if out is not None:
        mx.eval(out)
    mx.synchronize()


@dataclass
class Setting:
    """One timed configuration. run(watch, reps) does the work and brackets the part to time."""

    run: Callable[[Stopwatch, int], None]
    repeatable: bool = True  # False: one sample is one call whatever min_sample_s says


def kernel(fn: Callable[[], object], finish: Callable[[object], None] = mlx_finish) -> Setting:
    """A setting that times `reps` calls of fn() and waits for all of them (finish) before the clock stops."""

    def run(watch: Stopwatch, reps: int) -> None:
        finish(None)
        watch.start()
        outs = [fn() for _ in range(reps)]
        finish(outs)
        watch.stop()

    return Setting(run)


def time_interleaved(
    settings: Mapping[str, Setting],
    rounds: int,
    warmup: int = 1,
    min_sample_s: float = 0.0,
    max_reps: int = 1,
    progress: Callable[[str], None] = lambda message: None,
    min_reps: int = 1,
) -> dict[str, tuple[Spread, int]]:
    """Warm every setting, then time rounds with the settings interleaved inside each round.

    Returns {name: (Spread of seconds per call, reps per sample)}. A setting repeats its call `reps`
    times per sample, chosen after warm-up so a sample lasts about min_sample_s (launch and clock
    overhead stay small next to the work), at least min_reps; rounds outside, settings inside, so
    drift in the machine hits every setting alike.
    """
    reps = {}
    for name, setting in settings.items():
        for _ in range(warmup):
            setting.run(Stopwatch(), 1)
        reps[name] = 1
        if setting.repeatable and min_sample_s > 0 and max_reps > 1:
            watch = Stopwatch()
            setting.run(watch, 1)
            reps[name] = max(1, min(max_reps, math.ceil(min_sample_s / max(watch.seconds, 1e-9))))
        if setting.repeatable:
            reps[name] = max(reps[name], min_reps)
    samples: dict[str, list[float]] = {name: [] for name in settings}
    for index in range(rounds):
        progress(f"round {index + 1}/{rounds} ({len(settings)} settings)")
        for name, setting in settings.items():
            watch = Stopwatch()
            setting.run(watch, reps[name])
            samples[name].append(watch.seconds / reps[name])
    return {name: (spread(xs), reps[name]) for name, xs in samples.items()}
