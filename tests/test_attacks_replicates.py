"""Replicates are independent runs (issue 46, class 3): a run whose timed data (its raw rounds, or a table with a
timed column) is byte-identical to an earlier run's is a copy, refused wherever it is (a set that holds it, or
alone), and `ledger diff` flags it; exact tables may repeat; a manifest whose probe.sha256 names another probe
version than the code it lists is refused. Copies are made as an author would: a run folder copied under a new
start time, its manifest's times edited to match."""

from __future__ import annotations

import json
import random
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from helpers import RUN_TIME, SPEEDUP_KINDS, a_run, git, run_ledger, write_tree
from helpers_rounds import claim, noisy, rounds_run


def copy_run(root: Path, run: str, when: datetime) -> str:
    """The run's folder copied as a new run started at `when` (folder name and manifest times to match)."""
    manifest = json.loads((root / run / "manifest.json").read_text())
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest["started"] = manifest["finished"] = stamp
    target = (root / run).parent / f"{stamp.replace(':', '-')}-{manifest['testbed']}"
    shutil.copytree(root / run, target)
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target.relative_to(root).as_posix()


def genuine(root: Path, count: int, seed: int, rounds: bool = True) -> list[str]:
    """`count` replicate runs an hour apart, each with its own rounds (or, without raw rounds, its own min–max)."""
    runs = []
    for i in range(count):
        values = noisy(3.6, cv=0.02, seed=seed * 10 + i)
        when = RUN_TIME + timedelta(hours=i)
        if rounds:
            runs.append(rounds_run(root, {16: values, 1: noisy(1.0, cv=0.02, seed=seed * 10 + i + 5)}, when=when))
        else:
            row = {"batch": 16, "rounds": 9, "speedup": sorted(values)[4]}
            row |= {"speedup_min": min(values), "speedup_max": max(values)}
            runs.append(a_run(root, [row], when=when))
    return runs


def cited(run: str, replicates: int) -> str:
    text = "claims:" + claim("s16", run, "3.6", extra="\n    tolerance: 10%").replace("    tolerance: 5%", "")
    return text.replace("column: speedup}", f"column: speedup, replicates: {replicates}}}")


@pytest.mark.parametrize("seed", range(6))
def test_a_copy_of_a_run_in_a_replicate_set_is_refused_naming_both(tmp_path, seed):
    rng = random.Random(seed)
    rounds = seed % 2 == 0  # raw rounds, or a table whose timed column has a min–max
    runs = genuine(tmp_path, rng.randint(2, 4), seed, rounds)
    original = rng.choice(runs)
    copies = [copy_run(tmp_path, original, RUN_TIME + timedelta(hours=10 + i)) for i in range(rng.randint(1, 2))]
    members = [*runs, *copies]
    write_tree(tmp_path, {"claims/toy.yaml": cited(members[-1], len(members))})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and not result.errors, result.output
    timed = "samples.csv" if rounds else "results.csv"
    for copy in copies:
        assert (
            f"claims/toy.yaml:7: s16: invalid: run {copy}: {timed} byte-identical to the timed data of {original}: "
            "a copy of a run is not a new measurement, and never a replicate"
        ) in result.output, result.output
    verdict = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)["verdicts"]["s16"]
    assert verdict["fresh"] == "stale" and not set(copies) & set(verdict["replicates"]), verdict


def test_a_copy_no_claim_cites_is_refused_at_its_manifest(tmp_path):
    runs = genuine(tmp_path, 2, seed=7)
    copy = copy_run(tmp_path, runs[0], RUN_TIME + timedelta(hours=5))
    write_tree(tmp_path, {"claims/toy.yaml": "claims:" + claim("s16", runs[1], "3.6", extra="\n    tolerance: 10%")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert (
        f"{copy}/manifest.json: invalid: run {copy}: samples.csv byte-identical to the timed data of" in result.output
    )


def test_exact_tables_may_repeat(tmp_path):
    """A count or a closed form is the same in every run: two runs whose only table is exact are both intact."""
    rows = [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.6}]
    runs = [a_run(tmp_path, rows, when=RUN_TIME + timedelta(hours=hour), columns=SPEEDUP_KINDS) for hour in range(2)]
    write_tree(tmp_path, {"claims/toy.yaml": "claims:" + claim("s16", runs[1], "3.6")})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0 and " 0 failures" in result.output, result.output


def test_a_member_whose_manifest_names_another_probe_version_is_refused(tmp_path):
    runs = genuine(tmp_path, 3, seed=3)
    manifest_path = tmp_path / runs[1] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["probe"]["sha256"] = "ab" * 32  # another probe version than the code it lists
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    write_tree(tmp_path, {"claims/toy.yaml": cited(runs[-1], 3)})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and not result.errors, result.output
    assert (
        f"{runs[1]}/manifest.json: invalid: run {runs[1]}: manifest.json probe.sha256 abababababababab… is not the hash "
        "of probe.code ("
    ) in result.output, result.output
    assert "claims/toy.yaml:7: s16: invalid: evidence.replicates is 3, but" in result.output  # it pools no more


def test_diff_flags_a_copied_run_the_head_adds(tmp_path):
    runs = genuine(tmp_path, 2, seed=5)
    write_tree(tmp_path, {"claims/toy.yaml": cited(runs[-1], 2)})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "two runs")
    copy = copy_run(tmp_path, runs[0], RUN_TIME + timedelta(hours=9))
    write_tree(tmp_path, {"claims/toy.yaml": cited(copy, 3)})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "a third replicate")
    diff = run_ledger("diff", "HEAD~1", "HEAD", cwd=tmp_path).output
    assert f"| run refused | `{copy}` | samples.csv byte-identical to the timed data of {runs[0]} |" in diff, diff
