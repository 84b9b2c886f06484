"""Quantized matvec probe: 4-bit weights x B activations, one batched call vs B calls -> results.csv, sweep.csv.

results.csv: the write-up's operators. sweep.csv: one input width, matrix sizes from well inside to beyond
twice the cache a matrix would sit in (the device's L2 on a GPU, the last-level cache on a CPU), so a step
in per-token time at that size shows, or does not.
"""

from __future__ import annotations

import dataclasses
import math

import mlx.core as mx

from probes import environment, reference, session, timing

GROUP_SIZE, BITS = 64, 4
HEAD_ROWS = 248320  # the write-up's vocabulary-sized output head

# operator -> (rows measured, rows in the write-up); k is the input width (the model's hidden size)
WRITEUP = {"k": 2048, "operators": {f"proj_{n}": (n, n) for n in (512, 2048, 8192)} | {"head": (HEAD_ROWS, HEAD_ROWS)}}
CPU_HEAD_ROWS = 65536  # 64 MiB of 4-bit weights: twice the AMD EPYC's 32 MiB last-level cache
SHAPES = {
    "quick": {"k": 256, "operators": {"proj_128": (128, 128), "proj_512": (512, 512), "head": (2048, HEAD_ROWS)}},
    "default": {"k": 2048, "operators": {**WRITEUP["operators"], "head": (CPU_HEAD_ROWS, HEAD_ROWS)}},
    "gpu": WRITEUP,
}
SCALED_WHY = {
    "quick": "tiny shapes for tests",
    "default": f"the output head is {CPU_HEAD_ROWS} of its {HEAD_ROWS} rows (rows, rows_full, scaled): on this "
               "repository's 2-core AMD EPYC one full-head call took 2.4 s with other work on the machine (a round "
               "of its six settings ~100 s, the head alone ~18 minutes), and the kernel is bound by arithmetic per "
               "row there, so its per-row figures do not need the full height",
    "gpu": "nothing scaled",
}


# the head's own time cap: on the CPU one head call costs about a third of a second and a round of its 12
# settings about half a minute, so there it stops after min_rounds unless the target is met (None: the
# profile's rule)
HEAD_MAX_SECONDS = {"quick": None, "default": 0.0, "gpu": None}
# the head's batch sizes (None: the profile's): on the CPU a head call costs ~0.6 s per sequence in both modes,
# so B = 2, 8 and 12 would add about 3 minutes to one pass of the probes and the report cites B = 1 and 16
HEAD_BATCHES = {"quick": None, "default": (1, 4, 16), "gpu": None}
SWEEP = {  # input width, batches, points, and how far past the cache the largest matrix goes
    "quick": {"k": 256, "batches": (1, 4), "points": 3, "beyond": 2.0, "min_rows": 128, "max_bytes": 1 << 20},
    "default": {"k": 2048, "batches": (1, 4, 16), "points": 8, "beyond": 2.2, "min_rows": 512, "max_bytes": 64 << 20},
    "gpu": {"k": 2048, "batches": (1, 4, 16), "points": 9, "beyond": 2.5, "min_rows": 512, "max_bytes": 512 << 20},
}
FALLBACK_CACHE_BYTES = 64 << 20  # used (and said so) when no cache size could be read


def sweep_rows(min_rows: int, max_rows: int, points: int, multiple: int = 64) -> list[int]:
    """`points` row counts spaced geometrically from min_rows to max_rows, rounded to `multiple`, distinct."""
    if points < 2 or max_rows <= min_rows:
        return [min_rows]
    ratio = (max_rows / min_rows) ** (1 / (points - 1))
    rows = [max(multiple, round(min_rows * ratio**i / multiple) * multiple) for i in range(points)]
    return sorted(set(rows))


def sweep_cache(env: dict) -> tuple[int, str]:
    """(bytes, which cache) the sweep crosses: the device L2 on a GPU, the CPU's last level on the CPU."""
    if env.get("backend") == "cpu" and env.get("cpu_last_level_cache_bytes"):
        return int(env["cpu_last_level_cache_bytes"]), "cpu last-level cache (sysfs)"
    if env.get("device_l2_cache_bytes"):
        return int(env["device_l2_cache_bytes"]), "device L2 (" + str(env.get("device_l2_cache_source")) + ")"
    return FALLBACK_CACHE_BYTES, "none read: a fixed 64 MiB stands in"


def qmm(x: mx.array, w: tuple[mx.array, mx.array, mx.array]) -> mx.array:
    return mx.quantized_matmul(x, *w, transpose=True, group_size=GROUP_SIZE, bits=BITS)


def main(argv=None) -> None:
    s = session.start("matvec", argv)
    shape = SHAPES[s.profile.name]
    k, batches = shape["k"], s.profile.batches
    mx.random.seed(0)
    x_all = mx.random.normal((max(batches), k)).astype(s.dtype)
    inputs = {b: mx.array(x_all[:b]) for b in batches}
    singles = [mx.array(x_all[i : i + 1]) for i in range(max(batches))]
    mx.eval(x_all, inputs, singles)

    settings, weights, meta = {}, {}, {}
    op_batches = {op: (HEAD_BATCHES[s.profile.name] or batches) if op == "head" else batches for op in shape["operators"]}
    for op, (rows, rows_full) in shape["operators"].items():
        w = mx.quantize((mx.random.normal((rows, k)) * 0.02).astype(s.dtype), group_size=GROUP_SIZE, bits=BITS)
        mx.eval(w)
        weights[op] = w
        ref = reference.quantized_matmul_reference(reference.to_numpy(x_all), *w, GROUP_SIZE, BITS)
        for b in op_batches[op]:
            s.check("quantized_matmul", qmm(inputs[b], w), ref[:b], operator=op, mode="batched", batch=b)
            looped = mx.concatenate([qmm(singles[i], w) for i in range(b)])
            s.check("quantized_matmul", looped, ref[:b], operator=op, mode="looped", batch=b)
            settings[(op, "batched", b)] = timing.kernel(lambda x=inputs[b], w=w: qmm(x, w))
            settings[(op, "looped", b)] = timing.kernel(lambda b=b, w=w: [qmm(singles[i], w) for i in range(b)])
        meta[op] = {"rows": rows, "rows_full": rows_full, "weight_bytes": sum(a.nbytes for a in w)}
        s.progress(f"{op}: {rows}x{k} checked against the numpy reference")

    # with its own cap the head is timed apart: its slow rounds would use up the projections' time cap too
    head_max_s = HEAD_MAX_SECONDS[s.profile.name]
    head_stop = None if head_max_s is None else dataclasses.replace(s.profile.stop, max_seconds=head_max_s)
    groups = [("matvec", list(meta), None)] if head_stop is None else [
        ("matvec", [op for op in meta if op != "head"], None), ("matvec head", ["head"], head_stop)]
    timed = {}
    for label, ops, stop in groups:
        group = {"/".join(map(str, key)): v for key, v in settings.items() if key[0] in ops}
        timed |= s.time(group, label, stop=stop) if group else {}
    rows_out, samples = [], []
    item = x_all.itemsize
    for op, m in meta.items():
        for mode in ("batched", "looped"):
            base = timed[f"{op}/{mode}/1"]
            for b in op_batches[op]:
                calls = 1 if mode == "batched" else b  # weight reads per step
                setting = timed[f"{op}/{mode}/{b}"]
                row, rounds = timing.rows_of(
                    {"operator": op, "mode": mode, "batch": b}, setting,
                    timing.batching_values(b, setting, calls * m["weight_bytes"], base, m["weight_bytes"]),
                    {"rows": m["rows"], "rows_full": m["rows_full"], "scaled": m["rows"] != m["rows_full"], "k": k,
                     "weight_bytes": m["weight_bytes"], "activation_bytes": b * (k + m["rows"]) * item,
                     "bytes_per_call": calls * m["weight_bytes"], "bytes_per_token": calls * m["weight_bytes"] / b,
                     "byte_ratio": timing.byte_ratio(b, calls * m["weight_bytes"], m["weight_bytes"])})
                rows_out.append(row)
                samples += rounds
    sweep_out, sweep_samples, sweep_params = run_sweep(s)
    s.write({"results.csv": rows_out, "samples.csv": samples, "sweep.csv": sweep_out,
             "sweep.samples.csv": sweep_samples}, {
        "sweep": sweep_params,
        "group_size": GROUP_SIZE, "bits": BITS, "k": k, "batches": list(batches),
        "batches_by_operator": {op: list(b) for op, b in op_batches.items()},
        "operators": {op: {"rows": m["rows"], "rows_full": m["rows_full"]} for op, m in meta.items()},
        "scaled": SCALED_WHY[s.profile.name],
        "modes": "batched: one quantized_matmul of (B, k) activations; looped: B calls of (1, k) "
                 "evaluated together (batching on paper: the weights are read B times)",
        "bytes_counted": "weight_bytes = packed 4-bit weights + scales + biases; bytes_per_call counts them "
                         "once per weight read (batched: once, looped: B times); activations in and outputs "
                         "out are excluded (activation_bytes shows their size)",
        "ms_columns": "ms_min/ms_median/ms_max are per call (one batched call, or all B looped calls)",
        "formula": "predicted_speedup = byte_ratio * bandwidth_ratio; with both ratios measured here it "
                   "equals speedup by construction",
        "reference": "fp32 numpy x @ W.T with W unpacked by shift/mask/groups (probes.reference.unpack)",
        "b1_baselines": "looped B=1 and batched B=1 are the same call (one (1, k) quantized_matmul) in two "
                        "settings: their rows differ only by noise. In the H200 sweep of 2026-11-30 the looped B=1 "
                        "settings at 2048 and 4160 rows ran 4 and 1 calls per sample against 52-54 for batched "
                        "B=1 (reps were set from one timed call after warm-up, and a stalled call cut them), so "
                        "their samples paid a device synchronisation per call or four, and the looped gains over "
                        "them spiked; reps now come from the fastest of three one-call samples (the reps column "
                        "shows them)",
        "weights": "normal(0, 0.02) in the compute dtype, quantized with mx.quantize; seed 0",
    })


def run_sweep(s: session.Session) -> tuple[list[dict], list[dict], dict]:
    """Matrix sizes across the cache at one input width: looped vs batched per-token time at a few B."""
    cfg = SWEEP[s.profile.name]
    k, batches = cfg["k"], cfg["batches"]
    cache_bytes, cache_name = sweep_cache(s.environment)
    item = mx.zeros((1,), dtype=s.dtype).itemsize
    row_bytes = k * BITS // 8 + 2 * (k // GROUP_SIZE) * item  # packed weights + scales + biases
    max_rows = math.ceil(min(cfg["beyond"] * cache_bytes, cfg["max_bytes"]) / row_bytes)
    sizes = sweep_rows(cfg["min_rows"], max_rows, cfg["points"])
    x_all = mx.random.normal((max(batches), k), key=mx.random.key(1)).astype(s.dtype)
    inputs = {b: mx.array(x_all[:b]) for b in batches}
    singles = [mx.array(x_all[i : i + 1]) for i in range(max(batches))]
    mx.eval(x_all, inputs, singles)
    settings, meta = {}, {}
    for rows in sizes:
        w = mx.quantize((mx.random.normal((rows, k), key=mx.random.key(rows)) * 0.02).astype(s.dtype),
                        group_size=GROUP_SIZE, bits=BITS)
        mx.eval(w)
        ref = reference.quantized_matmul_reference(reference.to_numpy(x_all), *w, GROUP_SIZE, BITS)
        for b in batches:
            s.check("quantized_matmul", qmm(inputs[b], w), ref[:b], sweep_rows=rows, mode="batched", batch=b)
            s.check("quantized_matmul", mx.concatenate([qmm(singles[i], w) for i in range(b)]), ref[:b],
                    sweep_rows=rows, mode="looped", batch=b)
            settings[f"{rows}/batched/{b}"] = timing.kernel(lambda x=inputs[b], w=w: qmm(x, w))
            settings[f"{rows}/looped/{b}"] = timing.kernel(lambda b=b, w=w: [qmm(singles[i], w) for i in range(b)])
        meta[rows] = sum(a.nbytes for a in w)
    s.progress(f"sweep: rows {sizes} at k={k} across {cache_name} of {cache_bytes} bytes, checked")
    timed = s.time(settings, "matvec sweep")
    out, samples = [], []
    for rows in sizes:
        wbytes = meta[rows]
        for mode in ("batched", "looped"):
            base = timed[f"{rows}/{mode}/1"]
            for b in batches:
                setting, looped = timed[f"{rows}/{mode}/{b}"], timed[f"{rows}/looped/{b}"]
                calls = 1 if mode == "batched" else b
                values = timing.batching_values(b, setting, calls * wbytes, base, wbytes)
                values["speedup_vs_looped"] = timing.paired(looped, setting, lambda l, t: l / t)
                row, rounds = timing.rows_of(
                    {"rows": rows, "mode": mode, "batch": b}, setting, values,
                    {"k": k, "matrix_bytes": wbytes, "cache_bytes": cache_bytes,
                     "matrix_over_cache": wbytes / cache_bytes, "bytes_per_call": calls * wbytes,
                     "bytes_per_token": calls * wbytes / b, "byte_ratio": timing.byte_ratio(b, calls * wbytes, wbytes)},
                    spread_of=(*timing.SPREAD_OF, "speedup_vs_looped"))
                out.append(row)
                samples += rounds
    return out, samples, {
        "k": k, "batches": list(batches), "rows": sizes, "cache_bytes": cache_bytes, "cache": cache_name,
        "row_bytes": row_bytes, "largest_over_cache": meta[sizes[-1]] / cache_bytes,
        "plan": f"{cfg['points']} sizes from {cfg['min_rows']} rows to {cfg['beyond']} x the cache "
                f"(capped at {cfg['max_bytes']} bytes), geometric, rounded to 64 rows",
        "columns": "per-call ms (ms_*), per-token ms (ms_per_token*), weight GB/s, speedup vs the same mode "
                   "at B=1, speedup_vs_looped = looped time / this setting's time at the same rows and B",
    }


if __name__ == "__main__":
    session.run_main(main)
