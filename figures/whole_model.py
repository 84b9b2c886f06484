"""The whole model's figures (batch-of-one.md, testbeds.md, method.md): whole-graph and context runs."""

import altair as alt
import pandas as pd

from generator.site.figure_api import chart, table

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
    """Which B to run on the H200, by context and per-token latency target
    The largest B measured (1, 4, 16, 64) whose raw-forward step has its 90th percentile of individual
    steps within the target, the median of the replicate runs' answers (0: none); the last column is the
    most sequences whose caches fit in memory beside the weights. From the context probe's which_b.csv."""
    rows = []
    for context in (16, 2048, 8192, 32768):
        row = {"context": f"{context} tokens"}
        for target in (20, 50, 100):
            row[f"within {target} ms"] = f"h200-ctx-which-b-{context}-{target}ms"
        row["memory limit"] = f"h200-ctx-memory-limit-{context}"
        rows.append(row)
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
        ("m1max-recurrent-speedup-b16", "recurrent state: speedup at B=16", "recurrent-speedup-b16"),
        ("m1max-registers-speedup-b16", "batched matvec: speedup at B=16", "matvec-2048-speedup-b16"),
        ("m1max-mlx-speedup-b16", "whole model: B=16 over B=1", "grid-b16-speedup"),
        ("m1max-expected-touched-b16", "experts touched by 16 tokens", None),
        ("m1max-kv-per-token", "KV cache per token", None),
    ]:
        claim = data.claim(claim_id)
        by_testbed = {c.testbed: c for c in (data.claim(i) for i in claim.checked_by)}
        row = {"figure": figure, "write-up (borrowed)": claim}
        for testbed, prefix in (("linux-cpu-amd-epyc", "cpu"), ("nvidia-h200", "h200")):
            row[testbed] = by_testbed.get(testbed) or (data.claim(f"{prefix}-{here}") if here else None)
        rows.append(row)
    return pd.DataFrame(rows)


TARGETS_MS = (20, 50, 100)  # per-token latency targets a serving engineer might set (the which-B table's columns)
GRIDS = {"nvidia-h200": ("h200", (1, 2, 4, 8, 16, 24, 32, 48, 64)), "linux-cpu-amd-epyc": ("cpu", (1, 2, 4, 8, 16))}


def _replicate_runs(data, claim):
    """The runs a claim's value is pooled over: its cited run and the replicates before it (same profile)."""
    cited = data.runs("whole_graph", testbed=claim.testbed, latest=False)
    mine = next(run for run in cited if run.path == claim.evidence.run)
    same = [
        run
        for run in cited
        if run.parameters.get("profile") == mine.parameters.get("profile") and run.started <= mine.started
    ]
    return same[-claim.evidence.replicates :]


@chart("latency-throughput")
def latency_throughput(data):
    """Per-sequence latency against aggregate throughput, by batch size
    Each point is one B (its label): the median decode step against the whole batch's tokens per second,
    pooled over the testbed's replicate runs (hover for the claims). Dotted lines: latency targets. The
    H200 runs the full-size random-weight model, the CPU a scaled-down one."""
    rows = []
    for testbed, (prefix, grid) in GRIDS.items():
        for batch in grid:
            step, rate = data.claim(f"{prefix}-grid-b{batch}-step-ms"), data.claim(f"{prefix}-grid-b{batch}-tok-s")
            rows.append(
                {
                    "testbed": testbed,
                    "B": batch,
                    "step_ms": step.value,
                    "tok_per_s": rate.value,
                    "claims": f"{step.id}, {rate.id}",
                }
            )
    frame = pd.DataFrame(rows)
    targets = pd.DataFrame({"target_ms": TARGETS_MS, "target": [f"{t} ms" for t in TARGETS_MS]})
    base = alt.Chart(frame).encode(
        x=alt.X(
            "tok_per_s:Q", scale=alt.Scale(type="log"), title="aggregate throughput (tokens per second, whole batch)"
        ),
        y=alt.Y("step_ms:Q", scale=alt.Scale(type="log"), title="latency per token for each sequence (ms)"),
        color=alt.Color("testbed:N", title="testbed"),
    )
    line = base.mark_line(point=True).encode(
        tooltip=[
            "testbed",
            "B",
            alt.Tooltip("step_ms:Q", format=".3g"),
            alt.Tooltip("tok_per_s:Q", format=".3g"),
            "claims",
        ]
    )
    labels = base.mark_text(align="left", dx=6, dy=-6, fontSize=11).encode(text="B:Q")
    rules = alt.Chart(targets).mark_rule(strokeDash=[2, 3], color="gray").encode(y="target_ms:Q")
    rule_labels = (
        alt.Chart(targets)
        .mark_text(align="left", x=4, dy=-6, color="gray", fontSize=11)
        .encode(y="target_ms:Q", text="target:N")
    )
    return (rules + rule_labels + line + labels).properties(width=520, height=340)


def _verdict(values, target):
    """within / over / borderline: whether every replicate's p90 step meets the target, none does, or they disagree."""
    within = [value <= target for value in values]
    return "within" if all(within) else "over" if not any(within) else "borderline"


@table("which-b-grid")
def which_b_grid(data):
    """Which B meets a per-token latency target on the H200
    One row per B, the batch generator at short contexts. Each replicate run's 90th-percentile step is judged
    against the target: within when every replicate meets it, over when none does, borderline when they
    disagree. Step and p90 cells are the median over the replicates (hover for the between-run interval)."""
    rows = []
    frames: dict[str, pd.DataFrame] = {}  # each replicate run's table, read once for every B
    prefix, grid = GRIDS["nvidia-h200"]
    for batch in grid:
        p90 = data.claim(f"{prefix}-grid-b{batch}-p90-ms")
        values = []
        for run in _replicate_runs(data, p90):
            if run.path not in frames:
                frames[run.path] = data.frame("whole_graph", run=run.path)
            frame = frames[run.path]
            cell = frame[(frame["mode"] == "batched") & (frame["batch"] == batch)]["step_ms_p90"]
            values.append(float(cell.iloc[0]))
        row = {"B": batch, "median step": data.claim(f"{prefix}-grid-b{batch}-step-ms"), "p90 step": p90}
        for target in TARGETS_MS:
            row[f"{target} ms"] = _verdict(values, target)
        rows.append(row)
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
