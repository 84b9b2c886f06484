"""Prefill probe: one sequence's prompt processed in one forward pass vs decode steps of the same model -> results.csv, ratio.csv.

The model is the whole-graph probe's (random 4-bit weights, the profile's shape). Prefill is timed from a
fresh cache to the last position's logits; decode is one generate_step token of one sequence.
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from probes import config as configs
from probes import budget, model_build, session, timing
from probes.decode import Looped, sync

PREFILL = {  # prompt lengths (tokens); decode steps per sample at least min_steps; budget_s bounds the process
    "quick": {"prompt_tokens": (16, 64), "decode_prompt_tokens": 4, "min_steps": 2, "max_steps": 2,
              "min_sample_s": 0.0, "target": 0.05, "min_rounds": 9, "max_rounds": 9, "budget_s": 300.0},
    "default": {"prompt_tokens": (16, 64), "decode_prompt_tokens": 4, "min_steps": 1, "max_steps": 16,
                "min_sample_s": 0.5, "target": 0.05, "min_rounds": 9, "max_rounds": 30, "budget_s": 420.0},
    # the H200: first calls ~70 s, a round ~9 s (the 2048-token prompt ~7 s): 170 s holds 9 rounds, so the
    # kernel probes and prefill share one device call of about 6 minutes (scripts/h200)
    "gpu": {"prompt_tokens": (128, 512, 2048), "decode_prompt_tokens": 4, "min_steps": 2, "max_steps": 64,
            "min_sample_s": 0.2, "target": 0.05, "min_rounds": 9, "max_rounds": 30, "budget_s": 170.0},
}
WRITE_RESERVE_S = 10.0


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
    cfg = s.config(PREFILL[s.profile.name])
    config = configs.PROFILE_MODELS[s.profile.name]
    phase = budget.Phases(s.progress)
    with phase("build"):
        mx.random.seed(0)
        model = model_build.build(config, s.dtype)
    with phase("reference checks"):
        model_build.check_model(s, model, config)
    rng = np.random.default_rng(0)
    settings = {}
    with phase("first calls"):
        for t in cfg["prompt_tokens"]:
            prompt = Prefill(model, rng.integers(0, config.vocab_size, t).tolist())
            prompt.run(timing.Stopwatch(), 1)
            settings[f"prefill/{t}"] = timing.Setting(prompt.run, repeatable=False)  # one prompt a sample
        decode = Looped(model, [rng.integers(0, config.vocab_size, cfg["decode_prompt_tokens"]).tolist()], 1 << 16)
        decode.run(timing.Stopwatch(), 1)
        settings["decode/1"] = timing.Setting(decode.run)
    cap = cfg["budget_s"] - s.elapsed() - WRITE_RESERVE_S
    stop = timing.Stop(cfg["target"], min_rounds=cfg["min_rounds"], max_rounds=cfg["max_rounds"],
                       max_seconds=max(cap, 1.0))
    with phase("timing"):
        timed = s.time(settings, "prefill", stop=stop, min_sample_s=cfg["min_sample_s"], max_reps=cfg["max_steps"],
                       min_reps=cfg["min_steps"])

    rows, samples, ratios, ratio_samples = [], [], [], []
    step = timed["decode/1"]
    for name, t in timed.items():
        mode, tokens = name.split("/")[0], int(name.split("/")[1]) if name.startswith("prefill") else 1
        row, rounds = timing.rows_of(
            {"mode": mode, "prompt_tokens": tokens if mode == "prefill" else cfg["decode_prompt_tokens"]}, t,
            {"ms": timing.each(t, lambda x: x * 1e3), "tok_per_s": timing.each(t, lambda x, n=tokens: n / x)},
            {"tokens_per_call": tokens}, spread_of=("ms", "tok_per_s"))
        rows.append(row)
        samples += rounds
    for n in cfg["prompt_tokens"]:
        t = timed[f"prefill/{n}"]
        row, rounds = timing.rows_of({"prompt_tokens": n}, t, {
            "prefill_tok_per_s": timing.each(t, lambda x, n=n: n / x),
            "decode_tok_per_s": timing.paired(t, step, lambda x, y: 1 / y),
            "prefill_over_decode": timing.paired(step, t, lambda d, p, n=n: n * d / p),
        }, spread_of=("prefill_tok_per_s", "decode_tok_per_s", "prefill_over_decode"))
        ratios.append(row)
        ratio_samples += rounds
    s.write({"results.csv": rows, "samples.csv": samples, "ratio.csv": ratios, "ratio.samples.csv": ratio_samples,
             "phases.csv": phase.rows}, {
        "model_config": config.mlx_lm(), "model_name": config.name, "model_config_source": configs.SOURCE,
        "scaled_from_writeup": config.changes_from(configs.WRITEUP_MODEL),
        "quantization": model_build.QUANTIZATION + ", seed 0",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
        "modes": "prefill: model(prompt, cache=fresh cache) for one sequence, evaluated to the last position's "
                 "logits (mlx-lm's generate_step prefills the same way in chunks of 2048); decode: one "
                 "generate_step token of one sequence whose context grows across rounds from "
                 "decode_prompt_tokens",
        "ratio": "ratio.csv: prefill_over_decode = prefill tokens/s / decode tokens/s within each round (the "
                 "rounds both settings ran; ratio.samples.csv); each column the median of its rounds, _min/_max "
                 "the lowest and highest round",
        "phases": "phases.csv: each phase's start (unix s) and seconds",
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
