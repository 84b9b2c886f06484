"""The write-up's model as a typed record -> mlx-lm config dicts, scaled variants and cache-size formulas.

Qwen3.5/3.6-35B-A3B's text model in mlx_lm.models.qwen3_5 TextModelArgs field names. No weights are
downloaded: probes build the model from this record with random weights.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

SOURCE = (
    "Qwen3.5/3.6-35B-A3B architecture as published (THUDM/slime scripts/models/qwen3.5-35B-A3B.sh: "
    "40 layers, linear-attention-freq 4, 16 heads, 2 query groups, kv-channels 256, hidden 2048, vocab "
    "248320, 256 experts top-8 of 512, shared expert 512, linear heads 16 key / 32 value of 128, conv 4), "
    "written in mlx_lm.models.qwen3_5.TextModelArgs field names"
)


@dataclass(frozen=True)
class ModelConfig:
    """One qwen3_5_moe text model's shape; `name` says which (the write-up's, or a scaled one)."""

    name: str
    hidden_size: int
    num_hidden_layers: int
    full_attention_interval: int  # layer i is full attention when (i + 1) % interval == 0
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    linear_num_key_heads: int
    linear_num_value_heads: int
    linear_key_head_dim: int
    linear_value_head_dim: int
    linear_conv_kernel_dim: int
    num_experts: int
    num_experts_per_tok: int
    moe_intermediate_size: int
    shared_expert_intermediate_size: int
    intermediate_size: int
    rms_norm_eps: float = 1e-6
    max_position_embeddings: int = 262144
    tie_word_embeddings: bool = False
    rope_theta: float = 10000000.0
    partial_rotary_factor: float = 0.25

    def mlx_lm(self) -> dict[str, object]:
        """The config dict mlx_lm.models.qwen3_5_moe.ModelArgs.from_dict takes."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        rope = {"type": "default", "rope_theta": fields.pop("rope_theta"),
                "partial_rotary_factor": fields.pop("partial_rotary_factor")}
        fields.pop("name")
        return {"model_type": "qwen3_5_moe", **fields, "rope_parameters": rope}

    def scaled(self, name: str, **changes: object) -> "ModelConfig":
        """This shape with some fields changed (keep dimensions multiples of 64 so every layer quantizes)."""
        return dataclasses.replace(self, name=name, **changes)

    def changes_from(self, other: "ModelConfig") -> dict[str, dict[str, object]]:
        """{field: {other's value, this value}} for the fields that differ (name excluded)."""
        return {f.name: {"writeup": getattr(other, f.name), "here": getattr(self, f.name)}
                for f in dataclasses.fields(self)
                if f.name != "name" and getattr(self, f.name) != getattr(other, f.name)}

    def layer_counts(self) -> tuple[int, int]:
        """(full-attention layers, linear-attention layers)."""
        full = sum((i + 1) % self.full_attention_interval == 0 for i in range(self.num_hidden_layers))
        return full, self.num_hidden_layers - full

    def kv_bytes_per_token(self, dtype_bytes: int) -> int:
        """Keys and values of every full-attention layer for one token."""
        full, _ = self.layer_counts()
        return full * 2 * self.num_key_value_heads * self.head_dim * dtype_bytes

    def linear_state_bytes(self, dtype_bytes: int, state_bytes: int = 4) -> int:
        """Per sequence, independent of context: the recurrent state (fp32 in mlx-lm) + the conv window."""
        _, linear = self.layer_counts()
        hk, hv = self.linear_num_key_heads, self.linear_num_value_heads
        dk, dv = self.linear_key_head_dim, self.linear_value_head_dim
        conv_dim = 2 * hk * dk + hv * dv
        return linear * (hv * dv * dk * state_bytes + (self.linear_conv_kernel_dim - 1) * conv_dim * dtype_bytes)


WRITEUP_MODEL = ModelConfig(
    name="Qwen3.5/3.6-35B-A3B (write-up shape)",
    hidden_size=2048, num_hidden_layers=40, full_attention_interval=4, num_attention_heads=16,
    num_key_value_heads=2, head_dim=256, vocab_size=248320, linear_num_key_heads=16, linear_num_value_heads=32,
    linear_key_head_dim=128, linear_value_head_dim=128, linear_conv_kernel_dim=4, num_experts=256,
    num_experts_per_tok=8, moe_intermediate_size=512, shared_expert_intermediate_size=512, intermediate_size=512,
)

# The whole-graph model per profile: the write-up's shape where it fits (the GPU), scaled on the CPU.
PROFILE_MODELS = {
    "quick": WRITEUP_MODEL.scaled(
        "quick-scaled (tests)", hidden_size=128, num_hidden_layers=4, num_attention_heads=2, head_dim=64,
        vocab_size=1024, linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=64,
        linear_value_head_dim=64, num_experts=16, num_experts_per_tok=4, moe_intermediate_size=64,
        shared_expert_intermediate_size=64, intermediate_size=64),
    "default": WRITEUP_MODEL.scaled(
        "cpu-scaled (~1 GiB at 4 bits)", hidden_size=1024, num_hidden_layers=8, num_attention_heads=8,
        vocab_size=32768, moe_intermediate_size=256, shared_expert_intermediate_size=256, intermediate_size=256),
    "gpu": WRITEUP_MODEL,
}


def tiny_width(config: ModelConfig) -> ModelConfig:
    """The same layer count and layer kinds at a tiny width: per-step overhead with almost no bytes.

    No matrix has an input width of 64 (one quantization group): on MLX's CUDA backend such a layer
    failed the numpy reference check (bf16, max relative error ~2), so the experts are 128 wide.
    """
    return config.scaled(
        f"tiny-width: {config.num_hidden_layers} layers at hidden 128", hidden_size=128, num_attention_heads=2,
        num_key_value_heads=1, head_dim=64, vocab_size=1024, linear_num_key_heads=1, linear_num_value_heads=2,
        linear_key_head_dim=64, linear_value_head_dim=64, num_experts=8, num_experts_per_tok=2,
        moe_intermediate_size=128, shared_expert_intermediate_size=128, intermediate_size=128)
