"""GPU-busy share of a raw decode step: MLX steps under PyTorch's profiler in a child process -> gpu_busy.csv rows.

The share is kernel time over step time: the union of the CUDA kernel (and copy) intervals CUPTI records
inside each step, over the step's wall time. The whole-graph probe runs it in a child process
(`python -m probes.gpu_busy REQUEST OUT`) so that a profiler failure, a crash inside CUPTI or a hang
(the parent's timeout) costs this table only: the parent records why, and its run is still written.

In the child, per B: PyTorch's CUDA context is created first (torch.zeros on the device), then the model
whole_graph built and checked (the same seeded build, held to the parent's by a fingerprint of its packed
words), a raw runner prefilled with the parent's prompts, two steps to warm it, `steps` steps timed
unprofiled (perf_counter around each step, the device synchronised: the wall time the share is over),
then `steps` steps inside torch.profiler.profile, each in a record_function range, so the kernels and
the step's range share the profiler's clock. The profiler slows the host, so both shares are written:
over the unprofiled step (busy_share) and over the profiled step itself (busy_share_profiled).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP_PREFIX = "ledger-step-"


def union_length(intervals: Sequence[tuple[float, float]], start: float, end: float) -> float:
    """Length of the union of [a, b] intervals clipped to [start, end] (any unit). Pure."""
    clipped = sorted((max(a, start), min(b, end)) for a, b in intervals if b > start and a < end)
    total, reach = 0.0, start
    for a, b in clipped:
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def per_step(windows: Sequence[tuple[float, float]], kernels: Sequence[tuple[float, float]]) -> list[dict[str, float]]:
    """Per step window (start, end in µs): its kernels (those that start inside it), their busy union, their
    summed durations and the busy share of the window. Pure."""
    rows = []
    for start, end in windows:
        mine = [(a, b) for a, b in kernels if start <= a < end]
        busy = union_length(mine, start, end)
        rows.append({"profiled_step_ms": (end - start) / 1e3, "kernel_busy_ms": busy / 1e3,
                     "kernel_sum_ms": sum(b - a for a, b in mine) / 1e3, "kernels": len(mine),
                     "busy_share_profiled": busy / (end - start) if end > start else float("nan")})
    return rows


def summary_row(batch: int, unprofiled_ms: Sequence[float], steps: list[dict[str, float]]) -> dict[str, object]:
    """One B's gpu_busy.csv row: medians over steps (with the lowest and highest step for the shares). Pure."""
    busy = statistics.median(s["kernel_busy_ms"] for s in steps)
    step = statistics.median(unprofiled_ms)
    shares = [s["busy_share_profiled"] for s in steps]
    return {
        "batch": batch, "steps": len(steps), "kernels_per_step": statistics.median(s["kernels"] for s in steps),
        "kernel_busy_ms": busy, "kernel_busy_ms_min": min(s["kernel_busy_ms"] for s in steps),
        "kernel_busy_ms_max": max(s["kernel_busy_ms"] for s in steps),
        "kernel_sum_ms": statistics.median(s["kernel_sum_ms"] for s in steps),
        "step_ms": step, "step_ms_min": min(unprofiled_ms), "step_ms_max": max(unprofiled_ms),
        "profiled_step_ms": statistics.median(s["profiled_step_ms"] for s in steps),
        "busy_share": busy / step, "idle_ms": step - busy,
        "busy_share_profiled": statistics.median(shares), "busy_share_profiled_min": min(shares),
        "busy_share_profiled_max": max(shares),
    }  # fmt: skip


def fingerprint(model) -> str:
    """SHA-256 of the head's and the first layer's packed words: the child's model is the parent's checked one."""
    import numpy as np

    parts = [model.language_model.lm_head.weight, model.layers[0].mlp.switch_mlp.gate_proj.weight]
    digest = hashlib.sha256()
    for array in parts:
        digest.update(np.array(array[:8]).tobytes())
    return digest.hexdigest()


# -- the parent's side --------------------------------------------------------------------------------


def measure(request: dict, timeout_s: float, folder: Path) -> tuple[list[dict], list[dict], dict]:
    """(gpu_busy.csv rows, their per-step rows, the record for the manifest) from a child process.

    Never raises: a child that fails, crashes or outlives timeout_s gives no rows and a record saying why.
    """
    req, out = folder / "gpu_busy-request.json", folder / "gpu_busy-out.json"
    req.write_text(json.dumps(request))
    began = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "probes.gpu_busy", str(req), str(out)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return [], [], {"measured": False, "why": f"the profiling process ran past its {timeout_s:.0f} s limit"}
    seconds = round(time.monotonic() - began, 1)
    if done.returncode != 0 or not out.exists():
        tail = " | ".join((done.stderr or "").strip().splitlines()[-3:])
        return [], [], {"measured": False, "seconds": seconds,
                        "why": f"the profiling process failed (exit {done.returncode}): {tail[-600:]}"}
    try:
        found = json.loads(out.read_text())
        return found["rows"], found["steps"], {**found["record"], "seconds": seconds}
    except (ValueError, KeyError, TypeError) as error:
        return [], [], {"measured": False, "seconds": seconds, "why": f"the profiling process's answer: {error}"}


# -- the child's side ---------------------------------------------------------------------------------


def not_measured(out: Path, why: str) -> int:
    out.write_text(json.dumps({"rows": [], "steps": [], "record": {"measured": False, "why": why}}))
    return 0


def kernel_events(events, device_type) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(step windows, device intervals) in µs on the profiler's clock, from torch's FunctionEvents: the windows are
    the host-side record_function ranges; the intervals every device event but the ranges' own device-side
    annotations (which span a step's kernels and are not work)."""
    windows, kernels = {}, []
    for event in events:
        start, end = float(event.time_range.start), float(event.time_range.end)
        if event.name.startswith(STEP_PREFIX):
            if event.device_type != device_type:
                windows[int(event.name[len(STEP_PREFIX):])] = (start, end)
        elif event.device_type == device_type:
            kernels.append((start, end))
    return [windows[i] for i in sorted(windows)], kernels


def profile_batch(torch, model, prompts: list[list[int]], steps: int) -> tuple[list[float], list[dict]]:
    """One B: unprofiled step wall times (ms) and the profiled steps' rows."""
    from probes import decode

    raw = decode.Raw(model, prompts)
    for _ in range(2):
        raw.step()
    decode.sync()
    unprofiled = []
    for _ in range(steps):
        began = time.perf_counter()
        raw.step()
        decode.sync()
        unprofiled.append((time.perf_counter() - began) * 1e3)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for i in range(steps):
            with torch.profiler.record_function(f"{STEP_PREFIX}{i}"):
                raw.step()
                decode.sync()
    windows, kernels = kernel_events(prof.events(), torch.autograd.DeviceType.CUDA)
    if len(windows) != steps:
        raise RuntimeError(f"the profiler recorded {len(windows)} step ranges for {steps} steps")
    return unprofiled, per_step(windows, kernels)


def child(request_path: Path, out: Path) -> int:
    """Measure what the request asks, or say why not; exit 0 whenever the answer was written.

    PyTorch is imported and its CUDA context made before MLX is imported, as MLX-NOTES.md's measurement did.
    """
    request = json.loads(request_path.read_text())
    try:
        import torch
    except ImportError as error:
        from probes import environment

        return not_measured(out, f"torch is not importable here ({error}); the MLX backend is {environment.backend()}")
    if not torch.cuda.is_available():
        return not_measured(out, f"torch {torch.__version__} sees no CUDA device")
    torch.zeros(1, device="cuda")  # PyTorch's CUDA context first
    torch.cuda.synchronize()
    import mlx.core as mx

    from probes import config as configs
    from probes import environment, model_build

    if environment.backend() != "cuda":
        return not_measured(out, f"the MLX backend is {environment.backend()}: there are no CUDA kernels to profile")
    mx.random.seed(0)
    model = model_build.build(configs.PROFILE_MODELS[request["shapes"]], environment.compute_dtype())
    if fingerprint(model) != request["fingerprint"]:
        return not_measured(out, "the rebuilt model's packed words differ from the checked model's: nothing profiled")
    rows, steps = [], []
    for b in request["batches"]:
        unprofiled, profiled = profile_batch(torch, model, request["prompts"][:b], request["steps"])
        rows.append(summary_row(b, unprofiled, profiled))
        steps += [{"batch": b, "round": i, "reps": 1, "step_ms": u,
                   **{("kernels_per_step" if k == "kernels" else k): v for k, v in p.items()}}
                  for i, (u, p) in enumerate(zip(unprofiled, profiled))]
    record = {"measured": True, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
              "events": "torch.profiler.profile(activities=[CPU, CUDA]).events(): device_type CUDA (kernels, "
                        "copies and sets CUPTI recorded), each step a record_function range"}
    out.write_text(json.dumps({"rows": rows, "steps": steps, "record": record}))
    return 0


if __name__ == "__main__":
    sys.exit(child(Path(sys.argv[1]), Path(sys.argv[2])))
