"""Prefill probe: one sequence's prompt processed in one forward pass vs decode steps of the same model -> results.csv, ratio.csv.

The model is the whole-graph probe's (random 4-bit weights, the profile's shape). Prefill is timed from a
fresh cache to the last position's logits; decode is one generate_step token of one sequence.
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from probes import config as configs
from probes import model_build, session, timing
from probes.decode import Looped, sync

PREFILL = {  # prompt lengths (tokens); decode steps per sample at least min_steps
    "quick": {"prompt_tokens": (16, 64), "decode_prompt_tokens": 4, "min_steps": 2, "max_steps": 2,
              "min_sample_s": 0.0},
    "default": {"prompt_tokens": (16, 64), "decode_prompt_tokens": 4, "min_steps": 1, "max_steps": 16,
                "min_sample_s": 0.5},
    "gpu": {"prompt_tokens": (128, 512, 2048), "decode_prompt_tokens": 4, "min_steps": 1, "max_steps": 64,
            "min_sample_s": 0.25},
}


class Prefill:
    """One sequence's prompt in one forward pass from an empty cache; one rep is one whole prompt."""

    def __init__(self, model, prompt: list[int]):
        self.model, self.prompt = model, mx.array([prompt])
        mx.eval(self.prompt)

    def run(self, watch: timing.Stopwatch, reps: int) -> None:
        caches = [self.model.make_cache() for _ in range(reps)]
        sync()
        watch.start()
        for cache in caches:
            mx.eval(self.model(self.prompt, cache=cache)[:, -1])
        sync()
        watch.stop()


def main(argv=None) -> None:
    s = session.start("prefill", argv)
    cfg = PREFILL[s.profile.name]
    config = configs.PROFILE_MODELS[s.profile.name]
    mx.random.seed(0)
    model = model_build.build(config, s.dtype)
    s.progress(f"model built: {config.name} {model_build.nbytes(model) / 2**30:.2f} GiB")
    model_build.check_model(s, model, config)
    rng = np.random.default_rng(0)
    settings = {}
    for t in cfg["prompt_tokens"]:
        prompt = rng.integers(0, config.vocab_size, t).tolist()
        settings[f"prefill/{t}"] = timing.Setting(Prefill(model, prompt).run, repeatable=False)  # one prompt a sample
    decode = Looped(model, [rng.integers(0, config.vocab_size, cfg["decode_prompt_tokens"]).tolist()], 1 << 16)
    settings["decode/1"] = timing.Setting(decode.run)
    timed = {n: (t.spread, t.reps) for n, t in s.time(
        settings, "prefill", min_sample_s=cfg["min_sample_s"], max_reps=cfg["max_steps"],
        min_reps=cfg["min_steps"]).items()}

    rows, ratios = [], []
    step, step_reps = timed["decode/1"]
    for name, (seconds, reps) in timed.items():
        mode, tokens = name.split("/")[0], int(name.split("/")[1]) if name.startswith("prefill") else 1
        rows.append({
            "mode": mode, "prompt_tokens": tokens if mode == "prefill" else cfg["decode_prompt_tokens"],
            "tokens_per_call": tokens, "reps": reps, **timing.timing_columns(seconds),
            **timing.rate_span("tok_per_s", tokens, seconds), "spread_ratio": seconds.ratio,
        })
    for t in cfg["prompt_tokens"]:
        seconds, _ = timed[f"prefill/{t}"]
        ratios.append({
            "prompt_tokens": t, "rounds": seconds.rounds,
            **timing.rate_span("prefill_tok_per_s", t, seconds),
            **timing.rate_span("decode_tok_per_s", 1, step),
            **timing.ratio_span("prefill_over_decode", step, seconds, factor=t),
        })
    s.write({"results.csv": rows, "ratio.csv": ratios}, {
        "model_config": config.mlx_lm(), "model_name": config.name, "model_config_source": configs.SOURCE,
        "scaled_from_writeup": config.changes_from(configs.WRITEUP_MODEL),
        "quantization": model_build.QUANTIZATION + ", seed 0",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
        "modes": "prefill: model(prompt, cache=fresh cache) for one sequence, evaluated to the last position's "
                 "logits (mlx-lm's generate_step prefills the same way in chunks of 2048); decode: one "
                 "generate_step token of one sequence whose context grows across rounds from "
                 "decode_prompt_tokens",
        "ratio": "ratio.csv: prefill_over_decode = prefill tokens/s / decode tokens/s, medians; _min/_max "
                 "pair the two settings round by round",
        "linear_attention_note": "on the CPU and CUDA backends mlx-lm runs the Gated DeltaNet prefill as a "
                                 "sequential loop over the prompt's tokens (gated_delta_ops); Metal has a kernel",
        "prompts": "random token ids (numpy seed 0)",
        "scaled": {"quick": "tiny prompts for tests",
                   "default": "prompts of 16 and 64 tokens, not 128 and 512: on the shared 2-core CPU one prefill "
                              "took about 0.4 s per token (32 and 128 tokens tried by hand), so 512-token "
                              "samples would have taken the run past its time budget",
                   "gpu": "nothing scaled"}[s.profile.name],
    })


if __name__ == "__main__":
    session.run_main(main)
