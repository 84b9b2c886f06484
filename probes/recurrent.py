"""Recurrent-state probe: one Gated DeltaNet decode step for B sequences, batched vs looped -> results.csv."""

from __future__ import annotations

import mlx.core as mx
import numpy as np
from mlx_lm.models.gated_delta import gated_delta_update, normalize_qk

from probes import environment, reference, session, timing

SHAPES = {  # key heads, value heads, key dim, value dim (one layer; T = 1 decode step)
    "quick": {"hk": 2, "hv": 4, "dk": 32, "dv": 32},
    "default": {"hk": 16, "hv": 32, "dk": 128, "dv": 128},
    "gpu": {"hk": 16, "hv": 32, "dk": 128, "dv": 128},
}


def gated_delta_reference(q, k, v, a, b, a_log, dt_bias, state):
    """The gated delta rule for one step in fp32 numpy: (B,1,Hk,Dk)x2, (B,1,Hv,Dv), (B,1,Hv)x2 -> y, state.

    g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b); per value head (key heads shared
    by Hv/Hk value heads): S <- g S; S <- S + beta (v - S k) k^T; y = S q.
    """
    q, k, v, a, b = (t[:, 0].astype(np.float64) for t in (q, k, v, a, b))
    repeat = v.shape[1] // q.shape[1]
    q, k = np.repeat(q, repeat, axis=1), np.repeat(k, repeat, axis=1)  # (B, Hv, Dk)
    g = np.exp(-np.exp(a_log.astype(np.float64)) * np.logaddexp(0.0, a + dt_bias))  # (B, Hv)
    beta = 1 / (1 + np.exp(-b))
    s = state.astype(np.float64) * g[..., None, None]  # (B, Hv, Dv, Dk)
    delta = (v - np.einsum("bhvk,bhk->bhv", s, k)) * beta[..., None]
    s = s + delta[..., None] * k[:, :, None, :]
    y = np.einsum("bhvk,bhk->bhv", s, q)
    return y[:, None].astype(np.float32), s.astype(np.float32)


def main(argv=None) -> None:
    s = session.start("recurrent", argv)
    shape, batches = SHAPES[s.profile.name], s.profile.batches
    hk, hv, dk, dv = shape["hk"], shape["hv"], shape["dk"], shape["dv"]
    n = max(batches)
    mx.random.seed(0)
    q, k = normalize_qk(mx.random.normal((n, 1, hk, dk)), mx.random.normal((n, 1, hk, dk)), inv_scale=dk**-0.5, eps=1e-6)
    inputs = {
        "q": q.astype(s.dtype), "k": k.astype(s.dtype), "v": mx.random.normal((n, 1, hv, dv)).astype(s.dtype),
        "a": mx.random.normal((n, 1, hv)).astype(s.dtype), "b": mx.random.normal((n, 1, hv)).astype(s.dtype),
    }
    a_log = mx.log(mx.random.uniform(1.0, 16.0, (hv,)))
    dt_bias = mx.random.uniform(0.5, 1.5, (hv,)).astype(s.dtype)
    state = mx.random.normal((n, hv, dv, dk)) * 0.05  # fp32, as mlx-lm keeps it
    mx.eval(inputs, a_log, dt_bias, state)
    np_in = {name: reference.to_numpy(t) for name, t in inputs.items()}
    y_ref, state_ref = gated_delta_reference(
        *(np_in[x] for x in "qkvab"), reference.to_numpy(a_log), reference.to_numpy(dt_bias), reference.to_numpy(state)
    )

    settings = {}
    for b in batches:
        batch_in = {name: mx.contiguous(t[:b]) for name, t in inputs.items()}
        batch_state = mx.contiguous(state[:b])
        single = [({name: mx.contiguous(t[i : i + 1]) for name, t in inputs.items()}, mx.contiguous(state[i : i + 1])) for i in range(b)]
        mx.eval(batch_in, batch_state, single)

        def batched(x=batch_in, st=batch_state):
            return gated_delta_update(*x.values(), a_log, dt_bias, st)

        def looped(single=single):
            return [gated_delta_update(*x.values(), a_log, dt_bias, st) for x, st in single]

        y, new_state = batched()
        s.check("gated_delta_update.y", y, y_ref[:b], mode="batched", batch=b)
        s.check("gated_delta_update.state", new_state, state_ref[:b], mode="batched", batch=b)
        outs = looped()
        s.check("gated_delta_update.y", mx.concatenate([o[0] for o in outs]), y_ref[:b], mode="looped", batch=b)
        s.check("gated_delta_update.state", mx.concatenate([o[1] for o in outs]), state_ref[:b], mode="looped", batch=b)
        settings[f"batched/{b}"] = timing.kernel(batched)
        settings[f"looped/{b}"] = timing.kernel(looped)
    timed = s.time(settings, "recurrent")

    item = inputs["q"].itemsize
    state_bytes = hv * dv * dk * state.itemsize
    seq_bytes = 2 * state_bytes + (2 * hk * dk + 2 * hv * dv + 2 * hv) * item  # state in+out, q k v a b in, y out
    rows, samples = [], []
    for mode in ("batched", "looped"):
        base = timed[f"{mode}/1"]
        for b in batches:
            row, rounds = timing.rows_of(
                {"mode": mode, "batch": b}, timed[f"{mode}/{b}"],
                timing.batching_values(b, timed[f"{mode}/{b}"], b * seq_bytes, base, seq_bytes),
                {"state_bytes_per_sequence": state_bytes, "bytes_per_call": b * seq_bytes,
                 "bytes_per_token": seq_bytes, "byte_ratio": timing.byte_ratio(b, b * seq_bytes, seq_bytes),
                 "byte_ratio_by_construction": 1.0})
            rows.append(row)
            samples += rounds
    s.write({"results.csv": rows, "samples.csv": samples}, {
        **shape, "steps_per_call": 1, "batches": list(batches), "state_dtype": "float32",
        "kernel": "mlx_lm.models.gated_delta.gated_delta_update (Metal kernel on Apple GPUs, a compiled ops "
                  "graph on the CPU and CUDA backends); q and k normalised with normalize_qk beforehand",
        "modes": "batched: one call for B sequences; looped: B one-sequence calls evaluated together",
        "bytes_counted": "per sequence: the fp32 state read and written (2 x state_bytes_per_sequence) plus "
                         "q, k, v, a, b read and y written; A_log and dt_bias excluded",
        "byte_ratio_note": "1 by construction: every sequence reads and writes its own state and nothing is "
                           "shared, so any speedup is bandwidth ratio alone",
        "formula": "predicted_speedup = byte_ratio * bandwidth_ratio = bandwidth_ratio here",
        "reference": "float64 numpy gated delta rule from the same inputs (probes.recurrent.gated_delta_reference)",
    })


if __name__ == "__main__":
    session.run_main(main)
