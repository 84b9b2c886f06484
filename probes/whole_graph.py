"""Whole-graph probe: decode step time vs B, three ways a step is taken -> results.csv, steps.csv, fit.csv, split.csv,
gpu_busy.csv, agreement.

Modes, timed in one set of interleaved rounds: raw (the model called on one token per sequence with its
cache, argmax, mx.eval: no generator; what outside references measure), batched (mlx-lm's
BatchGenerator), single (generate_step, one sequence), looped (B generate_step sequences, one after
another), and a tiny-width model (the same layers and heads at hidden 128) raw and batched: per-step
cost with almost no bytes behind it. batched minus raw is the engine's own per-step cost. Every timed
step is kept (steps.csv) and each setting's p90 step sits beside its median. A separate process logs the
GPU (where there is one) and every sample carries its readings; the raw step is split into graph building,
launch and waiting for the device, and on a CUDA device a child process measures each raw step's GPU-busy
share with PyTorch's profiler. The replicate profiles (gpu-replicate, replicate, quick-replicate) time the
raw, batched and single modes at the same grid and nothing else, within a short budget, so a replicate
fits in one short device call.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import mlx.core as mx
import numpy as np

from probes import agreement, budget, decode, gpu_busy, gpu_log, model_build, session, step_rows, timing
from probes import config as configs

ALL_MODES = ("raw", "batched", "single", "looped", "tiny-raw", "tiny-width")
REPLICATE_MODES = ("raw", "batched", "single")
PARTS = ("split", "agreement", "gpu_busy")
GRID = (1, 2, 4, 8, 16, 24, 32, 48, 64)  # issue 33: at least these on the H200
DECODE = {
    "quick": {"prompt_tokens": 4, "batches": (1, 2, 4), "raw_batches": (1, 2, 4), "tiny_batches": (1, 4),
              "looped_batches": (2,), "timed_modes": ALL_MODES, "parts": PARTS,
              "min_sample_s": 0.0, "min_steps": 2, "max_steps": 2, "target": 0.05, "min_rounds": 9,
              "b1_rounds": 9, "max_rounds": 9, "large_b": 64, "large_b_rounds": 9, "budget_s": 300.0,
              "split_seconds": 0.0, "split_max_steps": 3, "agreement_sequences": 2, "agreement_tokens": 6,
              "max_tokens": 4096, "gpu_log_ms": 20.0, "busy_steps": 3, "busy_reserve_s": 0.0,
              "busy_timeout_s": 120.0},
    # the CPU: one step costs about 0.2 s per sequence at every B (compute-bound), so B = 64 would be a 13 s
    # step and a round of the H200's grid over a minute; the grid stops at 16, where per-token time is as flat
    "default": {"prompt_tokens": 4, "batches": (1, 2, 4, 8, 16), "raw_batches": (1, 2, 4, 8, 16),
                "tiny_batches": (1, 16), "looped_batches": (2, 4), "timed_modes": ALL_MODES, "parts": PARTS,
                "min_sample_s": 0.5, "min_steps": 2, "max_steps": 16, "target": 0.05, "min_rounds": 9,
                "b1_rounds": 20, "max_rounds": 30, "large_b": 16, "large_b_rounds": 12, "budget_s": 540.0,
                "split_seconds": 2.0, "split_max_steps": 20, "agreement_sequences": 4, "agreement_tokens": 16,
                "max_tokens": 4096, "gpu_log_ms": 20.0, "busy_steps": 3, "busy_reserve_s": 0.0,
                "busy_timeout_s": 120.0},
    "gpu": {"prompt_tokens": 4, "batches": GRID, "raw_batches": GRID, "tiny_batches": (1, 4, 16, 64),
            "looped_batches": (2, 4), "timed_modes": ALL_MODES, "parts": PARTS, "min_sample_s": 0.1, "min_steps": 2,
            "max_steps": 16, "target": 0.05, "min_rounds": 12, "b1_rounds": 40, "max_rounds": 40, "large_b": 32,
            "large_b_rounds": 12, "budget_s": 270.0, "split_seconds": 1.0, "split_max_steps": 400,
            "agreement_sequences": 8, "agreement_tokens": 48, "max_tokens": 4096, "gpu_log_ms": 20.0,
            "busy_steps": 10, "busy_reserve_s": 60.0, "busy_timeout_s": 120.0},
}
REPLICATES = {  # variant -> (the profile it runs on, what changes): raw, batched and single at the grid only
    "quick-replicate": ("quick", {"budget_s": 120.0}),
    "replicate": ("default", {"budget_s": 300.0}),
    # about 120 s of device time per process on the H200: interpreter and imports ~5 s, build ~1 s, checks
    # ~4 s, first calls of 19 settings ~10 s, rounds ~60 s (20 at least, B=1 to 40), tables ~3 s
    "gpu-replicate": ("gpu", {"min_rounds": 20, "large_b_rounds": 20, "budget_s": 100.0}),
}
for _name, (_base, _changes) in REPLICATES.items():
    DECODE[_name] = {**DECODE[_base], "timed_modes": REPLICATE_MODES, "parts": (), **_changes}
BASE = {"raw": "raw/1", "batched": "batched/1", "single": "single/1", "looped": "single/1",
        "tiny-raw": "tiny-raw/1", "tiny-width": "tiny-width/1"}
ORDER = ALL_MODES
WRITE_RESERVE_S = 15.0  # tables, manifest and the logger's stop
FIRST_CALLS_SHARE = 0.55  # of budget_s: past it, no further setting is started (its first calls compile)


def with_heads_of(tiny: configs.ModelConfig, model: configs.ModelConfig) -> configs.ModelConfig:
    """The tiny-width record with the model's own attention and linear-attention heads (same kernels per step)."""
    heads = ("num_attention_heads", "num_key_value_heads", "head_dim", "linear_num_key_heads",
             "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim")
    return tiny.scaled(f"tiny-width: {model.num_hidden_layers} layers at hidden {tiny.hidden_size} with the model's heads",
                       **{name: getattr(model, name) for name in heads})


def stop_for(batch: int, cfg: dict, cap_s: float) -> timing.Stop:
    """B=1 keeps going longest (its wander is the question); B >= large_b stops first (its steps cost most)."""
    rounds = {1: (cfg["b1_rounds"], max(cfg["b1_rounds"], cfg["max_rounds"]))}.get(batch, (
        (cfg["min_rounds"], cfg["large_b_rounds"]) if batch >= cfg["large_b"] else (cfg["min_rounds"], cfg["max_rounds"])))
    return timing.Stop(cfg["target"], min_rounds=rounds[0], max_rounds=rounds[1], max_seconds=max(cap_s, 1.0))


def wanted(cfg: dict) -> list[tuple[str, int]]:
    """Every (mode, batch) setting of the profile's modes, most needed first: the B=1 baselines, then B = 4, 16,
    64, the tiny-width model's B=1, the other batch sizes smallest first, and the tiny-width model's larger B last."""
    main = [("raw", b) for b in cfg["raw_batches"]] + [("batched", b) for b in cfg["batches"]] + [("single", 1)]
    extra = [("looped", b) for b in cfg["looped_batches"]]
    tiny = [(m, b) for b in cfg["tiny_batches"] for m in ("tiny-raw", "tiny-width")]
    rank = {1: 0, 4: 1, 16: 2, 64: 3}
    return sorted((mb for mb in main + extra + tiny if mb[0] in cfg["timed_modes"]),
                  key=lambda mb: (mb[0].startswith("tiny") and mb[1] > 1, rank.get(mb[1], 4), mb[1],
                                  ORDER.index(mb[0])))


def make_runners(s: session.Session, models: dict, prompts: list[list[int]],
                 cfg: dict) -> tuple[dict, dict, dict, list[str], list[str]]:
    """Every (mode, batch) runner, prefilled, with its first two steps timed, most needed first.

    A setting that fails (a backend error) is recorded and the rest still measured; once the first calls
    have used FIRST_CALLS_SHARE of the budget the remaining settings are not started (recorded). The raw
    runners' prefill also records the experts each layer's router touched for the B prompts' last
    position (touched, by (model, B)): the same routing the other modes' prefill makes.
    """
    runners, warmup, touched, failed, skipped = {}, {}, {}, [], []
    for mode, b in wanted(cfg):
        which = "tiny" if mode.startswith("tiny") else "main"
        if which not in models:
            continue
        if s.elapsed() > FIRST_CALLS_SHARE * cfg["budget_s"]:
            skipped.append(f"{mode}/{b}")
            continue
        model, watch = models[which], [timing.Stopwatch() for _ in range(3)]
        try:
            watch[0].start()
            if mode in ("raw", "tiny-raw"):
                with model_build.touched_experts() as seen:
                    runner = decode.Raw(model, prompts[:b], keep_first=cfg["agreement_sequences"])
                touched[(which, b)] = seen
            elif mode in ("batched", "tiny-width"):
                runner = decode.Batched(model, prompts[:b], cfg["max_tokens"], keep_first=cfg["agreement_sequences"])
            else:
                runner = decode.Looped(model, prompts[:b], cfg["max_tokens"])
            decode.sync()
            watch[0].stop()
            runner.run(watch[1], 1)
            runner.run(watch[2], 1)
        except Exception as error:  # noqa: BLE001 - a backend failure: recorded, and the rest is still measured
            failed.append(f"{mode}/{b}: {type(error).__name__}: {error}")
            continue
        runners[(mode, b)] = runner
        warmup[(mode, b)] = {"mode": mode, "batch": b, "prefill_s": watch[0].seconds,
                             "first_step_s": watch[1].seconds, "second_step_s": watch[2].seconds}
    return runners, warmup, touched, failed, skipped


def plan(s: session.Session, cfg: dict, warmup: dict) -> tuple[dict[str, timing.Stop], list[str], dict]:
    """Which settings fit the time left (dropped in drop_order() until each one's minimum rounds fit) and each
    one's stopping rule."""
    step = {f"{m}/{b}": w["second_step_s"] for (m, b), w in warmup.items()}
    single = step.get("single/1", 0.0)
    split = sum(max(cfg["split_seconds"], step[f"raw/{b}"]) for b in cfg["raw_batches"] if f"raw/{b}" in step)
    split = split if "split" in cfg["parts"] else 0.0
    agree = cfg["agreement_sequences"] * (cfg["agreement_tokens"] + 2) * single * 2 if "agreement" in cfg["parts"] else 0.0
    busy = cfg["busy_reserve_s"] if "gpu_busy" in cfg["parts"] else 0.0
    left = cfg["budget_s"] - s.elapsed() - split - agree - busy - WRITE_RESERVE_S
    per_round = {n: max(cfg["min_sample_s"], cfg["min_steps"] * t) for n, t in step.items()}
    warm = sum((s.profile.warmup + 2) * t for t in step.values())  # the timer's warm-up and calibration calls
    cap = left - warm
    stops = {n: stop_for(int(n.split("/")[1]), cfg, cap) for n in step}
    at_least = {n: per_round[n] * stops[n].min_rounds for n in step}  # each setting's rounds before a cap stops it
    kept, dropped = budget.fit_settings(at_least, drop_order(list(step)), cap, 1)
    stops = {n: stops[n] for n in kept}
    return stops, dropped, {"seconds_left_for_rounds": cap, "reserved_split_s": split, "reserved_agreement_s": agree,
                            "reserved_gpu_busy_s": busy, "estimated_round_s": sum(per_round[n] for n in kept)}


def drop_order(names: list[str]) -> list[str]:
    """Which settings go first when the rounds would not fit: the tiny-width model's, the looped ones, B above 16
    but 64, then 64, then the fill-ins 8 and 2 (largest B first within each); the baselines (B = 1, single) and
    B = 4 and 16 are never dropped. Pure."""
    def tier(name: str) -> int | None:
        mode, b = step_rows.key(name)
        if mode.startswith("tiny"):
            return 0
        if mode == "looped":
            return 1
        if b in (1, 4, 16):
            return None
        return 2 if b > 16 and b != 64 else 3 if b == 64 else 4
    ranked = [(tier(n), -step_rows.key(n)[1], n) for n in names if tier(n) is not None]
    return [n for _, _, n in sorted(ranked)]


def baselines(mode: str, b: int) -> dict[str, str]:
    """Each comparison's other setting: speedup against the mode's B=1, speedup_vs_single against the single
    path, over_raw_ms against the raw step at the same B (batched and single; tiny-width against tiny-raw)."""
    found = {"speedup": BASE[mode]}
    if not mode.startswith("tiny"):
        found["speedup_vs_single"] = "single/1"
    raw = {"batched": "raw", "single": "raw", "tiny-width": "tiny-raw"}.get(mode)
    if raw:
        found["over_raw_ms"] = f"{raw}/{b}"
    return found


def pairings(timed: dict[str, timing.Timed], mode: str, b: int) -> dict[str, step_rows.Pairing]:
    """A setting's per-round comparisons with its baselines(): speedups (B x the other's step / this step) and
    the step beyond the raw step at the same B (the engine's own cost)."""
    speedup = lambda base, here: b * base / here  # noqa: E731
    over = lambda r, here: (here - r) * 1e3  # noqa: E731
    return {column: (timed.get(other), over if column == "over_raw_ms" else speedup)
            for column, other in baselines(mode, b).items()}


def main(argv=None) -> None:
    s = session.start("whole_graph", argv, {name: base for name, (base, _) in REPLICATES.items()})
    cfg = s.config(DECODE[s.profile.name])
    config = configs.PROFILE_MODELS[s.profile.shapes]
    tiny = with_heads_of(configs.tiny_width(config), config)
    phase = budget.Phases(s.progress)
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="whole_graph-") as folder, \
            gpu_log.GpuLog(Path(folder) / "gpu.csv", cfg["gpu_log_ms"]) as log:
        models = build_models(s, phase, config, tiny, cfg, failed)
        prompts = np.random.default_rng(0).integers(0, min(config.vocab_size, tiny.vocab_size),
                                                    (max(cfg["batches"]), cfg["prompt_tokens"])).tolist()
        with phase("prefill and first steps"):
            runners, warmup, touched, not_run, skipped = make_runners(s, models, prompts, cfg)
            failed += not_run
            for which, b in {("tiny" if m.startswith("tiny") else "main", b) for m, b in runners} - set(touched):
                touched[(which, b)] = model_build.touched_per_layer(models[which], prompts[:b])
        stops, dropped, planned = plan(s, cfg, warmup)
        s.progress(f"plan: {len(stops)} settings, {planned['seconds_left_for_rounds']:.0f} s for rounds, "
                   f"dropped {dropped or 'none'}")
        start_decoded = {k: r.decoded() for k, r in runners.items()}
        settings = {n: timing.Setting(runners[step_rows.key(n)].run, stop=stop) for n, stop in stops.items()}
        for runner in runners.values():
            runner.calls.clear()  # the first steps above are not timed samples
        with phase("timing"):
            timed = s.time(settings, "whole_graph", stop=stop_for(2, cfg, planned["seconds_left_for_rounds"]),
                           min_sample_s=cfg["min_sample_s"], max_reps=cfg["max_steps"], min_reps=cfg["min_steps"])
        context = {k: cfg["prompt_tokens"] + (start_decoded[k] + r.decoded()) / 2 for k, r in runners.items()}
        steps = {n: budget.attempt(failed, f"steps {n}", step_rows.step_intervals, t, runners[step_rows.key(n)].calls,
                                   runners[step_rows.key(n)].pipelined, default=[]) for n, t in timed.items()}
        tables, records, split = measure_parts(s, phase, cfg, models, config, runners, prompts, Path(folder), failed)
        log_rows, log_source = log.stop()
    split_rows, split_samples = step_rows.split_tables(split, log_rows)
    rows, samples = result_rows(s, config, tiny, models, timed, steps, touched, context, log_rows)
    step_table = [{"mode": step_rows.key(n)[0], "batch": step_rows.key(n)[1], **r} for n in sorted(
        steps, key=lambda n: (ORDER.index(step_rows.key(n)[0]), step_rows.key(n)[1])) for r in steps[n]]
    written = {
        "results.csv": rows, "samples.csv": samples, "steps.csv": step_table, **step_rows.fit_tables(timed, rows),
        "split.csv": split_rows, "split.samples.csv": split_samples, **tables, "warmup.csv": list(warmup.values()),
        "phases.csv": phase.rows, "gpu_log.csv": log_rows,
    }
    components = model_build.component_bytes(models["main"])
    s.write({name: table for name, table in written.items() if table}, {
        "model_config": config.mlx_lm(), "model_name": config.name, "model_config_source": configs.SOURCE,
        "scaled_from_writeup": config.changes_from(configs.WRITEUP_MODEL),
        "tiny_width_config": tiny.mlx_lm(), "tiny_width_name": tiny.name,
        "parameter_bytes": model_build.nbytes(models["main"]),
        "expert_parameter_bytes": sum(l["experts"] for l in components["layers"]),
        "tiny_width_parameter_bytes": model_build.nbytes(models["tiny"]) if "tiny" in models else None,
        "quantization": model_build.QUANTIZATION + ", seed 0",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
        "stops_by_setting": {n: rule.record() for n, rule in stops.items()}, "plan": planned,
        "dropped_for_time": dropped, "not_started_for_time": skipped, "failed": failed, **records,
        "gpu_log": {"source": log_source, "readings": len(log_rows), "note": gpu_log.UTILIZATION_NOTE},
        **step_rows.DESCRIPTIONS, "gpu_busy_method": gpu_busy.__doc__.split("\n\n", 1)[1].replace("\n", " "),
        "sampler": "greedy", "prompts": "random token ids, one prompt per sequence (numpy seed 0)",
    }, columns={"fit.csv": {"slope": ("ms/sequence", "timed")}, "fit_bytes.csv": {"slope": ("ms/MB", "timed")}})


def build_models(s: session.Session, phase: budget.Phases, config: configs.ModelConfig, tiny: configs.ModelConfig,
                 cfg: dict, failed: list[str]) -> dict:
    """The profile's model, and the tiny-width one where its modes are timed, each checked against the reference."""
    with phase("build"):
        mx.random.seed(0)
        models = {"main": model_build.build(config, s.dtype)}
        if any(m.startswith("tiny") for m in cfg["timed_modes"]):
            models["tiny"] = model_build.build(tiny, s.dtype)
    with phase("reference checks"):
        model_build.check_model(s, models["main"], config, "main")
        if "tiny" in models and not budget.attempt(failed, "tiny-width model", lambda: model_build.check_model(
                s, models["tiny"], tiny, "tiny-width") or True, default=False):
            del models["tiny"]  # its timings would measure kernels that failed their check
    return models


def measure_parts(s: session.Session, phase: budget.Phases, cfg: dict, models: dict, config: configs.ModelConfig,
                  runners: dict, prompts: list[list[int]], folder: Path, failed: list[str],
                  ) -> tuple[dict[str, list[dict]], dict[str, object], dict[int, list[dict]]]:
    """The profile's parts after the rounds, each optional (a failure is recorded, the run still written): the raw
    step split, agreement, the GPU-busy share. -> (tables, manifest records, the split's steps by B)."""
    tables: dict[str, list[dict]] = {}
    records: dict[str, object] = {}
    split: dict[int, list[dict]] = {}
    if "split" in cfg["parts"]:
        with phase("step split"):
            split = {b: budget.attempt(failed, f"split raw/{b}", decode.split_steps, runners[("raw", b)],
                                       cfg["split_seconds"], cfg["split_max_steps"], default=[])
                     for b in cfg["raw_batches"] if ("raw", b) in runners}
    if "agreement" in cfg["parts"]:
        with phase("agreement"):
            tables |= agreement_tables(models["main"], config, runners, prompts, cfg, failed)
    if "gpu_busy" in cfg["parts"]:
        left = cfg["budget_s"] - s.elapsed() - WRITE_RESERVE_S
        batches = [b for b in cfg["raw_batches"] if ("raw", b) in runners]
        if left < 10:
            records["gpu_busy"] = {"measured": False, "why": f"not started: {left:.0f} s of the budget left"}
        else:
            with phase("gpu busy"):
                request = {"shapes": s.profile.shapes, "batches": batches, "steps": cfg["busy_steps"],
                           "prompts": prompts, "fingerprint": gpu_busy.fingerprint(models["main"])}
                rows, steps, found = gpu_busy.measure(request, min(cfg["busy_timeout_s"], left), folder)
            records["gpu_busy"] = {**found, "mode": "raw", "batches": batches, "steps_per_b": cfg["busy_steps"]}
            tables |= {"gpu_busy.csv": rows, "gpu_busy.samples.csv": steps}
    else:
        records["gpu_busy"] = {"measured": False, "why": f"not a part of the {s.profile.name} profile"}
    return tables, records, {b: steps for b, steps in split.items() if steps}


def result_rows(s: session.Session, config: configs.ModelConfig, tiny: configs.ModelConfig, models: dict,
                timed: dict[str, timing.Timed], steps: dict[str, list[dict]], touched: dict, context: dict,
                log_rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """results.csv and samples.csv: per setting its step, rates, bytes read, comparisons and p90 step."""
    components = {k: model_build.component_bytes(m) for k, m in models.items()}
    shape = {"main": config, "tiny": tiny}
    rows, samples, nbytes = [], [], {}
    names = sorted(timed, key=lambda n: (ORDER.index(n.split("/")[0]), int(n.split("/")[1])))
    for name in names:
        mode, b = step_rows.key(name)
        which = "tiny" if mode.startswith("tiny") else "main"
        looped = mode in ("looped", "single")  # each sequence's own calls: top_k experts and the shared weights each
        t = [b * l["top_k"] for l in components[which]["layers"]] if looped else touched[(which, b)]
        nbytes[name] = model_build.step_bytes(components[which], t, b, shape[which].linear_state_bytes(s.dtype.size),
                                              shape[which].kv_bytes_per_token(s.dtype.size), context[(mode, b)],
                                              shared_reads=b if looped else 1)
        nbytes[name]["touched_experts_per_layer_mean"] = sum(t) / len(t) if t else 0.0
    for name in names:
        mode, b = step_rows.key(name)
        other = baselines(mode, b)
        base = BASE[mode]
        row, rounds = step_rows.step_row(
            mode, b, timed[name], pairings(timed, mode, b), nbytes[name]["bytes_per_step"], {
                "model": shape["tiny" if mode.startswith("tiny") else "main"].name,
                "mean_context_tokens": context[(mode, b)], **nbytes[name],
                **step_rows.latency_columns(steps[name]),
                **{f"{column}_against": setting for column, setting in other.items() if setting in timed}},
            log_rows, (timed[base], step_rows.key(base)[1], nbytes[base]["bytes_per_step"]) if base in timed else None)
        rows.append(row)
        samples += rounds
    return rows, samples


def agreement_tables(model, config: configs.ModelConfig, runners: dict, prompts: list[list[int]], cfg: dict,
                     failed: list[str]) -> dict[str, list[dict]]:
    """Tokens of the batched and raw paths vs the single path; every path's first step vs fp32 (each optional)."""
    n = min(cfg["agreement_sequences"], max(cfg["batches"]))
    single = budget.attempt(failed, "agreement: single path", lambda: [agreement.greedy_with_margins(
        model, p, cfg["agreement_tokens"], cfg["max_tokens"]) for p in prompts[:n]], default=[])
    if not single:
        return {}
    ordered = sorted((k for k in runners if k[0] in ("raw", "batched")), key=lambda k: (ORDER.index(k[0]), k[1]))
    paths = {k: runners[k].sequences() for k in ordered}
    summary, per_sequence = agreement.token_tables(paths, [(t, m) for t, m, _ in single])
    tables = {"agreement.csv": summary, "divergence.csv": per_sequence}

    def first_step() -> list[dict]:
        model32 = agreement.as_float32(model, config)
        reference = [agreement.first_logprobs(model32, p) for p in prompts[:n]]
        firsts = {k: runners[k].first_logprobs for k in ordered}
        return agreement.first_step_rows({**firsts, ("single", 1): [lp for _, _, lp in single]}, reference)

    first = budget.attempt(failed, "agreement: fp32 first step", first_step, default=[])
    return {**tables, **({"first_step.csv": first} if first else {})}


if __name__ == "__main__":
    session.run_main(main)
