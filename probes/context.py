"""Context probe: the raw decode step at B x context on synthetic caches -> results.csv, samples.csv, which_b.csv.

The attention caches are filled with random keys and values of the model's shape and dtype (a decode
step's time does not depend on their values; the linear-attention state is fixed-size), so the sweep
costs decode steps, not prefill. Each context is timed on its own, its caches live together; within a
context the batch sizes are interleaved round by round, and every sample decodes at exactly that
context (the caches are trimmed back before each sample). Memory in use is read per setting.
which_b.csv: per context and per-token latency target, the largest measured B whose step time meets the
target at its interval's upper end, and the memory limit on B at that context.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import mlx.core as mx
import numpy as np

from probes import budget, decode, gpu_log, model_build, session, step_rows, timing
from probes import config as configs

CONTEXT = {
    "quick": {"batches": (1, 2), "contexts": (16, 64), "targets_ms": (20, 50, 100), "min_sample_s": 0.0,
              "min_steps": 1, "max_steps": 1, "target": 0.05, "min_rounds": 9, "max_rounds": 9, "slack": 16,
              "budget_s": 300.0, "drop_first": (), "gpu_log_ms": 20.0},
    "default": {"batches": (1, 4, 16), "contexts": (16, 2048, 8192), "targets_ms": (20, 50, 100, 500, 1000, 2000),
                "min_sample_s": 0.5, "min_steps": 1, "max_steps": 8, "target": 0.05, "min_rounds": 9,
                "max_rounds": 20, "slack": 64, "budget_s": 600.0, "drop_first": (), "gpu_log_ms": 20.0},
    "gpu": {"batches": (1, 4, 16, 64), "contexts": (16, 2048, 8192, 32768), "targets_ms": (20, 50, 100),
            "min_sample_s": 0.2, "min_steps": 2, "max_steps": 16, "target": 0.05, "min_rounds": 9,
            "max_rounds": 20, "slack": 64, "budget_s": 120.0, "drop_first": ("64/32768",), "gpu_log_ms": 20.0},
}
LEVEL = 0.99  # the step time's interval for which_b: its upper end must meet the target
WRITE_RESERVE_S = 10.0


def device_memory_bytes() -> tuple[int, str]:
    """The memory MLX's device has: the GPU's total, else the machine's (the CPU backend's arrays live there)."""
    info = mx.device_info()
    for key in ("total_memory", "memory_size"):
        if isinstance(info.get(key), int) and info[key] > 0:
            return int(info[key]), f"mx.device_info()['{key}']"
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), "the machine's memory (sysconf)"


def which_b(rows: list[dict], targets_ms, limits: dict[int, int]) -> list[dict]:
    """Per context and target: the largest measured B whose step_ms interval's upper end meets the target, and the
    largest whose p90 step does (0: none)."""
    out = []
    for context in sorted({r["context_tokens"] for r in rows}):
        here = sorted((r for r in rows if r["context_tokens"] == context), key=lambda r: r["batch"])
        for target in targets_ms:
            meets = [r for r in here if r["step_ms_interval_high"] <= target]
            best = meets[-1] if meets else None
            p90 = [r for r in here if r["step_ms_p90"] != "" and r["step_ms_p90"] <= target]
            out.append({
                "context_tokens": context, "target_ms": target, "largest_b": best["batch"] if best else 0,
                "step_ms": best["step_ms"] if best else "", "step_ms_interval_high": best["step_ms_interval_high"]
                if best else "", "interval_level": best["interval_level"] if best else "",
                "largest_b_p90": p90[-1]["batch"] if p90 else 0, "step_ms_p90": p90[-1]["step_ms_p90"] if p90 else "",
                "batches_measured": " ".join(str(r["batch"]) for r in here), "memory_limit_b": limits.get(context, ""),
            })
    return out


def memory_limit(device_bytes: int, model_bytes: int, per_sequence_bytes: float) -> int:
    """Sequences that fit beside the model: (device memory - model) / bytes per sequence, rounded down."""
    return max(0, math.floor((device_bytes - model_bytes) / per_sequence_bytes)) if per_sequence_bytes > 0 else 0


def time_context(s: session.Session, model, config, cfg: dict, context: int, cap_s: float,
                 rng, failed: list[str]) -> tuple[dict, dict, list[str], dict]:
    """One context: caches for every B and memory read per setting; the settings that fit cap_s timed interleaved;
    every timed step (steps.csv rows by setting)."""
    setups, memory, raws = {}, {}, {}
    for b in cfg["batches"]:
        before = mx.get_active_memory()
        cache = decode.synthetic_cache(model, b, context, s.dtype, cfg["slack"])
        cache_bytes = mx.get_active_memory() - before
        raw = decode.Raw(model, cache=cache, first=rng.integers(0, config.vocab_size, b).tolist())
        watch = [timing.Stopwatch(), timing.Stopwatch()]
        mx.reset_peak_memory()
        raw.run(watch[0], 1)  # the first step at this shape (compilation included), memory peak during a step
        memory[b] = {"cache_bytes": cache_bytes, "active_bytes": mx.get_active_memory(),
                     "step_peak_bytes": mx.get_peak_memory(), "first_step_s": watch[0].seconds}
        raw.run(watch[1], 1)
        memory[b]["second_step_s"] = watch[1].seconds
        raw.calls.clear()  # the two steps above are not timed samples
        raws[f"raw/{b}"] = raw

        def run(w: timing.Stopwatch, reps: int, raw=raw, cache=cache) -> None:
            decode.rewind(cache, context)
            raw.run(w, reps)

        setups[f"raw/{b}"] = run
    costs = {n: max(cfg["min_sample_s"], cfg["min_steps"] * memory[step_rows.key(n)[1]]["second_step_s"])
             for n in setups}
    warm = sum((s.profile.warmup + 2) * memory[step_rows.key(n)[1]]["second_step_s"] for n in setups)
    order = [f"raw/{d.split('/')[0]}" for d in cfg["drop_first"] if d.endswith(f"/{context}")]
    kept, dropped = budget.fit_settings(costs, order, cap_s - warm, cfg["min_rounds"])
    stop = timing.Stop(cfg["target"], min_rounds=cfg["min_rounds"], max_rounds=cfg["max_rounds"],
                       max_seconds=max(cap_s - warm, 1.0))
    settings = {n: timing.Setting(setups[n], stop=stop) for n in kept}
    timed = s.time(settings, f"context {context}", stop=stop, min_sample_s=cfg["min_sample_s"],
                   max_reps=min(cfg["max_steps"], cfg["slack"]), min_reps=cfg["min_steps"])
    steps = {n: budget.attempt(failed, f"steps {n}/{context}", step_rows.step_intervals, t, raws[n].calls,
                               raws[n].pipelined, default=[]) for n, t in timed.items()}
    return timed, memory, [f"{n}/{context}" for n in dropped], steps


def main(argv=None) -> None:
    s = session.start("context", argv)
    cfg = s.config(CONTEXT[s.profile.name])
    config = configs.PROFILE_MODELS[s.profile.name]
    phase = budget.Phases(s.progress)
    rng = np.random.default_rng(0)
    rows, samples, dropped, step_table, failed = [], [], [], [], []
    device_bytes, device_source = device_memory_bytes()
    with tempfile.TemporaryDirectory(prefix="gpu_log-") as folder, \
            gpu_log.GpuLog(Path(folder) / "gpu.csv", cfg["gpu_log_ms"]) as log:
        with phase("build"):
            mx.random.seed(0)
            model = model_build.build(config, s.dtype)
            model_bytes = mx.get_active_memory()
        with phase("reference checks"):
            model_build.check_model(s, model, config)
        for i, context in enumerate(cfg["contexts"]):
            left = cfg["budget_s"] - s.elapsed() - WRITE_RESERVE_S
            with phase(f"context {context}"):
                timed, memory, gone, steps = time_context(s, model, config, cfg, context,
                                                          left / (len(cfg["contexts"]) - i), rng, failed)
            dropped += gone
            base = timed.get("raw/1")
            for name, t in timed.items():
                b = step_rows.key(name)[1]
                interval = t.interval(LEVEL)
                formula = b * (config.kv_bytes_per_token(s.dtype.size) * (context + cfg["slack"])
                               + config.linear_state_bytes(s.dtype.size))
                speedup = (base, lambda one, here, b=b: b * one / here)
                row, rounds = step_rows.step_row("raw", b, t, {"speedup": speedup}, None, {
                    "context_tokens": context, "step_ms_interval_low": interval.low * 1e3,
                    "step_ms_interval_high": interval.high * 1e3, "interval_level": interval.level,
                    **step_rows.latency_columns(steps[name]), "speedup_against": "raw/1",
                    **memory[b], "cache_bytes_formula": formula, "model_bytes": model_bytes}, [])
                rows.append({"context_tokens": context, **row})
                samples += [{"context_tokens": context, **r} for r in rounds]
                step_table += [{"context_tokens": context, "mode": "raw", "batch": b, **r} for r in steps[name]]
            del timed
            mx.clear_cache()
        log_rows, log_source = log.stop()
    samples = step_rows.with_gpu(samples, log_rows)
    limits = {}
    for context in cfg["contexts"]:
        here = [r for r in rows if r["context_tokens"] == context]
        if here:
            largest = max(here, key=lambda r: r["batch"])
            per_sequence = (largest["cache_bytes"] + largest["step_peak_bytes"] - largest["active_bytes"]) / largest["batch"]
            limits[context] = memory_limit(device_bytes, model_bytes, per_sequence)
    s.write({"results.csv": rows, "samples.csv": samples, "steps.csv": step_table,
             "which_b.csv": which_b(rows, cfg["targets_ms"], limits),
             "phases.csv": phase.rows, **({"gpu_log.csv": log_rows} if log_rows else {})}, {
        "model_config": config.mlx_lm(), "model_name": config.name, "model_config_source": configs.SOURCE,
        "scaled_from_writeup": config.changes_from(configs.WRITEUP_MODEL),
        "quantization": model_build.QUANTIZATION + ", seed 0",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
        "dropped_for_time": dropped, "failed": failed, "device_memory_bytes": device_bytes, "device_memory_source": device_source,
        "model_bytes_active": model_bytes,
        "gpu_log": {"source": log_source, "readings": len(log_rows), "note": gpu_log.UTILIZATION_NOTE},
        "caches": "synthetic: full-attention layers hold random normal keys and values (B, kv heads, context + "
                  "slack, head_dim) in the model's dtype with offset = context; linear-attention layers a random "
                  "conv window and fp32 recurrent state; the caches are trimmed back to context_tokens before "
                  "every sample, so each sample's steps decode at context_tokens .. + decode_steps",
        "mode": "raw: the model called on one token per sequence with its cache, argmax, mx.eval (as whole_graph's raw)",
        "memory": "cache_bytes: mx.get_active_memory() grown by building the setting's cache; cache_bytes_formula: "
                  "B x (KV bytes per token x (context + slack) + linear-attention state); active_bytes and "
                  "step_peak_bytes: active memory after the setting's first step and the peak during it (every "
                  "cache of the context live); model_bytes: active memory with the model alone",
        "which_b": f"which_b.csv: per context and target_ms (per-token latency = step time: each sequence gets one "
                   f"token per step; the CPU's profile adds 500, 1000 and 2000 ms, its steps taking 0.3 s and "
                   f"more), the largest measured B whose step_ms {LEVEL:.0%} order-statistic interval "
                   "(of the median) has its upper end at or under the target (0: no measured B does); largest_b_p90: "
                   "the largest measured B whose p90 step (step_ms_p90, of its individual steps) is at or under it; "
                   "memory_limit_b: (device memory - model_bytes) / (the largest B's cache_bytes + its step's "
                   "transient memory) per sequence, rounded down: an extrapolation that ignores fragmentation and "
                   "MLX's own memory limit",
        "timing": "per sample decode_steps raw steps; speedup = B x step at B=1 / step at B within a round, at "
                  "the same context; contexts timed one after another (not interleaved with each other)",
        "steps": "steps.csv: every timed raw step (round, step = its index within the sample, step_ms, counted: "
                 "every raw step counts, each is evaluated before the next starts); results.csv step_ms_p90 = "
                 "the nearest-rank 90th percentile of a setting's steps (the ceil(0.9 n)-th smallest of p90_steps)",
    })


if __name__ == "__main__":
    session.run_main(main)
