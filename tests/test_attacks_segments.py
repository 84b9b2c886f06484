"""A change of environment explains a move; it never hides one (issue 46, class 6): runs whose value steps by
about 30% at the run where a field of the environment changes (python, the backend's versions, ...) are judged,
the newest run against the cited one, as the same step without a change of segment (libc) is; the finding says
both the move and the change. The fields, the direction and the runs on each side are generated."""

from __future__ import annotations

import json
import random

import pytest
from helpers import run_ledger
from helpers_series import ledger, name, runs_of

CHANGES = {  # an environment field of a segment (replicates.SEGMENT_ENVIRONMENT), before and after
    "python": ("3.11.7", "3.12.1"),
    "mlx_version": ("0.32.4", "0.33.0"),
    "os": ("Linux", "Darwin"),
    "python_implementation": ("CPython", "PyPy"),
}


def stepped(root, seed: int, field: str, first: bool = False):
    """Runs at 3.6× before the change and 3.6 × (1 ± 0.3) after it; the claim cites one run before it (the first)."""
    rng = random.Random(seed)
    before, after = CHANGES.get(field, ("2.36", "2.39"))  # libc: not a field of a segment
    factor = rng.choice((1.3, 0.7, 1.28, 0.72))
    old = runs_of(root, [3.6 * rng.uniform(0.995, 1.005) for _ in range(rng.randint(2, 5))],
                  environment={"backend": "cpu", field: before})  # fmt: skip
    new = runs_of(root, [3.6 * factor * rng.uniform(0.995, 1.005) for _ in range(rng.randint(1, 4))],
                  start=len(old), environment={"backend": "cpu", field: after})  # fmt: skip
    cited = 0 if first else rng.randrange(len(old))
    ledger(root, old[cited], value=f"{3.6:.2f}", policy="\n      fail: [moved-since-cited]")
    return old, new, (before, after)


@pytest.mark.parametrize("seed", range(8))
def test_a_step_where_the_environment_changes_is_judged_and_says_both(tmp_path, seed):
    field = list(CHANGES)[seed % len(CHANGES)]
    old, new, (before, after) = stepped(tmp_path, seed, field)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and not result.errors, result.output
    assert (
        "claims/moe.yaml:7: moe-speedup-b16: moved-since-cited: cited run " in result.output
        and f"the newest run {name(new[-1])} reads " in result.output
        and f"; the environment changed from run {name(new[0])}: {field} {before} → {after})" in result.output
    ), result.output
    shown = json.loads(run_ledger("history", "moe-speedup-b16", "--format", "json", cwd=tmp_path).output)
    assert shown["moved"] is not None and shown["steps"] == [], shown  # the boundary is no step; the move is said


@pytest.mark.parametrize("seed", range(3))
def test_the_same_step_without_a_change_of_segment_is_caught_too(tmp_path, seed):
    """(Citing the first run: a later one has replicates before it, whose prediction interval judges the newest
    run within its segment; across a change of environment the cited run is judged alone.)"""
    stepped(tmp_path, seed, "libc", first=True)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "moved-since-cited" in result.output, result.output
    assert "the environment changed" not in result.output


def test_no_move_across_a_change_of_environment_is_no_finding(tmp_path):
    old = runs_of(tmp_path, [3.6, 3.61, 3.59], environment={"backend": "cpu", "python": "3.11.7"})
    runs_of(tmp_path, [3.6, 3.61], start=3, environment={"backend": "cpu", "python": "3.12.1"})
    ledger(tmp_path, old[1])
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0 and "moved-since-cited" not in result.output, result.output


def test_kept_through_a_run_after_the_change_keeps_the_cited_run(tmp_path):
    old = runs_of(tmp_path, [3.6, 3.61, 3.59], environment={"backend": "cpu", "python": "3.11.7"})
    new = runs_of(tmp_path, [4.68, 4.69], start=3, environment={"backend": "cpu", "python": "3.12.1"})
    kept = f"\n                    kept: {{through: {new[-1]}, why: the page compares with Python 3.11}}"
    ledger(tmp_path, old[1], extra=kept, policy="\n      fail: [moved-since-cited]")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0 and "moved-since-cited" not in result.output, result.output
