"""Diagnosis for issue 56 item 1 (not a probe: it writes no run): one process's raw decode steps, timed the ways
whole_graph and raw_step time them -> one JSON line per cell on stdout.

whole_graph's raw mode at B=4 gave a median step 25-30% slower than probes/raw_step.py's on the same H200.
The two differ in what surrounds the step, not in the step: raw_step times one B at a time from a fresh cache;
whole_graph keeps every setting's runner alive and interleaves them round by round, with its GPU logger
(probes/gpu_log.py, NVML every 20 ms) running beside it. This script times the same raw step (raw_step's
loop: model call, argmax, mx.eval, mx.synchronize, perf_counter around each) in phases that change one of
those at a time, in one process, alternating so the machine's drift hits every phase:

    alone        each B from a fresh cache, its steps back to back (raw_step's way)
    interleaved  every B's runner alive, `per_turn` steps of each B in turn, round after round (whole_graph's way)
    logger       alone, with `python -m probes.gpu_log` polling NVML every 20 ms in a separate process

and, where PyTorch sees the GPU, a profile of `profile_steps` steps per B under torch.profiler (CUDA kernels'
busy union over each step's wall, probes/gpu_busy.py's own functions) with the host-side launch calls it
records counted by name (graph launches against single kernel launches). MLX's CUDA graph settings are read
from the environment when MLX starts, so each setting is a process of its own:

    python scripts/step_gap.py --label default
    MLX_USE_CUDA_GRAPHS=0 python scripts/step_gap.py --label no-graphs
    python scripts/step_gap.py --label raw-step-model --model raw_step

The model is whole_graph's (probes/model_build.py, the gpu profile's config) unless --model raw_step;
`--shape quick` runs the tests' tiny shape (a dry run on the CPU).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

try:  # PyTorch's CUDA context first, as probes/gpu_busy.py makes it (MLX-NOTES.md's order)
    import torch

    torch.zeros(1, device="cuda")
except Exception:  # noqa: BLE001 - no torch or no CUDA: the profile phase says so
    torch = None

import mlx.core as mx  # noqa: E402


def emit(**cell: object) -> None:
    print(json.dumps(cell), flush=True)


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(ms), "median_ms": statistics.median(ms), "p10_ms": at(0.1), "p90_ms": at(0.9),
            "min_ms": ordered[0], "max_ms": ordered[-1]}  # fmt: skip


class Runner:
    """B sequences from a fresh cache, prefilled with random prompts of 4 tokens."""

    def __init__(self, model, vocab: int, batch: int):
        self.model, self.batch = model, batch
        self.cache = model.make_cache()
        prompt = mx.random.randint(0, vocab, (batch, 4))
        self.token = mx.argmax(model(prompt, cache=self.cache)[:, -1, :], axis=-1)
        mx.eval(self.token)
        mx.synchronize()

    def step(self) -> float:
        start = time.perf_counter()
        self.token = mx.argmax(self.model(self.token[:, None], cache=self.cache)[:, -1, :], axis=-1)
        mx.eval(self.token)
        mx.synchronize()
        return (time.perf_counter() - start) * 1e3


def alone(model, vocab: int, batches: list[int], steps: int, phase: str, label: str) -> None:
    for b in batches:
        runner = Runner(model, vocab, b)
        for _ in range(5):
            runner.step()
        emit(label=label, phase=phase, batch=b, **summary([runner.step() for _ in range(steps)]))


def interleaved(model, vocab: int, batches: list[int], rounds: int, per_turn: int, label: str) -> None:
    runners = [Runner(model, vocab, b) for b in batches]
    for runner in runners:
        for _ in range(2):
            runner.step()
    found: dict[int, list[float]] = {b: [] for b in batches}
    for _ in range(rounds):
        for runner in runners:
            found[runner.batch] += [runner.step() for _ in range(per_turn)]
    for b in batches:
        emit(label=label, phase="interleaved", batch=b, per_turn=per_turn, **summary(found[b]))


def with_logger(model, vocab: int, batches: list[int], steps: int, label: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        logger = subprocess.Popen([sys.executable, "-m", "probes.gpu_log", str(Path(folder) / "log.csv"),
                                   "--interval-ms", "20"], cwd=ROOT)  # fmt: skip
        time.sleep(2.0)  # the logger's NVML start
        try:
            alone(model, vocab, batches, steps, "logger", label)
        finally:
            logger.terminate()
            logger.wait(30)
        readings = max(0, len((Path(folder) / "log.csv").read_text().splitlines()) - 1)
        source = (
            (Path(folder) / "log.csv.source").read_text().strip() if (Path(folder) / "log.csv.source").exists() else ""
        )
    emit(label=label, phase="logger-readings", readings=readings, source=source)


def profiled(model, vocab: int, batches: list[int], steps: int, label: str) -> None:
    if torch is None or not torch.cuda.is_available():
        emit(label=label, phase="profile", skipped="PyTorch with CUDA is not importable here")
        return
    from probes import gpu_busy

    for b in batches:
        runner = Runner(model, vocab, b)
        for _ in range(3):
            runner.step()
        unprofiled = [runner.step() for _ in range(steps)]
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            for i in range(steps):
                with torch.profiler.record_function(f"{gpu_busy.STEP_PREFIX}{i}"):
                    runner.step()
        events = prof.events()
        windows, kernels = gpu_busy.kernel_events(events, torch.autograd.DeviceType.CUDA)
        rows = gpu_busy.per_step(windows, kernels)
        calls = collections.Counter(e.name for e in events if e.device_type != torch.autograd.DeviceType.CUDA
                                    and ("aunch" in e.name or "Graph" in e.name))  # fmt: skip
        emit(
            label=label,
            phase="profile",
            batch=b,
            unprofiled_median_ms=statistics.median(unprofiled),
            profiled_step_median_ms=statistics.median(r["profiled_step_ms"] for r in rows),
            kernel_busy_median_ms=statistics.median(r["kernel_busy_ms"] for r in rows),
            busy_share_of_unprofiled=statistics.median(r["kernel_busy_ms"] for r in rows)
            / statistics.median(unprofiled),
            kernels_per_step=statistics.median(r["kernels"] for r in rows),
            host_calls_per_step={name: count / steps for name, count in calls.most_common(12)},
        )


def build(which: str, shape: str):
    from probes import environment

    if which == "raw_step":
        from probes import raw_step

        config = raw_step.SHAPES[shape]
        return raw_step.build(config, environment.compute_dtype()), config["vocab_size"]
    from probes import config as configs
    from probes import model_build

    model_config = configs.PROFILE_MODELS[shape]
    return model_build.build(model_config, environment.compute_dtype()), model_config.vocab_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="default")
    parser.add_argument("--model", choices=("whole_graph", "raw_step"), default="whole_graph")
    parser.add_argument("--shape", choices=("gpu", "quick"), default="gpu", help="quick: a dry run on the CPU")
    parser.add_argument("--batches", default="1,4,16,64")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--per-turn", type=int, default=4)
    parser.add_argument("--profile-steps", type=int, default=10)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    began = time.perf_counter()
    mx.random.seed(0)
    model, vocab = build(args.model, args.shape)
    info = mx.device_info() if hasattr(mx, "device_info") else {}
    emit(label=args.label, phase="start", model=args.model, built_s=time.perf_counter() - began, mlx=mx.__version__,
         device=str(info.get("device_name") or info), env={k: v for k, v in os.environ.items() if k.startswith("MLX_")},
         active_gb=mx.get_active_memory() / 1e9)  # fmt: skip
    alone(model, vocab, batches, args.steps, "alone-1", args.label)
    interleaved(model, vocab, batches, args.rounds, args.per_turn, args.label)
    alone(model, vocab, batches, args.steps, "alone-2", args.label)
    with_logger(model, vocab, [b for b in batches if b <= 16], args.steps, args.label)
    alone(model, vocab, [b for b in batches if b <= 16], args.steps, "alone-3", args.label)
    if not args.no_profile:
        profiled(model, vocab, [b for b in batches if b <= 16], args.profile_steps, args.label)
    emit(label=args.label, phase="end", wall_s=time.perf_counter() - began, peak_gb=mx.get_peak_memory() / 1e9)
    return 0


if __name__ == "__main__":
    sys.exit(main())
