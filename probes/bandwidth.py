"""Bandwidth probe: read and copy GB/s over a sweep of buffer sizes, MLX next to numpy -> results.csv, summary.csv."""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from probes import environment, reference, session, timing

MIB = 1 << 20
SWEEPS = {  # buffer sizes (MiB) tried; the ceiling is the best figure at >= ceiling_min_mib
    "quick": {"sizes_mib": [1, 4, 16], "ceiling_min_mib": 16, "host_max_mib": 16},
    "default": {"sizes_mib": [2**i for i in range(11)], "ceiling_min_mib": 128, "host_max_mib": 1024},
    "gpu": {"sizes_mib": [2**i for i in range(13)], "ceiling_min_mib": 128, "host_max_mib": 1024},  # to 4 GiB
}
COLUMNS = 1024  # reads reduce a (size / 4 KiB, 1024) fp32 view


def fit_sizes(sizes_mib: list[int], budget_bytes: int | None, copies: int) -> list[int]:
    """The sizes whose buffers (each held `copies` times, all sizes at once) fit in budget_bytes."""
    kept, total = [], 0
    for size in sorted(sizes_mib):
        total += copies * size * MIB
        if budget_bytes is not None and total > budget_bytes:
            break
        kept.append(size)
    return kept


def mlx_ops(a: mx.array) -> dict:
    grid = a.reshape(-1, COLUMNS)
    return {
        "read_cols": lambda: grid.sum(axis=0),  # one pass down the columns: a streaming read
        "read_rows": lambda: grid.sum(axis=1),
        "read_all": lambda: a.sum(),  # full reduction: compute-bound on some backends
        "copy": lambda: -a,  # read + write of a fresh buffer (MLX has no explicit copy op)
    }


def copy_chain(a: mx.array) -> timing.Setting:
    """A sample's reps negations in one graph, each of the previous one's output: read + write per call.

    MLX frees or reuses in place each intermediate once consumed, so the calls work on one or two
    buffers that stay in cache when they fit, as a copy into a preallocated buffer does; `copy`
    instead keeps every call's fresh output alive until the sample ends.
    """

    def run(watch: timing.Stopwatch, reps: int) -> None:
        timing.mlx_finish(None)
        watch.start()
        b = a
        for _ in range(reps):
            b = -b
        timing.mlx_finish(b)
        watch.stop()

    return timing.Setting(run)


def numpy_ops(a: np.ndarray, dst: np.ndarray) -> dict:
    grid = a.reshape(-1, COLUMNS)
    return {
        "read_cols": lambda: grid.sum(axis=0),
        "read_rows": lambda: grid.sum(axis=1),
        "read_all": lambda: a.sum(),
        "copy": lambda: np.copyto(dst, a),
    }


def outside_reference(sizes_mib: list[int]) -> tuple[str, dict]:
    """A device-to-device reference on MLX's CUDA backend: torch, else cupy, if importable."""
    if environment.backend() != "cuda":
        return f"not applicable (backend {environment.backend()})", {}
    try:
        import torch

        if torch.cuda.is_available():
            finish = lambda out: torch.cuda.synchronize()  # noqa: E731
            settings = {}
            for size in sizes_mib:
                src = torch.rand(size * MIB // 4, device="cuda")
                dst = torch.empty_like(src)
                settings[("torch", "read_all", size)] = timing.kernel(lambda src=src: src.sum(), finish)
                settings[("torch", "copy", size)] = timing.kernel(lambda s=src, d=dst: d.copy_(s), finish)
            return f"torch {torch.__version__} on {torch.cuda.get_device_name()}", settings
    except ImportError:
        pass
    try:
        import cupy

        finish = lambda out: cupy.cuda.Device().synchronize()  # noqa: E731
        settings = {}
        for size in sizes_mib:
            src = cupy.random.random(size * MIB // 4, dtype=cupy.float32)
            dst = cupy.empty_like(src)
            settings[("cupy", "read_all", size)] = timing.kernel(lambda src=src: src.sum(), finish)
            settings[("cupy", "copy", size)] = timing.kernel(lambda s=src, d=dst: cupy.copyto(d, s), finish)
        return f"cupy {cupy.__version__}", settings
    except ImportError:
        return "none: neither torch nor cupy is importable", {}


def main(argv=None) -> None:
    s = session.start("bandwidth", argv)
    sweep = SWEEPS[s.profile.name]
    info = s.environment["device_info"]
    device_budget = info.get("memory_size") or info.get("total_memory") or environment.memory_available_bytes()
    host_budget = environment.memory_available_bytes()
    on_host = environment.backend() == "cpu"
    # MLX holds a buffer and a transient copy per size; numpy a source and a destination
    mlx_sizes = fit_sizes(sweep["sizes_mib"], device_budget // (4 if on_host else 2) if device_budget else None, 2)
    host_sizes = fit_sizes([x for x in sweep["sizes_mib"] if x <= sweep["host_max_mib"]],
                           host_budget // 4 if host_budget else None, 2)
    dropped = sorted(set(sweep["sizes_mib"]) - set(mlx_sizes))
    mx.random.seed(0)
    rng = np.random.default_rng(0)

    settings, buffers = {}, {}
    for size in mlx_sizes:
        a = mx.random.uniform(shape=(size * MIB // 4,))  # fp32 whatever the compute dtype: bytes are bytes
        mx.eval(a)
        buffers[size] = a
        for op, fn in mlx_ops(a).items():
            settings[("mlx", op, size)] = timing.kernel(fn)
        settings[("mlx", "copy_chain", size)] = copy_chain(a)
    for size in host_sizes:
        a = rng.random(size * MIB // 4, dtype=np.float32)
        dst = np.empty_like(a)
        for op, fn in numpy_ops(a, dst).items():
            settings[("numpy", op, size)] = timing.kernel(fn, finish=lambda out: None)
    outside, outside_settings = outside_reference(mlx_sizes)
    settings.update(outside_settings)

    # the ops are checked once, at the smallest size, against numpy on the same values
    small = reference.to_numpy(buffers[mlx_sizes[0]])
    for op, want in {"read_cols": small.reshape(-1, COLUMNS).sum(axis=0, dtype=np.float64),
                     "read_rows": small.reshape(-1, COLUMNS).sum(axis=1, dtype=np.float64),
                     "read_all": np.array(small.sum(dtype=np.float64)), "copy": -small}.items():
        s.check(f"mlx.{op}", mlx_ops(buffers[mlx_sizes[0]])[op](), want.astype(np.float32), size_mib=mlx_sizes[0])
    chained = mx.array(buffers[mlx_sizes[0]])
    for _ in range(3):
        chained = -chained
    s.check("mlx.copy_chain", chained, -small, size_mib=mlx_sizes[0], calls=3)
    s.progress(f"sizes {mlx_sizes} MiB (MLX), {host_sizes} MiB (numpy); outside reference: {outside}")

    timed = {tuple(k.split("/")): t for k, t in
             s.time({"/".join(map(str, key)): v for key, v in settings.items()}, "bandwidth").items()}
    timed = {(impl, op, int(size)): t for (impl, op, size), t in timed.items()}
    moved = {key: key[2] * MIB * (2 if key[1].startswith("copy") else 1) for key in settings}
    rows, samples = [], []
    for key in settings:
        impl, op, size = key
        row, rounds = timing.rows_of(
            {"impl": impl, "op": op, "size_mib": size}, timed[key],
            {"ms": timing.each(timed[key], lambda t: t * 1e3),
             "gb_per_s": timing.each(timed[key], lambda t, n=moved[key]: n / t / 1e9)},
            {"device": "host" if impl == "numpy" else "mlx-device" if impl == "mlx" else "cuda",
             "bytes_moved": moved[key]})
        rows.append(row)
        samples += rounds
    summary, summary_samples = summarise_sweep(rows, timed, moved, sweep["ceiling_min_mib"])
    s.write({"results.csv": rows, "samples.csv": samples, "summary.csv": summary,
             "summary.samples.csv": summary_samples}, {
        **sweep, "sizes_mib_mlx": mlx_sizes, "sizes_mib_numpy": host_sizes, "sizes_mib_dropped_for_memory": dropped,
        "element_dtype": "float32", "columns": COLUMNS,
        "ops": "read_cols: sum over axis 0 of a (n/1024, 1024) view; read_rows: sum over axis 1; read_all: "
               "full sum; copy: MLX negation into a fresh buffer (MLX has no copy op: astype/contiguous of a "
               "contiguous array are no-ops; a sample's reps outputs stay alive until it ends), numpy copyto "
               "into a preallocated buffer; copy_chain (MLX): a sample's reps negations in one graph, each of "
               "the previous output, so MLX reuses its buffers and they stay in cache when they fit",
        "bytes_counted": "reads: the buffer once; copies: the buffer read once and written once (2x size; a "
                         "CPU's read-for-ownership of the destination is not counted)",
        "ceiling": f"summary.csv: best median gb_per_s at size_mib >= {sweep['ceiling_min_mib']} per impl, "
                   "for read ops, the copy ops and any op",
        "cache_peak": f"summary.csv: best median gb_per_s at size_mib < {sweep['ceiling_min_mib']} per impl and "
                      "op group; over_ceiling = its GB/s over the GB/s of the same impl and group's ceiling "
                      "setting, paired by round: how much a cache-sized buffer overstates the ceiling (MLX's "
                      "own figure from copy_chain and the reads; numpy's; the outside reference's where it ran)",
        "outside_reference": outside,
        "outside_reference_library": outside.split()[0] if outside.startswith(("torch", "cupy")) else None,
        "cache_note": "small sizes fit in CPU caches (or are launch-bound on a GPU): the sweep shows where "
                      "figures stop being memory bandwidth",
    })


def summarise_sweep(rows: list[dict], timed: dict, moved: dict, ceiling_min_mib: int) -> tuple[list, list]:
    """summary.csv rows (the ceiling and the cache peak per impl and op group) and their rounds."""
    out, samples = [], []
    for impl in sorted({r["impl"] for r in rows}):
        for group in ("read", "copy", "any"):
            mine = [r for r in rows if r["impl"] == impl and (group == "any" or r["op"].startswith(group))]
            big = [r for r in mine if r["size_mib"] >= ceiling_min_mib]
            small = [r for r in mine if r["size_mib"] < ceiling_min_mib]
            if not big:
                continue
            top = max(big, key=lambda r: r["gb_per_s"])
            ceiling = (impl, top["op"], top["size_mib"])
            picks = [("ceiling", top, {"over_ceiling": timing.paired(timed[ceiling], timed[ceiling], lambda t, c: 1.0)})]
            if small and group != "any":
                best = max(small, key=lambda r: r["gb_per_s"])
                peak = (impl, best["op"], best["size_mib"])
                over = timing.paired(timed[peak], timed[ceiling],
                                     lambda t, c, n=moved[peak], m=moved[ceiling]: n / t / (m / c))
                picks.append(("cache_peak", best, {"over_ceiling": over}))
            for figure, picked, extra in picks:
                key = (impl, picked["op"], picked["size_mib"])
                row, rounds = timing.rows_of(
                    {"figure": figure, "impl": impl, "op": group}, timed[key],
                    {"gb_per_s": timing.each(timed[key], lambda t, n=moved[key]: n / t / 1e9), **extra},
                    {"best_op": picked["op"], "size_mib": picked["size_mib"], "ceiling_op": top["op"],
                     "ceiling_size_mib": top["size_mib"]}, spread_of=("gb_per_s", "over_ceiling"))
                out.append(row)
                samples += rounds
    return out, samples


if __name__ == "__main__":
    session.run_main(main)
