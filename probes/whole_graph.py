"""Whole-graph probe: decode step time vs B on a random-weight model -> results.csv, fit.csv, agreement.csv, divergence.csv, settle.csv.

Modes: batched (mlx-lm BatchGenerator, B sequences in one batch), single (generate_step, one sequence),
looped (B generate_step sequences stepped one after another), and tiny-width (the same layer count and
kinds at hidden 128, batched) whose step time is per-step overhead with almost no bytes behind it.
"""

from __future__ import annotations

import statistics

import mlx.core as mx
import numpy as np
from mlx_lm.generate import generate_step

from probes import config as configs
from probes import model_build, session, timing
from probes.decode import Batched, Looped

SETTLE_LIMIT = 1.25  # slowest / fastest round of a B=1 setting counted as settled
DECODE = {
    "quick": {"prompt_tokens": 4, "batches": (1, 2, 4), "tiny_batches": (1, 2, 4), "looped_max_batch": 4,
              "min_sample_s": 0.0, "min_steps": 2, "max_steps": 2, "settle_budget_s": 0.0,
              "max_settle_sample_s": 0.0, "max_final_sample_s": 0.0,
              "agreement_sequences": 2, "agreement_tokens": 6, "max_tokens": 4096},
    "default": {"prompt_tokens": 4, "batches": (1, 2, 4, 8, 16), "tiny_batches": (1, 2, 4, 8, 16),
                "looped_max_batch": 4, "min_sample_s": 0.5, "min_steps": 2, "max_steps": 32,
                "settle_budget_s": 60.0, "max_settle_sample_s": 2.0, "max_final_sample_s": 1.0,
                "agreement_sequences": 4, "agreement_tokens": 16, "max_tokens": 4096},
    "gpu": {"prompt_tokens": 4, "batches": (1, 2, 4, 8, 16, 32, 64, 128, 256), "tiny_batches": (1, 4, 16, 64),
            "looped_max_batch": 4, "min_sample_s": 0.25, "min_steps": 2, "max_steps": 128,
            "settle_budget_s": 30.0, "max_settle_sample_s": 0.5, "max_final_sample_s": 0.5,
            "agreement_sequences": 8, "agreement_tokens": 48, "max_tokens": 4096},
}


def with_heads_of(tiny: configs.ModelConfig, model: configs.ModelConfig) -> configs.ModelConfig:
    """The tiny-width record with the model's own attention and linear-attention heads (same kernels per step)."""
    heads = ("num_attention_heads", "num_key_value_heads", "head_dim", "linear_num_key_heads",
             "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim")
    return tiny.scaled(f"tiny-width: {model.num_hidden_layers} layers at hidden {tiny.hidden_size} with the model's heads",
                       **{name: getattr(model, name) for name in heads})


def greedy_with_margins(model, prompt: list[int], tokens: int, max_tokens: int) -> tuple[list[int], list[float]]:
    """The single-sequence path's greedy tokens and, per step, top-1 minus top-2 log-probability (= logit margin)."""
    out, margins = [], []
    for token, logprobs in generate_step(mx.array(prompt), model, max_tokens=max_tokens):
        top2 = np.sort(np.array(logprobs.astype(mx.float32)))[-2:]
        out.append(int(token))
        margins.append(float(top2[1] - top2[0]))
        if len(out) == tokens:
            break
    return out, margins


def first_divergence(a: list[int], b: list[int]) -> int | None:
    """Index of the first differing token over the common length; None when they agree throughout."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None


def fit_rows(mode: str, batches: list[int], step: dict[int, timing.Spread], xs_by_batch: dict[int, float],
             x_name: str, x_unit: str) -> dict[str, object]:
    """step_ms = fixed + slope * x over these batches, fitted to the median, fastest and slowest rounds."""
    xs = [xs_by_batch[b] for b in batches]
    fits = [timing.linear_fit(xs, [getattr(step[b], key) * 1e3 for b in batches]) for key in ("median", "low", "high")]
    fixed, slope = [f[0] for f in fits], [f[1] for f in fits]
    return {
        "mode": mode, "x": x_name, "batches": " ".join(map(str, batches)), "points": len(batches),
        **timing.span("fixed_ms", fixed[0], min(fixed), max(fixed)),
        **timing.span("slope", slope[0], min(slope), max(slope)),
        "slope_unit": f"ms per {x_unit}", "r2": fits[0][2],
    }


def settle(s: session.Session, settings: dict, cfg: dict) -> tuple[float, list[dict]]:
    """Lengthen the B=1 samples (doubling) until slowest/fastest round <= SETTLE_LIMIT or the time budget ends."""
    sample, history, t0 = cfg["min_sample_s"], [], s.elapsed()
    attempt = 0
    while True:
        attempt += 1
        timed = {n: (t.spread, t.reps) for n, t in s.time(
            settings, f"settle {attempt} (sample {sample:g} s)", min_sample_s=sample,
            max_reps=cfg["max_steps"], min_reps=cfg["min_steps"]).items()}
        ratios = {name: spread.ratio for name, (spread, _) in timed.items()}
        history += [{"attempt": attempt, "setting": name, "min_sample_s": sample, "decode_steps": reps,
                     "rounds": spread.rounds, "spread_ratio": spread.ratio, "settled": spread.ratio <= SETTLE_LIMIT}
                    for name, (spread, reps) in timed.items()]
        if (all(r <= SETTLE_LIMIT for r in ratios.values()) or s.elapsed() - t0 > cfg["settle_budget_s"]
                or sample * 2 > cfg["max_settle_sample_s"]):
            return sample, history
        sample *= 2


def main(argv=None) -> None:
    s = session.start("whole_graph", argv)
    cfg = DECODE[s.profile.name]
    config = configs.PROFILE_MODELS[s.profile.name]
    tiny = with_heads_of(configs.tiny_width(config), config)
    batches = cfg["batches"]
    mx.random.seed(0)
    models = {"main": model_build.build(config, s.dtype), "tiny": model_build.build(tiny, s.dtype)}
    components = {k: model_build.component_bytes(m) for k, m in models.items()}
    total = model_build.nbytes(models["main"])
    s.progress(f"models built: {config.name} {total / 2**30:.2f} GiB; {tiny.name}")
    model_build.check_model(s, models["main"], config, "main")
    model_build.check_model(s, models["tiny"], tiny, "tiny-width")
    tiny_failed = None

    rng = np.random.default_rng(0)
    prompts = rng.integers(0, min(config.vocab_size, tiny.vocab_size), (max(batches), cfg["prompt_tokens"])).tolist()
    tiny_batches = cfg["tiny_batches"]
    touched = {("main", b): model_build.touched_per_layer(models["main"], prompts[:b]) for b in batches}
    touched |= {("tiny", b): model_build.touched_per_layer(models["tiny"], prompts[:b]) for b in tiny_batches}
    runners = {}
    for b in batches:
        runners[("batched", b)] = Batched(models["main"], prompts[:b], cfg["max_tokens"])
        if tiny_failed is None and b in tiny_batches:
            try:
                runners[("tiny-width", b)] = Batched(models["tiny"], prompts[:b], cfg["max_tokens"])
            except RuntimeError as error:  # a backend failure: recorded, and the rest is still measured
                tiny_failed = f"B={b}: {error}"
                runners = {k: v for k, v in runners.items() if k[0] != "tiny-width"}
                s.progress(f"tiny-width model failed, not measured: {tiny_failed}")
        if 1 < b <= cfg["looped_max_batch"]:
            runners[("looped", b)] = Looped(models["main"], prompts[:b], cfg["max_tokens"])
    runners[("single", 1)] = Looped(models["main"], prompts[:1], cfg["max_tokens"])
    settings = {f"{m}/{b}": timing.Setting(r.run) for (m, b), r in runners.items()}
    s.progress(f"{len(runners)} generators prefilled")

    sample, settle_rows = settle(s, {k: settings[k] for k in ("batched/1", "single/1")}, cfg)
    start_decoded = {key: r.decoded() for key, r in runners.items()}
    final_sample = min(sample, cfg["max_final_sample_s"])
    # the B=1 settings keep the settled sample length: one sample is the decode steps they settled with
    stretch = {name: 1 for name in settings}
    if final_sample > 0 and sample > final_sample:
        last = settle_rows[-1]["attempt"]
        stretch |= {r["setting"]: r["decode_steps"] for r in settle_rows if r["attempt"] == last}
    stretched = {name: timing.Setting(lambda watch, reps, run=setting.run, k=stretch[name]: run(watch, reps * k),
                                      repeatable=stretch[name] == 1)
                 for name, setting in settings.items()}
    raw = {n: (t.spread, t.reps) for n, t in s.time(
        stretched, "whole_graph", min_sample_s=final_sample, max_reps=cfg["max_steps"],
        min_reps=cfg["min_steps"]).items()}
    timed = {name: (timing.spread([x / stretch[name] for x in spread.samples]), reps * stretch[name])
             for name, (spread, reps) in raw.items()}
    end_decoded = {key: r.decoded() for key, r in runners.items()}

    order = {"batched": 0, "single": 1, "looped": 2, "tiny-width": 3}
    runners = dict(sorted(runners.items(), key=lambda item: (order[item[0][0]], item[0][1])))
    rows, step = [], {}
    base_of = {"batched": "batched/1", "tiny-width": "tiny-width/1", "looped": "single/1", "single": "single/1"}
    for (mode, b), runner in runners.items():
        seconds, reps = timed[f"{mode}/{b}"]
        per_step = seconds  # seconds per rep, and a rep is one decode step (looped: one token of each sequence)
        step[(mode, b)] = per_step
        base, _ = timed[base_of[mode]]
        model_key = "tiny" if mode == "tiny-width" else "main"
        model_config = tiny if mode == "tiny-width" else config
        context = cfg["prompt_tokens"] + (start_decoded[(mode, b)] + end_decoded[(mode, b)]) / 2
        looped = mode == "looped"  # each sequence's own calls: top_k experts and the shared weights each
        t = [b * l["top_k"] for l in components[model_key]["layers"]] if looped else touched[(model_key, b)]
        nbytes = model_build.step_bytes(components[model_key], t, b,
                                        model_config.linear_state_bytes(s.dtype.size),
                                        model_config.kv_bytes_per_token(s.dtype.size), context,
                                        shared_reads=b if looped else 1)
        tokens = b * reps
        rows.append({
            "mode": mode, "batch": b, "model": model_config.name, "decode_steps": reps, "tokens_per_sample": tokens,
            **timing.timing_columns(seconds, per=b),
            **timing.time_span("step_ms", per_step),
            **timing.time_span("ms_per_token", seconds, per=b),
            **timing.rate_span("aggregate_tok_per_s", b, seconds),
            "aggregate_tok_per_s_low": b / seconds.high, "aggregate_tok_per_s_high": b / seconds.low,
            **timing.rate_span("per_sequence_tok_per_s", 1, seconds),
            **timing.ratio_span("speedup", base, seconds, factor=b),
            "mean_context_tokens": context,
            "touched_experts_per_layer_mean": statistics.fmean(t) if t else 0.0,
            **nbytes,
            **timing.rate_span("gb_per_s", nbytes["bytes_per_step"] / 1e9, per_step),
            "spread_ratio": seconds.ratio, "settled": seconds.ratio <= SETTLE_LIMIT,
        })

    fits = []
    for mode in ("batched", "tiny-width"):
        bs = sorted(b for (m, b) in step if m == mode)
        if len(bs) < 2:
            continue
        xs = {b: float(b) for b in bs}
        fits.append(fit_rows(mode, bs, {b: step[(mode, b)] for b in bs}, xs, "batch", "sequence"))
        small = [b for b in bs if b <= 16]
        if len(small) >= 2 and small != bs:
            fits.append(fit_rows(mode, small, {b: step[(mode, b)] for b in small}, xs, "batch", "sequence"))
        by_bytes = {r["batch"]: r["bytes_per_step"] / 1e6 for r in rows if r["mode"] == mode}
        fits.append(fit_rows(mode, bs, {b: step[(mode, b)] for b in bs}, by_bytes, "bytes_per_step_mb", "MB"))

    agreement, divergence = agreement_tables(s, models["main"], runners, prompts, cfg, batches)
    s.write({"results.csv": rows, "fit.csv": fits, "agreement.csv": agreement, "divergence.csv": divergence,
             "settle.csv": settle_rows}, {
        "model_config": config.mlx_lm(), "model_name": config.name, "model_config_source": configs.SOURCE,
        "scaled_from_writeup": config.changes_from(configs.WRITEUP_MODEL),
        "tiny_width_config": tiny.mlx_lm(), "tiny_width_name": tiny.name,
        "tiny_width_shape": "the main model's layers, layer kinds and attention / linear-attention heads, at "
                            "hidden 128 with 8 experts (top-2) 128 wide and a 1024-token vocabulary (a tiny-width "
                            "model with 1-2 heads failed on MLX's CUDA backend: cudaGraphAddKernelNode invalid "
                            "argument)",
        "tiny_width_failed": tiny_failed,
        "parameter_bytes": total, "expert_parameter_bytes": sum(l["experts"] for l in components["main"]["layers"]),
        "tiny_width_parameter_bytes": model_build.nbytes(models["tiny"]),
        "quantization": model_build.QUANTIZATION + ", seed 0",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
        "settle": f"B=1 settings (batched/1, single/1) timed with samples of min_sample_s, doubled until the "
                  f"slowest round is within {SETTLE_LIMIT}x of the fastest or settle_budget_s / "
                  f"max_settle_sample_s run out; in the final timing the B=1 settings keep the settled sample "
                  f"length ({sample:g} s) and every other setting uses it capped at max_final_sample_s (here "
                  f"{final_sample:g} s); decode_steps per sample are chosen after warm-up; settle.csv "
                  "holds every attempt; spread_ratio and settled are per row of the final timing",
        "settled_min_sample_s": sample, "final_min_sample_s": final_sample,
        "timing": "per sample: decode_steps steps in which every one of the B sequences decodes one token "
                  "(prefill and the first token are outside the clock); generators persist across rounds, so "
                  "the context grows; ms_min/ms_median/ms_max and ms_per_token are per token, step_ms per "
                  "decode step (looped: one token of each of the B sequences)",
        "modes": "batched: mlx_lm BatchGenerator with all B sequences in one batch; single: one generate_step "
                 "sequence (the single-sequence path); looped: B generate_step sequences stepped one after "
                 "another (batching on paper; its B=1 is the single row); tiny-width: BatchGenerator on the "
                 "tiny-width model (same layers, hidden 128)",
        "bytes_counted": "bytes_per_step from the quantized arrays' nbytes: per layer attention or linear "
                         "attention, norms, router and shared expert, the final norm and head (once per step; "
                         "looped: once per sequence), one embedding row per sequence, each touched expert once "
                         "(touched = distinct experts the router picked for the B sequences' last prompt "
                         "position, per layer, on these random weights; looped: B x top_k per layer), the "
                         "recurrent state read and written per sequence, and the KV cache of "
                         "mean_context_tokens read per sequence",
        "fit": "fit.csv: least squares step_ms = fixed_ms + slope * x (x = B, or bytes_per_step in MB) on the "
               "median step times; fixed_ms_min/max and slope_min/max are the same fit to the fastest and "
               "slowest rounds (the range spans the three fits); a second batch fit keeps B <= 16 where more batches were run",
        "agreement": "agreement.csv per batch and divergence.csv per sequence: greedy tokens of batched "
                     "generation vs the single-sequence path (generate_step) for the first "
                     "agreement_sequences prompts over agreement_tokens tokens; margin = the single path's "
                     "top-1 minus top-2 log-probability (equal to the logit margin) at the step; random weights",
        "sampler": "greedy", "prompts": "random token ids, one prompt per sequence (numpy seed 0)",
    })


def agreement_tables(s: session.Session, model, runners: dict, prompts: list[list[int]], cfg: dict,
                     batches) -> tuple[list[dict], list[dict]]:
    """Batched tokens vs the single-sequence path's, with the single path's margins at each step."""
    n = min(cfg["agreement_sequences"], max(batches))
    reference = [greedy_with_margins(model, p, cfg["agreement_tokens"], cfg["max_tokens"]) for p in prompts[:n]]
    all_margins = [m for _, margins in reference for m in margins]
    s.progress(f"agreement: single-sequence reference for {n} prompts x {cfg['agreement_tokens']} tokens")
    summary, per_sequence = [], []
    for b in batches:
        batched = runners[("batched", b)].sequences()
        found = []
        for i in range(min(n, b)):
            want, margins = reference[i]
            got = batched[i][: len(want)]
            at = first_divergence(got, want)
            margin = margins[at] if at is not None else None
            found.append((at, margin, len(got), sum(x == y for x, y in zip(got, want))))
            per_sequence.append({
                "batch": b, "sequence": i, "tokens_compared": len(got), "identical": at is None,
                "first_divergence": at, "margin_at_divergence": margin,
                "margin_rank_at_divergence": (sum(m <= margin for m in all_margins) / len(all_margins)
                                              if margin is not None else None),
                "batched_token": got[at] if at is not None else None,
                "single_token": want[at] if at is not None else None,
            })
        diverged = [x for x in found if x[0] is not None]
        summary.append({
            "batch": b, "sequences_compared": len(found), "tokens_compared": sum(x[2] for x in found),
            "tokens_equal": sum(x[3] for x in found),
            "sequences_identical": sum(x[0] is None for x in found),
            "first_divergence_min": min((x[0] for x in diverged), default=None),
            "first_divergence_median": statistics.median([x[0] for x in diverged]) if diverged else None,
            "margin_at_divergence_median": statistics.median([x[1] for x in diverged]) if diverged else None,
            "margin_all_steps_min": min(all_margins), "margin_all_steps_p10": float(np.percentile(all_margins, 10)),
            "margin_all_steps_median": statistics.median(all_margins),
        })
    return summary, per_sequence


if __name__ == "__main__":
    session.run_main(main)
