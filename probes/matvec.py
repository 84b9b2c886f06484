"""Quantized matvec probe: 4-bit weights x B activations, one batched call vs B calls -> results.csv."""

from __future__ import annotations

import mlx.core as mx

from probes import harness

GROUP_SIZE, BITS = 64, 4
HEAD_ROWS = 248320  # the write-up's vocabulary-sized output head

# operator -> (rows measured, rows in the write-up); k is the input width (the model's hidden size)
WRITEUP = {"k": 2048, "operators": {f"proj_{n}": (n, n) for n in (512, 2048, 8192)} | {"head": (HEAD_ROWS, HEAD_ROWS)}}
SHAPES = {
    "quick": {"k": 256, "operators": {"proj_128": (128, 128), "proj_512": (512, 512), "head": (2048, HEAD_ROWS)}},
    "default": WRITEUP,
    "gpu": WRITEUP,
}
SCALED_WHY = {
    "quick": "tiny shapes for tests",
    "default": "nothing scaled",
    "gpu": "nothing scaled",
}


def qmm(x: mx.array, w: tuple[mx.array, mx.array, mx.array]) -> mx.array:
    return mx.quantized_matmul(x, *w, transpose=True, group_size=GROUP_SIZE, bits=BITS)


def main(argv=None) -> None:
    s = harness.start("matvec", argv)
    shape = SHAPES[s.profile.name]
    k, batches = shape["k"], s.profile.batches
    mx.random.seed(0)
    x_all = mx.random.normal((max(batches), k)).astype(s.dtype)
    inputs = {b: mx.array(x_all[:b]) for b in batches}
    singles = [mx.array(x_all[i : i + 1]) for i in range(max(batches))]
    mx.eval(x_all, inputs, singles)

    settings, weights, meta = {}, {}, {}
    for op, (rows, rows_full) in shape["operators"].items():
        w = mx.quantize((mx.random.normal((rows, k)) * 0.02).astype(s.dtype), group_size=GROUP_SIZE, bits=BITS)
        mx.eval(w)
        weights[op] = w
        ref = harness.quantized_matmul_reference(harness.to_numpy(x_all), *w, GROUP_SIZE, BITS)
        for b in batches:
            s.check("quantized_matmul", qmm(inputs[b], w), ref[:b], operator=op, mode="batched", batch=b)
            looped = mx.concatenate([qmm(singles[i], w) for i in range(b)])
            s.check("quantized_matmul", looped, ref[:b], operator=op, mode="looped", batch=b)
            settings[(op, "batched", b)] = harness.kernel(lambda x=inputs[b], w=w: qmm(x, w))
            settings[(op, "looped", b)] = harness.kernel(lambda b=b, w=w: [qmm(singles[i], w) for i in range(b)])
        meta[op] = {"rows": rows, "rows_full": rows_full, "weight_bytes": sum(a.nbytes for a in w)}
        s.progress(f"{op}: {rows}x{k} checked against the numpy reference")

    timed = s.time({"/".join(map(str, key)): v for key, v in settings.items()}, "matvec")
    rows_out = []
    item = x_all.itemsize
    for op, m in meta.items():
        for mode in ("batched", "looped"):
            base, _ = timed[f"{op}/{mode}/1"]
            for b in batches:
                seconds, reps = timed[f"{op}/{mode}/{b}"]
                calls = 1 if mode == "batched" else b  # weight reads per step
                rows_out.append({
                    "operator": op, "rows": m["rows"], "rows_full": m["rows_full"],
                    "scaled": m["rows"] != m["rows_full"], "k": k, "mode": mode, "batch": b, "reps": reps,
                    **harness.timing_columns(seconds),
                    "weight_bytes": m["weight_bytes"],
                    "activation_bytes": b * (k + m["rows"]) * item,
                    "bytes_per_call": calls * m["weight_bytes"],
                    **harness.batching_figures(b, seconds, calls * m["weight_bytes"], base, m["weight_bytes"]),
                })
    s.write({"results.csv": rows_out}, {
        "group_size": GROUP_SIZE, "bits": BITS, "k": k, "batches": list(batches),
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
        "reference": "fp32 numpy x @ W.T with W unpacked by shift/mask/groups (probes.harness.unpack)",
        "weights": "normal(0, 0.02) in the compute dtype, quantized with mx.quantize; seed 0",
    })


if __name__ == "__main__":
    harness.run_main(main)
