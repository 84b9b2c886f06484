"""The whole-model probes' parts on the CPU: the model build, the decode paths, synthetic caches, the GPU log."""

import os
import stat
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mlx.core")  # the probes need MLX; without it there is nothing to test
np = pytest.importorskip("numpy")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # probes/ runs from the repo root (python -m probes)

import contextlib  # noqa: E402

import mlx.core as mx  # noqa: E402
from mlx.utils import tree_flatten, tree_map_with_path  # noqa: E402
from mlx_lm.models import qwen3_5_moe  # noqa: E402
from mlx_lm.utils import quantize_model  # noqa: E402

from probes import config, decode, gpu_log, model_build, timing  # noqa: E402

pytestmark = pytest.mark.probes
QUICK = config.PROFILE_MODELS["quick"]


@pytest.fixture(scope="module")
def quick_model():
    mx.random.seed(0)
    return model_build.build(QUICK, mx.float32)


def prompts(n, length=4, seed=0):
    return np.random.default_rng(seed).integers(0, QUICK.vocab_size, (n, length)).tolist()


def test_random_words_set_every_nibble_of_every_word():
    words = np.array(model_build.random_words((64, 256)))
    nibbles = (words[..., None] >> (np.arange(8, dtype=np.uint32) * 4)) & 15
    counts = np.stack([np.bincount(nibbles[..., j].ravel(), minlength=16) for j in range(8)])
    expected = words.size / 16
    assert np.all(np.abs(counts - expected) < 6 * np.sqrt(expected)), counts  # every position, every value


def test_fast_build_has_the_arrays_quantize_model_would_make():
    mx.random.seed(0)
    fast = dict(tree_flatten(model_build.build(QUICK, mx.bfloat16, materialise=False).parameters()))
    cfg = QUICK.mlx_lm()
    slow_model = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(cfg))
    slow_model.update(
        tree_map_with_path(
            lambda path, v: v if path.endswith("A_log") else v.astype(mx.bfloat16), slow_model.parameters()
        )
    )
    with contextlib.redirect_stdout(sys.stderr):
        quantize_model(slow_model, cfg, group_size=64, bits=4)
    slow = dict(tree_flatten(slow_model.parameters()))
    assert fast.keys() == slow.keys()
    for name, array in fast.items():
        assert (array.shape, array.dtype) == (slow[name].shape, slow[name].dtype), name
    gates = [m for m in model_build.quantized_modules(slow_model) if m.bits == 8]
    assert gates, "the router and shared-expert gates stay 8-bit"


def test_filled_weights_decode_to_the_float_layers_range(quick_model):
    layer = quick_model.layers[0].mlp.shared_expert.up_proj
    w = mx.dequantize(layer.weight, layer.scales, layer.biases, layer.group_size, layer.bits)
    half = 1 / np.sqrt(w.shape[-1])
    assert float(mx.max(mx.abs(w))) <= 1.2 * half and float(mx.std(w)) > 0.3 * half
    assert len({float(s) for s in np.array(layer.scales).ravel()}) > 1  # a scale per group, not one


def test_raw_forward_decodes_the_single_paths_tokens(quick_model):
    batch = prompts(3)
    raw = decode.Raw(quick_model, batch)
    raw.run(timing.Stopwatch(), 5)
    batched = decode.Batched(quick_model, batch, 64)
    batched.run(timing.Stopwatch(), 5)
    singles = [decode.Looped(quick_model, [p], 64) for p in batch]
    for single in singles:
        single.run(timing.Stopwatch(), 5)
    want = [s.sequences()[0] for s in singles]
    assert raw.decoded() == 6 and raw.sequences() == want
    assert batched.sequences() == want


def test_raw_forward_refuses_prompts_of_different_lengths(quick_model):
    with pytest.raises(ValueError, match="one length"):
        decode.Raw(quick_model, [[1, 2, 3], [4, 5]])


def test_synthetic_cache_holds_the_context_and_rewinds_to_it(quick_model):
    cache = decode.synthetic_cache(quick_model, batch=2, context=300, dtype=mx.float32, slack=16)
    full = [c for c in cache if hasattr(c, "offset")]
    assert full and all(c.offset == 300 and c.keys.shape == (2, 2, 316, 64) for c in full)
    raw = decode.Raw(quick_model, cache=cache, first=[5, 6])
    raw.run(timing.Stopwatch(), 3)
    assert all(c.offset == 303 for c in full) and all(c.keys.shape[2] == 316 for c in full)  # written in place
    decode.rewind(cache, 300)
    assert all(c.offset == 300 for c in full)


def test_split_steps_add_up_to_the_step(quick_model):
    raw = decode.Raw(quick_model, prompts(2))
    rows = decode.split_steps(raw, seconds=0.0, max_steps=3)
    assert len(rows) == 1 and raw.decoded() == 2  # seconds 0: one step
    rows = decode.split_steps(raw, seconds=10.0, max_steps=3)
    assert len(rows) == 3 and raw.decoded() == 5
    for r in rows:
        assert r["build_ms"] + r["launch_ms"] + r["wait_ms"] == pytest.approx(r["step_ms"])
        assert 0 < r["host_share"] <= 1 and r["build_cpu_ms"] >= 0


# -- the GPU log: a separate process, whatever the machine has ---------------------------------------------

FAKE_NVML = """
NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0
class NVMLError(Exception): pass
class _U:
    gpu, memory = 87, 40
def nvmlInit(): pass
def nvmlDeviceGetHandleByIndex(i): return i
def nvmlDeviceGetName(h): return "Fake GPU"
def nvmlSystemGetDriverVersion(): return "1.0"
def nvmlDeviceGetUtilizationRates(h): return _U()
def nvmlDeviceGetClockInfo(h, which): return 1980 if which == NVML_CLOCK_SM else 3201
def nvmlDeviceGetPowerUsage(h): return 250500
def nvmlDeviceGetTemperature(h, which): raise NVMLError("not supported")
def nvmlDeviceGetCurrentClocksThrottleReasons(h): return 0
"""

FAKE_SMI = """#!/bin/sh
while true; do echo "$(date -u '+%Y/%m/%d %H:%M:%S').250, 55, 20, 1755, 3201, 300.50, 41, 0x0"; sleep 0.02; done
"""


def run_logger(tmp_path, seconds=0.6):
    log = gpu_log.GpuLog(tmp_path / "gpu.csv")
    began = time.time()
    log.start()
    time.sleep(seconds)
    rows, source = log.stop()
    return rows, source, began


def test_gpu_log_without_nvml_or_nvidia_smi_says_why_and_has_no_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi; the CPU test machine has no pynvml
    monkeypatch.setenv("PYTHONPATH", "")
    rows, source, _ = run_logger(tmp_path, 0.3)
    assert rows == []
    assert source.startswith("unavailable: nvml_loop: ") and "no nvidia-smi on PATH" in source


def test_gpu_log_reads_nvml_in_its_own_process(tmp_path, monkeypatch):
    (tmp_path / "pynvml.py").write_text(FAKE_NVML)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    rows, source, began = run_logger(tmp_path)
    assert source == "nvml: Fake GPU, index 0, driver 1.0"
    assert len(rows) >= 5  # every ~20 ms
    assert all(began <= r["unix_s"] <= time.time() for r in rows)
    assert rows[0]["gpu_util_pct"] == 87 and rows[0]["power_w"] == pytest.approx(250.5)
    assert rows[0]["temperature_c"] == ""  # a reading that failed stays blank


def test_gpu_log_falls_back_to_nvidia_smi(tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TZ", "UTC")
    rows, source, began = run_logger(tmp_path)
    assert source.startswith("nvidia-smi --query-gpu timestamp,utilization.gpu")
    assert rows and rows[0]["sm_clock_mhz"] == 1755 and abs(rows[0]["unix_s"] - began) < 5


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (10.0, 10.05, {"gpu_readings": 3, "gpu_util_pct": 50.0, "sm_clock_mhz_min": 1500.0, "power_w": 200.0}),
        (10.02, 10.02, {"gpu_readings": 1, "gpu_util_pct": 60.0, "sm_clock_mhz_min": 1980.0}),
        (11.0, 12.0, {"gpu_readings": 0, "gpu_util_pct": "", "power_w": ""}),
    ],
)
def test_window_summarises_the_readings_inside_a_sample(start, end, expected):
    rows = [
        {"unix_s": 10.00, "gpu_util_pct": 40.0, "sm_clock_mhz": 1500.0, "mem_clock_mhz": 3201.0, "power_w": 190.0},
        {"unix_s": 10.02, "gpu_util_pct": 60.0, "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "power_w": 210.0},
        {"unix_s": 10.04, "gpu_util_pct": 50.0, "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "power_w": ""},
    ]
    got = gpu_log.window(rows, start, end)
    assert {k: got[k] for k in expected} == expected


def test_bf16_paths_are_compared_with_an_fp32_step_on_the_same_weights():
    """The GPU's dtype, exercised here: every path's first step against fp32, the packed words shared."""
    from probes import whole_graph

    mx.random.seed(0)
    model = model_build.build(QUICK, mx.bfloat16)
    batch = prompts(2)
    runners = {("raw", 2): decode.Raw(model, batch, keep_first=2), ("batched", 2): decode.Batched(model, batch, 64, 2)}
    for runner in runners.values():
        runner.run(timing.Stopwatch(), 3)
    cfg = {"agreement_sequences": 2, "batches": (2,), "agreement_tokens": 4, "max_tokens": 64}
    failed = []
    tables = whole_graph.agreement_tables(model, QUICK, runners, batch, cfg, failed)
    assert failed == [] and set(tables) == {"agreement.csv", "divergence.csv", "first_step.csv"}
    first = tables["first_step.csv"]
    assert {(f["mode"], f["batch"]) for f in first} == {("raw", 2), ("batched", 2), ("single", 1)}
    for f in first:
        assert 0 < f["max_abs_error"] < 5 and f["rms_error"] <= f["max_abs_error"]  # bf16 (on the CPU: bf16 sums)
        assert f["same_top1"] == (f["top1"] == f["top1_fp32"]) and f["margin_fp32"] >= 0
    model32 = dict(tree_flatten(__import__("probes.agreement").agreement.as_float32(model, QUICK).parameters()))
    for name, array in tree_flatten(model.parameters()):
        want = mx.float32 if mx.issubdtype(array.dtype, mx.floating) else array.dtype
        assert model32[name].dtype == want and model32[name].shape == array.shape, name


def test_an_optional_part_that_fails_is_recorded_and_the_run_goes_on():
    from probes import budget

    failed = []
    assert budget.attempt(failed, "split raw/4", lambda: 1 / 0, default=[]) == []
    assert budget.attempt(failed, "fine", lambda x: x + 1, 1, default=0) == 2
    assert failed == ["split raw/4: ZeroDivisionError: division by zero"]


@pytest.mark.parametrize(
    "costs, order, seconds, kept, dropped",
    [
        (
            {"raw/1": 1.0, "raw/64": 2.0, "raw/256": 4.0},
            ["raw/256", "raw/64"],
            70.0,
            ["raw/1", "raw/64", "raw/256"],
            [],
        ),
        ({"raw/1": 1.0, "raw/64": 2.0, "raw/256": 4.0}, ["raw/256", "raw/64"], 30.0, ["raw/1", "raw/64"], ["raw/256"]),
        ({"raw/1": 1.0, "raw/64": 2.0, "raw/256": 4.0}, ["raw/256", "raw/64"], 5.0, ["raw/1"], ["raw/256", "raw/64"]),
    ],
)
def test_settings_are_dropped_in_order_until_their_rounds_fit(costs, order, seconds, kept, dropped):
    from probes import budget

    assert budget.fit_settings(costs, order, seconds, rounds=9) == (kept, dropped)


def test_whole_graph_starts_the_baselines_first_and_the_tiny_model_last():
    """The gpu profile: the grid B = 1, 2, 4, 8, 16, 24, 32, 48, 64 (issue 33; B=256 with every setting alive ran
    out of memory on the H200)."""
    from probes import whole_graph

    profile = whole_graph.DECODE["gpu"]
    order = whole_graph.wanted(profile)
    assert order[:3] == [("raw", 1), ("batched", 1), ("single", 1)]
    assert order.index(("raw", 64)) < order.index(("raw", 2))  # the headline B before the fill-ins
    assert order[-2:] == [("tiny-raw", 64), ("tiny-width", 64)]
    assert max(b for _, b in order) == 64 and profile["batches"] == profile["raw_batches"] == whole_graph.GRID
    assert whole_graph.GRID == (1, 2, 4, 8, 16, 24, 32, 48, 64)
    expected = 2 * len(profile["batches"]) + 1 + len(profile["looped_batches"]) + 2 * len(profile["tiny_batches"])
    assert len(order) == len(set(order)) == expected == 29
    replicate = whole_graph.wanted(whole_graph.DECODE["gpu-replicate"])
    assert {m for m, _ in replicate} == {"raw", "batched", "single"} and len(replicate) == 19
    assert whole_graph.DECODE["gpu-replicate"]["parts"] == ()


def test_h200_plan_runs_a_replicate_call_and_packs_its_runs_with_its_log(tmp_path):
    """scripts/h200 as a replicate device call runs it, at the quick profile on this CPU (a dry run)."""
    import subprocess
    import tarfile

    env = {**os.environ, "H200_PROFILE": "quick", "H200_PYTHON": sys.executable, "H200_WORK": str(tmp_path / "work"),
           "OUT": str(tmp_path / "out")}  # fmt: skip
    done = subprocess.run(
        [str(ROOT / "scripts/h200"), "replicate", "a"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["replicate-a.log", "replicate-a.tar"]
    names = tarfile.open(tmp_path / "out/replicate-a.tar").getnames()
    probes = {n.split("/")[2] for n in names if n.count("/") >= 3 and n.endswith("manifest.json")}
    assert probes == {"context", "whole_graph", "raw_step", "moe"} and "replicate-a/replicate-a.log" in names
    log = (tmp_path / "out/replicate-a.log").read_text()
    assert log.count("end: exit 0") == 4  # each probe in its own process
    assert "--profile quick-replicate" in log and "probes.raw_step --profile quick" in log
    done = subprocess.run(
        [str(ROOT / "scripts/h200"), "whole-graph"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr  # call 2's probe: the full profile, packed the same way
    names = tarfile.open(tmp_path / "out/whole-graph.tar").getnames()
    runs = [n for n in names if n.startswith("whole-graph/measurements/whole_graph/") and n.endswith("/steps.csv")]
    assert len(runs) == 1 and "whole-graph/whole-graph.log" in names
    usage = subprocess.run([str(ROOT / "scripts/h200"), "nothing"], capture_output=True, text=True)
    assert usage.returncode == 2 and "scripts/h200 whole-graph" in usage.stdout
    assert subprocess.run([str(ROOT / "scripts/h200"), "replicate", "d"], capture_output=True).returncode == 2


def test_gpu_busy_child_that_fails_or_hangs_is_recorded_and_never_raises(tmp_path):
    """The whole-graph run is written whatever happens to its profiling process."""
    from probes import gpu_busy

    rows, steps, record = gpu_busy.measure({"shapes": "quick"}, 60, tmp_path)
    assert (rows, steps, record["measured"]) == ([], [], False)
    assert record["why"].startswith("torch is not importable here")  # this machine: no torch, the CPU backend
    (tmp_path / "gpu_busy-out.json").unlink()
    (tmp_path / "gpu_busy-out.json").mkdir()  # the child cannot write its answer: it fails
    rows, _, record = gpu_busy.measure({"shapes": "quick"}, 60, tmp_path)
    assert rows == [] and record["measured"] is False
    assert record["why"].startswith("the profiling process failed (exit 1): ") and "IsADirectoryError" in record["why"]
    rows, _, record = gpu_busy.measure({"shapes": "quick"}, 0.001, tmp_path)  # far too short: the child is stopped
    assert rows == [] and record == {"measured": False, "why": "the profiling process ran past its 0 s limit"}


def test_gpu_busy_fingerprint_tells_the_checked_model_from_another(quick_model):
    from probes import gpu_busy

    mx.random.seed(0)
    same = model_build.build(QUICK, mx.float32)
    mx.random.seed(1)
    other = model_build.build(QUICK, mx.float32)
    assert gpu_busy.fingerprint(same) == gpu_busy.fingerprint(quick_model) != gpu_busy.fingerprint(other)


def test_whole_graph_drops_the_extras_then_the_fill_ins_and_never_the_baselines():
    from probes import whole_graph

    names = [f"{m}/{b}" for m, b in whole_graph.wanted(whole_graph.DECODE["gpu"])]
    order = whole_graph.drop_order(names)
    assert order[:8] == ["tiny-raw/64", "tiny-width/64", "tiny-raw/16", "tiny-width/16", "tiny-raw/4",
                         "tiny-width/4", "tiny-raw/1", "tiny-width/1"]  # fmt: skip
    assert order[8:10] == ["looped/4", "looped/2"]
    assert order[10:] == ["batched/48", "raw/48", "batched/32", "raw/32", "batched/24", "raw/24", "batched/64",
                          "raw/64", "batched/8", "raw/8", "batched/2", "raw/2"]  # fmt: skip
    kept = set(names) - set(order)
    assert kept == {"raw/1", "batched/1", "single/1", "raw/4", "batched/4", "raw/16", "batched/16"}
