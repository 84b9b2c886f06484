"""A command timed in a new process, with the peak memory it reports (for the benchmarks, not a test).

The command prints `peak-rss-kib N` (and `cpu-s S`, its user + system time) on stderr at its end
(resource.getrusage in its own process); this returns (wall seconds, peak MiB) and stops the
benchmark, saying what failed, if it fails. timed() also returns the CPU seconds: on a shared machine
under load, CPU time moves far less than wall time. Those the command printed leave out its exit (a
large heap takes a while to free); with whole=True they are the process's own, start to exit, as the
wall time is (resource.RUSAGE_CHILDREN grows by exactly this child's once it is waited for), so that two
commands compared are timed alike.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path


def timed_with_peak(command: list[str], root: Path, env: dict, what: str) -> tuple[float, float]:
    """(seconds, peak MiB) of one run of command in root."""
    elapsed, peak, _ = timed(command, root, env, what)
    return elapsed, peak


def timed(command: list[str], root: Path, env: dict, what: str, whole: bool = False) -> tuple[float, float, float]:
    """(wall seconds, peak MiB, CPU seconds) of one run of command in root (NaN for what it does not print;
    whole: the CPU seconds of the whole process, its exit included)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{what} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    peak = re.search(r"peak-rss-kib (\d+)", done.stderr)
    cpu = re.search(r"cpu-s ([0-9.]+)", done.stderr)
    if whole:
        return elapsed, int(peak.group(1)) / 1024 if peak else float("nan"), _spent(used, after)
    return elapsed, int(peak.group(1)) / 1024 if peak else float("nan"), float(cpu.group(1)) if cpu else float("nan")


def _spent(before: resource.struct_rusage, after: resource.struct_rusage) -> float:
    """User + system seconds between two readings."""
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
