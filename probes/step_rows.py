"""Rows of the decode probes: timed settings -> results and samples rows, per-round fits, the step split's table.

Every summarised value is the median of its rounds (samples rows hold each round's value); ratios pair
two settings within a round; a fit is made within each round over the batch sizes that ran in it, so a
fixed cost and a slope have rounds of their own. Samples carry the GPU log's readings over their window.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

from probes import gpu_log, timing

SPLIT_COLUMNS = ("step_ms", "build_ms", "launch_ms", "wait_ms", "build_cpu_ms", "launch_cpu_ms", "wait_cpu_ms",
                 "host_share")
DESCRIPTIONS = {
    "modes": "raw: the model called on one token per sequence with its cache (mlx-lm make_cache, the B prompts "
             "prefilled in one call), argmax, mx.eval, no generator; batched: mlx_lm BatchGenerator with all B "
             "sequences in one batch (it overlaps building step n+1 with the device's step n); single: one "
             "generate_step sequence (the single-sequence path, overlapping the same way); looped: B "
             "generate_step sequences stepped one after another (its base is single); tiny-raw and tiny-width: "
             "the raw and batched modes on the tiny-width model (same layers and heads, hidden 128)",
    "timing": "per sample: decode_steps steps in which every one of the B sequences decodes one token (prefill "
              "and the first token outside the clock; the device synchronised before the clock starts and "
              "stops); generators persist across rounds, so the context grows (mean_context_tokens); step_ms is "
              "per decode step (looped: one token of each of the B sequences), ms_per_token = step_ms / B; "
              "speedup = B * step at B=1 / step at B within a round, against the mode's own B=1 (looped: "
              "single); speedup_vs_single against the single-sequence path; over_raw_ms = this step minus the "
              "raw step at the same B in the same round (batched and single: the engine's own per-step cost; "
              "tiny-width against tiny-raw)",
    "bytes_counted": "bytes_per_step from the quantized arrays' nbytes: per layer attention or linear attention, "
                     "norms, router and shared expert, the final norm and head (once per step; looped and single: "
                     "once per sequence), one embedding row per sequence, each touched expert once (touched = "
                     "distinct experts the router picked for the B sequences' last prompt position, per layer, on "
                     "these random weights; looped: B x top_k per layer), the recurrent state read and written per "
                     "sequence, and the KV cache of mean_context_tokens read per sequence",
    "fit": "fit.csv: least squares step_ms = fixed_ms + slope * B (slope in ms per sequence), fit_bytes.csv: "
           "step_ms = fixed_ms + slope * MB read per step (slope in ms per MB), each made within each round over "
           "the batch sizes that all ran in it (NAME.samples.csv: one fit per round); each column the median of "
           "its rounds, _min/_max the lowest and highest round",
    "steps": "steps.csv: every timed decode step of every setting: round, step (its index within the sample), "
             "step_ms = the time from the previous step's tokens reaching Python to this step's (the first step "
             "of a sample: from the clock's start), counted = whether the step enters step_ms_p90 (raw: every "
             "step, each is evaluated before the next starts; batched, single and tiny-width: the generator "
             "returns at a sample's first call the token the previous sample left computed, so that first "
             "interval is not a step and only the ones after it count; looped B > 1 steps its sequences one after "
             "another and has no steps between which to read the clock); results.csv step_ms_p90 = the "
             "nearest-rank 90th percentile of the counted steps (the ceil(0.9 n)-th smallest of p90_steps), "
             "beside step_ms, the median over rounds of each sample's mean step",
    "baselines": "results.csv names each comparison's other setting: speedup_against (the mode's own B=1: raw/1, "
                 "batched/1, single/1 for single and looped, tiny-raw/1, tiny-width/1), speedup_vs_single_against "
                 "(single/1) and over_raw_ms_against (the raw setting at the same B); byte_ratio = bytes per token at "
                 "the baseline over bytes per token here (exact), bandwidth_ratio = GB/s here over GB/s at the "
                 "baseline, paired by round, so speedup = byte_ratio * bandwidth_ratio in every round by "
                 "construction",
    "latency": "step_ms is also each sequence's time per token (every sequence gets one token per step) and "
               "per_sequence_tok_per_s its rate; aggregate_tok_per_s = B / step time, every sequence together",
    "split": "split.csv: raw steps one after another for split_seconds (at least one), each split into build "
             "(Python builds the graph: the model call and argmax), launch (mx.async_eval: the host encodes and "
             "launches the work; on the CPU backend it hands it to the stream's thread) and wait (mx.synchronize); "
             "*_cpu_ms is the Python thread's CPU time over each part (time.thread_time); host_share = (build + "
             "launch) / step; split.samples.csv has every step; gpu_* columns average the GPU log over the steps",
    "agreement": "agreement.csv per mode and batch, divergence.csv per sequence: greedy tokens of the raw and "
                 "batched paths vs the single-sequence path for the first agreement_sequences prompts over "
                 "agreement_tokens tokens; margin = the single path's top-1 minus top-2 log-probability",
    "first_step": "first_step.csv: each path's first-step log-probabilities (raw and batched at every B, and "
                  "single) vs the same step in fp32 on the same 4-bit weights (scales, biases, norms and "
                  "activations fp32; the packed words shared), computed by the single-sequence forward; "
                  "margin_fp32 = fp32 top-1 minus top-2, margin_here = the path's own difference between those "
                  "two tokens, max_abs_error / rms_error over the vocabulary; on the CPU the model is fp32 "
                  "already, so the reference is the same arithmetic",
    "warmup": "warmup.csv: per setting, seconds to build the runner (prefill and first token: first calls at "
              "this shape included), then its first and second decode step, before any timing",
    "phases": "phases.csv: each phase's start (unix s) and seconds, to read the GPU log against",
    "gpu_columns": "samples rows carry the GPU log over the sample's wall time (gpu_readings, gpu_util_pct, "
                   "sm_clock_mhz_min/max, mem_clock_mhz_min, power_w) where a log exists",
}


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank q-quantile: the ceil(q * n)-th smallest value (q = 0.9: the p90). Pure."""
    if not values:
        raise ValueError("the percentile of no values")
    if not 0 < q <= 1:
        raise ValueError(f"q {q} must lie in (0, 1]")
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def step_intervals(t: timing.Timed, calls: list[list[float]], pipelined: bool) -> list[dict]:
    """steps.csv rows of one setting: each timed sample's steps (its run() calls are the last len(t.samples)),
    with whether each enters the percentile (a pipelined runner's first interval of a sample does not)."""
    if not calls:
        return []
    mine = calls[-len(t.samples):]
    if len(mine) != len(t.samples) or any(len(c) != s.reps for c, s in zip(mine, t.samples)):
        raise ValueError(f"{len(mine)} recorded samples for {len(t.samples)} timed ones")
    return [{"round": s.round, "step": i, "step_ms": seconds * 1e3, "counted": i > 0 or not pipelined}
            for s, call in zip(t.samples, mine) for i, seconds in enumerate(call)]


def latency_columns(steps: list[dict], q: float = 0.9) -> dict[str, object]:
    """step_ms_p90 and p90_steps over the counted steps (blank where none was counted)."""
    counted = [s["step_ms"] for s in steps if s["counted"]]
    return {"step_ms_p90": percentile(counted, q) if counted else "", "p90_steps": len(counted)}


def key(name: str) -> tuple[str, int]:
    """'raw/16' -> ('raw', 16)."""
    mode, batch = name.rsplit("/", 1)
    return mode, int(batch)


def with_gpu(rows: list[dict], log_rows: list[dict]) -> list[dict]:
    """Each row with the GPU readings over its wall time (nothing added without a log)."""
    if not log_rows:
        return rows
    return [{**r, **gpu_log.window(log_rows, r["started"], r["started"] + r["wall_s"])} for r in rows]


Pairing = tuple[timing.Timed | None, Callable[[float, float], float]]  # (the other setting, f(its s, this s))


def step_row(mode: str, b: int, t: timing.Timed, pairings: dict[str, Pairing],
             bytes_per_step: float | None, constants: dict, log_rows: list[dict],
             base: tuple[timing.Timed, int, float] | None = None) -> tuple[dict, list[dict]]:
    """One decode setting's results row and samples rows; pairings: column -> another setting and the
    per-round value formed from its seconds and this one's (skipped where that setting was not timed);
    base: the speedup's baseline (its timing, B and bytes per step) for byte_ratio and bandwidth_ratio."""
    values: dict[str, timing.PerRound] = {
        "step_ms": timing.each(t, lambda s: s * 1e3),
        "ms_per_token": timing.each(t, lambda s: s / b * 1e3),
        "aggregate_tok_per_s": timing.each(t, lambda s: b / s),
        "per_sequence_tok_per_s": timing.each(t, lambda s: 1 / s),
    }
    if bytes_per_step is not None:
        values["gb_per_s"] = timing.each(t, lambda s: bytes_per_step / s / 1e9)
    for column, (other, value) in pairings.items():
        if other is not None:
            values[column] = timing.paired(other, t, value)
    ratios: dict[str, float] = {}
    if base is not None and bytes_per_step is not None:
        base_t, base_b, base_bytes = base
        ratios["byte_ratio"] = (base_bytes / base_b) / (bytes_per_step / b)
        values["bandwidth_ratio"] = timing.paired(base_t, t, lambda one, here: bytes_per_step / here / (base_bytes / one))
    row, rounds = timing.rows_of({"mode": mode, "batch": b}, t, values,
                                 {"decode_steps": t.reps, "tokens_per_sample": b * t.reps, **ratios, **constants},
                                 spread_of=list(values))
    return row, with_gpu(rounds, log_rows)


def fit_tables(timed: dict[str, timing.Timed], rows: list[dict]) -> dict[str, list[dict]]:
    """Per mode, fitted per round: step_ms against B (all, and B <= 16 where more ran) -> fit.csv, against MB
    read per step -> fit_bytes.csv; each with its samples file (one fit per round)."""
    tables: dict[str, list[dict]] = {}
    for mode in ("raw", "batched", "tiny-raw", "tiny-width"):
        bs = sorted(b for m, b in map(key, timed) if m == mode)
        if len(bs) < 2:
            continue
        mb = {r["batch"]: r["bytes_per_step"] / 1e6 for r in rows if r["mode"] == mode}
        small = [b for b in bs if b <= 16]
        variants = [("fit.csv", "batch", bs, {b: float(b) for b in bs})]
        if len(small) >= 2 and small != bs:
            variants.append(("fit.csv", "batch", small, {b: float(b) for b in small}))
        variants.append(("fit_bytes.csv", "bytes_per_step_mb", bs, mb))
        for table, x_name, use, xs in variants:
            row, per_round = _fit(timed, mode, x_name, use, xs)
            if row:
                tables.setdefault(table, []).append(row)
                tables.setdefault(timing.samples_file(table), []).extend(per_round)
    return tables


def _fit(timed: dict[str, timing.Timed], mode: str, x_name: str, use: list[int],
         xs: dict[int, float]) -> tuple[dict, list[dict]]:
    """One fit: the row (each column the median over rounds) and one row per round; ({}, []) with no common round."""
    ms = {b: {s.round: s.seconds * 1e3 for s in timed[f"{mode}/{b}"].samples} for b in use}
    common = sorted(set.intersection(*(set(m) for m in ms.values())))
    per_round = {r: timing.linear_fit([xs[b] for b in use], [ms[b][r] for b in use]) for r in common}
    if not per_round:
        return {}, []
    keys = {"mode": mode, "x": x_name, "batches": " ".join(map(str, use))}
    row: dict[str, object] = {**keys, "points": len(use), "rounds": len(per_round)}
    for i, name in enumerate(("fixed_ms", "slope", "r2")):
        got = [fit[i] for fit in per_round.values()]
        row[name] = statistics.median(got)
        if name != "r2":
            row[f"{name}_min"], row[f"{name}_max"] = min(got), max(got)
    samples = [{**keys, "round": r, "fixed_ms": f[0], "slope": f[1], "r2": f[2]} for r, f in per_round.items()]
    return row, samples


def split_tables(split: dict[int, list[dict]], log_rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """The raw step split per B: medians (with lowest and highest step) and every step."""
    rows, samples = [], []
    for b, steps in split.items():
        keys = {"mode": "raw", "batch": b}
        row: dict[str, object] = {**keys, "steps": len(steps)}
        for name in SPLIT_COLUMNS:
            got = [s[name] for s in steps]
            row[name], row[f"{name}_min"], row[f"{name}_max"] = statistics.median(got), min(got), max(got)
        if log_rows:
            end = steps[-1]["started"] + steps[-1]["step_ms"] / 1e3
            row |= gpu_log.window(log_rows, steps[0]["started"], end)
        rows.append(row)
        per_step = [{**keys, "round": i, "reps": 1, **{n: s[n] for n in SPLIT_COLUMNS}, "started": s["started"],
                     "wall_s": s["step_ms"] / 1e3} for i, s in enumerate(steps)]
        samples += with_gpu(per_step, log_rows)
    return rows, samples
