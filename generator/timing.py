"""The probes' clock: settings timed in interleaved rounds until a target -> raw samples, and their rows.

Standard library only, so a probe runs wherever Python does. Every probe's timing goes through here
(this repository's MLX probes through probes/session.py, other probes through generator.probe), and
the run writer hashes this file into every run that imported it from inside the project, so it
changes rarely and deliberately: a change makes every such run stale.

    settings = {"a": call(lambda: work(1)), "b": call(lambda: work(2))}
    timed = time_interleaved(settings, Stop(target=0.05, max_seconds=30))   # {name: Timed}
    row, rounds = summarise({"size": 1}, timed["a"], {"ms": each(timed["a"], lambda s: s * 1e3)})

- Rounds outside, settings inside: drift in the machine hits every setting alike. Round indices are
  global, so two settings' values can be paired by round (only rounds where both ran).
- A setting is timed until its Stop is met: at least min_rounds rounds, then until the order-statistic
  interval of its median (median_interval) is within `target` of the median (relative half-width),
  or max_rounds rounds, or max_seconds of wall time since the first timed round (warm-up excluded).
  Timed.stop says which ("target", "round cap", "time cap"; "fixed" when target is None).
- A sample repeats the setting's call `reps` times so it lasts about min_sample_s; reps is chosen from
  the fastest of up to three one-call samples (warm-up calls count), so one stalled call cannot make
  the whole setting run at one call per sample.
- summarise() turns one setting into a results row (each value the statistics.median of its rounds)
  and one samples row per round (the same values per round, with the sample's context): the
  `samples.csv` convention (guide/probes.md).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

CALIBRATION_SAMPLES = 3  # one-call samples (warm-up included) whose fastest sets reps
CONTEXT_COLUMNS = ("started", "wall_s", "cpu_s", "load_1m")  # per-sample columns beside the values


@dataclass(frozen=True)
class Interval:
    """[low, high] = [x_(k), x_(n+1-k)] of n sorted values: covers the median with probability `level`."""

    low: float
    high: float
    level: float  # exact coverage for any continuous distribution (distribution-free)
    k: int


def median_coverage(n: int, k: int) -> float:
    """P(x_(k) <= median <= x_(n+1-k)) for n independent values: 1 - 2 * P(Binom(n, 1/2) <= k - 1)."""
    if not 1 <= k <= (n + 1) // 2:
        raise ValueError(f"k={k} needs 1 <= k <= (n+1)/2 for n={n}")
    below = sum(math.comb(n, i) for i in range(k))  # exact integers; one division at the end
    return 1.0 - below / 2 ** (n - 1)


def median_interval(values: Sequence[float], level: float = 0.99) -> Interval:
    """The narrowest order-statistic interval for the median with coverage >= level.

    For n sorted values, [x_(k), x_(n+1-k)] covers the population median with probability
    1 - 2 * P(Binom(n, 1/2) <= k - 1), whatever the distribution (each value falls below the median
    with probability 1/2). The largest such k whose coverage reaches `level` gives the narrowest
    interval. When even k = 1 (min-max) falls short (n <= 7 at 99%), min-max is returned with its
    true coverage (98.4% at 7, 0 at 1). Pure; no scipy. Used by the gate's statistics as well.
    """
    if not values:
        raise ValueError("the interval of no values")
    if not 0 < level < 1:
        raise ValueError(f"level {level} must lie strictly between 0 and 1")
    xs, n = sorted(values), len(values)
    k, coverage = 1, median_coverage(n, 1)
    while k + 1 <= (n + 1) // 2 and median_coverage(n, k + 1) >= level:
        k += 1
        coverage = median_coverage(n, k)
    return Interval(xs[k - 1], xs[n - k], coverage, k)


def relative_half_width(values: Sequence[float], level: float = 0.99) -> float:
    """Half the median interval's width over the median (inf for a median of 0)."""
    interval, mid = median_interval(values, level), statistics.median(values)
    return (interval.high - interval.low) / 2 / abs(mid) if mid else math.inf


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


@dataclass(frozen=True)
class Sample:
    """One timed sample of one setting."""

    round: int  # global round index (0-based), shared by every setting timed together
    reps: int  # calls in the sample
    seconds: float  # per call: the stopwatch's time / reps
    started: float  # time.time() at the sample's start (unix s), to join with outside logs
    wall_s: float  # the sample's wall time (the whole setting call, setup included)
    cpu_s: float  # the process's CPU time (user + sys, all threads) over the sample
    load_1m: float | None  # os.getloadavg()[0] at the sample's start; None where unsupported


@dataclass(frozen=True)
class Stop:
    """Rounds until a target, within caps. target None: exactly min_rounds rounds ("fixed")."""

    target: float | None = 0.05  # relative half-width of the median's interval
    min_rounds: int = 9
    max_rounds: int = 50
    max_seconds: float = 60.0  # wall time since the first timed round, warm-up excluded
    level: float = 0.99  # the interval's coverage

    def __post_init__(self) -> None:
        if self.min_rounds < 1 or self.max_rounds < self.min_rounds:
            raise ValueError(f"rounds: need 1 <= min_rounds ({self.min_rounds}) <= max_rounds ({self.max_rounds})")

    def record(self) -> dict[str, object]:
        """The rule as a manifest parameter."""
        return {"target": self.target, "min_rounds": self.min_rounds, "max_rounds": self.max_rounds,
                "max_seconds": self.max_seconds, "level": self.level}  # fmt: skip


def fixed(rounds: int) -> Stop:
    """Exactly `rounds` rounds, no target."""
    return Stop(target=None, min_rounds=rounds, max_rounds=rounds, max_seconds=math.inf)


def stop_reason(stop: Stop, seconds: Sequence[float], elapsed: float) -> str | None:
    """Why a setting with these samples stops now ("target", "round cap", "time cap", "fixed"), or None."""
    n = len(seconds)
    if n < stop.min_rounds:
        return None
    if stop.target is None:
        return "fixed"
    if relative_half_width(seconds, stop.level) <= stop.target:
        return "target"
    if n >= stop.max_rounds:
        return "round cap"
    if elapsed >= stop.max_seconds:
        return "time cap"
    return None


@dataclass(frozen=True)
class Timed:
    """One setting's result: seconds per call over its rounds, reps per sample, its samples, why it stopped."""

    spread: Spread
    reps: int
    samples: tuple[Sample, ...]
    stop: str  # "target" | "time cap" | "round cap" | "fixed"

    def interval(self, level: float = 0.99) -> Interval:
        return median_interval(self.spread.samples, level)


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


@dataclass(frozen=True)
class Setting:
    """One timed configuration. run(watch, reps) does `reps` calls and brackets the part to time."""

    run: Callable[[Stopwatch, int], None]
    repeatable: bool = True  # False: one sample is one call whatever min_sample_s says
    stop: Stop | None = None  # its own rule (else the one time_interleaved is given)


def call(fn: Callable[[], object]) -> Setting:
    """A setting that times `reps` plain calls of fn() (fn returns when its work is done)."""

    def run(watch: Stopwatch, reps: int) -> None:
        watch.start()
        for _ in range(reps):
            fn()
        watch.stop()

    return Setting(run)


def reps_for(one_call_s: Sequence[float], min_sample_s: float, max_reps: int, min_reps: int = 1) -> int:
    """Calls per sample so a sample lasts about min_sample_s, from the fastest one-call sample."""
    reps = 1
    if min_sample_s > 0 and max_reps > 1 and one_call_s:
        reps = max(1, min(max_reps, math.ceil(min_sample_s / max(min(one_call_s), 1e-9))))
    return max(reps, min_reps)


def _sample(setting: Setting, reps: int, index: int) -> Sample:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started, wall0, cpu0 = time.time(), time.perf_counter(), time.process_time()
    watch = Stopwatch()
    setting.run(watch, reps)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return Sample(index, reps, watch.seconds / reps, started, wall, cpu, load)


def _calibrate(setting: Setting, warmup: int, min_sample_s: float, max_reps: int, min_reps: int) -> int:
    times = [_sample(setting, 1, -1).seconds for _ in range(warmup)]
    if not setting.repeatable:
        return 1
    if min_sample_s > 0 and max_reps > 1:  # two long samples say the call needs no repeating
        while len(times) < CALIBRATION_SAMPLES and sum(t >= min_sample_s for t in times) < 2:
            times.append(_sample(setting, 1, -1).seconds)
    return reps_for(times, min_sample_s, max_reps, min_reps)


def time_interleaved(
    settings: Mapping[str, Setting],
    stop: Stop,
    warmup: int = 1,
    min_sample_s: float = 0.0,
    max_reps: int = 1,
    min_reps: int = 1,
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, Timed]:
    """Warm and calibrate every setting, then time rounds of the settings still going until each stops."""
    reps = {name: _calibrate(s, warmup, min_sample_s, max_reps, min_reps) for name, s in settings.items()}
    samples: dict[str, list[Sample]] = {name: [] for name in settings}
    ended: dict[str, str] = {}
    began, index = time.perf_counter(), 0
    while active := [name for name in settings if name not in ended]:
        progress(f"round {index + 1} ({len(active)} of {len(settings)} settings going)")
        for name in active:
            samples[name].append(_sample(settings[name], reps[name], index))
        elapsed = time.perf_counter() - began
        for name in active:
            why = stop_reason(settings[name].stop or stop, [s.seconds for s in samples[name]], elapsed)
            if why:
                ended[name] = why
        index += 1
    return {
        name: Timed(spread([s.seconds for s in found]), reps[name], tuple(found), ended[name])
        for name, found in samples.items()
    }


# -- rows: one results row and one samples row per round for a setting ---------------------------------

PerRound = Mapping[int, float]  # round index -> a value of that round


def samples_file(table: str) -> str:
    """Where a table's rounds go: results.csv -> samples.csv, NAME.csv -> NAME.samples.csv."""
    return "samples.csv" if table == "results.csv" else table.removesuffix(".csv") + ".samples.csv"


def each(timed: Timed, value: Callable[[float], float]) -> dict[int, float]:
    """value(seconds per call) of every round of a setting."""
    return {s.round: value(s.seconds) for s in timed.samples}


def paired(first: Timed, second: Timed, value: Callable[[float, float], float]) -> dict[int, float]:
    """value(first's seconds, second's seconds) in every round both settings ran (a ratio by round)."""
    theirs = {s.round: s.seconds for s in second.samples}
    return {s.round: value(s.seconds, theirs[s.round]) for s in first.samples if s.round in theirs}


def summarise(
    keys: Mapping[str, object],
    timed: Timed,
    values: Mapping[str, PerRound],
    spread_of: Sequence[str] = (),
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """(results row, samples rows) for one setting.

    The results row: keys, rounds, stop, then each value as the statistics.median of its rounds (and
    NAME_min / NAME_max over its rounds for the names in spread_of). The samples rows: one per round
    of the setting: keys, round, reps, each value of that round (blank where the value has no such
    round: a ratio whose other setting had stopped), then the sample's context columns.
    """
    row: dict[str, object] = {**keys, "rounds": len(timed.samples), "stop": timed.stop}
    for name, per_round in values.items():
        if not per_round:
            raise ValueError(f"{name}: no round to summarise")
        row[name] = statistics.median(per_round.values())
        if name in spread_of:
            row[f"{name}_min"], row[f"{name}_max"] = min(per_round.values()), max(per_round.values())
    rounds = []
    for s in timed.samples:
        cells = {name: per_round.get(s.round, "") for name, per_round in values.items()}
        context = {"started": s.started, "wall_s": s.wall_s, "cpu_s": s.cpu_s, "load_1m": s.load_1m}
        rounds.append({**keys, "round": s.round, "reps": s.reps, **cells, **context})
    return row, rounds
