"""Raw-step probe, an independent measure of the raw decode step: B sequences, one token each, argmax, mx.eval ->
results.csv, samples.csv.

Independent of the other probes' measuring: its own model build (mlx-lm's qwen3_5_moe quantized by mlx-lm's
quantize_model, random packed words written here), its own numpy reference for the quantized layers (nibbles
read off the words' bytes, not probes/reference.py's shifts), its own step loop and clock (time.perf_counter
around each step, mx.synchronize before reading it), one B after another, each from a fresh cache. It shares
only what describes the machine (probes/environment.py: the manifest's environment and the testbed name) and
the run writer (generator/runs.py); nothing of probes/timing.py, generator/timing.py, probes/decode.py or
probes/model_build.py, as the run's code hashes show. Set beside whole_graph's raw mode (same shapes, dtype
and quantization; a short context that grows by one token a step) at B = 4, 16 and 64 on the H200.

    python -m probes.raw_step --profile gpu        # the H200: B = 4, 16, 64, bf16, the write-up's shape
    python -m probes.raw_step --profile default    # the CPU's scaled model, fp32, B = 4, 16
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import mlx.core as mx
import numpy as np
from mlx.utils import tree_map_with_path
from mlx_lm.models import qwen3_5_moe
from mlx_lm.utils import quantize_model

from generator.runs import TESTBED_PATTERN, Column, imported_code, write_run
from probes import environment

ROOT = Path(__file__).resolve().parents[1]
WRITEUP = {  # Qwen3.5/3.6-35B-A3B's text model, as published (typed here again: nothing read from probes/config.py)
    "model_type": "qwen3_5_moe", "hidden_size": 2048, "num_hidden_layers": 40, "full_attention_interval": 4,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 248320,
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 256, "num_experts_per_tok": 8,
    "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "intermediate_size": 512,
    "rms_norm_eps": 1e-6, "max_position_embeddings": 262144, "tie_word_embeddings": False,
    "rope_parameters": {"type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25},
}  # fmt: skip
SHAPES = {
    "gpu": WRITEUP,
    "default": {**WRITEUP, "hidden_size": 1024, "num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 32768,
                "moe_intermediate_size": 256, "shared_expert_intermediate_size": 256, "intermediate_size": 256},
    "quick": {**WRITEUP, "hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 2, "head_dim": 64,
              "vocab_size": 1024, "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 64,
              "linear_value_head_dim": 64, "num_experts": 16, "num_experts_per_tok": 4, "moe_intermediate_size": 64,
              "shared_expert_intermediate_size": 64, "intermediate_size": 64},
}  # fmt: skip
RUNS = {  # batch sizes, timed steps per B (after warm-up steps), prompt length
    "quick": {"batches": [1, 2, 4], "steps": 9, "warmup": 2, "prompt_tokens": 4},
    # the CPU: a step costs ~0.2 s per sequence, so B = 64 (13 s a step) is left to the H200
    "default": {"batches": [4, 16], "steps": 15, "warmup": 2, "prompt_tokens": 4},
    "gpu": {"batches": [4, 16, 64], "steps": 60, "warmup": 5, "prompt_tokens": 4},
}
TOLERANCE = {"float32": 1e-4, "bfloat16": 3e-2}  # max |got - want| / max |want| of a quantized layer's output
COLUMNS = {  # table -> column -> (unit, timed or exact)
    "results.csv": {
        "batch": ("sequences", "exact"), "rounds": ("rounds", "exact"), "step_ms": ("ms", "timed"),
        "step_ms_min": ("ms", "timed"), "step_ms_max": ("ms", "timed"), "step_ms_p90": ("ms", "timed"),
        "ms_per_token": ("ms/token", "timed"), "aggregate_tok_per_s": ("tok/s", "timed"),
        "per_sequence_tok_per_s": ("tok/s", "timed"), "context_tokens_first": ("tokens", "exact"),
        "context_tokens_last": ("tokens", "exact"), "reps": ("calls", "exact"),
    },
    "checks.csv": {"max_rel_error": ("", "exact"), "tolerance": ("", "exact"), "bits": ("bit", "exact")},
}  # fmt: skip


class Mismatch(Exception):
    """A quantized layer disagreed with the numpy reference: nothing is timed or written."""


def build(config: dict, dtype: mx.Dtype):
    """mlx-lm's layers, quantized by mlx-lm (4-bit, group 64; its predicate keeps the gates 8-bit), then every
    quantized array replaced by random words, scales and biases of its shape, A_log kept fp32 (as mlx-lm loads
    it): no float weights are drawn, so a 35B model builds in seconds."""
    model = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(config))
    keep = lambda path, v: path.endswith("A_log") or not mx.issubdtype(v.dtype, mx.floating)  # noqa: E731
    model.update(tree_map_with_path(lambda path, v: v if keep(path, v) else v.astype(dtype), model.parameters()))
    with contextlib.redirect_stdout(sys.stderr):
        quantize_model(model, config, group_size=64, bits=4)
    for _, m in model.named_modules():
        if hasattr(m, "scales"):  # QuantizedLinear, QuantizedEmbedding, QuantizedSwitchLinear
            half = (m.weight.shape[-1] * 32 // m.bits) ** -0.5
            bits16 = [mx.random.randint(0, 65536, m.weight.shape, dtype=mx.uint32) for _ in range(2)]
            m.weight = bits16[0] * 65536 + bits16[1]
            m.scales = (mx.random.uniform(0.5, 1.0, m.scales.shape) * 2 * half / (2**m.bits - 1)).astype(dtype)
            m.biases = (-half * mx.random.uniform(0.9, 1.1, m.scales.shape)).astype(dtype)
            mx.eval(m.weight, m.scales, m.biases)
    mx.eval(model.parameters())
    return model


def dequantize_bytes(words: np.ndarray, scales: np.ndarray, biases: np.ndarray, bits: int, group: int) -> np.ndarray:
    """Affine-quantized rows -> fp32, reading the words' little-endian bytes (4 bits: low nibble first)."""
    raw = np.ascontiguousarray(words).view(np.uint8)
    if bits == 4:
        q = np.stack([raw & 15, raw >> 4], axis=-1).reshape(*raw.shape[:-1], -1)
    elif bits == 8:
        q = raw
    else:
        raise ValueError(f"{bits}-bit weights: this reference reads 4 and 8")
    q = q.astype(np.float32).reshape(*q.shape[:-1], -1, group)
    return (q * scales[..., None] + biases[..., None]).reshape(*q.shape[:-2], -1)


def as_numpy(a: mx.array) -> np.ndarray:
    return np.array(a.astype(mx.float32) if mx.issubdtype(a.dtype, mx.floating) else a)


def check(model, config: dict, dtype_name: str) -> list[dict]:
    """The head and every quantized linear layer of the first full-attention period (two experts of each expert
    stack) against numpy on random inputs; raises Mismatch beyond the tolerance."""
    rng = np.random.default_rng(1)
    modules = [("lm_head", model.language_model.lm_head)]
    for i in range(config["full_attention_interval"]):
        modules += [(f"layers.{i}.{n}", m) for n, m in model.layers[i].named_modules()
                    if hasattr(m, "scales") and not hasattr(m, "num_embeddings")]
    rows = []
    for name, m in modules:
        x = mx.array(rng.standard_normal((2, m.scales.shape[-1] * m.group_size)).astype(np.float32)).astype(m.scales.dtype)
        xs = as_numpy(x)
        if hasattr(m, "num_experts"):  # an expert stack: x through experts 0 and the last
            experts = [0, m.num_experts - 1]
            got = as_numpy(m(x[:, None, None, :], mx.array([experts] * 2, dtype=mx.uint32))[:, :, 0])
            want = np.stack([xs @ dequantize_bytes(*(as_numpy(a[e]) for a in (m.weight, m.scales, m.biases)),
                                                   m.bits, m.group_size).T for e in experts], axis=1)
        else:  # a block of rows at a time: the H200 head's 248320 x 2048 would be 2 GB of fp32 at once
            got = as_numpy(m(x))
            w, sc, bi = as_numpy(m.weight), as_numpy(m.scales), as_numpy(m.biases)
            want = np.concatenate([xs @ dequantize_bytes(w[i:i + 8192], sc[i:i + 8192], bi[i:i + 8192], m.bits,
                                                         m.group_size).T for i in range(0, w.shape[0], 8192)], axis=-1)
        error = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) or 1.0)) if got.shape == want.shape else math.inf
        if not error <= TOLERANCE[dtype_name]:
            raise Mismatch(f"{name}: max relative error {error:.3g} against numpy (allowed {TOLERANCE[dtype_name]})")
        rows.append({"module": name, "bits": m.bits, "max_rel_error": error, "tolerance": TOLERANCE[dtype_name]})
    return rows


def steps(model, vocab: int, batch: int, prompt_tokens: int, warmup: int, count: int) -> list[dict]:
    """Each timed step of B sequences from a fresh cache: its start (unix s), wall and CPU seconds, context."""
    cache = model.make_cache()
    prompt = mx.random.randint(0, vocab, (batch, prompt_tokens))
    token = mx.argmax(model(prompt, cache=cache)[:, -1, :], axis=-1)
    mx.eval(token)
    mx.synchronize()
    found = []
    for i in range(warmup + count):
        unix, cpu, start = time.time(), time.process_time(), time.perf_counter()
        token = mx.argmax(model(token[:, None], cache=cache)[:, -1, :], axis=-1)
        mx.eval(token)
        mx.synchronize()
        seconds = time.perf_counter() - start
        if i >= warmup:
            found.append({"started": unix, "wall_s": seconds, "cpu_s": time.process_time() - cpu,
                          "context": prompt_tokens + i + 1})
    return found


def p90(values: list[float]) -> float:
    """The nearest-rank 90th percentile: the ceil(0.9 n)-th smallest."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(0.9 * len(ordered))) - 1]


def tables(batch: int, found: list[dict]) -> tuple[dict, list[dict]]:
    """results.csv's row for one B (medians of its steps) and its samples.csv rows (one a step)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rounds = [{"batch": batch, "round": i, "reps": 1, "step_ms": f["wall_s"] * 1e3,
               "ms_per_token": f["wall_s"] * 1e3 / batch, "aggregate_tok_per_s": batch / f["wall_s"],
               "per_sequence_tok_per_s": 1 / f["wall_s"], "started": f["started"], "wall_s": f["wall_s"],
               "cpu_s": f["cpu_s"], "load_1m": load} for i, f in enumerate(found)]
    ms = [r["step_ms"] for r in rounds]
    row = {"batch": batch, "rounds": len(rounds), "stop": "fixed", "reps": 1, "step_ms": statistics.median(ms),
           "step_ms_min": min(ms), "step_ms_max": max(ms), "step_ms_p90": p90(ms),
           **{c: statistics.median(r[c] for r in rounds) for c in ("ms_per_token", "aggregate_tok_per_s",
                                                                     "per_sequence_tok_per_s")},
           "context_tokens_first": found[0]["context"], "context_tokens_last": found[-1]["context"]}
    return row, rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes.raw_step", description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(RUNS), default="default")
    parser.add_argument("--testbed", help="testbed name (default: derived from OS, backend and device)")
    parser.add_argument("--out", type=Path, help="measurements folder (default: <repo>/measurements)")
    args = parser.parse_args(argv)
    env = environment.environment()
    info = env["device_info"]
    testbed = args.testbed or environment.testbed_name(
        platform.system(), env["backend"], str(info.get("device_name") or info.get("name") or ""), env["cpu_model"])
    if not TESTBED_PATTERN.match(testbed):
        sys.exit(f"raw_step: testbed {testbed!r}: use lower-case letters, digits and '-' (--testbed)")
    run, config = RUNS[args.profile], SHAPES[args.profile]
    dtype = mx.float32 if env["backend"] == "cpu" else mx.bfloat16  # MLX's CPU bf16 accumulates in bf16
    dtype_name = "float32" if dtype == mx.float32 else "bfloat16"
    started, began = datetime.now(timezone.utc), time.perf_counter()
    mx.random.seed(0)
    model = build(config, dtype)
    built_s = time.perf_counter() - began
    try:
        checks = check(model, config, dtype_name)
    except Mismatch as error:
        print(f"reference check failed, nothing recorded: {error}", file=sys.stderr)
        return 1
    print(f"raw_step: built the {args.profile} shape in {built_s:.1f} s ({dtype_name}, {env['backend']}, mlx "
          f"{mx.__version__}), {len(checks)} layers checked", file=sys.stderr, flush=True)
    rows, samples = [], []
    for batch in run["batches"]:
        row, rounds = tables(batch, steps(model, config["vocab_size"], batch, run["prompt_tokens"], run["warmup"],
                                          run["steps"]))
        rows.append(row)
        samples += rounds
        print(f"raw_step B={batch} step_ms median {row['step_ms']:.3f} p90 {row['step_ms_p90']:.3f} min "
              f"{row['step_ms_min']:.3f} max {row['step_ms_max']:.3f} steps {row['rounds']}", file=sys.stderr,
              flush=True)
    path = write_run(
        ROOT, "raw_step", testbed, {"results.csv": rows, "samples.csv": samples, "checks.csv": checks},
        parameters={
            "profile": args.profile, **run, "dtype": dtype_name, "model_config": config,
            "quantization": "mlx_lm.utils.quantize_model, 4-bit affine, group 64 (the model's gates 8-bit); "
                            "random packed words, scales and biases; mx.random seed 0",
            "timing": "per B: a fresh cache, the prompts (random ids) prefilled, `warmup` steps, then `steps` steps, "
                      "each timed alone with time.perf_counter around model call, argmax, mx.eval and "
                      "mx.synchronize; B after B, not interleaved; samples.csv holds every step (round = its "
                      "index); step_ms is their median, step_ms_p90 the ceil(0.9 n)-th smallest",
            "independence": "imports nothing of the probes' timing, decoding or model building (see the code "
                            "hashes): probes/environment.py for the environment and testbed name, "
                            "generator/runs.py to write the run",
        },
        environment={**env, "load_average_at_end": environment.load_average(),
                     "process_cpu_s_at_end": round(time.process_time(), 3),
                     "session_wall_s_at_end": round(time.perf_counter() - began, 3)},
        code=imported_code(ROOT), started=started, finished=datetime.now(timezone.utc),
        measurements=args.out.resolve() if args.out else None,
        columns={t: {c: Column(*d) for c, d in cols.items()} for t, cols in COLUMNS.items()},
    )
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
