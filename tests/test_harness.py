"""The probes' pure helpers: statistics, names, the batching decomposition, the 4-bit reference, sizes."""

import math
import sys
from pathlib import Path

import pytest

mx = pytest.importorskip("mlx.core")  # the probes need MLX; without it there is nothing to test
np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # probes/ runs from the repo root

from probes import harness  # noqa: E402
from probes.bandwidth import fit_sizes  # noqa: E402
from probes.memory import kv_bytes_per_token, layer_counts, linear_state_bytes  # noqa: E402
from probes.moe import monte_carlo_touched, touched_experts  # noqa: E402


@pytest.mark.parametrize(
    "samples, expected",
    [
        ([1.2, 1.1, 1.4], harness.Spread(median=1.2, low=1.1, high=1.4, rounds=3)),
        ([2.0], harness.Spread(2.0, 2.0, 2.0, 1)),
        ([4.0, 1.0, 3.0, 2.0], harness.Spread(2.5, 1.0, 4.0, 4)),
    ],
)
def test_spread_is_median_min_max_and_round_count(samples, expected):
    assert harness.spread(samples) == expected


@pytest.mark.parametrize(
    "system, backend, device, expected",
    [
        ("Linux", "cpu", "AMD EPYC", "linux-cpu"),
        ("Darwin", "cpu", "Apple M1 Max", "macos-cpu"),
        ("Darwin", "metal", "Apple M1 Max", "apple-m1-max"),
        ("Darwin", "metal", "Apple M3 Ultra", "apple-m3-ultra"),
        ("Linux", "cuda", "NVIDIA H200", "nvidia-h200"),
        ("Linux", "cuda", "H100 80GB HBM3", "nvidia-h100-80gb-hbm3"),
        ("Linux", "cuda", "", "nvidia-gpu"),
    ],
)
def test_default_testbed_name_follows_os_backend_and_device(system, backend, device, expected):
    assert harness.testbed_name(system, backend, device) == expected


S = harness.Spread


@pytest.mark.parametrize(
    "batch, seconds, nbytes, base_seconds, base_bytes, expected",
    [
        # weights shared (batched): 16 tokens in 4x the time -> 4x faster per token, bytes/token 1/16, bandwidth 1/4
        (
            16,
            S(0.016, 0.015, 0.02, 7),
            100,
            S(0.004, 0.004, 0.005, 7),
            100,
            {
                "ms_per_token": 1.0,
                "speedup": 4.0,
                "byte_ratio": 16.0,
                "bandwidth_ratio": 0.25,
                "predicted_speedup": 4.0,
            },
        ),
        # weights re-read per token (looped): time grows with B, nothing gained
        (
            4,
            S(0.008, 0.008, 0.008, 7),
            400,
            S(0.002, 0.002, 0.002, 7),
            100,
            {"ms_per_token": 2.0, "speedup": 1.0, "byte_ratio": 1.0, "bandwidth_ratio": 1.0, "predicted_speedup": 1.0},
        ),
        # the write-up's MoE shape: byte ratio 1.3 x bandwidth ratio 2.75 = 3.59
        (
            16,
            S(0.716e-3, 0.7e-3, 0.8e-3, 7),
            16 * 7.2e6,
            S(0.1607e-3, 0.16e-3, 0.17e-3, 7),
            9.36e6,
            {"byte_ratio": 1.3, "speedup": 3.591},
        ),
    ],
)
def test_batching_figures_split_speedup_into_byte_and_bandwidth_ratio(
    batch, seconds, nbytes, base_seconds, base_bytes, expected
):
    got = harness.batching_figures(batch, seconds, nbytes, base_seconds, base_bytes)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-3), key
    assert got["predicted_speedup"] == pytest.approx(got["speedup"])


def test_timing_columns_are_per_unit_milliseconds():
    assert harness.timing_columns(S(0.02, 0.01, 0.04, 7), per=2) == {
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
    got = harness.unpack(np.array(wq), np.array(scales), np.array(biases), group_size, bits)
    np.testing.assert_array_equal(got, want)


def swapped_nibbles(wq, scales, biases, group_size, bits):
    """A wrong unpacker: the two nibbles of every byte exchanged (high nibble read first)."""
    swapped = ((wq & np.uint32(0x0F0F0F0F)) << 4) | ((wq >> 4) & np.uint32(0x0F0F0F0F))
    return CORRECT_UNPACK(swapped, scales, biases, group_size, bits)


CORRECT_UNPACK = harness.unpack


def test_swapped_nibble_unpacker_is_far_outside_tolerance():
    w = mx.random.normal((64, 256), key=mx.random.key(0))
    wq, scales, biases = mx.quantize(w, group_size=64, bits=4)
    x = np.random.default_rng(0).standard_normal((4, 256)).astype(np.float32)
    got = np.array(mx.quantized_matmul(mx.array(x), wq, scales, biases, transpose=True, group_size=64, bits=4))
    right = x @ harness.unpack(np.array(wq), np.array(scales), np.array(biases), 64, 4).T
    wrong = x @ swapped_nibbles(np.array(wq), np.array(scales), np.array(biases), 64, 4).T
    assert harness.relative_error(got, right) < harness.TOLERANCE["float32"]
    assert harness.relative_error(got, wrong) > 10 * harness.TOLERANCE["bfloat16"]  # ~1: as large as the signal


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
    assert harness.relative_error(got, want) == expected


def test_time_interleaved_warms_then_runs_every_setting_once_per_round():
    calls = []

    def setting(name):
        def run(watch, reps):
            watch.start()
            calls.append((name, reps))
            watch.stop()

        return harness.Setting(run)

    result = harness.time_interleaved({"a": setting("a"), "b": setting("b")}, rounds=3, warmup=1)
    assert calls == [("a", 1), ("b", 1)] + [("a", 1), ("b", 1)] * 3
    assert {name: (spread.rounds, reps) for name, (spread, reps) in result.items()} == {"a": (3, 1), "b": (3, 1)}


def test_time_interleaved_repeats_short_settings_to_fill_a_sample():
    seen = []
    fast = harness.Setting(lambda watch, reps: seen.append(reps))  # never starts the clock: 0 s
    slow_calls = []
    slow = harness.Setting(lambda watch, reps: slow_calls.append(reps), repeatable=False)
    result = harness.time_interleaved({"fast": fast, "slow": slow}, rounds=2, min_sample_s=0.01, max_reps=8)
    assert result["fast"][1] == 8 and seen[-2:] == [8, 8]
    assert result["slow"][1] == 1 and slow_calls == [1, 1, 1]


@pytest.mark.parametrize("batch, expected", [(1, 8.0), (2, 15.75), (16, 101.96)])
def test_touched_experts_closed_form(batch, expected):
    assert touched_experts(256, 8, batch) == pytest.approx(expected, abs=0.01)


def test_monte_carlo_touched_experts_agrees_with_closed_form():
    counts = monte_carlo_touched(np.random.default_rng(0), 256, 8, 16, trials=2000)
    assert counts.mean() == pytest.approx(touched_experts(256, 8, 16), abs=4 * counts.std() / np.sqrt(2000))


def test_kv_and_state_bytes_of_the_writeup_model():
    assert layer_counts(harness.WRITEUP_MODEL) == (10, 30)
    assert kv_bytes_per_token(harness.WRITEUP_MODEL, 2) == 10 * 2 * 2 * 256 * 2 == 20480
    assert linear_state_bytes(harness.WRITEUP_MODEL, 2) == 30 * (32 * 128 * 128 * 4 + 3 * 8192 * 2)


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
