"""Benchmark: `ledger check` against the floor of just parsing the same files, in one run.

Generates a synthetic ledger (N measured + N extrapolated + N borrowed claims over N/10 runs; by
default N = 3334: 10,002 claims, 333 runs, each keeping 9 raw rounds of each setting in samples.csv
as every run written now does; `--rounds 0` for runs without them; `--history 20`: the runs come 20
per probe and testbed, so every measured claim has a series of 20 points) in a temporary git repository
(git init and a commit, so checks that read history are paid), then prints medians and ratios
against the parse floor
(PyYAML's C loader on the claim files plus json on the manifests, in this process):

- check() in this process;
- `ledger check --no-cache` in a new process;
- cold: `ledger check` in a new process with no cache yet (it writes one);
- warm: `ledger check` in a new process, nothing changed (as the pre-commit hook runs it);
- the peak memory of each `ledger check` (resource.getrusage in its own process).

Each is timed twice, by the wall clock and by CPU time (user + system: the floor's in this process,
each `ledger check`'s in its own); on a shared machine under load the CPU ratio is the steadier one.
Targets (issue 27): warm <= 0.1x, cold <= 1.0x the floor at 10,002 and 100,002 claims; peak <= 0.5 GB.

`check_time.py 33334 --repeat 1` is the lean-records check: 100,002 claims in one 15.7 MB claim file
(its mkdocs.yml raises max_claim_file_bytes above it), where `ledger check` must peak under 0.5 GB.

`--against REV` also times a cold `ledger check` of the package at git revision REV (generator/ as git
holds it there) alternating with this tree's, and prints this tree's CPU time as a ratio of REV's: a
change's gain measured in one run, both sides under the same load.

Not a test: run it with `make bench` or `.venv/bin/python benchmarks/check_time.py [N] [--repeat 5]`.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from peak import timed  # noqa: E402  (benchmarks/peak.py, beside this script)

from generator.gate import check  # noqa: E402
from generator.inputs import project  # noqa: E402
from generator.inputs.config import DEFAULTS  # noqa: E402
from generator.inputs.hashcache import CACHE_ROOT  # noqa: E402
from generator.runs import Column, write_run  # noqa: E402

WHEN = datetime(2026, 11, 29, tzinfo=timezone.utc)


def synthetic_ledger(root: Path, n: int, rounds: int = 9, history: int = 0) -> None:
    """N measured, N extrapolated and N borrowed claims over N/10 runs. With `history`, the runs come in
    lines of that many on one testbed, an hour apart (each claim's series has `history` points); every
    fourth line steps up after its 15th run, so claims citing its earlier runs are moved-since-cited."""
    (root / "probes").mkdir(parents=True)
    (root / "probes/synthetic.py").write_text("print('synthetic')\n")
    runs = []
    for r in range(max(1, n // 10)):
        line, place = (r // history, r % history) if history else (r, 0)
        step = 0.5 if history and line % 4 == 3 and place >= 15 else 0.0
        # run-to-run noise along a line, no two runs alike (the gate refuses a run whose timed data copies another's)
        jitter = 0.002 * (place % 3 - 1) + 1e-4 * place if history else 0.0
        level = {b: 1 + b * 0.1 + line + step + jitter for b in range(1, 17)}
        rows = [{"batch": b, "rounds": rounds, "speedup": level[b]} for b in range(1, 17)]
        # Rounds spread symmetrically around the value, so the value is their median.
        samples = [
            {"batch": b, "round": i, "reps": 1, "speedup": level[b] + 0.01 * (i - rounds // 2)}
            for b in range(1, 17)
            for i in range(rounds)
        ]
        when = WHEN + timedelta(hours=place)
        path = write_run(
            root,
            "synthetic",
            f"bench-{line}",
            {"results.csv": rows, **({"samples.csv": samples} if rounds else {})},
            parameters={},
            environment={},
            code=["probes/synthetic.py"],
            columns={"results.csv": {"speedup": Column("x", "timed")}},  # as a probe writing runs now declares
            started=when,
            finished=when,
        )
        runs.append((path.relative_to(root).as_posix(), level))
    lines = ["claims:"]
    for i in range(n):
        run, level = runs[i % len(runs)]
        batch = 1 + i % 16
        value = level[batch]
        lines += [
            f"  - id: m-{i}",
            "    kind: measured",
            f"    value: {value:.4f}",
            "    unit: x",
            f"    statement: measured claim {i}",
            f"    evidence: {{run: {run}, file: results.csv, where: {{batch: {batch}}}, column: speedup}}",
            f"  - id: e-{i}",
            "    kind: extrapolated",
            "    formula: 2 * a",
            f"    inputs: {{a: m-{i}}}",
            f"    value: {2 * float(f'{value:.4f}'):.4f}",
            f"  - id: b-{i}",
            "    kind: borrowed",
            f"    value: {2 * float(f'{value:.4f}'):.4f}",  # the same quantity as its check, e-{i}
            "    source: {title: a write-up, quote: 'the figure'}",
            f"    checked_by: [e-{i}]",
        ]
    (root / "claims").mkdir()
    (root / "claims/synthetic.yaml").write_text("\n".join(lines) + "\n")
    size = (root / "claims/synthetic.yaml").stat().st_size
    if size > DEFAULTS.max_claim_file_bytes:  # one big file on purpose: the gate's memory grows with it
        limit = f"      max_claim_file_bytes: {2 * size}\n"
        (root / "mkdocs.yml").write_text(f"site_name: synthetic\nplugins:\n  - ledger:\n{limit}")


def parse_only(root: Path) -> None:
    for path in sorted((root / "claims").glob("*.yaml")):
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    for manifest in (root / "measurements").rglob("manifest.json"):
        json.loads(manifest.read_text())


def median_seconds(action, repeats: int) -> float:
    return statistics.median(wall for wall, _ in timed_here(action, repeats))


def timed_here(action, repeats: int) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of each call of action in this process."""
    times = []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return times


# `ledger check` reporting its own peak memory (ru_maxrss: KiB on Linux).
LEDGER = """
import resource, sys
from generator.cli import main
code = main(sys.argv[1:])
used = resource.getrusage(resource.RUSAGE_SELF)
print("peak-rss-kib", used.ru_maxrss, "cpu-s", used.ru_utime + used.ru_stime, file=sys.stderr)
sys.exit(code)
"""
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def ledger_check(root: Path, *flags: str, package: Path = REPO) -> tuple[float, float, float]:
    """(wall seconds, peak MiB, CPU seconds) of `ledger check` in a new process (package: the folder
    holding the `generator` it runs)."""
    # Started from a small launcher: Linux carries a parent's ru_maxrss into its children, and this
    # process holds a parsed 10,002-claim ledger.
    launcher = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
    command = [sys.executable, "-c", launcher, sys.executable, "-c", LEDGER, "check", *flags]
    return timed(command, root, dict(ENV, PYTHONPATH=str(package)), "ledger check")


def unpacked(revision: str, folder: Path) -> Path:
    """The package (generator/) at a git revision of this repository, unpacked into folder and compiled."""
    archive = subprocess.run(
        ["git", "archive", revision, "generator"], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    compileall.compile_dir(folder / "generator", quiet=1)
    return folder


def against(root: Path, revision: str, repeats: int) -> str:
    """A cold `ledger check` of this tree against one of the package at `revision`, alternating, in one run:
    a change's gain, measured with both sides under the same load."""
    with tempfile.TemporaryDirectory() as folder:
        other = unpacked(revision, Path(folder))
        pairs = []
        for _ in range(repeats):
            cpu = {}
            for name, package in (("before", other), ("after", REPO)):
                shutil.rmtree(root / CACHE_ROOT, ignore_errors=True)
                cpu[name] = ledger_check(root, package=package)[2]
            pairs.append((cpu["before"], cpu["after"]))
    before = statistics.median(b for b, _ in pairs)
    after = statistics.median(a for _, a in pairs)
    ratios = sorted(a / b for b, a in pairs)
    return (
        f"cold ledger check, {revision} against this tree: {before * 1000:8.1f} ms CPU -> {after * 1000:8.1f} ms CPU "
        f"(median of {repeats}; this tree {after / before:5.3f}x of {revision}, each pair {ratios[0]:.3f}–{ratios[-1]:.3f}x)"
    )


def git_repository(root: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "a synthetic ledger")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=3334, help="claims of each kind (3334: 10,002 claims)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=9, help="raw rounds per setting in samples.csv (0: none)")
    parser.add_argument(
        "--history",
        type=int,
        default=0,
        metavar="RUNS",
        help="runs per probe and testbed (e.g. 20): claims have series",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also time a cold `ledger check` of the package at git revision REV, alternating with this tree's "
        "(--repeat pairs), and print this tree's CPU time as a ratio of REV's",
    )
    args = parser.parse_args()
    n = args.n
    # Every `ledger check` below reads the package's bytecode, as an installed package's does: without it
    # (PYTHONDONTWRITEBYTECODE set, a fresh checkout) each new process compiles the gate again, ~0.1 s.
    compileall.compile_dir(REPO / "generator", quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        synthetic_ledger(root, n, args.rounds, args.history)
        git_repository(root)
        policy = project.read(root).policy
        now = datetime.now(timezone.utc)  # as `ledger check` judges it: the runs lie in the past
        report = check(root, policy, now)
        assert report.ok, report.failures[:3]
        from_rounds = sum(v.interval is not None and v.interval.basis == "rounds" for v in report.verdicts.values())
        assert from_rounds == (n if args.rounds else 0), from_rounds  # every measured claim read its rounds
        lines = [v.series for v in report.verdicts.values() if v.series is not None]
        points = sorted(len(line.points) for line in lines)
        moved = sum(line.moved is not None for line in lines)
        size = (root / "claims/synthetic.yaml").stat().st_size
        gate = median_seconds(lambda: check(root, policy, now), args.repeat)
        floors: list[tuple[float, float]] = []
        runs: dict[str, list[tuple[float, float, float]]] = {"no-cache": [], "cold": [], "warm": []}
        for _ in range(args.repeat):  # alternating with the floor, so load on the machine hits each alike
            floors += timed_here(lambda: parse_only(root), 1)
            runs["no-cache"].append(ledger_check(root, "--no-cache"))
            shutil.rmtree(root / CACHE_ROOT, ignore_errors=True)
            runs["cold"].append(ledger_check(root))
            runs["warm"].append(ledger_check(root))
        floor = statistics.median(wall for wall, _ in floors)
        floor_cpu = statistics.median(cpu for _, cpu in floors)
        compared = against(root, args.against, args.repeat) if args.against else ""
    rounds = f"{args.rounds} raw rounds per setting" if args.rounds else "no raw rounds"
    print(f"{3 * n:,} claims ({size / 1e6:.2f} MB of YAML), {max(1, n // 10)} runs ({rounds}), in a git repository")
    print(
        f"series: {len(points):,}, median {statistics.median(points)} points (max {points[-1]}); "
        f"{moved:,} moved since cited (warnings)"
    )
    print(
        f"parse only (PyYAML C loader + manifests): {floor * 1000:8.1f} ms wall, {floor_cpu * 1000:8.1f} ms CPU "
        "(the floor)"
    )
    print(f"check() in this process:                  {gate * 1000:8.1f} ms wall, ratio {gate / floor:5.2f}x")
    for name, label, target in (
        ("no-cache", "ledger check --no-cache (new process)", ""),
        ("cold", "ledger check, cold (no cache yet)", "target <= 1.0x"),
        ("warm", "ledger check, warm (nothing changed)", "target <= 0.1x"),
    ):
        seconds = statistics.median(t for t, _, _ in runs[name])
        cpu = statistics.median(c for _, _, c in runs[name])
        ratios = sorted(c / f for (_, _, c), (_, f) in zip(runs[name], floors, strict=True))
        peak = max(m for _, m, _ in runs[name])
        print(
            f"{label + ':':<42}{seconds * 1000:8.1f} ms wall ({seconds / floor:5.2f}x), {cpu * 1000:8.1f} ms CPU "
            f"({cpu / floor_cpu:5.2f}x; each run against its floor {ratios[0]:.2f}–{ratios[-1]:.2f}x) {target:<15} "
            f"peak {peak:6.0f} MiB (target < 477: 0.5 GB)"
        )
    if compared:
        print(compared)


if __name__ == "__main__":
    main()
