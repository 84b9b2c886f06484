"""The probes' shared harness: profiles and arguments -> references, interleaved timing -> a run on disk.

The only timing code in probes/ lives here (Stopwatch, time_interleaved). A probe is shapes, kernels,
a reference check and rows; it calls start(), checks every kernel against a numpy reference, times
its settings with Session.time() and writes its tables with Session.write().
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Sequence

import mlx.core as mx
import numpy as np

from generator.runs import TESTBED_PATTERN, imported_code, write_run

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- profiles and arguments


@dataclass(frozen=True)
class Profile:
    """How hard a probe works: rounds, warm-up calls, batch sizes, shortest timed sample."""

    name: str
    rounds: int
    warmup: int
    batches: tuple[int, ...]
    min_sample_s: float  # repeat a kernel inside one sample until a sample lasts about this long
    max_reps: int


PROFILES = {
    "quick": Profile("quick", rounds=2, warmup=1, batches=(1, 2, 4), min_sample_s=0.0, max_reps=1),
    "default": Profile(
        "default", rounds=7, warmup=1, batches=(1, 2, 4, 8, 12, 16), min_sample_s=0.01, max_reps=64
    ),
    "gpu": Profile(
        "gpu", rounds=7, warmup=2, batches=(1, 2, 4, 8, 16, 32, 64, 128, 256),
        min_sample_s=0.005, max_reps=64,
    ),
}


def parse_args(probe: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line every probe shares: --profile, --testbed, --out."""
    parser = argparse.ArgumentParser(prog=f"python -m probes.{probe}", description=f"run the {probe} probe")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="default")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    return parser.parse_args(argv)


# ---------------------------------------------------------------- the write-up's model

# Qwen3.5/3.6-35B-A3B's text model in mlx_lm.models.qwen3_5_moe's field names (TextModelArgs). The values
# are the published architecture: 40 layers (every 4th full attention, the rest Gated DeltaNet), 16 query
# heads, 2 KV heads of 256, hidden 2048, 256 experts with 8 active of 512, a 512 shared expert, vocabulary
# 248320, linear attention 16 key / 32 value heads of 128, conv kernel 4 (as listed in THUDM/slime's
# scripts/models/qwen3.5-35B-A3B.sh, which qwen36-35B-A3B.sh reuses). No weights are downloaded.
WRITEUP_MODEL = {
    "model_type": "qwen3_5_moe", "hidden_size": 2048, "num_hidden_layers": 40, "full_attention_interval": 4,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 248320,
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8,
    "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "intermediate_size": 512,
    "rms_norm_eps": 1e-6, "max_position_embeddings": 262144, "tie_word_embeddings": False,
    "rope_parameters": {"type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
}
WRITEUP_MODEL_SOURCE = (
    "Qwen3.5/3.6-35B-A3B architecture as published (THUDM/slime scripts/models/qwen3.5-35B-A3B.sh: "
    "40 layers, linear-attention-freq 4, 16 heads, 2 query groups, kv-channels 256, hidden 2048, vocab "
    "248320, 256 experts top-8 of 512, shared expert 512, linear heads 16 key / 32 value of 128, conv 4), "
    "written in mlx_lm.models.qwen3_5.TextModelArgs field names"
)


# ---------------------------------------------------------------- pure helpers


@dataclass(frozen=True)
class Spread:
    """Median and range of repeated timings (seconds), with the number of rounds behind them."""

    median: float
    low: float
    high: float
    rounds: int


def spread(samples: Sequence[float]) -> Spread:
    """Samples -> Spread(median, low, high, rounds)."""
    if not samples:
        raise ValueError("spread of no samples")
    return Spread(statistics.median(samples), min(samples), max(samples), len(samples))


def slug(text: str) -> str:
    """'Apple M1 Max' -> 'apple-m1-max': lower case, runs of other characters -> '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def testbed_name(system: str, backend: str, device_name: str) -> str:
    """Default testbed: linux-cpu / macos-cpu on the CPU backend, apple-<chip> on Metal, nvidia-<gpu> on CUDA."""
    if backend == "cpu":
        return {"darwin": "macos"}.get(system.lower(), slug(system) or "unknown") + "-cpu"
    name = slug(device_name) or "gpu"
    vendor = {"metal": "apple", "cuda": "nvidia"}.get(backend, slug(backend))
    return name if name.startswith(vendor + "-") or name == vendor else f"{vendor}-{name}"


def batching_figures(
    batch: int,
    seconds: Spread,
    bytes_per_call: float,
    base_seconds: Spread,
    base_bytes_per_call: float,
) -> dict[str, float]:
    """One setting's per-token figures against its mode's B=1 setting (seconds are per call).

    speedup = per-token time at B=1 / per-token time at B; byte_ratio = bytes per token at B=1 /
    bytes per token at B; bandwidth_ratio = bytes/s at B / bytes/s at B=1; predicted_speedup is
    their product. With both ratios measured in the same run the product equals the speedup
    (B * t1 / tB) by construction: the formula decomposes a measured speedup, it does not test it.
    """
    ms_per_token = seconds.median / batch * 1e3
    base_ms_per_token = base_seconds.median * 1e3
    gb_per_s = bytes_per_call / seconds.median / 1e9
    base_gb_per_s = base_bytes_per_call / base_seconds.median / 1e9
    byte_ratio = base_bytes_per_call / (bytes_per_call / batch)
    bandwidth_ratio = gb_per_s / base_gb_per_s
    return {
        "ms_per_token": ms_per_token,
        "bytes_per_token": bytes_per_call / batch,
        "gb_per_s": gb_per_s,
        "speedup": base_ms_per_token / ms_per_token,
        "byte_ratio": byte_ratio,
        "bandwidth_ratio": bandwidth_ratio,
        "predicted_speedup": byte_ratio * bandwidth_ratio,
    }


def timing_columns(seconds: Spread, per: float = 1.0) -> dict[str, float | int]:
    """rounds, ms_min, ms_median, ms_max of a Spread in seconds, divided by `per` (e.g. tokens)."""
    return {
        "rounds": seconds.rounds,
        "ms_min": seconds.low / per * 1e3,
        "ms_median": seconds.median / per * 1e3,
        "ms_max": seconds.high / per * 1e3,
    }


# ---------------------------------------------------------------- independent references


class ReferenceMismatch(Exception):
    """A kernel disagreed with its numpy reference: the probe aborts and records nothing."""


TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 3e-2}


def unpack(wq: np.ndarray, scales: np.ndarray, biases: np.ndarray, group_size: int, bits: int) -> np.ndarray:
    """Affine-quantized weights -> fp32 matrix, from the bit layout alone (not mx.dequantize).

    wq: uint32 (..., N, K*bits/32), value j of a word in bits [j*bits, (j+1)*bits), low bits first;
    scales, biases: (..., N, K/group_size); w = scale * q + bias within each group along K.
    """
    per_word = 32 // bits
    shifts = np.arange(per_word, dtype=np.uint32) * bits
    q = (wq[..., None] >> shifts) & np.uint32((1 << bits) - 1)
    q = q.reshape(*wq.shape[:-1], -1).astype(np.float32)
    groups = q.reshape(*q.shape[:-1], -1, group_size)
    w = groups * scales[..., None].astype(np.float32) + biases[..., None].astype(np.float32)
    return w.reshape(q.shape)


def to_numpy(a: mx.array) -> np.ndarray:
    """An MLX array as numpy: floating types as fp32 (exact for bf16/fp16), integers unchanged."""
    if mx.issubdtype(a.dtype, mx.floating):
        a = a.astype(mx.float32)
    return np.array(a)


def quantized_matmul_reference(
    x: np.ndarray, wq: mx.array, scales: mx.array, biases: mx.array, group_size: int, bits: int
) -> np.ndarray:
    """x @ W.T in fp32 numpy, W (N, K) unpacked by this module's unpack(), a block of rows at a time."""
    wq_np, scales_np, biases_np = to_numpy(wq), to_numpy(scales), to_numpy(biases)
    x = x.astype(np.float32)
    step = 16384
    blocks = [
        x @ unpack(wq_np[i : i + step], scales_np[i : i + step], biases_np[i : i + step], group_size, bits).T
        for i in range(0, wq_np.shape[0], step)
    ]
    return np.concatenate(blocks, axis=-1)


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (inf when got has non-finite values or shapes differ)."""
    if got.shape != want.shape or not np.all(np.isfinite(got)):
        return math.inf
    scale = float(np.max(np.abs(want))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale


# ---------------------------------------------------------------- timing


class Stopwatch:
    """Accumulates wall seconds between start() and stop(); the probes' only clock."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._since: float | None = None

    def start(self) -> None:
        self._since = time.perf_counter()

    def stop(self) -> None:
        assert self._since is not None, "stop() without start()"
        self.seconds += time.perf_counter() - self._since
        self._since = None


def mlx_finish(out: object) -> None:
    """Block until `out` (MLX arrays, lists of them, or None) is computed and the device is idle."""
    if out is not None:
        mx.eval(out)
    mx.synchronize()


@dataclass
class Setting:
    """One timed configuration. run(watch, reps) does the work and brackets the part to time."""

    run: Callable[[Stopwatch, int], None]
    repeatable: bool = True  # False: one sample is one call whatever min_sample_s says


def kernel(fn: Callable[[], object], finish: Callable[[object], None] = mlx_finish) -> Setting:
    """A setting that times `reps` calls of fn() and waits for all of them (finish) before the clock stops."""

    def run(watch: Stopwatch, reps: int) -> None:
        finish(None)
        watch.start()
        outs = [fn() for _ in range(reps)]
        finish(outs)
        watch.stop()

    return Setting(run)


def time_interleaved(
    settings: Mapping[str, Setting],
    rounds: int,
    warmup: int = 1,
    min_sample_s: float = 0.0,
    max_reps: int = 1,
    progress: Callable[[str], None] = lambda message: None,
) -> dict[str, tuple[Spread, int]]:
    """Warm every setting, then time rounds with the settings interleaved inside each round.

    Returns {name: (Spread of seconds per call, reps per sample)}. A setting repeats its call `reps`
    times per sample, chosen after warm-up so a sample lasts about min_sample_s (launch and clock
    overhead stay small next to the work); rounds outside, settings inside, so drift in the
    machine hits every setting alike.
    """
    reps = {}
    for name, setting in settings.items():
        for _ in range(warmup):
            setting.run(Stopwatch(), 1)
        reps[name] = 1
        if setting.repeatable and min_sample_s > 0 and max_reps > 1:
            watch = Stopwatch()
            setting.run(watch, 1)
            reps[name] = max(1, min(max_reps, math.ceil(min_sample_s / max(watch.seconds, 1e-9))))
    samples: dict[str, list[float]] = {name: [] for name in settings}
    for index in range(rounds):
        progress(f"round {index + 1}/{rounds} ({len(settings)} settings)")
        for name, setting in settings.items():
            watch = Stopwatch()
            setting.run(watch, reps[name])
            samples[name].append(watch.seconds / reps[name])
    return {name: (spread(xs), reps[name]) for name, xs in samples.items()}


# ---------------------------------------------------------------- environment


def backend() -> str:
    """'cpu', 'metal', 'cuda' (or 'gpu' if neither is reported) for MLX's default device."""
    if mx.default_device().type == mx.cpu:
        return "cpu"
    for name in ("metal", "cuda"):
        module = getattr(mx, name, None)
        if module is not None and module.is_available():
            return name
    return "gpu"


def compute_dtype() -> mx.Dtype:
    """fp32 on the CPU backend (its bf16 accumulates in bf16 and runs slower), bf16 on a GPU."""
    return mx.float32 if backend() == "cpu" else mx.bfloat16


def dtype_name(dtype: mx.Dtype) -> str:
    return str(dtype).split(".")[-1]


PRIVATE_DEVICE_KEYS = {"uuid", "pci_bus_id"}  # identify one physical card, not its kind


def device_info() -> dict[str, object]:
    """mx.device_info() with only plain values (name, architecture, memory, compute capability)."""
    info = mx.device_info() if hasattr(mx, "device_info") else {}
    return {key: value for key, value in sorted(info.items())
            if isinstance(value, (str, int, float, bool)) and key not in PRIVATE_DEVICE_KEYS}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        result = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.strip()
    return platform.processor() or "unknown"


def _meminfo(key: str) -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def memory_total_bytes() -> int | None:
    if platform.system() == "Darwin":
        result = subprocess.run(["sysctl", "-n", "hw.memsize"], capture_output=True, text=True)
        return int(result.stdout) if result.returncode == 0 else None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def memory_available_bytes() -> int | None:
    """Free memory now (Linux MemAvailable); the total elsewhere."""
    return _meminfo("MemAvailable") or memory_total_bytes()


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def load_average() -> list[float | None]:
    """1, 5 and 15 minute load averages (other work on the machine shows up in timings)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (None, None, None)
    return [round(x, 2) if x is not None else None for x in load]


def environment() -> dict[str, object]:
    """What a reader needs about the machine and software; nothing personal (no users, paths, env)."""
    packages = ["mlx", "mlx-cpu", "mlx-metal", "mlx-cuda", "mlx-cuda-12", "mlx-cuda-13", "mlx-lm", "numpy"]
    return {
        "mlx_version": mx.__version__,
        "packages": {name: v for name in packages if (v := _version(name))},
        "backend": backend(),
        "device": str(mx.default_device()),
        "device_info": device_info(),
        "os": platform.system(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_total_bytes": memory_total_bytes(),
        "memory_available_bytes_at_start": memory_available_bytes(),
        "load_average_at_start": load_average(),
        "libc_malloc_tuned": os.environ.get("MALLOC_MMAP_MAX_") == "0",
    }


# ---------------------------------------------------------------- a probe's session


@dataclass
class Session:
    """One probe run: its profile, testbed, start time and environment, and where it writes."""

    probe: str
    profile: Profile
    testbed: str
    out: Path | None
    started: datetime
    environment: dict[str, object]
    dtype: mx.Dtype
    checks: list[dict[str, object]] = field(default_factory=list)
    _clock0: float = field(default_factory=time.monotonic)

    def progress(self, message: str) -> None:
        """One line on stderr: probe, seconds since start, message."""
        print(f"[{self.probe} {time.monotonic() - self._clock0:7.1f}s] {message}", file=sys.stderr, flush=True)

    def check(self, name: str, got: np.ndarray | mx.array, want: np.ndarray, **where: object) -> None:
        """Compare a kernel's output with its reference; raise ReferenceMismatch beyond tolerance."""
        got_np = to_numpy(got) if isinstance(got, mx.array) else np.asarray(got)
        error = relative_error(got_np, want)
        tolerance = TOLERANCE[dtype_name(self.dtype)]
        if not error <= tolerance:
            raise ReferenceMismatch(
                f"{name} {where}: max relative error {error:.3g} against the numpy reference "
                f"(allowed {tolerance:g} for {dtype_name(self.dtype)})"
            )
        self.checks.append({"kernel": name, **where, "max_rel_error": error, "tolerance": tolerance})

    def time(self, settings: Mapping[str, Setting], label: str = "") -> dict[str, tuple[Spread, int]]:
        """Time settings interleaved with this profile's rounds, warm-up and sample length."""
        p = self.profile
        self.progress(f"{label}: warming up {len(settings)} settings".lstrip(": "))
        return time_interleaved(
            settings, p.rounds, p.warmup, p.min_sample_s, p.max_reps,
            progress=lambda message: self.progress(f"{label}: {message}".lstrip(": ")),
        )

    def common_parameters(self) -> dict[str, object]:
        p = self.profile
        return {
            "profile": p.name,
            "rounds": p.rounds,
            "warmup_calls": p.warmup,
            "min_sample_s": p.min_sample_s,
            "max_reps": p.max_reps,
            "dtype": dtype_name(self.dtype),
            "timing": "settings interleaved within each round after warm-up; mx.eval then "
                      "mx.synchronize before the clock stops; ms_* are per call (or per token where named)",
        }

    def write(self, tables: Mapping[str, Sequence[Mapping[str, object]]], parameters: Mapping[str, object]) -> Path:
        """Write the run (tables + checks.csv + manifest) atomically and print its folder."""
        all_tables = dict(tables)
        if self.checks:
            all_tables["checks.csv"] = self.checks
        path = write_run(
            ROOT, self.probe, self.testbed, all_tables,
            parameters={**self.common_parameters(), **parameters},
            environment={**self.environment, "load_average_at_end": load_average()},
            code=imported_code(ROOT),
            started=self.started,
            finished=datetime.now(timezone.utc),
            measurements=self.out,
        )
        self.progress(f"wrote {path}")
        print(path)
        return path


def start(probe: str, argv: Sequence[str] | None = None) -> Session:
    """Parse the shared command line, capture the environment and start the probe's clock."""
    args = parse_args(probe, argv)
    env = environment()
    info = env["device_info"]
    device_name = str(info.get("device_name") or info.get("name") or "")
    testbed = args.testbed or testbed_name(platform.system(), env["backend"], device_name)
    if not TESTBED_PATTERN.match(testbed):  # fail now, not after the measuring
        sys.exit(f"{probe}: testbed {testbed!r}: use lower-case letters, digits and '-' (--testbed)")
    out = args.out.resolve() if args.out else None
    session = Session(probe, PROFILES[args.profile], testbed, out, datetime.now(timezone.utc), env, compute_dtype())
    session.progress(f"profile {args.profile}, testbed {testbed}, backend {env['backend']}, dtype {dtype_name(session.dtype)}")
    return session


def run_main(main: Callable[[Sequence[str] | None], object]) -> None:
    """Run a probe's main(); a reference mismatch ends it with exit 1 and nothing written."""
    try:
        main(None)
    except ReferenceMismatch as error:
        print(f"reference check failed, nothing recorded: {error}", file=sys.stderr)
        sys.exit(1)
