"""A series across git history: `ledger history` names the commit that added each run and the claim's
stated value at each commit that changed it; `ledger diff` says whether a new point is a step."""

import csv
import json
import statistics

from helpers import run_ledger
from helpers_series import LEVEL_A, LEVEL_B, ledger, name, runs_of
from test_diff import commit, git


def on_disk(root, run: str) -> tuple[float, list[float]]:
    """The B=16 row's value in results.csv and its rounds in samples.csv, read straight from the files."""
    with open(root / run / "results.csv", newline="") as handle:
        value = next(float(row["speedup"]) for row in csv.DictReader(handle) if row["batch"] == "16")
    with open(root / run / "samples.csv", newline="") as handle:
        rounds = [float(row["speedup"]) for row in csv.DictReader(handle) if row["batch"] == "16"]
    return value, rounds


def test_a_series_across_two_commits_has_the_points_of_the_runs_on_disk(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    first = runs_of(tmp_path, [3.6, 3.62])
    ledger(tmp_path, first[0], value="3.6")
    one = commit(tmp_path, message="two runs")
    (third,) = runs_of(tmp_path, [3.58], start=2)
    ledger(tmp_path, third, value="3.58")
    two = commit(tmp_path, message="a third run; the claim moves to it")

    found = json.loads(run_ledger("history", "moe-speedup-b16", "--format", "json", cwd=tmp_path).output)
    runs = [*first, third]
    assert [p["run"] for p in found["points"]] == runs
    for point, run in zip(found["points"], runs, strict=True):
        value, rounds = on_disk(tmp_path, run)
        assert point["value"] == value == statistics.median(rounds)
        assert (point["low"], point["high"]) == (min(rounds), max(rounds))  # 9 rounds: min–max at 99.6%
    assert [p["added_by"] for p in found["points"]] == [
        f"{one[:12]} (two runs)",
        f"{one[:12]} (two runs)",
        f"{two[:12]} (a third run; the claim moves to it)",
    ]
    stated = [(s["commit"], s["value"], s["run"]) for s in found["stated"]["commits"]]
    assert stated == [(one, "3.6×", first[0]), (two, "3.58×", third)]


def test_history_in_text_names_the_commits(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    runs = runs_of(tmp_path, [3.6, 3.62, 3.58])
    ledger(tmp_path, runs[0])
    one = commit(tmp_path, message="three runs")
    result = run_ledger("history", "moe-speedup-b16", cwd=tmp_path)
    assert (
        f"| 1 | {name(runs[0])} | 3.6× | 3.456–3.744× (rounds) | not recorded | {one[:12]} (three runs) | cited |"
        in result.output
    )
    assert f"- {one[:12]} " in result.output and f"3.6×  run {runs[0]}  (three runs)" in result.output


def test_diff_says_whether_each_new_point_is_a_step(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B[:3])
    ledger(tmp_path, runs[2])
    base = commit(tmp_path, message="eleven runs")
    (same,) = runs_of(tmp_path, [4.4], start=11)
    result = run_ledger("diff", base, cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert (
        f"| new point | `moe-speedup-b16` | new point 4.4× in {name(same)}: no step (moved since cited), on the level "
        "before it (E-divisive means, t-test) |  |"
    ) in result.output
    data = json.loads(run_ledger("diff", base, "--format", "json", cwd=tmp_path).output)
    assert [(p["run"], p["verdict"]) for p in data["series"]] == [(same, "no step")]


def test_diff_marks_a_new_point_that_steps(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    runs = runs_of(tmp_path, LEVEL_A)
    ledger(tmp_path, runs[2])
    base = commit(tmp_path, message="eight runs")
    (new,) = runs_of(tmp_path, [5.0], start=8)
    commit(tmp_path, message="a slower machine")
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert (
        f"| step | `moe-speedup-b16` | new point 5× in {name(new)}: **step** (moved since cited), 3.6× → 5× (t-test, p = "
        in result.output
    )


def test_stated_values_are_read_along_the_first_parent_as_the_runs_history_is(tmp_path):
    """A side branch's intermediate value is not main's history: the merge is the commit that changed it."""
    git(tmp_path, "init", "-q", "-b", "main")
    runs = runs_of(tmp_path, [3.6, 3.62])
    ledger(tmp_path, runs[0], value="3.6")
    one = commit(tmp_path, message="two runs")
    git(tmp_path, "checkout", "-q", "-b", "side")
    ledger(tmp_path, runs[1], value="3.7")
    commit(tmp_path, message="side: a value that never reached main")
    ledger(tmp_path, runs[1], value="3.62")
    commit(tmp_path, message="side: the claim moves to the second run")
    git(tmp_path, "checkout", "-q", "main")
    git(tmp_path, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = git(tmp_path, "rev-parse", "HEAD")

    found = json.loads(run_ledger("history", "moe-speedup-b16", "--format", "json", cwd=tmp_path).output)
    stated = [(s["commit"], s["value"], s["run"]) for s in found["stated"]["commits"]]
    assert stated == [(one, "3.6×", runs[0]), (merge, "3.62×", runs[1])]


def test_a_shallow_clone_says_its_stated_values_were_not_read(tmp_path):
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    runs = runs_of(origin, [3.6, 3.62])
    ledger(origin, runs[0])
    commit(origin, message="two runs")
    commit(origin, message="another commit")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))

    found = json.loads(run_ledger("history", "moe-speedup-b16", "--format", "json", cwd=clone).output)
    assert found["stated"] == {
        "status": "not read: a shallow clone (fetch full history: `git fetch --unshallow`)",
        "commits": [],
    }
    assert {p["added_by"] for p in found["points"]} == {
        "not checked: a shallow clone (fetch full history: `git fetch --unshallow`)"
    }
