"""An independent measure of the raw decode step: B sequences, one token each through the model, argmax, mx.eval.

Imports nothing from probes/ or generator/: its own config dict, mlx-lm's qwen3_5_moe quantized by
mlx-lm's quantize_model (4-bit affine, group 64) with random packed weights, a short random prompt,
time.perf_counter around each step, the median of the steps. Prints one line per B, to set beside the whole_graph and context
probes' raw mode (the same model shape, dtype, quantization and a short context).

    python benchmarks/raw_step.py --shape gpu --batches 4 16 64      # the H200 (bf16)
    python benchmarks/raw_step.py --shape default --batches 4 16     # the CPU's scaled model (fp32)
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time

import mlx.core as mx
from mlx.utils import tree_map_with_path
from mlx_lm.models import qwen3_5_moe
from mlx_lm.utils import quantize_model

WRITEUP = {  # Qwen3.5/3.6-35B-A3B's text model, as published
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


def build(config: dict, dtype: mx.Dtype):
    """mlx-lm's layers, quantized by mlx-lm (4-bit, group 64; its predicate keeps the gates 8-bit), then every
    quantized array replaced by random words, scales and biases of its shape, nothing else cast but A_log kept
    fp32 (as mlx-lm loads it): no float weights are drawn, so a 35B model builds in seconds. The values are
    random either way; the step's time depends on the shapes and on which experts the router picks."""
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


def steps(model, vocab: int, batch: int, prompt_tokens: int, warmup: int, count: int) -> tuple[list[float], int]:
    """Seconds of each timed step, and the context (tokens in the cache) at the last one."""
    cache = model.make_cache()
    prompt = mx.random.randint(0, vocab, (batch, prompt_tokens))
    token = mx.argmax(model(prompt, cache=cache)[:, -1, :], axis=-1)
    mx.eval(token)
    times = []
    for i in range(warmup + count):
        start = time.perf_counter()
        token = mx.argmax(model(token[:, None], cache=cache)[:, -1, :], axis=-1)
        mx.eval(token)
        mx.synchronize()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times, prompt_tokens + warmup + count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="default")
    parser.add_argument("--batches", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--prompt-tokens", type=int, default=4)
    args = parser.parse_args(argv)
    on_cpu = mx.default_device().type == mx.cpu
    dtype = mx.float32 if on_cpu else mx.bfloat16  # MLX's CPU bf16 accumulates in bf16 and runs slower
    mx.random.seed(0)
    began = time.perf_counter()
    model = build(SHAPES[args.shape], dtype)
    print(
        f"raw_step: built the {args.shape} shape in {time.perf_counter() - began:.1f} s ({dtype}, "
        f"{'cpu' if on_cpu else 'gpu'}, mlx {mx.__version__})",
        flush=True,
    )
    for batch in args.batches:
        times, context = steps(
            model, SHAPES[args.shape]["vocab_size"], batch, args.prompt_tokens, args.warmup, args.steps
        )
        ms = sorted(t * 1e3 for t in times)
        print(
            f"raw_step B={batch} step_ms median {statistics.median(ms):.3f} min {ms[0]:.3f} max {ms[-1]:.3f} "
            f"steps {len(ms)} context {args.prompt_tokens}..{context}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
