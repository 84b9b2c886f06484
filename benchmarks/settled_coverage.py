"""Coverage of sets made by `ledger measure --until-settled`, measured on a planted distribution.

Replicate runs are drawn from a known lognormal (run-to-run coefficient of variation CV, each run's value
the median of 9 rounds with 1% round-to-round noise and its own order-statistic interval, as the gate reads
a run), and a claim with a 5% tolerance is measured until settled by the verb's own rule
(generator/lang/sequential.py: looks at 3 runs and more, the 99% level divided among the looks a budget of
new runs allows). For each set made that way it counts:

- **truth**: how often the interval at which the set stopped holds the planted value (the level the rule
  states, 99%);
- **re-run**: the coverage verb's own figure on the set (generator/judging/reruns.py `held_alone`: leaving
  each run out, whether the prediction interval from the others holds it; stated at 99%, target 94%);

and the same for a naive rule that looks at a 99% interval after every run (the peeking the split
prevents), with the share of sets settled and the runs they took. Seeded and deterministic:

    .venv/bin/python benchmarks/settled_coverage.py [--trials 2000] [--max-replicates 10]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.judging.reruns import held_alone  # noqa: E402  (the coverage verb's leave-one-out count, one setting)
from generator.lang import sequential, stats  # noqa: E402
from generator.lang.between import LEVEL, RunValue  # noqa: E402
from generator.lang.values import Tolerance, within  # noqa: E402

ROUNDS, ROUND_CV, TOLERANCE = 9, 0.01, Tolerance("5%", relative=0.05)
CASES = ((0.01, 1.0), (0.01, 1.045), (0.05, 1.0), (0.05, 1.045))  # (run-to-run CV, stated / planted value)


@dataclass(frozen=True, slots=True)
class Counted:
    sets: int
    settled: int
    runs: float  # median runs in a set when it stopped
    truth: float  # share of stopping intervals holding the planted value
    rerun: float  # the coverage benchmark's leave-one-out prediction coverage over the sets


def draw(rng: random.Random, cv: float) -> RunValue:
    """One run: its value the median of its rounds around a run effect, with the gate's interval of them."""
    sigma = math.sqrt(math.log1p(cv * cv))
    effect = rng.gauss(0.0, sigma)
    rounds = stats.lognormal_rounds(rng, ROUNDS, ROUND_CV, math.exp(effect))
    interval = stats.median_interval(rounds)
    return RunValue(statistics.median(rounds), interval.low, interval.high, interval.level)


def naive(first: list[RunValue], more: Callable[[], RunValue], most_new: int, question) -> sequential.Look:
    """Peeking: a 99% interval after every run, stopping at the first that decides."""
    values = list(first)
    found = sequential.look(values, LEVEL, [question])
    for _ in range(most_new):
        if found.settled:
            break
        values.append(more())
        found = sequential.look(values, LEVEL, [question])
    return found


def count(rule, cv: float, stated: float, trials: int, most_new: int, seed: int) -> Counted:
    rng = random.Random(seed)
    question = sequential.Question("tolerance", lambda value: within(stated, value, TOLERANCE), stated)
    settled, runs, truth, hits, left_out = 0, [], 0, 0, 0
    for _ in range(trials):
        made: list[RunValue] = []

        def more(made: list[RunValue] = made) -> RunValue:
            made.append(draw(rng, cv))
            return made[-1]

        found = rule([], more, most_new, question)
        settled += found.settled
        runs.append(found.runs)
        pooled = found.pooled
        truth += pooled is not None and pooled.low <= 1.0 <= pooled.high
        loo = held_alone(made[: found.runs])
        if loo is not None:
            hits, left_out = hits + loo.between_hits, left_out + loo.left_out
    return Counted(trials, settled, statistics.median(runs), truth / trials, hits / left_out if left_out else math.nan)


def split(first, more, most_new, question) -> sequential.Look:
    return sequential.settle(first, more, most_new, [question])


RULES = (("split", split), ("naive", naive))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--max-replicates", type=int, default=10)
    parser.add_argument("--seed", type=int, default=49)
    args = parser.parse_args(argv)
    print(f"{args.trials} sets a case, at most {args.max_replicates} runs, 5% tolerance, stated at {LEVEL:.0%}")
    table = []
    for cv, stated in CASES:
        found = {name: count(rule, cv, stated, args.trials, args.max_replicates, args.seed) for name, rule in RULES}
        for name, counted in found.items():
            print(
                f"CV {cv:.0%}, stated {stated:g}x the planted value, {name}: settled "
                f"{counted.settled / counted.sets:.1%} (median {counted.runs:g} runs); stopping interval holds the "
                f"planted value {counted.truth:.2%}; coverage benchmark's re-run coverage {counted.rerun:.2%}"
            )
        split_, naive_ = found["split"], found["naive"]
        table.append(
            f"| {cv:.0%}, {stated:g}× | {split_.settled / split_.sets:.1%} | {split_.runs:g} | {split_.truth:.2%}, "
            f"{naive_.truth:.2%} | {split_.rerun:.2%} |"
        )
    print("\n".join(table))  # guide/checks.md's table rows
    return 0


if __name__ == "__main__":
    sys.exit(main())
