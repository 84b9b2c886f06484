"""Memory probe: KV-cache and recurrent-state bytes per token and per sequence of the write-up's model -> kv.csv.

No timing. Each figure is computed twice: from the config by formula, and from the arrays that mlx-lm's
own cache objects hold after one attention layer and one Gated DeltaNet layer of the full-size model
have processed a few tokens.
"""

from __future__ import annotations

import mlx.core as mx
from mlx_lm.models import qwen3_5
from mlx_lm.models.cache import ArraysCache, KVCache

from probes import config as configs
from probes import reference, session

CONTEXTS = {"quick": [4096], "default": [4096, 32768, 262144], "gpu": [4096, 32768, 262144]}
PROBE_TOKENS = 16  # tokens run through each layer to fill mlx-lm's caches
DTYPES = {"bfloat16": mx.bfloat16, "float32": mx.float32}


def cache_bytes_from_mlx_lm(config: configs.ModelConfig, dtype: mx.Dtype) -> tuple[float, int]:
    """(KV bytes per token of one attention layer, state bytes of one linear layer) read off mlx-lm's caches."""
    args = qwen3_5.TextModelArgs.from_dict(config.mlx_lm())
    x = mx.random.normal((1, PROBE_TOKENS, config.hidden_size)).astype(dtype)
    attention = qwen3_5.Attention(args)
    attention.set_dtype(dtype)
    kv = KVCache()
    mx.eval(attention(x, mask="causal", cache=kv))
    keys, values = kv.keys_and_values()  # trimmed to the tokens held (allocation is in steps of 256)
    gdn = qwen3_5.GatedDeltaNet(args)
    gdn.set_dtype(dtype)
    gdn.A_log = gdn.A_log.astype(mx.float32)
    arrays = ArraysCache(size=2)
    mx.eval(gdn(x, cache=arrays))
    return (keys.nbytes + values.nbytes) / PROBE_TOKENS, sum(a.nbytes for a in arrays.cache)


def main(argv=None) -> None:
    s = session.start("memory", argv)
    config = configs.WRITEUP_MODEL
    full, linear = config.layer_counts()
    rows = []
    for name, dtype in DTYPES.items():
        size = dtype.size
        per_token = config.kv_bytes_per_token(size)
        state = config.linear_state_bytes(size)
        layer_kv, layer_state = cache_bytes_from_mlx_lm(config, dtype)
        s.progress(f"{name}: {per_token} KV bytes/token by formula, {layer_kv * full:.0f} from mlx-lm's KVCache")
        if layer_kv * full != per_token or layer_state * linear != state:
            raise reference.ReferenceMismatch(
                f"{name}: formula {per_token} B/token, {state} B state; mlx-lm caches {layer_kv * full} B/token, "
                f"{layer_state * linear} B state"
            )
        s.checks.append({"kernel": "kv_formula_vs_mlx_lm_cache", "dtype": name, "max_rel_error": 0.0, "tolerance": 0.0})
        for context in CONTEXTS[s.profile.name]:
            rows.append({
                "kv_dtype": name, "context_tokens": context,
                "full_attention_layers": full, "linear_attention_layers": linear,
                "kv_bytes_per_token": per_token, "kv_bytes_per_token_mlx_lm": layer_kv * full,
                "kv_bytes_per_sequence": per_token * context,
                "kv_gb_per_sequence": per_token * context / 1e9,
                "kv_gib_per_sequence": per_token * context / 2**30,
                "linear_state_bytes_per_sequence": state,
                "linear_state_bytes_per_sequence_mlx_lm": layer_state * linear,
                "total_bytes_per_sequence": per_token * context + state,
            })
    s.write({"kv.csv": rows}, {
        "model_config": {k: config.mlx_lm()[k] for k in (
            "num_hidden_layers", "full_attention_interval", "num_attention_heads", "num_key_value_heads",
            "head_dim", "hidden_size", "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
            "linear_value_head_dim", "linear_conv_kernel_dim")},
        "model_config_source": configs.SOURCE,
        "contexts": CONTEXTS[s.profile.name],
        "formula": "kv_bytes_per_token = full_attention_layers * 2 (K, V) * num_key_value_heads * head_dim * "
                   "dtype bytes; linear_state = linear_attention_layers * (value_heads * value_dim * key_dim * "
                   "4 (fp32 state) + (conv_kernel - 1) * conv_dim * dtype bytes), conv_dim = 2 * key_heads * "
                   "key_dim + value_heads * value_dim",
        "mlx_lm_check": f"one qwen3_5 Attention and one GatedDeltaNet at full size, random weights, run on "
                        f"{PROBE_TOKENS} tokens; bytes read off KVCache.state and ArraysCache.state",
        "not_counted": "KVCache allocates in steps of 256 tokens (262144 is a multiple); no paging, no "
                       "quantized KV; activations and weights excluded",
        "timing": "none: this probe computes sizes",
    })


if __name__ == "__main__":
    session.run_main(main)
