"""The probes' model: a ModelConfig -> mlx-lm's qwen3_5_moe with random 4-bit weights, its bytes by component.

Shared by whole_graph, prefill and model. Bytes are read off the quantized arrays (nbytes), never typed in.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Iterator

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten, tree_map_with_path
from mlx_lm.models import qwen3_5_moe
from mlx_lm.models.switch_layers import QuantizedSwitchLinear, SwitchGLU
from mlx_lm.utils import quantize_model

from probes import config as configs
from probes import reference
from probes.session import Session

GROUP_SIZE, BITS = 64, 4
QUANTIZATION = (f"{BITS}-bit affine, group {GROUP_SIZE} (router and shared-expert gates 8-bit, per the model's "
                "quant_predicate, as mlx_lm.utils.quantize_model lays them out); random packed weights, scales and "
                "biases written directly (no float weights quantized); no download")


def random_words(shape: tuple[int, ...]) -> mx.array:
    """uint32 words with every bit random: two 16-bit draws (mx.random.randint draws through floats, so a
    single full-range draw leaves the low bits zero and the low nibbles all 0)."""
    high = mx.random.randint(0, 1 << 16, shape, dtype=mx.uint32)
    return (high << 16) | mx.random.randint(0, 1 << 16, shape, dtype=mx.uint32)


def fill_quantized(module: nn.Module, dtype: mx.Dtype) -> None:
    """Random packed weights, scales and biases of the module's own shapes, in place of its lazy float ones.

    A group decodes to scale * q + bias with q uniform over the 2**bits levels; the scale is drawn so the
    weights span about +-h, h the half-width of the float layer's own init (nn.Linear: 1/sqrt(K);
    nn.Embedding's normal(1/sqrt(K)) has the variance of +-sqrt(3/K)), and every group differs, so the
    reference check sees distinct scales and biases per group.
    """
    k = module.weight.shape[-1] * 32 // module.bits
    h = math.sqrt((3.0 if isinstance(module, nn.QuantizedEmbedding) else 1.0) / k)
    levels = (1 << module.bits) - 1
    groups = module.scales.shape
    scales = mx.random.uniform(0.5, 1.0, groups) * (2 * h / levels)
    module.weight = random_words(module.weight.shape)
    module.scales = scales.astype(dtype)
    module.biases = (-levels / 2 * scales * mx.random.uniform(0.9, 1.1, groups)).astype(dtype)


def quantized_modules(module: nn.Module) -> list[nn.Module]:
    """Every 4-/8-bit module under `module` (linear layers, expert stacks, the embedding)."""
    kinds = (nn.QuantizedLinear, QuantizedSwitchLinear, nn.QuantizedEmbedding)
    return [m for _, m in module.named_modules() if isinstance(m, kinds)]


def build(config: configs.ModelConfig, dtype: mx.Dtype, materialise: bool = True) -> nn.Module:
    """qwen3_5_moe from the record with random 4-bit weights; materialised a layer at a time unless told not to.

    mlx-lm builds the layers (lazy float weights, never evaluated) and quantize_model swaps in its
    quantized layers (which layers, which bits); then every quantized array is replaced by random packed
    words, scales and biases of the same shape and dtype. Generating float weights and quantizing them
    took 5.3 times as long on this repository's shared 2-core CPU for the default profile's 1 GiB model
    (median of 3 rounds, 3.3-8.4x; benchmarks/model_build.py) and buys nothing: the numbers are random
    either way. With materialise=False every array stays lazy:
    shapes, dtypes and nbytes are known, no memory is used.
    """
    cfg = config.mlx_lm()
    model = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(cfg))
    with contextlib.redirect_stdout(sys.stderr):  # quantize_model prints its bits per weight
        quantize_model(model, cfg, group_size=GROUP_SIZE, bits=BITS)
    if dtype != mx.float32:  # the production cast of what stays float (norms, conv, dt_bias), except A_log
        model.update(tree_map_with_path(
            lambda path, v: v if path.endswith("A_log") or not mx.issubdtype(v.dtype, mx.floating) else v.astype(dtype),
            model.parameters(),
        ))
    text = model.language_model
    for part in [*model.layers, text.model.embed_tokens, text.lm_head]:
        for module in quantized_modules(part):
            fill_quantized(module, dtype)
        if materialise:
            mx.eval(part.parameters())
    if materialise:
        mx.eval(model.parameters())
    return model


def nbytes(module: nn.Module) -> int:
    """Bytes of every array a module holds (packed weights, scales, biases, norms)."""
    return sum(v.nbytes for _, v in tree_flatten(module.parameters()))


def component_bytes(model: nn.Module) -> dict[str, object]:
    """Bytes per component, per layer where it differs, from the arrays themselves."""
    text = model.language_model
    layers = []
    for layer in model.layers:
        mlp = layer.mlp
        experts = nbytes(mlp.switch_mlp)
        layers.append({
            "kind": "linear_attention" if layer.is_linear else "full_attention",
            "attention": nbytes(layer.linear_attn if layer.is_linear else layer.self_attn),
            "norms": nbytes(layer.input_layernorm) + nbytes(layer.post_attention_layernorm),
            "router": nbytes(mlp.gate),
            "shared_expert": nbytes(mlp.shared_expert) + nbytes(mlp.shared_expert_gate),
            "experts": experts,
            "num_experts": mlp.num_experts,
            "top_k": mlp.top_k,
            "expert_bytes": experts // mlp.num_experts,
        })
    embed = nbytes(text.model.embed_tokens)
    return {
        "layers": layers,
        "embedding": embed,
        "embedding_row": embed // text.model.embed_tokens.weight.shape[0],
        "final_norm": nbytes(text.model.norm),
        "lm_head": nbytes(text.lm_head) if hasattr(text, "lm_head") else 0,
    }


def touched_count(indices: np.ndarray) -> int:
    """Distinct experts in a block of router choices (any shape)."""
    return int(np.unique(np.asarray(indices)).size)


@contextlib.contextmanager
def touched_experts() -> Iterator[list[int]]:
    """While inside: every MoE layer called appends the distinct experts its router picked for the last position."""
    seen: list[int] = []
    original = SwitchGLU.__call__

    def recording(self, x, indices):
        seen.append(touched_count(np.array(indices[:, -1, :])))
        return original(self, x, indices)

    SwitchGLU.__call__ = recording
    try:
        yield seen
    finally:
        SwitchGLU.__call__ = original


def touched_per_layer(model: nn.Module, prompts: list[list[int]]) -> list[int]:
    """Distinct experts each MoE layer's router picks for the last position of these B sequences."""
    with touched_experts() as seen:
        mx.eval(model(mx.array(prompts)))
    return seen


def step_bytes(components: dict, touched: list[int], batch: int, state_bytes: int, kv_bytes_per_token: int,
               context: float, shared_reads: int = 1) -> dict[str, float]:
    """Bytes one decode step of B sequences reads: shared weights once, touched experts, per-sequence state and KV.

    Weights: every layer's attention (or linear attention), norms, router and shared expert, the final norm
    and the head once; one embedding row per sequence; each touched expert once. Per sequence: the
    recurrent state read and written (state_bytes each way) and the KV cache of `context` tokens read.
    shared_reads: how many times the shared weights are read per step (B for B single-sequence calls).
    """
    layers = components["layers"]
    shared = sum(l["attention"] + l["norms"] + l["router"] + l["shared_expert"] for l in layers)
    shared = (shared + components["final_norm"] + components["lm_head"]) * shared_reads
    experts = sum(t * l["expert_bytes"] for t, l in zip(touched, layers))
    embed = batch * components["embedding_row"]
    state = batch * 2 * state_bytes
    kv = batch * kv_bytes_per_token * context
    weights = shared + experts + embed
    return {"bytes_per_step": weights + state + kv, "weight_bytes_per_step": weights,
            "shared_weight_bytes": shared, "expert_bytes_per_step": experts,
            "state_bytes_per_step": state, "kv_bytes_per_step": kv}


def check_model(s: Session, model: nn.Module, config: configs.ModelConfig, label: str = "") -> None:
    """Every quantized module of the first layers, the embedding and the head against the numpy unpacker."""
    rng = np.random.default_rng(1)
    modules = [("lm_head", model.language_model.lm_head)]
    for i in range(config.full_attention_interval):
        modules += [(f"layers.{i}.{name}", m) for name, m in model.layers[i].named_modules()
                    if isinstance(m, (nn.QuantizedLinear, QuantizedSwitchLinear))]
    for name, m in modules:
        wq, scales, biases = m.weight, m.scales, m.biases
        x_np = rng.standard_normal((2, scales.shape[-1] * m.group_size)).astype(np.float32)
        x = mx.array(x_np).astype(s.dtype)
        x_np = reference.to_numpy(x)
        if isinstance(m, QuantizedSwitchLinear):
            experts = [0, m.num_experts - 1]
            got = m(x[:, None, None, :], mx.array([experts] * 2, dtype=mx.uint32))[:, :, 0]
            want = np.stack([reference.quantized_matmul_reference(x_np, wq[e], scales[e], biases[e], m.group_size,
                                                                  m.bits) for e in experts], axis=1)
        else:
            got = m(x)
            want = reference.quantized_matmul_reference(x_np, wq, scales, biases, m.group_size, m.bits)
        s.check("quantized_layer", got, want, model=label or config.name, module=name, bits=m.bits)
    embed = model.language_model.model.embed_tokens
    ids = np.array([0, 7, config.vocab_size - 1])
    want = reference.unpack(*(reference.to_numpy(a[mx.array(ids)]) for a in (embed.weight, embed.scales, embed.biases)),
                            embed.group_size, embed.bits)
    s.check("quantized_embedding", embed(mx.array(ids)), want, model=label or config.name, module="embed_tokens",
            bits=embed.bits)
