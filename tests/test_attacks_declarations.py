"""Declarations that contradict the data (issue 46, class 4): a column with rounds or a spread is not `exact`,
whatever its run declares (with a consistent `columns_sha256`), so an `asserts:` cannot hold on a spread its own
rounds contradict; a run declares its columns as the earlier runs of the same probe code do (unit and kind); a
unit that differs from the run before, as a new probe version may declare it, is flagged by `ledger diff`. The
runs are written by the real run writer, declarations and all, as a probe that lied about them would."""

from __future__ import annotations

import random
import statistics
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import RUN_TIME, TOY_PROBE, git, run_ledger, write_tree
from helpers_rounds import claim, noisy

from generator.runs import Column, write_run


def declared_run(root: Path, rounds: list[float], *, kind: str, unit: str = "×", hour: int = 0, spread: bool = True,
                 samples: bool = True) -> str:  # fmt: skip
    """A real run of the toy probe at batch 16: its median, with its min–max (spread) and its raw rounds
    (samples) as a probe keeps them, declaring the speedup column `kind` in `unit`."""
    if not (root / "probes/toy.py").exists():
        write_tree(root, {"probes/toy.py": TOY_PROBE})
    row = {"batch": 16, "rounds": len(rounds), "speedup": statistics.median(rounds)}
    if spread:
        row |= {"speedup_min": min(rounds), "speedup_max": max(rounds)}
    tables = {"results.csv": [row]}
    if samples:
        tables["samples.csv"] = [{"batch": 16, "round": r, "reps": 1, "speedup": v} for r, v in enumerate(rounds)]
    when = RUN_TIME + timedelta(hours=hour)
    path = write_run(
        root, "toy", "linux-cpu", tables, parameters={"rounds": len(rounds)}, environment={"backend": "cpu"},
        code=["probes/toy.py"], started=when, finished=when,
        columns={"results.csv": {"speedup": Column(unit, kind)}},  # type: ignore[arg-type]
    )  # fmt: skip
    return path.relative_to(root).as_posix()


def asserting(run: str, value: float, asserts: str) -> str:
    return "claims:" + claim("s16", run, f"{value:.4g}", extra=f'\n    asserts: "{asserts}"')


@pytest.mark.parametrize("seed", range(6))
def test_a_timed_column_declared_exact_is_refused_where_its_rounds_or_spread_contradict_it(tmp_path, seed):
    rng = random.Random(seed)
    rounds = noisy(rng.uniform(1.5, 5.0), n=9, cv=0.15, seed=seed)  # a wide spread: `> low` holds on none of it
    median = statistics.median(rounds)
    spread, samples = [(True, True), (True, False), (False, True)][seed % 3]
    run = declared_run(tmp_path, rounds, kind="exact", spread=spread, samples=samples)
    write_tree(tmp_path, {"claims/toy.yaml": asserting(run, median, f"> {median * 0.95:.4g}")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and not result.errors, result.output
    said = (
        f"its row's min–max is {min(rounds):g}–{max(rounds):g}"
        if spread
        else f"its samples.csv holds rounds of it from {min(rounds):g} to {max(rounds):g}"
    )
    assert (
        f"claims/toy.yaml:7: s16: invalid: {run} declares results.csv column speedup exact, but {said}: a column "
        "with rounds or a spread is not exact"
    ) in result.output, result.output


def test_a_column_declared_exact_whose_rounds_all_agree_is_exact(tmp_path):
    run = declared_run(tmp_path, [4.0] * 9, kind="exact")  # a count: the same in every round
    write_tree(tmp_path, {"claims/toy.yaml": asserting(run, 4.0, "> 3.9")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (("timed", "×"), ("exact", "×")),  # its rounds left out: only the earlier runs say it was timed
        (("timed", "ms"), ("timed", "s")),
        (("exact", "×"), ("timed", "×")),
    ],
)
def test_a_run_that_declares_a_column_otherwise_than_earlier_runs_of_its_code_is_refused(tmp_path, before, after):
    rounds = noisy(3.6, cv=0.02, seed=1)
    earlier = declared_run(tmp_path, rounds, kind=before[0], unit=before[1])
    later = declared_run(
        tmp_path, noisy(3.6, cv=0.02, seed=2), kind=after[0], unit=after[1], hour=1, spread=False, samples=False
    )
    write_tree(tmp_path, {"claims/toy.yaml": "claims:" + claim("s16", earlier, "3.6").replace('"×"', f'"{before[1]}"')})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and not result.errors, result.output
    assert (
        f"{later}/manifest.json: invalid: run {later}: declares results.csv column speedup {after[0]} in "
        f"{after[1]!r}, but {earlier}, of the same probe code, declares it {before[0]} in {before[1]!r}: the same "
        "probe code declares its columns alike"
    ) in result.output, result.output


def test_a_new_probe_version_may_declare_another_unit_and_diff_flags_it(tmp_path):
    earlier = declared_run(tmp_path, noisy(3.6, cv=0.02, seed=1), kind="timed", unit="ms")
    write_tree(tmp_path, {"claims/toy.yaml": "claims:" + claim("s16", earlier, "3.6").replace('"×"', '"ms"')})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "a run in ms")
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE + "# now in seconds\n"})
    later = declared_run(tmp_path, noisy(0.0036, cv=0.02, seed=2), kind="timed", unit="s", hour=1)
    write_tree(tmp_path, {"claims/toy.yaml": "claims:" + claim("s16", later, "0.0036").replace('"×"', '"s"')})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "the probe in seconds")
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # its own probe version: nothing to contradict
    diff = run_ledger("diff", "HEAD~1", "HEAD", cwd=tmp_path).output
    assert (
        f"| column unit changed | `{later}` | results.csv column speedup in 's', where {earlier.rsplit('/', 1)[1]} "
        "declares 'ms' |"
    ) in diff, diff
