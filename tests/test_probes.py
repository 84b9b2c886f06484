"""The probes from their real command line (quick profile), and the reference check that guards them."""

import csv
import getpass
import json
import statistics
import sys
from pathlib import Path

import pytest
from helpers import run_python

pytestmark = pytest.mark.probes

pytest.importorskip("mlx.core")  # the probes need MLX; without it there is nothing to test
np = pytest.importorskip("numpy")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # probes/ runs from the repo root (python -m probes)

from probes import environment, matvec, moe, raw_step, reference, session, step_rows, whole_graph  # noqa: E402
from probes.__main__ import PROBES  # noqa: E402

TIMED = ("bandwidth", "matvec", "moe", "recurrent", "whole_graph", "prefill", "context", "raw_step")
TESTBED = environment.testbed_name("Linux", "cpu", "", environment.cpu_model())  # this machine's CPU in the name
SHARED_MODULES = {
    "probes/session.py",
    "probes/timing.py",
    "probes/reference.py",
    "probes/environment.py",
    "generator/timing.py",
}
# the kernel probes' timed tables: every row's rounds are in the table's samples file
SAMPLED = [
    ("bandwidth", "results.csv", "samples.csv"),
    ("bandwidth", "summary.csv", "summary.samples.csv"),
    ("matvec", "results.csv", "samples.csv"),
    ("matvec", "sweep.csv", "sweep.samples.csv"),
    ("moe", "results.csv", "samples.csv"),
    ("recurrent", "results.csv", "samples.csv"),
    ("whole_graph", "results.csv", "samples.csv"),
    ("prefill", "results.csv", "samples.csv"),
    ("prefill", "ratio.csv", "ratio.samples.csv"),
    ("context", "results.csv", "samples.csv"),
    ("raw_step", "results.csv", "samples.csv"),
]
CONTEXT = ("started", "wall_s", "cpu_s", "load_1m")


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def the_run(out, probe):
    runs = sorted((out / probe).iterdir())
    assert len(runs) == 1, runs
    return runs[0], json.loads((runs[0] / "manifest.json").read_text())


@pytest.fixture(scope="module")
def quick_suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("measurements")
    result = run_python("-m", "probes", "--profile", "quick", "--out", str(out), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return out, result


def test_runner_writes_one_run_per_probe_and_shows_progress(quick_suite):
    out, result = quick_suite
    assert sorted(p.name for p in out.iterdir()) == sorted(PROBES)
    for probe in PROBES:
        assert len(list((out / probe).iterdir())) == 1
        assert f"== probes.{probe} (quick)" in result.stderr
    assert "round 9 (" in result.stderr and "round 10 (" not in result.stderr


@pytest.mark.parametrize("probe", PROBES)
def test_manifest_names_probe_harness_profile_and_environment(quick_suite, probe):
    run, manifest = the_run(quick_suite[0], probe)
    assert run.name.endswith(f"-{TESTBED}") and TESTBED.startswith("linux-cpu")
    assert manifest["probe"]["path"] == f"probes/{probe}.py"
    assert manifest["parameters"]["profile"] == "quick"
    if probe == "raw_step":  # independent: its own clock and loop, none of the probes' timing or decoding
        assert set(manifest["probe"]["code"]) == {"probes/__init__.py", "probes/raw_step.py", "probes/environment.py"}
    elif probe == "step_anatomy":  # its own step loops around both probes' models: no rounds-until-a-target rule
        assert {"probes/step_anatomy.py", "probes/raw_step.py"} | SHARED_MODULES <= set(manifest["probe"]["code"])
    else:
        assert {f"probes/{probe}.py"} | SHARED_MODULES <= set(manifest["probe"]["code"])
        stops = manifest["parameters"]["stop"]
        if probe not in ("memory", "model"):  # no timing there
            assert stops and all(rule["min_rounds"] == rule["max_rounds"] == 9 for rule in stops.values())
    assert manifest["parameters"]["dtype"] == "float32"
    env = manifest["environment"]
    assert env["backend"] == "cpu" and env["mlx_version"] and env["device_info"]["device_name"]
    assert env["libc_malloc_tuned"] is True
    for key in ("os", "python", "cpu_model", "memory_total_bytes", "load_average_at_start"):
        assert key in env
    assert env["cpu_count"] >= 1 and 1 <= env["cpu_affinity_count"] <= env["cpu_count"]
    assert "device_l2_cache_bytes" in env and env["device_l2_cache_source"]
    if env["device_l2_cache_bytes"] is None:
        assert env["device_l2_cache_source"].startswith("not read")
    assert all({"level", "type", "size_bytes"} <= set(c) for c in env["cpu_caches"])
    text = json.dumps(manifest)
    assert str(Path.home()) not in text and f"/{getpass.getuser()}/" not in text
    for name, entry in manifest["files"].items():
        assert entry["rows"] == len(read_csv(run / name))


@pytest.mark.parametrize("probe", TIMED)
def test_every_timed_row_carries_rounds_and_spread(quick_suite, probe):
    run, _ = the_run(quick_suite[0], probe)
    rows = read_csv(run / "results.csv")
    for row in rows:
        assert row["rounds"] == "9"
        ms = "ms" if "ms" in row else "step_ms"  # the decode probes: per decode step
        assert float(row[f"{ms}_min"]) <= float(row[ms]) <= float(row[f"{ms}_max"])


@pytest.mark.parametrize("probe", TIMED)
def test_every_spread_column_brackets_its_value(quick_suite, probe):
    """The gate's convention: a column X that varies by round comes with X_min <= X <= X_max."""
    run, _ = the_run(quick_suite[0], probe)
    seen = 0
    for table in run.glob("*.csv"):
        for row in read_csv(table):
            for key in row:
                if key.endswith("_min") and key[:-4] in row and row[key] != "":
                    base = key[:-4]
                    assert f"{base}_max" in row, (table.name, base)
                    low, mid, high = float(row[key]), float(row[base]), float(row[f"{base}_max"])
                    assert low <= mid * (1 + 1e-12) and mid <= high * (1 + 1e-12), (table.name, base, low, mid, high)
                    seen += 1
    assert seen


@pytest.mark.parametrize("probe", ["matvec", "moe", "recurrent"])
def test_kernel_rows_decompose_speedup_per_mode_and_batch(quick_suite, probe):
    run, _ = the_run(quick_suite[0], probe)
    rows = read_csv(run / "results.csv")
    assert {(r["mode"], r["batch"]) for r in rows} >= {(m, b) for m in ("batched", "looped") for b in ("1", "2", "4")}
    for row in rows:
        assert float(row["predicted_speedup"]) == pytest.approx(
            float(row["byte_ratio"]) * float(row["bandwidth_ratio"])
        )
        assert float(row["predicted_speedup"]) == pytest.approx(float(row["speedup"]))
        if row["batch"] == "1":
            assert float(row["speedup"]) == 1.0
        if row["mode"] == "looped" or probe == "recurrent":
            assert float(row["byte_ratio"]) == pytest.approx(1.0)
    checks = read_csv(run / "checks.csv")
    assert checks and all(float(c["max_rel_error"]) <= float(c["tolerance"]) for c in checks)


def samples_by_key(run, table, samples_file):
    """(key columns, value columns, results rows, {key: [sample rows]}) of a table and its samples file."""
    samples = read_csv(run / samples_file)
    columns = list(samples[0])
    keys = columns[: columns.index("round")]
    values = [c for c in columns if c not in (*keys, "round", "reps", *CONTEXT)]
    grouped = {}
    for sample in samples:
        grouped.setdefault(tuple(sample[k] for k in keys), []).append(sample)
    return keys, values, read_csv(run / table), grouped


@pytest.mark.parametrize("probe, table, samples_file", SAMPLED)
def test_samples_hold_one_row_per_round_whose_medians_are_the_results(quick_suite, probe, table, samples_file):
    run, manifest = the_run(quick_suite[0], probe)
    assert samples_file in manifest["files"]
    keys, values, rows, grouped = samples_by_key(run, table, samples_file)
    assert keys and values and set(CONTEXT) <= set(read_csv(run / samples_file)[0])
    assert len(grouped) == len(rows)
    for row in rows:
        rounds = grouped[tuple(row[k] for k in keys)]
        assert [int(r["round"]) for r in rounds] == list(range(int(row["rounds"])))
        assert {r["reps"] for r in rounds} == {row["reps"]}
        assert row["stop"] in ("target", "round cap", "fixed")  # quick: exactly 9 rounds (raw_step: 9 steps)
        for column in values:
            cells = [float(r[column]) for r in rounds if r[column] != ""]
            if row[column] == "":  # a column that does not apply to this row (e.g. a ratio with no base)
                assert not cells, (row, column)
                continue
            assert float(row[column]) == statistics.median(cells), (row, column)
        assert all(float(r["wall_s"]) > 0 and float(r["started"]) > 1.7e9 for r in rounds)


@pytest.mark.parametrize("probe", ["matvec", "moe", "recurrent"])
def test_speedups_are_paired_with_the_b1_setting_round_by_round(quick_suite, probe):
    run, _ = the_run(quick_suite[0], probe)
    keys, _, _, grouped = samples_by_key(run, "results.csv", "samples.csv")
    checked = 0
    for key, rounds in grouped.items():
        cells = dict(zip(keys, key, strict=True))
        base = grouped[tuple("1" if k == "batch" else cells[k] for k in keys)]
        base_ms = {r["round"]: float(r["ms"]) for r in base}
        for r in rounds:
            want = int(cells["batch"]) * base_ms[r["round"]] / float(r["ms"])
            assert float(r["speedup"]) == pytest.approx(want, rel=1e-9)
            assert float(r["predicted_speedup"]) == pytest.approx(float(r["speedup"]), rel=1e-9)
            checked += 1
    assert checked >= 9 * 6


def test_matvec_counts_weight_bytes_once_per_weight_read(quick_suite):
    run, manifest = the_run(quick_suite[0], "matvec")
    rows = {(r["operator"], r["mode"], r["batch"]): r for r in read_csv(run / "results.csv")}
    batched, looped = rows[("head", "batched", "4")], rows[("head", "looped", "4")]
    assert batched["bytes_per_call"] == batched["weight_bytes"]
    assert int(looped["bytes_per_call"]) == 4 * int(looped["weight_bytes"])
    assert float(batched["byte_ratio"]) == pytest.approx(4.0)
    assert batched["scaled"] == "true" and batched["rows_full"] == "248320"
    assert "scales" in manifest["parameters"]["bytes_counted"]


def test_moe_touched_experts_next_to_closed_form(quick_suite):
    run, manifest = the_run(quick_suite[0], "moe")
    n, k = manifest["parameters"]["experts"], manifest["parameters"]["top_k"]
    results = {(r["mode"], r["batch"]): r for r in read_csv(run / "results.csv")}
    for row in read_csv(run / "touched.csv"):
        b = int(row["batch"])
        assert float(row["closed_form"]) == pytest.approx(moe.touched_experts(n, k, b))
        assert abs(float(row["mc_mean"]) - float(row["closed_form"])) < 5 * float(row["mc_stderr"]) + 1e-9
        # the expectation, the Monte Carlo mean of the ratio and the one draw the timed kernel used
        assert float(row["byte_ratio_closed_form"]) == pytest.approx(k * b / float(row["closed_form"]))
        assert abs(float(row["byte_ratio_mc_mean"]) - float(row["byte_ratio_closed_form"])) < 0.05
        timed = results[("batched", row["batch"])]
        assert float(row["byte_ratio_timed_routing"]) == pytest.approx(float(timed["byte_ratio"]))
        assert float(timed["byte_ratio_expected"]) == pytest.approx(float(row["byte_ratio_closed_form"]))


def test_bandwidth_summary_has_ceiling_for_mlx_and_numpy(quick_suite):
    run, manifest = the_run(quick_suite[0], "bandwidth")
    summary = read_csv(run / "summary.csv")
    picked = {(r["impl"], r["op"]) for r in summary}
    assert {("mlx", "read"), ("mlx", "copy"), ("mlx", "any"), ("numpy", "read"), ("numpy", "any")} <= picked
    assert manifest["parameters"]["outside_reference"] == "not applicable (backend cpu)"
    peaks = {r["op"]: r for r in summary if r["figure"] == "cache_peak" and r["impl"] == "mlx"}
    assert set(peaks) == {"read", "copy"} and all(int(r["size_mib"]) < 16 for r in peaks.values())
    ceilings = [r for r in summary if r["figure"] == "ceiling"]
    assert {float(r["over_ceiling"]) for r in ceilings} == {1.0}
    assert "copy_chain" in {r["op"] for r in read_csv(run / "results.csv")}
    sizes = {int(r["size_mib"]) for r in read_csv(run / "results.csv")}
    assert sizes == set(manifest["parameters"]["sizes_mib"])


def test_whole_graph_times_raw_batched_and_single_paths_in_one_set_of_rounds(quick_suite):
    run, manifest = the_run(quick_suite[0], "whole_graph")
    rows = read_csv(run / "results.csv")
    for row in rows:
        b = int(row["batch"])
        assert float(row["aggregate_tok_per_s"]) == pytest.approx(float(row["per_sequence_tok_per_s"]) * b)
        assert float(row["ms_per_token"]) == pytest.approx(1e3 / float(row["aggregate_tok_per_s"]))
        assert float(row["step_ms"]) == pytest.approx(float(row["ms_per_token"]) * b)
        assert float(row["gb_per_s"]) == pytest.approx(float(row["bytes_per_step"]) / float(row["step_ms"]) / 1e6)
        if b == 1 and row["mode"] != "looped":
            assert float(row["speedup"]) == 1.0
    modes = {(r["mode"], r["batch"]) for r in rows}
    assert {(m, b) for m in ("raw", "batched") for b in ("1", "2", "4")} <= modes
    assert {("single", "1"), ("looped", "2"), ("tiny-raw", "1"), ("tiny-raw", "4"), ("tiny-width", "4")} <= modes
    params = manifest["parameters"]
    assert params["failed"] == [] and params["dropped_for_time"] == []
    assert all(rule["min_rounds"] == rule["max_rounds"] == 9 for rule in params["stops_by_setting"].values())
    tiny, main = params["tiny_width_config"], params["model_config"]
    assert tiny["hidden_size"] == 128 and tiny["num_attention_heads"] == main["num_attention_heads"]
    assert main["num_experts"] == 16 and main["num_hidden_layers"] == tiny["num_hidden_layers"]
    fits = {(f["mode"], f["x"]): f for f in read_csv(run / "fit.csv") + read_csv(run / "fit_bytes.csv")}
    assert {(m, x) for m in ("raw", "batched") for x in ("batch", "bytes_per_step_mb")} <= set(fits)
    assert {f["x"] for f in read_csv(run / "fit.csv")} == {"batch"}  # one unit per column: ms per sequence here
    assert {f["x"] for f in read_csv(run / "fit_bytes.csv")} == {"bytes_per_step_mb"}  # ms per MB there
    assert fits[("raw", "batch")]["batches"] == "1 2 4" and fits[("tiny-raw", "batch")]["batches"] == "1 4"
    per_round = [f for f in read_csv(run / "fit.samples.csv") if f["mode"] == "raw" and f["x"] == "batch"]
    assert len(per_round) == 9 and float(fits[("raw", "batch")]["fixed_ms"]) == statistics.median(
        float(f["fixed_ms"]) for f in per_round
    )


def test_whole_graph_splits_the_raw_step_and_logs_its_phases(quick_suite):
    run, manifest = the_run(quick_suite[0], "whole_graph")
    split = read_csv(run / "split.csv")
    assert [r["batch"] for r in split] == ["1", "2", "4"]
    for step in read_csv(run / "split.samples.csv"):
        parts = sum(float(step[p]) for p in ("build_ms", "launch_ms", "wait_ms"))
        assert parts == pytest.approx(float(step["step_ms"])) and float(step["build_cpu_ms"]) >= 0
    phases = [p["phase"] for p in read_csv(run / "phases.csv")]
    assert phases == [
        "build",
        "reference checks",
        "prefill and first steps",
        "timing",
        "step split",
        "agreement",
        "gpu busy",
    ]
    assert {(w["mode"], w["batch"]) for w in read_csv(run / "warmup.csv")} == {
        (r["mode"], r["batch"]) for r in read_csv(run / "results.csv")
    }
    gpu = manifest["parameters"]["gpu_log"]  # no GPU here: said so, and no log file
    assert gpu["source"].startswith("unavailable: ") and gpu["readings"] == 0 and "gpu_log.csv" not in manifest["files"]


def test_whole_graph_agreement_compares_paths_with_the_single_path_and_fp32(quick_suite):
    run, _ = the_run(quick_suite[0], "whole_graph")
    agreement = read_csv(run / "agreement.csv")
    assert [(a["mode"], a["batch"]) for a in agreement] == [(m, b) for m in ("raw", "batched") for b in ("1", "2", "4")]
    assert all(float(a["margin_all_steps_min"]) >= 0 for a in agreement)
    divergence = read_csv(run / "divergence.csv")
    assert len(divergence) == 2 * (1 + 2 + 2)  # min(B, agreement_sequences) per mode and batch
    for d in divergence:
        assert (d["identical"] == "true") == (d["first_divergence"] == "")
    first = read_csv(run / "first_step.csv")
    assert {(f["mode"], f["batch"]) for f in first} == {("single", "1")} | {
        (m, b) for m in ("raw", "batched") for b in ("1", "2", "4")
    }
    for f in first:  # fp32 on the CPU: every path is the reference's own arithmetic
        assert f["same_top1"] == "true" and float(f["max_abs_error"]) < 1e-4 and float(f["margin_fp32"]) >= 0


def test_prefill_ratio_is_prefill_over_decode_tokens_per_second_in_each_round(quick_suite):
    run, manifest = the_run(quick_suite[0], "prefill")
    ratios = read_csv(run / "ratio.csv")
    assert [int(r["prompt_tokens"]) for r in ratios] == manifest["parameters"]["prompt_tokens"]
    for r in read_csv(run / "ratio.samples.csv"):
        assert float(r["prefill_over_decode"]) == pytest.approx(
            float(r["prefill_tok_per_s"]) / float(r["decode_tok_per_s"])
        )
    modes = {r["mode"] for r in read_csv(run / "results.csv")}
    assert modes == {"prefill", "decode"}


def test_context_sweep_decodes_at_each_context_and_says_which_b_meets_each_target(quick_suite):
    run, manifest = the_run(quick_suite[0], "context")
    params = manifest["parameters"]
    rows = read_csv(run / "results.csv")
    assert {(int(r["context_tokens"]), int(r["batch"])) for r in rows} == {
        (c, b) for c in params["contexts"] for b in params["batches"]
    }
    for r in rows:  # the cache MLX allocated is the formula's (the first setting also holds its first tokens)
        assert abs(int(r["cache_bytes"]) - float(r["cache_bytes_formula"])) <= 0.05 * float(r["cache_bytes_formula"])
        assert float(r["step_ms_interval_low"]) <= float(r["step_ms"]) <= float(r["step_ms_interval_high"])
    which = read_csv(run / "which_b.csv")
    assert len(which) == len(params["contexts"]) * len(params["targets_ms"])
    for w in which:
        here = [r for r in rows if r["context_tokens"] == w["context_tokens"]]
        meets = [int(r["batch"]) for r in here if float(r["step_ms_interval_high"]) <= float(w["target_ms"])]
        assert int(w["largest_b"]) == max(meets, default=0)
        within = [int(r["batch"]) for r in here if float(r["step_ms_p90"]) <= float(w["target_ms"])]
        assert int(w["largest_b_p90"]) == max(within, default=0)
        assert int(w["memory_limit_b"]) > 0
    assert params["device_memory_bytes"] > 0 and params["gpu_log"]["source"].startswith("unavailable: ")
    assert params["failed"] == []


def test_model_counts_come_from_the_built_models(quick_suite):
    run, manifest = the_run(quick_suite[0], "model")
    rows = read_csv(run / "counts.csv")
    names = list(manifest["parameters"]["models"])
    assert [r["model"] for r in rows] == names  # a row per model, a column per quantity
    assert set(manifest["parameters"]["counted_from"]) == set(rows[0]) - {"model"}
    full = {q: float(v) for q, v in rows[0].items() if q != "model"}
    assert (full["layers"], full["layers_linear_attention"], full["layers_full_attention"]) == (40, 30, 10)
    assert (full["experts_per_layer"], full["experts_per_token"]) == (256, 8)
    assert (full["vocab_size"], full["hidden_size"]) == (248320, 2048)
    assert 30e9 < full["parameters_total"] < 40e9 and 2e9 < full["parameters_active_per_token"] < 4e9
    parts = (
        "embedding",
        "lm_head",
        "full_attention",
        "linear_attention",
        "router",
        "shared_expert",
        "experts",
        "norms",
    )
    assert sum(full[f"bytes_{p}"] for p in parts) == full["bytes_total"]
    scaled = {q: float(v) for q, v in rows[1].items() if q != "model"}
    assert scaled["hidden_size"] == 1024 and scaled["layers"] == 8


def test_matvec_sweep_crosses_the_cache(quick_suite):
    run, manifest = the_run(quick_suite[0], "matvec")
    sweep = read_csv(run / "sweep.csv")
    rows = sorted({int(r["rows"]) for r in sweep})
    assert rows == manifest["parameters"]["sweep"]["rows"] and len(rows) >= 2
    for r in sweep:
        assert float(r["matrix_over_cache"]) == pytest.approx(int(r["matrix_bytes"]) / int(r["cache_bytes"]))
        if r["mode"] == "looped":
            assert float(r["speedup_vs_looped"]) == pytest.approx(1.0)


def test_memory_reports_kv_bytes_from_formula_and_mlx_lm_caches(quick_suite):
    run, _ = the_run(quick_suite[0], "memory")
    rows = {r["kv_dtype"]: r for r in read_csv(run / "kv.csv")}
    assert rows["bfloat16"]["kv_bytes_per_token"] == "20480"
    assert float(rows["bfloat16"]["kv_bytes_per_token_mlx_lm"]) == 20480
    assert int(rows["float32"]["kv_bytes_per_token"]) == 2 * int(rows["bfloat16"]["kv_bytes_per_token"])


def test_single_probe_command_line_writes_its_run(tmp_path):
    result = run_python(
        "-m", "probes.recurrent", "--profile", "quick", "--out", str(tmp_path), "--testbed", "test-box", cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    run, manifest = the_run(tmp_path, "recurrent")
    assert run.name.endswith("-test-box") and manifest["testbed"] == "test-box"
    assert result.stdout.strip() == str(run)


def test_runner_exits_non_zero_when_a_probe_fails(tmp_path):
    result = run_python(
        "-m",
        "probes",
        "--probe",
        "memory",
        "--profile",
        "quick",
        "--out",
        str(tmp_path),
        "--testbed",
        "Not A Name",
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert "1 probe(s) failed: memory" in result.stderr
    assert not (tmp_path / "memory").exists() or not any((tmp_path / "memory").iterdir())


CORRECT_UNPACK = reference.unpack


def nibble_swapped_unpack(wq, scales, biases, group_size, bits):
    """A planted bug: the two 4-bit values of every byte read in the wrong order."""
    swapped = ((wq & np.uint32(0x0F0F0F0F)) << 4) | ((wq >> 4) & np.uint32(0x0F0F0F0F))
    return CORRECT_UNPACK(swapped, scales, biases, group_size, bits)


@pytest.mark.parametrize("probe", [matvec, moe, whole_graph])
def test_wrong_nibble_order_in_reference_aborts_probe_and_records_nothing(probe, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reference, "unpack", nibble_swapped_unpack)
    with pytest.raises(SystemExit) as stop:
        session.run_main(lambda _: probe.main(["--profile", "quick", "--out", str(tmp_path)]))
    assert stop.value.code == 1
    assert "reference check failed, nothing recorded" in capsys.readouterr().err
    assert list(tmp_path.rglob("*")) == []


def is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("probe", PROBES)
def test_every_numeric_column_of_every_table_declares_its_unit_and_kind(quick_suite, probe):
    """The manifest's declarations (probes/columns.py through Session.write; raw_step's own) cover every column
    that holds numbers, with a unit the gate's unit table reads; samples files share their table's."""
    from generator.lang import units

    run, manifest = the_run(quick_suite[0], probe)
    declared = manifest["columns"]
    assert manifest["parameters"].get("undeclared_columns", []) == []
    for name in manifest["files"]:
        if name.endswith("samples.csv"):
            assert name not in declared
            continue
        rows = read_csv(run / name)
        numeric = {c for c in rows[0] if all(is_number(r[c]) or r[c] == "" for r in rows) and any(r[c] for r in rows)}
        assert numeric <= set(declared.get(name, {})), (name, sorted(numeric - set(declared.get(name, {}))))
        for column, found in declared.get(name, {}).items():
            assert found["kind"] in ("timed", "exact") and units.parse(found["unit"]) is not None, (name, column)
    results = declared.get("results.csv", {})
    for column in ("ms", "step_ms", "gb_per_s", "speedup", "step_ms_p90"):
        if column in results:
            assert results[column]["kind"] == "timed"
    for column in ("bytes_per_call", "bytes_per_step", "byte_ratio", "rounds"):
        if column in results:
            assert results[column]["kind"] == "exact"


def test_whole_graph_keeps_every_step_and_its_p90_beside_the_median(quick_suite):
    run, manifest = the_run(quick_suite[0], "whole_graph")
    steps = read_csv(run / "steps.csv")
    for row in read_csv(run / "results.csv"):
        mine = [s for s in steps if (s["mode"], s["batch"]) == (row["mode"], row["batch"])]
        if row["mode"] == "looped":  # B sequences one after another: no steps between which to read the clock
            assert not mine and row["step_ms_p90"] == "" and row["p90_steps"] == "0"
            continue
        assert len(mine) == int(row["rounds"]) * int(row["decode_steps"])  # every step of every timed sample
        first = [s["counted"] for s in mine if s["step"] == "0"]
        # raw evaluates each step before the next; a generator's first call returns the token left computed
        assert set(first) == ({"true"} if row["mode"] in ("raw", "tiny-raw") else {"false"})
        counted = [float(s["step_ms"]) for s in mine if s["counted"] == "true"]
        assert int(row["p90_steps"]) == len(counted)
        assert float(row["step_ms_p90"]) == step_rows.percentile(counted, 0.9)
        samples = [r for r in read_csv(run / "samples.csv") if (r["mode"], r["batch"]) == (row["mode"], row["batch"])]
        for sample in samples:  # a sample's steps add up to its time (the clock stops after one last synchronise)
            within = sum(float(s["step_ms"]) for s in mine if s["round"] == sample["round"])
            assert within <= float(sample["step_ms"]) * int(row["decode_steps"]) * (1 + 1e-9)
    assert "nearest-rank" in manifest["parameters"]["steps"]


def test_whole_graph_names_each_speedups_baseline_and_decomposes_it(quick_suite):
    run, _ = the_run(quick_suite[0], "whole_graph")
    rows = {(r["mode"], r["batch"]): r for r in read_csv(run / "results.csv")}
    assert rows[("raw", "4")]["speedup_against"] == "raw/1"
    assert rows[("looped", "2")]["speedup_against"] == "single/1"
    assert rows[("batched", "2")]["speedup_vs_single_against"] == "single/1"
    assert rows[("batched", "2")]["over_raw_ms_against"] == "raw/2"
    assert rows[("tiny-width", "4")]["over_raw_ms_against"] == "tiny-raw/4"
    for sample in read_csv(run / "samples.csv"):
        row = rows[(sample["mode"], sample["batch"])]
        if sample["bandwidth_ratio"]:  # paired with the baseline's round: speedup = byte ratio x bandwidth ratio
            assert float(sample["speedup"]) == pytest.approx(
                float(row["byte_ratio"]) * float(sample["bandwidth_ratio"])
            )


def test_whole_graph_records_the_gpu_busy_share_as_not_measured_without_cuda(quick_suite):
    run, manifest = the_run(quick_suite[0], "whole_graph")
    busy = manifest["parameters"]["gpu_busy"]
    assert busy["measured"] is False and "torch is not importable" in busy["why"] and "backend is cpu" in busy["why"]
    assert "gpu_busy.csv" not in manifest["files"]


def test_whole_graph_replicate_profile_times_three_modes_and_nothing_else(tmp_path):
    result = run_python("-m", "probes.whole_graph", "--profile", "quick-replicate", "--out", str(tmp_path), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    run, manifest = the_run(tmp_path, "whole_graph")
    params = manifest["parameters"]
    assert params["profile"] == "quick-replicate" and params["profile_base"] == "quick"
    rows = read_csv(run / "results.csv")
    assert {(r["mode"], r["batch"]) for r in rows} == {("raw", b) for b in "124"} | {("batched", b) for b in "124"} | {
        ("single", "1")
    }
    assert set(manifest["files"]) == {"results.csv", "samples.csv", "steps.csv", "fit.csv", "fit.samples.csv",
                                      "fit_bytes.csv", "fit_bytes.samples.csv", "checks.csv", "warmup.csv",
                                      "phases.csv"}  # fmt: skip
    assert [p["phase"] for p in read_csv(run / "phases.csv")] == [
        "build", "reference checks", "prefill and first steps", "timing"]  # fmt: skip
    assert params["gpu_busy"] == {"measured": False, "why": "not a part of the quick-replicate profile"}
    assert params["undeclared_columns"] == []


def test_raw_step_rows_are_the_medians_and_p90_of_its_steps(quick_suite):
    run, manifest = the_run(quick_suite[0], "raw_step")
    steps = read_csv(run / "samples.csv")
    rows = read_csv(run / "results.csv")
    assert [int(r["batch"]) for r in rows] == manifest["parameters"]["batches"] == [1, 2, 4]
    for row in rows:
        ms = [float(s["step_ms"]) for s in steps if s["batch"] == row["batch"]]
        assert len(ms) == int(row["rounds"]) == manifest["parameters"]["steps"]
        assert float(row["step_ms_p90"]) == step_rows.percentile(ms, 0.9) and float(
            row["step_ms"]
        ) == statistics.median(ms)
    checks = read_csv(run / "checks.csv")
    assert {c["module"] for c in checks} >= {"lm_head", "layers.0.mlp.switch_mlp.gate_proj"}
    assert all(float(c["max_rel_error"]) <= float(c["tolerance"]) for c in checks)


def test_raw_step_with_a_nibble_swapped_reference_records_nothing(tmp_path, monkeypatch, capsys):
    correct = raw_step.dequantize_bytes

    def swapped(words, scales, biases, bits, group):
        flipped = ((words & np.uint32(0x0F0F0F0F)) << 4) | ((words >> 4) & np.uint32(0x0F0F0F0F))
        return correct(flipped, scales, biases, bits, group)

    monkeypatch.setattr(raw_step, "dequantize_bytes", swapped)
    assert raw_step.main(["--profile", "quick", "--out", str(tmp_path)]) == 1
    assert "reference check failed, nothing recorded" in capsys.readouterr().err
    assert list(tmp_path.rglob("*")) == []


def test_a_budget_given_on_the_command_line_replaces_the_profiles_and_is_recorded():
    """--budget-s fits a whole-model probe's bound to the machine without changing the code its runs hash."""
    variants = {name: base for name, (base, _) in whole_graph.REPLICATES.items()}
    kept = session.start("whole_graph", ["--profile", "gpu-replicate"], variants)
    assert (
        kept.config(whole_graph.DECODE["gpu-replicate"])["budget_s"] == whole_graph.DECODE["gpu-replicate"]["budget_s"]
    )
    given = session.start("whole_graph", ["--profile", "gpu-replicate", "--budget-s", "170"], variants)
    settings = given.config(whole_graph.DECODE["gpu-replicate"])
    assert settings["budget_s"] == 170.0 and whole_graph.DECODE["gpu-replicate"]["budget_s"] == 100.0  # not mutated
    assert {k: v for k, v in settings.items() if k != "budget_s"} == {
        k: v for k, v in whole_graph.DECODE["gpu-replicate"].items() if k != "budget_s"
    }
    with pytest.raises(SystemExit, match="positive number of seconds"):
        session.start("whole_graph", ["--budget-s", "0"], variants)


def test_the_testbed_ledger_measure_names_reaches_the_probe(monkeypatch):
    """`ledger measure --testbed NAME` sets LEDGER_TESTBED; a probe's own --testbed still wins."""
    monkeypatch.setenv("LEDGER_TESTBED", "named-by-ledger")
    assert session.start("moe", ["--profile", "quick"]).testbed == "named-by-ledger"
    assert session.start("moe", ["--profile", "quick", "--testbed", "elsewhere"]).testbed == "elsewhere"
    monkeypatch.delenv("LEDGER_TESTBED")
    assert session.start("moe", ["--profile", "quick"]).testbed != "named-by-ledger"
