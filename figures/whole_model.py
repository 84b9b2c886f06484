"""The whole model's figures (batch-of-one.md, testbeds.md, method.md): whole-graph and context runs."""

import altair as alt
import pandas as pd

from generator.site.figure_api import FigureError, chart, table

LOG2 = alt.Scale(type="log", base=2)


def _cells(data, rows):
    """A table whose cells after the first column are claim ids (or None), shown as the claims' badges."""
    return pd.DataFrame(
        [
            {
                column: (data.claim(value) if isinstance(value, str) and index else value)
                for index, (column, value) in enumerate(row.items())
            }
            for row in rows
        ]
    )


@chart("whole-graph-throughput")
def whole_graph_throughput(data):
    """Whole-graph decode throughput against B: measured here, and the write-up's M3 Ultra table
    Aggregate and per-sequence tokens per second. Solid lines are this repository's runs (mlx-lm batch
    generation on a random-weight model of the 35B-A3B architecture: scaled down on the CPU, full size
    on the H200); the dashed line is the borrowed M3 Ultra table (a smaller dense model, wall time
    including prefill), drawn from its claims."""
    frame = data.frame("whole_graph", cited=True)
    frame = frame[frame["mode"] == "batched"]
    measured = pd.concat(
        [
            frame.assign(measure="aggregate", tok_per_s=frame["aggregate_tok_per_s"]),
            frame.assign(measure="per sequence", tok_per_s=frame["per_sequence_tok_per_s"]),
        ]
    )[["testbed", "batch", "measure", "tok_per_s"]]
    measured["source"] = "measured here"
    rows = []
    for batch in (1, 2, 4, 8, 16, 32):
        rows.append(
            {
                "testbed": "apple-m3-ultra",
                "batch": batch,
                "measure": "aggregate",
                "tok_per_s": data.claim(f"m3u-b{batch}-tok-s").value,
            }
        )
        rows.append(
            {
                "testbed": "apple-m3-ultra",
                "batch": batch,
                "measure": "per sequence",
                "tok_per_s": data.claim(f"m3u-b{batch}-per-seq-tok-s").value,
            }
        )
    borrowed = pd.DataFrame(rows).assign(source="borrowed (write-up)")
    both = pd.concat([measured, borrowed], ignore_index=True)
    return (
        alt.Chart(both)
        .mark_line(point=True)
        .encode(
            x=alt.X("batch:Q", scale=LOG2, title="sequences decoded together (B)"),
            y=alt.Y("tok_per_s:Q", scale=alt.Scale(type="log"), title="tokens per second"),
            color=alt.Color("testbed:N", title="testbed"),
            strokeDash=alt.StrokeDash(
                "source:N",
                title="data",
                scale=alt.Scale(domain=["measured here", "borrowed (write-up)"], range=[[1, 0], [6, 4]]),
            ),
            shape=alt.Shape("measure:N", title="throughput"),
            detail="measure:N",
            tooltip=["testbed", "source", "measure", "batch", alt.Tooltip("tok_per_s:Q", format=".4g")],
        )
        .properties(width=520, height=320)
    )


@table("m3-ultra-vs-h200")
def m3_ultra_vs_h200(data):
    """The write-up's batch_generate table beside the whole-graph runs here
    M3 Ultra: a smaller dense model, wall time including prefill (borrowed; aggregate and per-sequence
    recomputed from tokens and wall time). H200 and CPU: decode steps only, on a random-weight model of
    the 35B-A3B architecture (full size on the H200, scaled down on the CPU)."""
    rows = []
    for batch in (1, 2, 4, 8, 16, 32, 64):
        rows.append(
            {
                "B": batch,
                "M3 Ultra aggregate": f"m3u-b{batch}-tok-s" if batch <= 32 else None,
                "M3 Ultra per sequence": f"m3u-b{batch}-per-seq-tok-s" if batch <= 32 else None,
                "H200 aggregate": f"h200-grid-b{batch}-tok-s",
                "H200 per sequence": f"h200-wg-b{batch}-per-seq-tok-s",
                "CPU aggregate": f"cpu-grid-b{batch}-tok-s" if batch <= 16 else None,
            }
        )
    return _cells(data, rows)


@table("whole-graph-h200-cpu")
def whole_graph_h200_cpu(data):
    """The whole model's throughput by B, measured here
    Decode steps only, on a random-weight model of the 35B-A3B architecture (full size on the H200,
    scaled down on the CPU), through mlx-lm's batch generator."""
    rows = [
        {
            "B": batch,
            "H200 aggregate": f"h200-grid-b{batch}-tok-s",
            "H200 per sequence": f"h200-wg-b{batch}-per-seq-tok-s",
            "CPU aggregate": f"cpu-grid-b{batch}-tok-s" if batch <= 16 else None,
            "CPU per sequence": f"cpu-wg-b{batch}-per-seq-tok-s" if batch <= 16 else None,
        }
        for batch in (1, 2, 4, 8, 16, 32, 64)
    ]
    return _cells(data, rows)


@table("raw-step-check")
def raw_step_check(data):
    """The raw decode step on the H200, from two probes
    The whole-graph probe's raw mode (short contexts that grow during the run) and the context
    probe's raw step at a 16-token context (synthetic caches), each in its own process."""
    rows = [
        {
            "B": batch,
            "whole_graph raw": f"h200-wg-raw-b{batch}-step-ms",
            "context, 16 tokens": f"h200-ctx-16-b{batch}-step-ms",
        }
        for batch in (4, 16, 64)
    ]
    return _cells(data, rows)


@table("which-b")
def which_b(data):
    """Which B meets a per-token latency target at long context, on the H200: MLX's CUDA backend from Python
    The context probe's raw decode step (synthetic caches of each length) at the B it measures. Each target's
    cell is judged on the 90th-percentile step's interval between the replicate runs (hover over the p90
    step), as the front page's grid is: within when the whole interval meets the target, over when none of it
    does, borderline when the target lies inside it. The replicates ran one after another on one H200 host."""
    rows = []
    for context in CONTEXTS:
        for batch in CONTEXT_BATCHES:
            p90 = f"h200-ctx-{context}-b{batch}-p90-ms"
            rows.append({"context": f"{context}-token", "B": f"B={batch}", "p90 step": data.claim(p90)})
            rows[-1].update(_judged(data, p90))
    return pd.DataFrame(rows)


@table("memory-limit")
def memory_limit(data):
    """How many sequences fit in the H200's memory beside the weights, by context
    The context probe counts them from the memory free in each replicate run, which differs from run to run:
    the fewest over the runs is the figure to plan with, the most shows how far the runs spread (each run's
    own count is on the claims' pages)."""
    rows = [
        {
            "context": f"{context}-token",
            "fewest over the runs": f"h200-ctx-memory-limit-{context}-fewest",
            "most": f"h200-ctx-memory-limit-{context}-most",
        }
        for context in CONTEXTS
    ]
    return _cells(data, rows)


@table("claims-that-check")
def claims_that_check(data):
    """Each borrowed headline figure beside the same quantity measured here
    A testbed's cell is the claim that checks the figure where the gate links them, else the same quantity
    measured on that testbed (a figure of other hardware: beside it, not a check of it)."""
    rows = []
    for claim_id, figure, here in [
        ("m1max-read-ceiling", "read ceiling", "read-ceiling"),
        ("m1max-moe-speedup-b16", "MoE layer: speedup at B=16", "moe-speedup-b16"),
        ("m1max-recurrent-speedup-b16", "recurrent: speedup at B=16", "recurrent-speedup-b16"),
        ("m1max-registers-speedup-b16", "matvec: speedup at B=16", "matvec-2048-speedup-b16"),
        ("m1max-mlx-speedup-b16", "whole model: B=16 over B=1", "grid-b16-speedup"),
        ("m1max-expected-touched-b16", "experts touched at B=16", None),
        ("m1max-kv-per-token", "KV cache per token", None),
    ]:
        claim = data.claim(claim_id)
        by_testbed = {c.testbed: c for c in (data.claim(i) for i in claim.checked_by)}
        row = {"figure": figure, "write-up": claim}
        for testbed, prefix in (("linux-cpu-amd-epyc", "cpu"), ("nvidia-h200", "h200")):
            row[testbed] = by_testbed.get(testbed) or (data.claim(f"{prefix}-{here}") if here else None)
        rows.append(row)
    return pd.DataFrame(rows)


TARGETS = ("h200-ctx-target-20ms", "h200-ctx-target-50ms", "h200-ctx-target-100ms")  # the probe's latency targets
GRIDS = {"nvidia-h200": ("h200", (1, 2, 4, 8, 16, 24, 32, 48, 64)), "linux-cpu-amd-epyc": ("cpu", (1, 2, 4, 8, 16))}
CONTEXTS = (16, 2048, 8192, 32768)  # the context probe's cache lengths (tokens) ...
CONTEXT_BATCHES = (1, 4, 16, 64)  # ... and the B it measures at each


def _judged(data, p90_id):
    """A p90 claim's cell for each target: within, over or borderline, on its interval between replicate runs."""
    interval = data.interval(p90_id)
    if interval is None or interval.basis != "replicates":
        raise FigureError(f"{p90_id} has no interval between replicate runs, and the which-B cells are judged on one")
    targets = (data.claim(target) for target in TARGETS)  # claims: a column's header is a figure the ledger holds
    return {f"{target.value:g} ms": _verdict(interval, target.value) for target in targets}


def _verdict(interval, target):
    """within / over / borderline: the whole interval meets the target, none of it does, or the target lies inside it."""
    return "within" if interval.high <= target else "over" if interval.low > target else "borderline"


@chart("latency-throughput")
def latency_throughput(data):
    """Latency per token against throughput, by batch size, on each testbed
    Each point is one B: the step each sequence waits (its median and 90th percentile) against the whole
    batch's tokens per second, pooled over the testbed's replicate runs (hover for the claims). Top: the H200,
    with the which-B tables' targets dotted; bottom: the CPU. The panels share the throughput axis."""
    rows = []
    for testbed, (prefix, grid) in GRIDS.items():
        for batch in grid:
            rate = data.claim(f"{prefix}-grid-b{batch}-tok-s")
            for measure, ending in (("median", "step-ms"), ("90th percentile", "p90-ms")):
                step = data.claim(f"{prefix}-grid-b{batch}-{ending}")
                rows.append(
                    {
                        "testbed": testbed,
                        "B": f"B={batch}",  # a label, not a measured value
                        "step": measure,
                        "step_ms": step.value,
                        "tok_per_s": rate.value,
                        "claims": f"{step.id}, {rate.id}",
                    }
                )
    frame = pd.DataFrame(rows)
    which = data.frame("context", "which_b.csv", testbed="nvidia-h200", cited=True)  # the targets the probe judges
    targets = pd.DataFrame({"target_ms": sorted(which["target_ms"].unique())})
    targets["target"] = [f"{t:g} ms" for t in targets["target_ms"]]
    throughput = alt.X(
        "tok_per_s:Q", scale=alt.Scale(type="log"), title="aggregate throughput (tokens per second, whole batch)"
    )
    color = alt.Color(
        "step:N",
        title="latency per token",
        scale=alt.Scale(domain=["median", "90th percentile"]),
        legend=alt.Legend(orient="top", direction="horizontal"),
    )
    tooltip = [
        "testbed",
        "B",
        "step",
        alt.Tooltip("step_ms:Q", format=".3g"),
        alt.Tooltip("tok_per_s:Q", format=".3g"),
        "claims",
    ]

    def panel(testbed, title, height, with_targets):
        latency = alt.Scale(type="log", zero=False, nice=False)
        target = alt.Y("target_ms:Q", scale=latency, title="ms per token")
        base = (
            alt.Chart(frame)
            .transform_filter(alt.datum.testbed == testbed)
            .encode(x=throughput, y=alt.Y("step_ms:Q", scale=latency, title="ms per token"), color=color)
        )
        lines = base.mark_line(point=True).encode(detail="step:N", tooltip=tooltip)
        labels = (
            base.transform_filter(alt.datum.step == "median")
            .mark_text(align="right", dx=-7, dy=-7, fontSize=10)
            .encode(text="B:N", color=alt.value("#555"))
        )
        layers = [lines, labels]
        if with_targets:
            layers = [
                alt.Chart(targets).mark_rule(strokeDash=[2, 3], color="gray").encode(y=target),
                alt.Chart(targets)
                .mark_text(align="left", x=4, dy=-6, color="gray", fontSize=10)
                .encode(y=target, text="target:N"),
                *layers,
            ]
        return alt.layer(*layers).properties(title=title, width=270, height=height)

    return (
        alt.vconcat(
            panel("nvidia-h200", "nvidia-h200: MLX CUDA backend, full-size model", 230, True),
            panel("linux-cpu-amd-epyc", "linux-cpu-amd-epyc: MLX CPU backend, scaled model", 150, False),
            spacing=18,
        )
        .resolve_scale(x="shared", y="independent")
        .configure_title(fontSize=11, anchor="start")
    )


@table("which-b-grid")
def which_b_grid(data):
    """Which B meets a per-token latency target: one H200 host, mlx-lm's batch generator on MLX's CUDA backend
    Each cell is judged on the 90th-percentile step's interval between the replicate runs (hover over the p90
    step): within when the whole interval meets the target, over when none of it does, borderline when it
    holds the target. Step cells show the runs' geometric mean."""
    prefix, grid = GRIDS["nvidia-h200"]
    rows = []
    for batch in grid:
        p90 = f"{prefix}-grid-b{batch}-p90-ms"
        row = {
            "B": f"B={batch}",
            "median step": data.claim(f"{prefix}-grid-b{batch}-step-ms"),
            "p90 step": data.claim(p90),
        }
        rows.append(row | _judged(data, p90))
    return pd.DataFrame(rows)


@table("formula-grid")
def formula_grid(data):
    """The seed's formula on the whole model, per B, on both testbeds
    Byte ratio (the byte model's bytes per token at B=1 over at B) times bandwidth ratio (counted bytes per
    second at B over at B=1) beside the per-token speedup measured in the same runs, and the most speedup the
    byte model allows if the counted bytes moved at the read ceiling. All pooled over each testbed's replicates."""
    rows = []
    for testbed, (prefix, grid) in GRIDS.items():
        for batch in grid[1:]:
            p = f"{prefix}-grid-b{batch}"
            rows.append(
                {
                    "testbed": testbed,
                    "B": batch,
                    "byte ratio": data.claim(f"{p}-byte-ratio"),
                    "bandwidth ratio": data.claim(f"{p}-bw-ratio"),
                    "product": data.claim(f"{p}-formula"),
                    "measured speedup": data.claim(f"{p}-speedup"),
                    "ceiling bound": data.claim(f"{p}-ceiling-bound"),
                }
            )
    return pd.DataFrame(rows)


@table("raw-step-independent")
def raw_step_independent(data):
    """The raw decode step on the H200: the whole-graph probe against an independent probe
    probes/raw_step.py builds the model with mlx-lm's own code and caches (it shares only the environment
    recorder with the other probes); the whole-graph probe's raw mode runs the probes' build. Both are pooled
    over their replicate runs, each run its own process."""
    rows = [
        {
            "B": batch,
            "raw_step probe": f"h200-rawstep-b{batch}-step-ms",
            "whole_graph raw": f"h200-wg-raw-b{batch}-step-ms",
            "ratio": f"h200-rawstep-b{batch}-over-wg",
        }
        for batch in (4, 16, 64)
    ]
    return _cells(data, rows)


@table("step-anatomy-levels")
def step_anatomy_levels(data):
    """The raw decode step three ways in one process, on an H100 (probes/step_anatomy.py)
    raw_step's loop on raw_step's model, the same loop on whole_graph's model, and whole_graph's raw runner on
    its model, alternated round by round; harness and model are medians of per-round ratios (whole_graph's
    runner over raw_step's loop, and the two models under one loop); the fastest and slowest round are
    whole_graph's runner's. Pooled over the replicate runs; an NVIDIA H100, not the H200 of the other tables."""
    rows = [
        {
            "B": batch,
            "harness": f"h100-anatomy-b{batch}-harness",
            "model": f"h100-anatomy-b{batch}-model",
            "median step": f"h100-anatomy-b{batch}-wg-ms",
            "fastest round": f"h100-anatomy-b{batch}-wg-round-min-ms",
            "slowest round": f"h100-anatomy-b{batch}-wg-round-max-ms",
        }
        for batch in (1, 4, 16)
    ]
    return _cells(data, rows)


@table("step-anatomy-profile")
def step_anatomy_profile(data):
    """The raw decode step under PyTorch's profiler, on an H100, with MLX's CUDA graphs at their default and off
    The GPU-busy share is the union of the kernels' time in a profiled step over the unprofiled step; graph
    launches replay recorded kernels, single launches start one kernel each. Pooled over the replicate runs; graphs off at B=1 only (the second run's budget ended before the rest);
    an NVIDIA H100, not the H200 of the other tables."""
    rows = [
        {
            "CUDA graphs": graphs,
            "B": batch,
            "step": f"h100-profile-{graphs}-b{batch}-step-ms",
            "GPU busy": f"h100-profile-{graphs}-b{batch}-busy-ms",
            "busy share": f"h100-profile-{graphs}-b{batch}-busy-share",
            "kernels": f"h100-profile-{graphs}-b{batch}-kernels",
            "graph launches": f"h100-profile-{graphs}-b{batch}-graph-launches",
            "single launches": f"h100-profile-{graphs}-b{batch}-kernel-launches",
        }
        for graphs, batches in (("default", (1, 4, 16, 64)), ("off", (1,)))
        for batch in batches
    ]
    return _cells(data, rows)
