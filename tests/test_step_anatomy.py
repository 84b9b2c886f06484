"""probes/step_anatomy.py from its command line (quick profile on the CPU): its plan sized to a memory limit and
a budget, what it skips and why, and the tables of what it finished."""

import csv
import json
import sys
from pathlib import Path

import pytest
from helpers import run_python

pytestmark = pytest.mark.probes

pytest.importorskip("mlx.core")  # the probe needs MLX; without it there is nothing to test
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def probe(out, *args):
    result = run_python("-m", "probes.step_anatomy", "--profile", "quick", "--out", str(out), *args, cwd=ROOT)
    runs = sorted((out / "step_anatomy").iterdir()) if (out / "step_anatomy").exists() else []
    return result, runs


@pytest.fixture(scope="module")
def spent(tmp_path_factory):
    """A budget spent at once: the first B of the first part runs its fewest rounds, nothing else starts."""
    out = tmp_path_factory.mktemp("spent")
    result, runs = probe(out, "--budget-s", "0.01")
    assert result.returncode == 0, result.stderr
    assert len(runs) == 1
    return runs[0], json.loads((runs[0] / "manifest.json").read_text())


def skipped(manifest, why):
    return {(s["part"], s["what"]): s["why"] for s in manifest["parameters"][why]}


def test_a_spent_budget_keeps_the_first_batch_size_and_says_what_it_skipped(spent):
    run, manifest = spent
    assert skipped(manifest, "skipped_for_memory") == {}
    assert skipped(manifest, "not_started_for_time") == {
        ("levels", "B=2"): "the part's time ran out before it",
        ("profile", "graphs default"): "the budget of 0.01 s was spent before it",
        ("profile", "graphs off"): "the budget of 0.01 s was spent before it",
    }
    rows = read_csv(run / "levels.csv")
    assert {(r["batch"], r["variant"]) for r in rows} == {
        ("1", "independent"), ("1", "independent-loop"), ("1", "whole_graph")}  # fmt: skip
    assert all(int(r["rounds"]) == 3 and int(r["steps"]) == 9 for r in rows)  # MIN_ROUNDS of 3 steps
    assert not (run / "profile.csv").exists()


def test_levels_keep_every_step_and_pair_the_ways_round_by_round(spent):
    run, _ = spent
    steps = read_csv(run / "level_steps.csv")
    rows = {r["variant"]: r for r in read_csv(run / "levels.csv")}
    for variant, row in rows.items():
        mine = sorted(float(s["step_ms"]) for s in steps if s["variant"] == variant)
        assert len(mine) == int(row["steps"]) and float(row["step_ms"]) == mine[len(mine) // 2]
        assert float(row["step_ms_min"]) == mine[0] and float(row["step_ms_max"]) == mine[-1]
        assert float(row["round_median_ms_min"]) <= float(row["step_ms"]) <= float(row["round_median_ms_max"])
    ratios = {r["comparison"]: r for r in read_csv(run / "level_ratios.csv")}
    assert set(ratios) == {"harness", "model", "probes"}
    for name, (top, bottom) in {"harness": ("whole_graph", "independent-loop"),
                                "model": ("independent-loop", "independent")}.items():  # fmt: skip
        medians = {}
        for variant in (top, bottom):
            by_round = {}
            for s in steps:
                if s["variant"] == variant:
                    by_round.setdefault(s["round"], []).append(float(s["step_ms"]))
            medians[variant] = {k: sorted(v)[len(v) // 2] for k, v in by_round.items()}
        paired = sorted(medians[top][k] / medians[bottom][k] for k in medians[top])
        assert float(ratios[name]["ratio"]) == pytest.approx(paired[len(paired) // 2])
        assert float(ratios[name]["ratio_min"]) == pytest.approx(paired[0])


def test_a_small_memory_limit_drops_the_second_model_then_the_larger_batch(spent, tmp_path):
    _, manifest = spent
    memory = manifest["parameters"]["plan"]["memory"]
    sizes, reserve = memory["model_bytes"], memory["reserve"]
    need = lambda models, ways, b: (models + ways * b * sizes["state"]) * reserve["factor"] + reserve["bytes"]  # noqa: E731
    one = sizes["whole_graph"]
    limit = (need(one, 3, 1) + need(one, 3, 2)) / 2  # the larger model-and-caches of B=2 does not fit, B=1 does
    assert need(one + sizes["raw_step"], 3, 1) > limit
    result, runs = probe(tmp_path, "--memory-limit-gb", repr(limit / 1e9))
    assert result.returncode == 0, result.stderr
    manifest = json.loads((runs[0] / "manifest.json").read_text())
    assert skipped(manifest, "not_started_for_time") == {}
    for_memory = skipped(manifest, "skipped_for_memory")
    assert set(for_memory) == {("levels", "variant independent"), ("levels", "B=2")}
    assert "both models need" in for_memory["levels", "variant independent"] and "GB of" in for_memory["levels", "B=2"]
    rows = read_csv(runs[0] / "levels.csv")
    assert {(r["batch"], r["variant"]) for r in rows} == {("1", "independent-loop"), ("1", "whole_graph")}
    assert [r["comparison"] for r in read_csv(runs[0] / "level_ratios.csv")] == ["harness"]
    # the profile has no CUDA here: recorded as not measured, with the reason, and no table
    assert manifest["parameters"]["profile_not_measured"] and not (runs[0] / "profile.csv").exists()
    assert [p["part"] for p in manifest["parameters"]["phases"]] == ["levels", "profile", "profile"]


def test_nothing_fits_nothing_is_written_and_the_reasons_are_printed(tmp_path):
    result, runs = probe(tmp_path, "--memory-limit-gb", "0.001")
    assert result.returncode == 1 and runs == []
    assert "nothing finished, nothing recorded" in result.stderr and "no batch size fits" in result.stderr


def test_a_run_hashes_the_modules_its_children_import(spent):
    _, manifest = spent
    code = set(manifest["probe"]["code"])
    assert {"probes/step_anatomy.py", "probes/raw_step.py", "probes/model_build.py", "probes/decode.py",
            "probes/gpu_busy.py", "probes/environment.py"} <= code  # fmt: skip
    declared = {table for table in manifest.get("columns", {})}
    assert declared == {"levels.csv", "level_ratios.csv", "level_steps.csv"}
