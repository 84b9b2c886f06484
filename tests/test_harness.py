"""The probes' pure helpers: statistics, names, the batching decomposition, the fit, the 4-bit reference, sizes."""

import dataclasses
import math
import statistics
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.probes

mx = pytest.importorskip("mlx.core")  # the probes need MLX; without it there is nothing to test
np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # probes/ runs from the repo root

from probes import columns, config, environment, gpu_busy, model_build, reference, step_rows, timing  # noqa: E402
from probes.agreement import first_divergence  # noqa: E402
from probes.bandwidth import fit_sizes  # noqa: E402
from probes.matvec import sweep_cache, sweep_rows  # noqa: E402
from probes.moe import monte_carlo_touched, touched_experts  # noqa: E402


@pytest.mark.parametrize(
    "samples, expected",
    [
        ([1.2, 1.1, 1.4], timing.Spread(median=1.2, low=1.1, high=1.4, rounds=3)),
        ([2.0], timing.Spread(2.0, 2.0, 2.0, 1)),
        ([4.0, 1.0, 3.0, 2.0], timing.Spread(2.5, 1.0, 4.0, 4)),
    ],
)
def test_spread_is_median_min_max_and_round_count(samples, expected):
    assert timing.spread(samples) == expected


@pytest.mark.parametrize(
    "system, backend, device, cpu, expected",
    [
        ("Linux", "cpu", "cpu", "AMD EPYC", "linux-cpu-amd-epyc"),
        ("Linux", "cpu", "cpu", "Intel(R) Xeon(R) Processor @ 2.80GHz", "linux-cpu-intel-xeon"),
        ("Linux", "cpu", "cpu", "AMD EPYC 7763 64-Core Processor", "linux-cpu-amd-epyc-7763"),
        ("Linux", "cpu", "cpu", "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz", "linux-cpu-intel-core-i7-9750h"),
        ("Linux", "cpu", "cpu", "unknown", "linux-cpu"),
        ("Darwin", "cpu", "Apple M1 Max", "Apple M1 Max", "macos-cpu-apple-m1-max"),
        ("Darwin", "metal", "Apple M1 Max", "Apple M1 Max", "apple-m1-max"),
        ("Darwin", "metal", "Apple M3 Ultra", "Apple M3 Ultra", "apple-m3-ultra"),
        ("Linux", "cuda", "NVIDIA H200", "Intel(R) Xeon(R) Processor", "nvidia-h200"),  # the host CPU: environment
        ("Linux", "cuda", "H100 80GB HBM3", "AMD EPYC", "nvidia-h100-80gb-hbm3"),
        ("Linux", "cuda", "", "", "nvidia-gpu"),
    ],
)
def test_default_testbed_name_follows_os_backend_device_and_cpu(system, backend, device, cpu, expected):
    assert environment.testbed_name(system, backend, device, cpu) == expected


def timed_of(*seconds, first_round=0):
    """A setting's result with these seconds per call, one per round from first_round on."""
    samples = tuple(timing.Sample(first_round + i, 1, x, 0.0, x, x, None) for i, x in enumerate(seconds))
    return timing.Timed(timing.spread(seconds), 1, samples, "fixed")


@pytest.mark.parametrize(
    "batch, seconds, nbytes, base_seconds, base_bytes, expected",
    [
        # weights shared (batched): 16 tokens in 4x the time -> 4x faster per token, bytes/token 1/16, bandwidth 1/4
        (16, (0.016, 0.015, 0.02), 100, (0.004, 0.004, 0.005), 100,
         {"ms_per_token": 1.0, "speedup": 4.0, "bandwidth_ratio": 0.25, "predicted_speedup": 4.0}),
        # weights re-read per token (looped): time grows with B, nothing gained
        (4, (0.008, 0.008, 0.008), 400, (0.002, 0.002, 0.002), 100,
         {"ms_per_token": 2.0, "speedup": 1.0, "bandwidth_ratio": 1.0, "predicted_speedup": 1.0}),
        # the write-up's MoE shape: byte ratio 1.3 x bandwidth ratio 2.75 = 3.59
        (16, (0.716e-3,), 16 * 7.2e6, (0.1607e-3,), 9.36e6, {"speedup": 3.591, "predicted_speedup": 3.591}),
    ],
)  # fmt: skip
def test_batching_values_split_speedup_into_byte_and_bandwidth_ratio_round_by_round(
    batch, seconds, nbytes, base_seconds, base_bytes, expected
):
    values = timing.batching_values(batch, timed_of(*seconds), nbytes, timed_of(*base_seconds), base_bytes)
    row, rounds = timing.rows_of({"batch": batch}, timed_of(*seconds), values)
    for key, value in expected.items():
        assert row[key] == pytest.approx(value, rel=1e-3), key
    ratio = timing.byte_ratio(batch, nbytes, base_bytes)
    for r in rounds:
        assert r["predicted_speedup"] == pytest.approx(ratio * r["bandwidth_ratio"])
        assert r["predicted_speedup"] == pytest.approx(r["speedup"])  # by construction, in every round


def test_batching_values_pair_rounds_and_results_are_their_medians():
    base, fast = timed_of(0.010, 0.012, 0.011), timed_of(0.005, 0.004, 0.0055)
    row, rounds = timing.rows_of({"batch": 2}, fast, timing.batching_values(2, fast, 100, base, 100))
    assert [r["speedup"] for r in rounds] == pytest.approx([2 * 0.010 / 0.005, 2 * 0.012 / 0.004, 2 * 0.011 / 0.0055])
    assert row["speedup"] == pytest.approx(4.0)  # the median of 4, 6, 4: no ratio of medians
    assert (row["speedup_min"], row["speedup_max"]) == pytest.approx((4.0, 6.0))
    assert row["gb_per_s_min"] == pytest.approx(100 / 0.0055 / 1e9) and row["reps"] == 1 and row["rounds"] == 3


def test_a_ratio_pairs_only_rounds_both_settings_ran():
    base, late = timed_of(1.0, 2.0, 3.0), timed_of(1.0, 1.0, first_round=1)
    values = timing.batching_values(1, late, 1, base, 1)
    assert values["speedup"] == {1: 2.0, 2: 3.0}


S = timing.Spread


def test_timing_columns_are_per_unit_milliseconds():
    assert timing.timing_columns(S(0.02, 0.01, 0.04, 7), per=2) == {
        "rounds": 7,
        "ms_min": 5.0,
        "ms_median": 10.0,
        "ms_max": 20.0,
    }


@pytest.mark.parametrize("bits", [2, 4, 8])
@pytest.mark.parametrize("group_size", [32, 64, 128])
def test_numpy_unpacker_matches_mlx_dequantize(bits, group_size):
    w = mx.random.normal((64, 256), key=mx.random.key(bits * group_size))
    wq, scales, biases = mx.quantize(w, group_size=group_size, bits=bits)
    want = np.array(mx.dequantize(wq, scales, biases, group_size=group_size, bits=bits))
    got = reference.unpack(np.array(wq), np.array(scales), np.array(biases), group_size, bits)
    np.testing.assert_array_equal(got, want)


def swapped_nibbles(wq, scales, biases, group_size, bits):
    """A wrong unpacker: the two nibbles of every byte exchanged (high nibble read first)."""
    swapped = ((wq & np.uint32(0x0F0F0F0F)) << 4) | ((wq >> 4) & np.uint32(0x0F0F0F0F))
    return CORRECT_UNPACK(swapped, scales, biases, group_size, bits)


CORRECT_UNPACK = reference.unpack


def test_swapped_nibble_unpacker_is_far_outside_tolerance():
    w = mx.random.normal((64, 256), key=mx.random.key(0))
    wq, scales, biases = mx.quantize(w, group_size=64, bits=4)
    x = np.random.default_rng(0).standard_normal((4, 256)).astype(np.float32)
    got = np.array(mx.quantized_matmul(mx.array(x), wq, scales, biases, transpose=True, group_size=64, bits=4))
    right = x @ reference.unpack(np.array(wq), np.array(scales), np.array(biases), 64, 4).T
    wrong = x @ swapped_nibbles(np.array(wq), np.array(scales), np.array(biases), 64, 4).T
    assert reference.relative_error(got, right) < reference.TOLERANCE["float32"]
    assert reference.relative_error(got, wrong) > 10 * reference.TOLERANCE["bfloat16"]  # ~1: as large as the signal


@pytest.mark.parametrize(
    "got, want, expected",
    [
        (np.array([1.0, 2.0]), np.array([1.0, 2.0]), 0.0),
        (np.array([1.0, 2.5]), np.array([1.0, 2.0]), 0.25),
        (np.array([1.0, np.nan]), np.array([1.0, 2.0]), math.inf),
        (np.array([1.0]), np.array([1.0, 2.0]), math.inf),
    ],
)
def test_relative_error_is_max_abs_difference_over_max_reference(got, want, expected):
    assert reference.relative_error(got, want) == expected


def test_time_interleaved_warms_then_runs_every_setting_once_per_round():
    calls = []

    def setting(name):
        def run(watch, reps):
            watch.start()
            calls.append((name, reps))
            watch.stop()

        return timing.Setting(run)

    result = timing.time_interleaved({"a": setting("a"), "b": setting("b")}, timing.fixed(3), warmup=1)
    assert calls == [("a", 1), ("b", 1)] + [("a", 1), ("b", 1)] * 3
    assert {name: (t.spread.rounds, t.reps, t.stop) for name, t in result.items()} == {
        "a": (3, 1, "fixed"),
        "b": (3, 1, "fixed"),
    }


def test_time_interleaved_repeats_short_settings_to_fill_a_sample():
    seen = []
    fast = timing.Setting(lambda watch, reps: seen.append(reps))  # never starts the clock: 0 s
    slow_calls = []
    slow = timing.Setting(lambda watch, reps: slow_calls.append(reps), repeatable=False)
    result = timing.time_interleaved({"fast": fast, "slow": slow}, timing.fixed(2), min_sample_s=0.01, max_reps=8)
    assert result["fast"].reps == 8 and seen == [1, 1, 1, 8, 8]  # warm-up, two calibration calls, two rounds
    assert result["slow"].reps == 1 and slow_calls == [1, 1, 1]


@pytest.mark.parametrize("batch, expected", [(1, 8.0), (2, 15.75), (16, 101.96)])
def test_touched_experts_closed_form(batch, expected):
    assert touched_experts(256, 8, batch) == pytest.approx(expected, abs=0.01)


def test_monte_carlo_touched_experts_agrees_with_closed_form():
    counts = monte_carlo_touched(np.random.default_rng(0), 256, 8, 16, trials=2000)
    assert counts.mean() == pytest.approx(touched_experts(256, 8, 16), abs=4 * counts.std() / np.sqrt(2000))


def test_kv_and_state_bytes_of_the_writeup_model():
    model = config.WRITEUP_MODEL
    assert model.layer_counts() == (10, 30)
    assert model.kv_bytes_per_token(2) == 10 * 2 * 2 * 256 * 2 == 20480
    assert model.linear_state_bytes(2) == 30 * (32 * 128 * 128 * 4 + 3 * 8192 * 2)


def test_model_config_is_a_frozen_record_that_scales_and_writes_mlx_lm_fields():
    model = config.WRITEUP_MODEL
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.hidden_size = 1  # frozen
    cfg = model.mlx_lm()
    assert cfg["model_type"] == "qwen3_5_moe" and "name" not in cfg
    assert cfg["rope_parameters"] == {"type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25}
    small = model.scaled("small", hidden_size=256)
    assert small.hidden_size == 256 and small.num_hidden_layers == 40
    assert small.changes_from(model) == {"hidden_size": {"writeup": 2048, "here": 256}}
    tiny = config.tiny_width(config.PROFILE_MODELS["default"])
    assert tiny.num_hidden_layers == 8 and tiny.full_attention_interval == 4 and tiny.hidden_size == 128
    assert config.PROFILE_MODELS["gpu"] is model


@pytest.mark.parametrize(
    "sizes, budget, copies, expected",
    [
        ([1, 2, 4, 8], None, 2, [1, 2, 4, 8]),
        ([1, 2, 4, 8], 2 * 7 << 20, 2, [1, 2, 4]),
        ([8, 1, 2], 2 * 3 << 20, 2, [1, 2]),
        ([4], 1 << 20, 2, []),
    ],
)
def test_fit_sizes_keeps_the_smallest_buffers_that_fit(sizes, budget, copies, expected):
    assert fit_sizes(sizes, budget, copies) == expected


@pytest.mark.parametrize(
    "xs, ys, expected",
    [
        ([1, 2, 4], [3, 5, 9], (1.0, 2.0, 1.0)),  # exact line: fixed 1, slope 2
        ([1, 2, 4, 8, 16], [10, 10, 10, 10, 10], (10.0, 0.0, 1.0)),  # flat: all fixed cost
        ([0, 1, 2, 3], [0, 1, 1, 2], (0.1, 0.6, 0.9)),
    ],
)
def test_linear_fit_is_least_squares_with_r2(xs, ys, expected):
    assert timing.linear_fit(xs, ys) == pytest.approx(expected)


@pytest.mark.parametrize("xs, ys", [([1], [2]), ([2, 2], [1, 3]), ([1, 2], [1])])
def test_linear_fit_refuses_too_few_or_identical_points(xs, ys):
    with pytest.raises(ValueError):
        timing.linear_fit(xs, ys)


def test_spread_columns_follow_the_min_max_convention():
    s = timing.spread([0.002, 0.001, 0.004])
    assert s.ratio == 4.0 and s.samples == (0.002, 0.001, 0.004)
    assert timing.time_span("step_ms", s) == {"step_ms": 2.0, "step_ms_min": 1.0, "step_ms_max": 4.0}
    assert timing.rate_span("tok_per_s", 8, s) == {
        "tok_per_s": 4000.0,
        "tok_per_s_min": 2000.0,
        "tok_per_s_max": 8000.0,
    }
    base = timing.spread([0.004, 0.004, 0.004])
    ratio = timing.ratio_span("speedup", base, s, factor=2)  # round by round: 8, 4, 2
    assert ratio == {"speedup": 4.0, "speedup_min": 2.0, "speedup_max": 8.0}


@pytest.mark.parametrize(
    "indices, expected",
    [
        (np.array([[0, 1], [1, 2]]), 3),
        (np.array([[[5, 5, 5]]]), 1),
        (np.arange(16).reshape(4, 4), 16),
    ],
)
def test_touched_count_is_distinct_experts(indices, expected):
    assert model_build.touched_count(indices) == expected


COMPONENTS = {
    "layers": [
        {"attention": 100, "norms": 2, "router": 8, "shared_expert": 40, "expert_bytes": 10},
        {"attention": 60, "norms": 2, "router": 8, "shared_expert": 40, "expert_bytes": 10},
    ],
    "embedding_row": 4,
    "final_norm": 1,
    "lm_head": 500,
}


@pytest.mark.parametrize(
    "touched, batch, reads, want_weights",
    [
        ([2, 3], 1, 1, 761 + 50 + 4),  # shared 761 once, 5 experts x 10, one embedding row
        ([8, 8], 4, 1, 761 + 160 + 16),  # B=4: experts touched once each, 4 embedding rows
        ([8, 8], 4, 4, 4 * 761 + 160 + 16),  # looped: the shared weights read once per sequence
    ],
)
def test_step_bytes_counts_shared_weights_touched_experts_and_per_sequence_state(touched, batch, reads, want_weights):
    got = model_build.step_bytes(
        COMPONENTS, touched, batch, state_bytes=7, kv_bytes_per_token=3, context=10, shared_reads=reads
    )
    assert got["weight_bytes_per_step"] == want_weights
    assert got["state_bytes_per_step"] == batch * 2 * 7 and got["kv_bytes_per_step"] == batch * 3 * 10
    assert got["bytes_per_step"] == want_weights + batch * 14 + batch * 30


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ([1, 2, 3], [1, 2, 3], None),
        ([1, 2, 3], [1, 5, 3], 1),
        ([4], [5, 6], 0),
        ([1, 2], [1, 2, 9], None),
    ],
)
def test_first_divergence_over_the_common_length(a, b, expected):
    assert first_divergence(a, b) == expected


@pytest.mark.parametrize(
    "min_rows, max_rows, points, expected",
    [
        (512, 512 * 64, 7, [512, 1024, 2048, 4096, 8192, 16384, 32768]),
        (128, 100, 3, [128]),
        (64, 256, 3, [64, 128, 256]),
    ],
)
def test_sweep_rows_are_geometric_multiples_of_64(min_rows, max_rows, points, expected):
    assert sweep_rows(min_rows, max_rows, points) == expected


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"backend": "cpu", "cpu_last_level_cache_bytes": 48 << 20, "device_l2_cache_bytes": 1 << 20}, 48 << 20),
        ({"backend": "cuda", "device_l2_cache_bytes": 60 << 20, "device_l2_cache_source": "x"}, 60 << 20),
        ({"backend": "cuda", "device_l2_cache_bytes": None}, 64 << 20),
    ],
)
def test_sweep_crosses_the_last_level_cache_on_cpu_and_l2_on_gpu(env, expected):
    assert sweep_cache(env)[0] == expected


@pytest.mark.parametrize(
    "text, expected", [("48K", 49152), ("1280K", 1310720), ("2M", 2 << 20), ("512", 512), ("x", None)]
)
def test_parse_cache_size(text, expected):
    assert environment.parse_cache_size(text) == expected


def test_cpu_caches_read_from_a_sysfs_tree(tmp_path):
    for index, (level, kind, size) in enumerate([(1, "Data", "48K"), (2, "Unified", "1280K"), (3, "Unified", "48M")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", "0")):
            (folder / name).write_text(f"{value}\n")
    caches = environment.cpu_caches(tmp_path)
    assert [(c["level"], c["size_bytes"]) for c in caches] == [(1, 49152), (2, 1310720), (3, 48 << 20)]


def test_core_counts_include_the_affinity_set():
    counts = environment.core_counts()
    assert counts["cpu_count"] >= 1 and 1 <= counts["cpu_affinity_count"] <= counts["cpu_count"]


def test_bandwidth_summary_picks_ceiling_and_cache_peak_and_pairs_their_ratio_by_round():
    from probes.bandwidth import summarise_sweep

    mib = 1 << 20
    seconds = {  # (impl, op, size MiB) -> seconds per call in rounds 0, 1
        ("torch", "read_all", 16): (16 * mib / 5e12, 16 * mib / 4e12),  # 5000 then 4000 GB/s: in L2
        ("torch", "read_all", 256): (256 * mib / 4e12, 256 * mib / 4e12),
        ("torch", "copy", 16): (32 * mib / 6e12, 32 * mib / 3e12),
        ("torch", "copy", 256): (512 * mib / 3e12, 512 * mib / 3e12),
    }
    timed = {key: timed_of(*xs) for key, xs in seconds.items()}
    moved = {key: key[2] * mib * (2 if key[1] == "copy" else 1) for key in seconds}
    rows = [
        {"impl": i, "op": o, "size_mib": n, "gb_per_s": statistics.median(moved[(i, o, n)] / x / 1e9 for x in xs)}
        for (i, o, n), xs in seconds.items()
    ]
    summary, rounds = summarise_sweep(rows, timed, moved, ceiling_min_mib=128)
    got = {(r["figure"], r["op"]): (r["best_op"], r["size_mib"], r["over_ceiling"]) for r in summary}
    assert got[("ceiling", "read")] == ("read_all", 256, 1.0)
    assert got[("cache_peak", "read")] == pytest.approx(("read_all", 16, 1.125))  # median of 5/4 and 4/4
    assert got[("cache_peak", "copy")] == pytest.approx(("copy", 16, 1.5))  # median of 6/3 and 3/3
    assert got[("ceiling", "any")][:2] == ("read_all", 256) and ("cache_peak", "any") not in got
    assert len(rounds) == 2 * len(summary)


@pytest.mark.parametrize(
    "values, q, expected",
    [
        ([5.0], 0.9, 5.0),
        ([3.0, 1.0, 2.0], 0.9, 3.0),  # ceil(2.7) = 3rd smallest
        (list(range(1, 11)), 0.9, 9),  # ceil(9.0) = 9th
        (list(range(1, 21)), 0.9, 18),
        (list(range(1, 12)), 0.9, 10),  # ceil(9.9) = 10th
        ([4.0, 2.0], 0.5, 2.0),
    ],
)
def test_percentile_is_the_nearest_rank(values, q, expected):
    assert step_rows.percentile(values, q) == expected


def test_step_intervals_count_a_generators_steps_after_the_first_of_each_sample():
    t = timing.Timed(
        timing.spread([0.02, 0.03]),
        2,
        (timing.Sample(4, 2, 0.02, 0.0, 0.05, 0.05, None), timing.Sample(5, 2, 0.03, 0.0, 0.07, 0.07, None)),
        "fixed",
    )
    calls = [[0.5], [0.001, 0.019], [0.002, 0.028]]  # a warm-up call first, then the two timed samples
    rows = step_rows.step_intervals(t, calls, pipelined=True)
    assert [(r["round"], r["step"], r["counted"]) for r in rows] == [(4, 0, False), (4, 1, True), (5, 0, False),
                                                                     (5, 1, True)]  # fmt: skip
    assert step_rows.latency_columns(rows) == {"step_ms_p90": pytest.approx(28.0), "p90_steps": 2}
    assert all(r["counted"] for r in step_rows.step_intervals(t, calls, pipelined=False))
    with pytest.raises(ValueError, match="recorded samples"):
        step_rows.step_intervals(t, [[0.01]], pipelined=False)


@pytest.mark.parametrize(
    "intervals, start, end, expected",
    [
        ([], 0.0, 10.0, 0.0),
        ([(1.0, 3.0)], 0.0, 10.0, 2.0),
        ([(1.0, 3.0), (2.0, 5.0)], 0.0, 10.0, 4.0),  # overlapping streams count once
        ([(1.0, 3.0), (4.0, 5.0)], 0.0, 10.0, 3.0),
        ([(-2.0, 1.0), (9.0, 12.0)], 0.0, 10.0, 2.0),  # clipped to the window
        ([(1.0, 9.0), (2.0, 3.0)], 0.0, 10.0, 8.0),  # one inside another
        ([(11.0, 12.0)], 0.0, 10.0, 0.0),
    ],
)
def test_busy_time_is_the_union_of_kernel_intervals_inside_the_step(intervals, start, end, expected):
    assert gpu_busy.union_length(intervals, start, end) == pytest.approx(expected)


def test_busy_share_per_step_and_over_the_unprofiled_step():
    windows = [(0.0, 10_000.0), (10_000.0, 30_000.0)]  # µs: a 10 ms and a 20 ms profiled step
    kernels = [(1_000.0, 4_000.0), (3_000.0, 6_000.0), (12_000.0, 22_000.0), (29_000.0, 31_000.0)]
    steps = gpu_busy.per_step(windows, kernels)
    assert [s["kernels"] for s in steps] == [2, 2]  # a kernel belongs to the step it starts in
    assert [s["kernel_busy_ms"] for s in steps] == pytest.approx([5.0, 11.0])  # clipped at the step's end
    assert [s["busy_share_profiled"] for s in steps] == pytest.approx([0.5, 0.55])
    row = gpu_busy.summary_row(4, [7.0, 9.0], steps)
    assert row["batch"] == 4 and row["steps"] == 2 and row["step_ms"] == 8.0
    assert row["kernel_busy_ms"] == pytest.approx(8.0) and row["busy_share"] == pytest.approx(1.0)
    assert row["busy_share_profiled"] == pytest.approx(0.525) and row["idle_ms"] == pytest.approx(0.0)


def test_the_gpu_only_tables_declare_every_value_column():
    """gpu_log.csv and gpu_busy.csv exist only on a GPU: their rows, made here, are declared all the same."""
    steps = gpu_busy.per_step([(0.0, 10_000.0)], [(1_000.0, 4_000.0)])
    busy = [gpu_busy.summary_row(4, [9.0], steps)]
    log = [{"unix_s": 1.7e9, "gpu_util_pct": 87, "mem_util_pct": 40, "sm_clock_mhz": 1980, "mem_clock_mhz": 3201,
            "power_w": 250.5, "temperature_c": "", "clock_event_reasons": 0}]  # fmt: skip
    declared, missing = columns.declare({"gpu_busy.csv": busy, "gpu_log.csv": log, "gpu_busy.samples.csv": steps})
    assert missing == [] and set(declared) == {"gpu_busy.csv", "gpu_log.csv"}
    assert declared["gpu_busy.csv"]["busy_share"] == ("", "timed")
    assert declared["gpu_busy.csv"]["kernel_busy_ms_max"] == ("ms", "timed")
    assert declared["gpu_log.csv"]["sm_clock_mhz"] == ("MHz", "timed")


@pytest.mark.parametrize(
    "column, own, expected",
    [
        ("step_ms", None, ("ms", "timed")),
        ("step_ms_p90", None, ("ms", "timed")),  # a suffix takes its base column's declaration
        ("speedup_vs_single_max", None, ("×", "timed")),
        ("bytes_per_step", None, ("B", "exact")),
        ("slope", None, None),  # a name whose unit depends on the table: the table declares it
        ("slope_min", {"slope": ("ms/MB", "timed")}, ("ms/MB", "timed")),
        ("made_up_column", None, None),
    ],
)
def test_a_columns_declaration_comes_from_its_table_then_the_shared_table_then_its_base(column, own, expected):
    assert columns.declaration(column, own) == expected


def test_every_shared_unit_is_one_the_gate_reads():
    from generator.lang import units

    for column, (unit, kind) in columns.UNITS.items():
        assert units.parse(unit) is not None and kind in ("timed", "exact"), column


def test_kernel_events_take_step_windows_from_the_host_and_work_from_the_device():
    from types import SimpleNamespace as Event

    def event(name, device, start, end):
        return Event(name=name, device_type=device, time_range=Event(start=start, end=end))

    events = [
        event(f"{gpu_busy.STEP_PREFIX}1", "CPU", 100.0, 200.0),
        event(f"{gpu_busy.STEP_PREFIX}0", "CPU", 0.0, 90.0),
        event(f"{gpu_busy.STEP_PREFIX}0", "CUDA", 5.0, 85.0),  # the range's device-side annotation: not work
        event("gemv_kernel", "CUDA", 10.0, 30.0),
        event("cudaLaunchKernel", "CPU", 9.0, 10.0),  # the host's launch call: neither
        event("Memcpy DtoD", "CUDA", 120.0, 130.0),
    ]
    windows, kernels = gpu_busy.kernel_events(events, "CUDA")
    assert windows == [(0.0, 90.0), (100.0, 200.0)]  # in step order
    assert kernels == [(10.0, 30.0), (120.0, 130.0)]
