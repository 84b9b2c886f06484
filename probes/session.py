"""A probe's session: command line and profile -> environment, reference checks, timing, a run on disk.

A probe calls start(), checks every kernel against a numpy reference with Session.check(), times its
settings with Session.time() and writes its tables with Session.write().
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Sequence

import mlx.core as mx
import numpy as np

from generator.runs import TESTBED_PATTERN, Column, imported_code, write_run
from probes import columns as columns_mod
from probes import environment as env_mod
from probes import reference, timing

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Profile:
    """How hard a probe works: when rounds stop, warm-up calls, batch sizes, shortest timed sample."""

    name: str
    stop: timing.Stop  # rounds until the median's interval is within the target, within caps
    warmup: int
    batches: tuple[int, ...]
    min_sample_s: float  # repeat a kernel inside one sample until a sample lasts about this long
    max_reps: int
    min_reps: int = 1  # calls per sample at least (a GPU's synchronisation amortised over them)
    base: str = ""  # the profile whose shapes a variant uses (gpu-replicate: gpu's); "" for the profile itself

    @property
    def shapes(self) -> str:
        """The profile name a probe's shape tables are keyed by (a variant's base)."""
        return self.base or self.name


PROFILES = {
    # quick: tiny shapes for tests, exactly 9 rounds (the target is checked, never waited for)
    "quick": Profile("quick", timing.Stop(0.05, min_rounds=9, max_rounds=9, max_seconds=30.0), warmup=1,
                     batches=(1, 2, 4), min_sample_s=0.0, max_reps=1),
    "default": Profile("default", timing.Stop(0.05, min_rounds=9, max_rounds=50, max_seconds=60.0), warmup=1,
                       batches=(1, 2, 4, 8, 12, 16), min_sample_s=0.01, max_reps=64),
    "gpu": Profile("gpu", timing.Stop(0.05, min_rounds=9, max_rounds=100, max_seconds=8.0), warmup=2,
                   batches=(1, 2, 4, 8, 16, 32, 64, 128, 256), min_sample_s=0.005, max_reps=64),
}


def parse_args(probe: str, argv: Sequence[str] | None, variants: Mapping[str, str] | None = None) -> argparse.Namespace:
    """The command line every probe shares: --profile (the shared ones and the probe's own variants), --testbed,
    --out."""
    parser = argparse.ArgumentParser(prog=f"python -m probes.{probe}", description=f"run the {probe} probe")
    parser.add_argument("--profile", choices=sorted({*PROFILES, *(variants or {})}), default="default")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    parser.add_argument("--budget-s", type=float, dest="budget_s",
                        help="the whole-model probes' time bound in seconds (default: the profile's budget_s); "
                             "recorded in the run's parameters as budget_s")
    return parser.parse_args(argv)


@dataclass
class Session:
    """One probe run: its profile, testbed, start time and environment, and where it writes."""

    probe: str
    profile: Profile
    testbed: str
    out: Path | None
    started: datetime
    environment: dict[str, object]
    dtype: mx.Dtype
    checks: list[dict[str, object]] = field(default_factory=list)
    stops: dict[str, object] = field(default_factory=dict)  # label -> the stopping rule a timing used
    budget_s: float | None = None  # --budget-s: a bound for this machine in place of the profile's (None: keep it)
    _clock0: float = field(default_factory=time.monotonic)

    def config(self, table: Mapping[str, object]) -> dict[str, object]:
        """A whole-model probe's settings for this run: the profile's, with --budget-s in place of its budget_s.
        A bound is a parameter, not code: on a fresh H200 first calls took 140 s for whole_graph's 29 settings
        (11 s in the first session's runs), so the bound
        that fits depends on the machine, and changing it must not change the code the runs hash."""
        return {**table, "budget_s": self.budget_s} if self.budget_s is not None else dict(table)

    def progress(self, message: str) -> None:
        """One line on stderr: probe, seconds since start, message."""
        print(f"[{self.probe} {time.monotonic() - self._clock0:7.1f}s] {message}", file=sys.stderr, flush=True)

    def elapsed(self) -> float:
        """Seconds since the session started."""
        return time.monotonic() - self._clock0

    def check(self, name: str, got: np.ndarray | mx.array, want: np.ndarray, **where: object) -> None:
        """Compare a kernel's output with its reference; raise ReferenceMismatch beyond tolerance."""
        got_np = reference.to_numpy(got) if isinstance(got, mx.array) else np.asarray(got)
        error = reference.relative_error(got_np, want)
        tolerance = reference.TOLERANCE[env_mod.dtype_name(self.dtype)]
        if not error <= tolerance:
            raise reference.ReferenceMismatch(
                f"{name} {where}: max relative error {error:.3g} against the numpy reference "
                f"(allowed {tolerance:g} for {env_mod.dtype_name(self.dtype)})"
            )
        self.checks.append({"kernel": name, **where, "max_rel_error": error, "tolerance": tolerance})

    def time(self, settings: Mapping[str, timing.Setting], label: str = "", *, stop: timing.Stop | None = None,
             min_sample_s: float | None = None, max_reps: int | None = None,
             min_reps: int | None = None) -> dict[str, timing.Timed]:
        """Time settings interleaved until `stop` (default the profile's; a setting's own Stop wins).

        The rule used is recorded in the run's parameters under stop[label].
        """
        p = self.profile
        rule = stop or p.stop
        self.stops[label or "timing"] = rule.record()
        self.progress(f"{label}: warming up {len(settings)} settings".lstrip(": "))
        return timing.time_interleaved(
            settings, rule, p.warmup,
            p.min_sample_s if min_sample_s is None else min_sample_s,
            p.max_reps if max_reps is None else max_reps,
            p.min_reps if min_reps is None else min_reps,
            progress=lambda message: self.progress(f"{label}: {message}".lstrip(": ")),
        )

    def common_parameters(self) -> dict[str, object]:
        p = self.profile
        return {
            "profile": p.name,
            "stop": self.stops,
            "warmup_calls": p.warmup,
            "min_sample_s": p.min_sample_s,
            "max_reps": p.max_reps,
            "min_reps": p.min_reps,
            **({"profile_base": p.base} if p.base else {}),
            "dtype": env_mod.dtype_name(self.dtype),
            "timing": "generator.timing: settings interleaved within each round after warm-up; reps per sample "
                      "from the fastest of up to 3 one-call samples; mx.eval then mx.synchronize before the clock "
                      "stops; each setting gets rounds until the 99% order-statistic interval of its median is "
                      "within the target (relative half-width), at least min_rounds, at most max_rounds or "
                      "max_seconds of wall time since the first round (stop, per table row); ms_* are per call "
                      "(or per token where named)",
            "samples": "every round of every timed row is in samples.csv (NAME.samples.csv for NAME.csv): the "
                       "row's key columns, round (global, so settings pair by round), reps, each summarised "
                       "column's value in that round (ratios formed within the round), and started (unix s), "
                       "wall_s, cpu_s (process user+sys) and load_1m of the sample; each summarised value in the "
                       "table is the median of its column there; X_min and X_max are its lowest and highest round",
        }

    def write(self, tables: Mapping[str, Sequence[Mapping[str, object]]], parameters: Mapping[str, object],
              columns: Mapping[str, Mapping[str, columns_mod.Declaration]] | None = None) -> Path:
        """Write the run (tables + checks.csv + manifest) atomically and print its folder.

        Every numeric column's unit and kind comes from probes/columns.py, `columns` (table -> column ->
        (unit, kind)) where a table needs its own, and goes into the manifest's declarations; a column nothing
        declares is named in the parameters (undeclared_columns) rather than cost the run (the probe tests
        hold that list empty).
        """
        all_tables = dict(tables)
        if self.checks:
            all_tables["checks.csv"] = self.checks
        declared, undeclared = columns_mod.declare(all_tables, columns)
        path = write_run(
            ROOT, self.probe, self.testbed, all_tables,
            parameters={**self.common_parameters(), **parameters, "undeclared_columns": undeclared},
            environment={**self.environment, "load_average_at_end": env_mod.load_average(),
                         "process_cpu_s_at_end": round(time.process_time(), 3),
                         "session_wall_s_at_end": round(self.elapsed(), 3)},
            code=imported_code(ROOT),
            started=self.started,
            finished=datetime.now(timezone.utc),
            measurements=self.out,
            columns={name: {column: Column(*found) for column, found in table.items()}
                     for name, table in declared.items()},
        )
        self.progress(f"wrote {path}")
        print(path)
        return path


def start(probe: str, argv: Sequence[str] | None = None, variants: Mapping[str, str] | None = None) -> Session:
    """Parse the shared command line, capture the environment and start the probe's clock.

    variants: the probe's own profiles, each named to the shared profile it runs on (whole_graph's
    gpu-replicate: gpu's rounds and shapes, fewer parts); its name is the run's `profile`.
    """
    args = parse_args(probe, argv, variants)
    env = env_mod.environment()
    info = env["device_info"]
    device_name = str(info.get("device_name") or info.get("name") or "")
    # --testbed, else the one `ledger measure --testbed` names (LEDGER_TESTBED), else the machine's own name
    testbed = (args.testbed or os.environ.get("LEDGER_TESTBED", "")
               or env_mod.testbed_name(platform.system(), env["backend"], device_name, env["cpu_model"]))
    if not TESTBED_PATTERN.match(testbed):  # fail now, not after the measuring
        sys.exit(f"{probe}: testbed {testbed!r}: use lower-case letters, digits and '-' (--testbed)")
    out = args.out.resolve() if args.out else None
    base = (variants or {}).get(args.profile, args.profile)
    profile = PROFILES[base] if base == args.profile else dataclasses.replace(PROFILES[base], name=args.profile, base=base)
    if args.budget_s is not None and not args.budget_s > 0:
        sys.exit(f"{probe}: --budget-s {args.budget_s}: give a positive number of seconds")
    session = Session(probe, profile, testbed, out, datetime.now(timezone.utc), env, env_mod.compute_dtype(),
                      budget_s=args.budget_s)
    session.progress(f"profile {args.profile}, testbed {testbed}, backend {env['backend']}, "
                     f"dtype {env_mod.dtype_name(session.dtype)}")
    return session


def run_main(main: Callable[[Sequence[str] | None], object]) -> None:
    """Run a probe's main(); a reference mismatch ends it with exit 1 and nothing written."""
    try:
        main(None)
    except reference.ReferenceMismatch as error:
        print(f"reference check failed, nothing recorded: {error}", file=sys.stderr)
        sys.exit(1)
