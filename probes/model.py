"""Model probe: the write-up's model and the CPU-scaled one, built from the typed config -> counts.csv (a row per model).

No timing. Every figure is counted from the instantiated mlx-lm model's modules and weight tensors, not
from the config record: experts from the expert weights' leading dimension, experts per token from the
router module, layer kinds from the modules present, vocabulary from the embedding's rows, hidden size
from the final norm, bytes per component from the 4-bit arrays' nbytes. The arrays stay lazy (shapes and
sizes are known, nothing is computed), so the full 35B-A3B shape is counted on a machine it does not fit.
"""

from __future__ import annotations

import mlx.core as mx
from mlx.utils import tree_flatten
from mlx_lm.models import qwen3_5_moe

from probes import config as configs
from probes import model_build, session


def parameters(module) -> int:
    """Elements of every array a module holds (before quantization)."""
    return sum(v.size for _, v in tree_flatten(module.parameters()))


def counts(config: configs.ModelConfig, dtype: mx.Dtype) -> tuple[dict[str, object], dict[str, str]]:
    """One config's counts.csv row (model, then a column per quantity, each with its own unit) and how each
    was counted, from an unquantized and a 4-bit lazy build."""
    plain = qwen3_5_moe.Model(qwen3_5_moe.ModelArgs.from_dict(config.mlx_lm()))  # lazy: never evaluated
    quantized = model_build.build(config, dtype, materialise=False)
    text = quantized.language_model
    layers = quantized.layers
    linear = [l for l in layers if hasattr(l, "linear_attn")]
    full = [l for l in layers if hasattr(l, "self_attn")]
    experts = {l.mlp.switch_mlp.gate_proj.weight.shape[0] for l in layers}
    top_k = {l.mlp.top_k for l in layers}
    if len(experts) != 1 or len(top_k) != 1:
        raise ValueError(f"layers disagree: experts {experts}, top_k {top_k}")
    (n_experts,), (k,) = experts, top_k
    comp = model_build.component_bytes(quantized)
    per_layer = comp["layers"]
    expert_params = sum(parameters(l.mlp.switch_mlp) for l in plain.layers)
    total_params = parameters(plain)
    bytes_total = model_build.nbytes(quantized)
    expert_bytes = sum(l["experts"] for l in per_layer)
    active_bytes = (bytes_total - expert_bytes - comp["embedding"] + comp["embedding_row"]
                    + sum(k * l["expert_bytes"] for l in per_layer))
    rows = [
        ("layers", len(layers), "len(model.layers)"),
        ("layers_linear_attention", len(linear), "layers holding a linear_attn (Gated DeltaNet) module"),
        ("layers_full_attention", len(full), "layers holding a self_attn module"),
        ("experts_per_layer", n_experts, "switch_mlp.gate_proj.weight.shape[0]"),
        ("experts_per_token", k, "the router module's top_k"),
        ("vocab_size", text.model.embed_tokens.weight.shape[0], "embed_tokens.weight.shape[0]"),
        ("hidden_size", text.model.norm.weight.shape[0], "final norm weight.shape[0]"),
        ("parameters_total", total_params, "elements of every array before quantization"),
        ("parameters_experts", expert_params, "elements of every layer's switch_mlp before quantization"),
        ("parameters_active_per_token", total_params - expert_params + expert_params * k // n_experts
         - parameters(plain.language_model.model.embed_tokens) + plain.language_model.model.embed_tokens.weight.shape[1],
         "all but the experts and the embedding; plus top_k of the experts and one embedding row"),
        ("bytes_total", bytes_total, "nbytes of every 4-bit array (packed weights; scales; biases; norms)"),
        ("bytes_embedding", comp["embedding"], "embed_tokens"),
        ("bytes_lm_head", comp["lm_head"], "lm_head"),
        ("bytes_full_attention", sum(l["attention"] for l in per_layer if l["kind"] == "full_attention"),
         "self_attn of every full-attention layer"),
        ("bytes_linear_attention", sum(l["attention"] for l in per_layer if l["kind"] == "linear_attention"),
         "linear_attn of every linear-attention layer"),
        ("bytes_router", sum(l["router"] for l in per_layer), "mlp.gate of every layer (8-bit)"),
        ("bytes_shared_expert", sum(l["shared_expert"] for l in per_layer),
         "mlp.shared_expert and shared_expert_gate of every layer"),
        ("bytes_experts", expert_bytes, "mlp.switch_mlp of every layer"),
        ("bytes_one_expert", per_layer[0]["expert_bytes"], "one layer's switch_mlp / experts_per_layer"),
        ("bytes_norms", sum(l["norms"] for l in per_layer) + comp["final_norm"], "every RMSNorm"),
        ("bytes_active_per_token", active_bytes,
         "bytes_total less the experts and the embedding; plus top_k experts per layer and one embedding row"),
    ]
    return {"model": config.name, **{q: v for q, v, _ in rows}}, {q: how for q, _, how in rows}


def main(argv=None) -> None:
    s = session.start("model", argv)
    models = [configs.WRITEUP_MODEL, configs.PROFILE_MODELS["default"]]
    rows, counted_from = [], {}
    for config in models:
        row, counted_from = counts(config, s.dtype)
        rows.append(row)
        s.progress(f"counted {config.name}")
    s.write({"counts.csv": rows}, {
        "counts": "counts.csv: one row per model, a column per quantity (each column's unit in the manifest's "
                  "declarations); counted_from says how each was counted",
        "counted_from": counted_from,
        "models": {c.name: c.mlx_lm() for c in models},
        "model_config_source": configs.SOURCE,
        "scaled_from_writeup": {c.name: c.changes_from(configs.WRITEUP_MODEL) for c in models},
        "quantization": model_build.QUANTIZATION + f"; scales and biases in {mx.float32 if s.dtype == mx.float32 else s.dtype}",
        "build": "mlx_lm.models.qwen3_5_moe.Model from the config record, quantized with quantize_model; arrays "
                 "left lazy (never evaluated): shapes and nbytes are exact, no memory is used",
        "timing": "none: this probe counts",
    })


if __name__ == "__main__":
    session.run_main(main)
