"""A probe's session: command line and profile -> environment, reference checks, timing, a run on disk.

A probe calls start(), checks every kernel against a numpy reference with Session.check(), times its
settings with Session.time() and writes its tables with Session.write().
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Sequence

import mlx.core as mx
import numpy as np

from generator.runs import TESTBED_PATTERN, imported_code, write_run
from probes import environment as env_mod
from probes import reference, timing

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Profile:
    """How hard a probe works: rounds, warm-up calls, batch sizes, shortest timed sample."""

    name: str
    rounds: int
    warmup: int
    batches: tuple[int, ...]
    min_sample_s: float  # repeat a kernel inside one sample until a sample lasts about this long
    max_reps: int


PROFILES = {
    "quick": Profile("quick", rounds=2, warmup=1, batches=(1, 2, 4), min_sample_s=0.0, max_reps=1),
    "default": Profile(
        "default", rounds=7, warmup=1, batches=(1, 2, 4, 8, 12, 16), min_sample_s=0.01, max_reps=64
    ),
    "gpu": Profile(
        "gpu", rounds=7, warmup=2, batches=(1, 2, 4, 8, 16, 32, 64, 128, 256),
        min_sample_s=0.005, max_reps=64,
    ),
}


def parse_args(probe: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line every probe shares: --profile, --testbed, --out."""
    parser = argparse.ArgumentParser(prog=f"python -m probes.{probe}", description=f"run the {probe} probe")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="default")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    return parser.parse_args(argv)


def slug(text: str) -> str:
    """'Apple M1 Max' -> 'apple-m1-max': lower case, runs of other characters -> '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def testbed_name(system: str, backend: str, device_name: str) -> str:
    """Default testbed: linux-cpu / macos-cpu on the CPU backend, apple-<chip> on Metal, nvidia-<gpu> on CUDA."""
    if backend == "cpu":
        return {"darwin": "macos"}.get(system.lower(), slug(system) or "unknown") + "-cpu"
    name = slug(device_name) or "gpu"
    vendor = {"metal": "apple", "cuda": "nvidia"}.get(backend, slug(backend))
    return name if name.startswith(vendor + "-") or name == vendor else f"{vendor}-{name}"


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
    _clock0: float = field(default_factory=time.monotonic)

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

    def time(self, settings: Mapping[str, timing.Setting], label: str = "", *, rounds: int | None = None,
             min_sample_s: float | None = None, max_reps: int | None = None,
             min_reps: int = 1) -> dict[str, tuple[timing.Spread, int]]:
        """Time settings interleaved with this profile's rounds, warm-up and sample length (or the given ones)."""
        p = self.profile
        self.progress(f"{label}: warming up {len(settings)} settings".lstrip(": "))
        return timing.time_interleaved(
            settings, rounds or p.rounds, p.warmup,
            p.min_sample_s if min_sample_s is None else min_sample_s,
            p.max_reps if max_reps is None else max_reps,
            progress=lambda message: self.progress(f"{label}: {message}".lstrip(": ")),
            min_reps=min_reps,
        )

    def common_parameters(self) -> dict[str, object]:
        p = self.profile
        return {
            "profile": p.name,
            "rounds": p.rounds,
            "warmup_calls": p.warmup,
            "min_sample_s": p.min_sample_s,
            "max_reps": p.max_reps,
            "dtype": env_mod.dtype_name(self.dtype),
            "timing": "settings interleaved within each round after warm-up; mx.eval then "
                      "mx.synchronize before the clock stops; ms_* are per call (or per token where named)",
            "spread_columns": "for a column X that varies by round, X_min and X_max are its low and high "
                              "across rounds (a rate's X_min comes from the slowest round; ratios of two "
                              "settings are paired round by round, the range widened to include the ratio "
                              "of medians); `rounds` says how many",
        }

    def write(self, tables: Mapping[str, Sequence[Mapping[str, object]]], parameters: Mapping[str, object]) -> Path:
        """Write the run (tables + checks.csv + manifest) atomically and print its folder."""
        all_tables = dict(tables)
        if self.checks:
            all_tables["checks.csv"] = self.checks
        path = write_run(
            ROOT, self.probe, self.testbed, all_tables,
            parameters={**self.common_parameters(), **parameters},
            environment={**self.environment, "load_average_at_end": env_mod.load_average()},
            code=imported_code(ROOT),
            started=self.started,
            finished=datetime.now(timezone.utc),
            measurements=self.out,
        )
        self.progress(f"wrote {path}")
        print(path)
        return path


def start(probe: str, argv: Sequence[str] | None = None) -> Session:
    """Parse the shared command line, capture the environment and start the probe's clock."""
    args = parse_args(probe, argv)
    env = env_mod.environment()
    info = env["device_info"]
    device_name = str(info.get("device_name") or info.get("name") or "")
    testbed = args.testbed or testbed_name(platform.system(), env["backend"], device_name)
    if not TESTBED_PATTERN.match(testbed):  # fail now, not after the measuring
        sys.exit(f"{probe}: testbed {testbed!r}: use lower-case letters, digits and '-' (--testbed)")
    out = args.out.resolve() if args.out else None
    session = Session(probe, PROFILES[args.profile], testbed, out, datetime.now(timezone.utc), env,
                      env_mod.compute_dtype())
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
