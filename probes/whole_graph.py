"""Whole-graph probe: decode tokens/s vs B with mlx-lm batch generation on a random-weight model -> results.csv."""

from __future__ import annotations

import contextlib
import sys

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten, tree_map_with_path
from mlx_lm.generate import BatchGenerator, generate_step, generation_stream
from mlx_lm.models import qwen3_5_moe
from mlx_lm.models.switch_layers import QuantizedSwitchLinear
from mlx_lm.utils import quantize_model

from probes import harness

GROUP_SIZE, BITS = 64, 4
SCALED = {  # the write-up's model with these fields changed (every dimension a multiple of 64)
    "quick": {"hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 2, "head_dim": 64,
              "vocab_size": 1024, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
              "linear_key_head_dim": 64, "linear_value_head_dim": 64, "num_experts": 16,
              "num_experts_per_tok": 4, "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64,
              "intermediate_size": 64},
    "default": {"hidden_size": 1024, "num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 32768,
                "moe_intermediate_size": 256, "shared_expert_intermediate_size": 256, "intermediate_size": 256},
    "gpu": {},
}
DECODE = {  # decode steps per timed sample, prompt length, largest B for the looped baseline
    "quick": {"steps": 2, "prompt_tokens": 4, "batches": (1, 2, 4), "looped_max_batch": 4},
    "default": {"steps": 4, "prompt_tokens": 4, "batches": (1, 2, 4, 8, 16), "looped_max_batch": 16},
    "gpu": {"steps": 8, "prompt_tokens": 4, "batches": (1, 2, 4, 8, 16, 32, 64, 128, 256), "looped_max_batch": 4},
}


def sync() -> None:
    mx.synchronize(generation_stream)
    mx.synchronize()


def build_model(config: dict, dtype: mx.Dtype) -> nn.Module:
    """The qwen3_5_moe model from a config dict with random weights, 4-bit, materialised a layer at a time."""
    model = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(config))
    if dtype != mx.float32:  # the production cast: floating parameters except A_log
        model.update(tree_map_with_path(
            lambda path, v: v if path.endswith("A_log") or not mx.issubdtype(v.dtype, mx.floating) else v.astype(dtype),
            model.parameters(),
        ))
    with contextlib.redirect_stdout(sys.stderr):  # quantize_model prints its bits per weight
        quantize_model(model, config, group_size=GROUP_SIZE, bits=BITS)
    for layer in model.layers:
        mx.eval(layer.parameters())
    mx.eval(model.parameters())
    return model


def check_model(s: harness.Session, model: nn.Module, config: dict) -> None:
    """Every quantized module of the first layers, the embedding and the head against the numpy unpacker."""
    rng = np.random.default_rng(1)
    modules = [("lm_head", model.language_model.lm_head)]
    for i in range(config["full_attention_interval"]):
        modules += [(f"layers.{i}.{name}", m) for name, m in model.layers[i].named_modules()
                    if isinstance(m, (nn.QuantizedLinear, QuantizedSwitchLinear))]
    for name, m in modules:
        wq, scales, biases = m.weight, m.scales, m.biases
        x_np = rng.standard_normal((2, scales.shape[-1] * m.group_size)).astype(np.float32)
        x = mx.array(x_np).astype(s.dtype)
        x_np = harness.to_numpy(x)
        if isinstance(m, QuantizedSwitchLinear):
            experts = [0, m.num_experts - 1]
            got = m(x[:, None, None, :], mx.array([experts] * 2, dtype=mx.uint32))[:, :, 0]
            want = np.stack([harness.quantized_matmul_reference(x_np, wq[e], scales[e], biases[e], m.group_size, m.bits)
                             for e in experts], axis=1)
        else:
            got, want = m(x), harness.quantized_matmul_reference(x_np, wq, scales, biases, m.group_size, m.bits)
        s.check("quantized_layer", got, want, module=name, bits=m.bits)
    embed = model.language_model.model.embed_tokens
    ids = np.array([0, 7, config["vocab_size"] - 1])
    want = harness.unpack(*(harness.to_numpy(a[mx.array(ids)]) for a in (embed.weight, embed.scales, embed.biases)),
                          embed.group_size, embed.bits)
    s.check("quantized_embedding", embed(mx.array(ids)), want, module="embed_tokens", bits=embed.bits)


class Batched:
    """B sequences decoding together in one mlx-lm BatchGenerator; a sample is `steps` decode steps."""

    def __init__(self, model, prompts: list[list[int]], steps: int, max_tokens: int):
        b = len(prompts)
        self.gen = BatchGenerator(model, max_tokens=max_tokens, prefill_batch_size=b, completion_batch_size=b)
        self.uids = self.gen.insert(prompts, [max_tokens] * b)
        self.steps, self.tokens = steps, {uid: [] for uid in self.uids}
        self._step()  # prefill and the first token, untimed

    def _step(self) -> None:
        responses = self.gen.next_generated()
        if len(responses) != len(self.uids) or any(r.finish_reason for r in responses):
            raise RuntimeError(f"a timed step did not decode all {len(self.uids)} sequences")
        for r in responses:
            self.tokens[r.uid].append(r.token)

    def run(self, watch: harness.Stopwatch, reps: int) -> None:
        sync()
        watch.start()
        for _ in range(self.steps):
            self._step()
        sync()
        watch.stop()

    def sequences(self) -> list[list[int]]:
        return [self.tokens[uid] for uid in self.uids]


class Looped:
    """B single-sequence generations (generate_step), one after another; a sample is `steps` tokens of each."""

    def __init__(self, model, prompts: list[list[int]], steps: int, max_tokens: int):
        self.gens = [generate_step(mx.array(p), model, max_tokens=max_tokens) for p in prompts]
        self.steps, self.tokens = steps, [[] for _ in prompts]
        for i in range(len(self.gens)):
            self._step(i)  # prefill and the first token, untimed

    def _step(self, i: int) -> None:
        token, _ = next(self.gens[i])
        self.tokens[i].append(token)

    def run(self, watch: harness.Stopwatch, reps: int) -> None:
        sync()
        watch.start()
        for i in range(len(self.gens)):
            for _ in range(self.steps):
                self._step(i)
        sync()
        watch.stop()

    def sequences(self) -> list[list[int]]:
        return self.tokens


def main(argv=None) -> None:
    s = harness.start("whole_graph", argv)
    config = {**harness.WRITEUP_MODEL, **SCALED[s.profile.name]}
    decode = DECODE[s.profile.name]
    steps, batches = decode["steps"], decode["batches"]
    mx.random.seed(0)
    model = build_model(config, s.dtype)
    params = dict(tree_flatten(model.parameters()))
    parameter_bytes = sum(v.nbytes for v in params.values())
    expert_bytes = sum(v.nbytes for k, v in params.items() if ".switch_mlp." in k)
    s.progress(f"model built: {parameter_bytes / 2**30:.2f} GiB of parameters ({expert_bytes / 2**30:.2f} GiB experts)")
    check_model(s, model, config)

    rng = np.random.default_rng(0)
    prompts = rng.integers(0, config["vocab_size"], (max(batches), decode["prompt_tokens"])).tolist()
    max_tokens = 2 + (s.profile.warmup + s.profile.rounds) * steps  # nobody finishes while timed
    runners = {}
    for b in batches:
        runners[("batched", b)] = Batched(model, prompts[:b], steps, max_tokens)
        if b <= decode["looped_max_batch"]:
            runners[("looped", b)] = Looped(model, prompts[:b], steps, max_tokens)
    s.progress(f"{len(runners)} generators prefilled")
    timed = s.time({f"{m}/{b}": harness.Setting(r.run, repeatable=False) for (m, b), r in runners.items()},
                   "whole_graph")

    rows = []
    for mode in ("batched", "looped"):
        if (mode, 1) not in runners:
            continue
        base, _ = timed[f"{mode}/1"]
        for b in batches:
            if (mode, b) not in runners:
                continue
            seconds, _ = timed[f"{mode}/{b}"]
            tokens = b * steps
            rows.append({
                "mode": mode, "batch": b, "decode_steps": steps, "tokens_per_sample": tokens,
                **harness.timing_columns(seconds, per=tokens),
                "ms_per_token": seconds.median / tokens * 1e3,
                "aggregate_tok_per_s": tokens / seconds.median,
                "per_sequence_tok_per_s": tokens / seconds.median / b,
                "aggregate_tok_per_s_low": tokens / seconds.high, "aggregate_tok_per_s_high": tokens / seconds.low,
                "speedup": (base.median / steps) / (seconds.median / tokens),
            })
    agreement = []
    for b in batches:
        if ("looped", b) in runners:
            batched, looped = runners[("batched", b)].sequences(), runners[("looped", b)].sequences()
            pairs = [(x, y) for bs, ls in zip(batched, looped) for x, y in zip(bs, ls)]
            agreement.append({"batch": b, "tokens_compared": len(pairs),
                              "tokens_equal": sum(x == y for x, y in pairs),
                              "sequences_identical": sum(bs == ls for bs, ls in zip(batched, looped))})
    s.write({"results.csv": rows, "agreement.csv": agreement}, {
        "model_config": config, "model_config_source": harness.WRITEUP_MODEL_SOURCE,
        "scaled_from_writeup": {k: {"writeup": harness.WRITEUP_MODEL[k], "here": v} for k, v in SCALED[s.profile.name].items()},
        "parameter_bytes": parameter_bytes, "expert_parameter_bytes": expert_bytes,
        "quantization": f"mlx_lm.utils.quantize_model, {BITS}-bit affine, group {GROUP_SIZE} (router gates 8-bit, "
                        "per the model's quant_predicate); random weights, seed 0; no download",
        **decode, "batches": list(batches),
        "timing": "per sample: `decode_steps` steps in which every one of the B sequences decodes one token "
                  "(prefill and the first token are outside the clock); generators persist across rounds, so "
                  "the context grows by decode_steps per sample; ms_* columns are per token",
        "modes": "batched: mlx_lm BatchGenerator with all B sequences in one batch; looped: B generate_step "
                 "single-sequence generations, stepped one sequence after another (batching on paper)",
        "sampler": "greedy", "prompts": "random token ids, one prompt per sequence (numpy seed 0)",
        "agreement": "agreement.csv: greedy tokens of batched vs looped generation of the same prompts",
    })


if __name__ == "__main__":
    harness.run_main(main)
