"""Benchmark: what `ledger check` and `ledger diff` cost on large inputs, as ratios measured in one run (issue 47).

Two comparisons, each against its own baseline in the same run (alternating, so load on the machine hits
both sides alike):

- a run no claim reads: `ledger check --no-cache` on a synthetic ledger with, and without, one uncited run of
  `--rows` rows (10^6 by default) in a probe no claim cites; its peak memory with the run over its peak
  without it (target <= 1.3x);
- a review of a change to every claim: `ledger diff HEAD --max-bytes 60000 --full FILE` on a synthetic ledger of
  N measured + N extrapolated + N borrowed claims (N = 33,334 by default: 100,002 claims) whose working tree
  changes every claim (a word in each statement, each borrowed source's title, each formula's order), against
  `ledger check --no-cache` on the same ledger: wall time, CPU time and peak memory over check's (targets
  <= 2x), and the bytes it printed against --max-bytes (target: at most).

Each command runs in a new process that reports its own peak memory and CPU time (peak.py); the ledgers are
benchmarks/check_time.py's (`synthetic_ledger`), in a temporary git repository.

Not a test: `.venv/bin/python benchmarks/bounded.py [N] [--rows R] [--repeat 3]`.
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_time import ENV, LEDGER, git_repository, synthetic_ledger  # noqa: E402
from peak import timed  # noqa: E402

from generator.runs import Column, write_run  # noqa: E402

MAX_BYTES = 60_000  # what the review workflows pass (a pull-request comment holds 65,536 characters)
WHEN = datetime(2026, 11, 29, tzinfo=timezone.utc)


def ledger(root: Path, *args: str) -> tuple[float, float, float, str]:
    """(wall seconds, peak MiB, CPU seconds, what it printed) of one `ledger` command in a new process."""
    out = root.parent / f"{root.name}-stdout"
    # A shell between, which forks the command: Linux carries a parent's ru_maxrss into a child it execs (this
    # process is large), not into a child forked from a small one.
    command = ["sh", "-c", '"$@" > "$0"; exit $?', str(out), sys.executable, "-c", LEDGER, *args]
    wall, peak, cpu = timed(command, root, ENV, f"ledger {args[0]}")
    return wall, peak, cpu, out.read_text()


def archive(root: Path, rows: int) -> None:
    """One run of `rows` rows of a probe no claim cites (an archive), written by the run writer."""
    (root / "probes/archive.py").write_text("print('archive')\n")
    table = ({"batch": i, "rounds": 3, "seconds": 0.001 * (i % 997 + 1)} for i in range(rows))
    write_run(
        root,
        "archive",
        "bench-archive",
        {"results.csv": list(table)},
        parameters={},
        environment={},
        code=["probes/archive.py"],
        columns={"results.csv": {"batch": Column("", "exact"), "seconds": Column("s", "timed")}},
        started=WHEN,
        finished=WHEN,
    )


def changed_everywhere(root: Path) -> int:
    """Every claim of the synthetic ledger changed in the working tree; how many."""
    path = root / "claims/synthetic.yaml"
    text = path.read_text()
    changed = (
        text.replace("    statement: measured claim", "    statement: a measured claim")
        .replace("formula: 2 * a", "formula: a * 2")
        .replace("{title: a write-up,", "{title: a write-up (again),")
    )
    path.write_text(changed)
    return changed.count("  - id: ")


def run_no_claim_reads(n: int, rows: int, repeats: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        without, with_archive = Path(folder) / "without", Path(folder) / "with"
        for root in (without, with_archive):
            synthetic_ledger(root, n)
        archive(with_archive, rows)
        peaks: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(repeats):
            for name, root in (("without", without), ("with", with_archive)):
                wall, peak, cpu, printed = ledger(root, "check", "--no-cache")
                assert " 0 failures" in printed, printed[-500:]
                peaks[name].append(peak)
    base, large = statistics.median(peaks["without"]), statistics.median(peaks["with"])
    return (
        f"ledger check --no-cache, {3 * n:,} claims, without and with an uncited run of {rows:,} rows: "
        f"peak {base:.0f} MiB -> {large:.0f} MiB, {large / base:.2f}x (target <= 1.3x; median of {repeats})"
    )


def diff_of_every_claim(n: int, repeats: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ledger"
        synthetic_ledger(root, n)
        git_repository(root)
        claims = changed_everywhere(root)
        whole = Path(folder) / "whole-diff.md"
        found: dict[str, list[tuple[float, float, float]]] = {"check": [], "diff": []}
        printed = ""
        for _ in range(repeats):
            *check, said = ledger(root, "check", "--no-cache")
            assert " 0 failures" in said, said[-500:]
            found["check"].append(tuple(check))
            *diff, printed = ledger(root, "diff", "HEAD", "--max-bytes", str(MAX_BYTES), "--full", str(whole))
            found["diff"].append(tuple(diff))
        size, whole_size = len(printed.encode()), whole.stat().st_size
        counts = next(line for line in printed.splitlines() if line.startswith("**"))
    lines = [f"ledger diff HEAD over {claims:,} changed claims ({counts}), against ledger check --no-cache:"]
    for index, what, target in ((0, "wall", "<= 2x"), (2, "CPU", "<= 2x"), (1, "peak memory", "<= 2x")):
        check = statistics.median(t[index] for t in found["check"])
        diff = statistics.median(t[index] for t in found["diff"])
        unit = "MiB" if index == 1 else "s"
        lines.append(f"  {what:<12} {check:8.1f} {unit} -> {diff:8.1f} {unit}: {diff / check:.2f}x (target {target})")
    lines.append(
        f"  printed      {size:,} bytes with --max-bytes {MAX_BYTES:,} (target: at most); the whole diff "
        f"(--full): {whole_size:,} bytes; median of {repeats}"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=33_334, help="claims of each kind (33334: 100,002 claims)")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the uncited run")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compileall.compile_dir(REPO / "generator", quiet=1)  # as an installed package: no compiling in the timings
    subprocess.run(["git", "--version"], check=True, capture_output=True)
    print(run_no_claim_reads(max(1, args.n // 10), args.rows, args.repeat))
    print("\n".join(diff_of_every_claim(args.n, args.repeat)))


if __name__ == "__main__":
    main()
