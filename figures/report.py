"""The testbeds page's kernel figures (testbeds.md, batching.md's flat line): built from the probes' runs and from claims, never from typed numbers."""

import altair as alt
import pandas as pd

from generator.site.figure_api import chart, table

TESTBEDS = {"linux-cpu-amd-epyc": "cpu", "nvidia-h200": "h200"}
KERNELS = {"matvec": ["proj_512", "proj_2048", "proj_8192", "head"], "moe": [None], "recurrent": [None]}
OPERATORS = {  # label on the page -> claim-id stem
    "512×2048 projection": "matvec-512",
    "2048×2048 projection": "matvec-2048",
    "8192×2048 projection": "matvec-8192",
    "248320×2048 head": "matvec-head",
    "MoE layer, top-8 of 256": "moe",
    "Gated DeltaNet state": "recurrent",
}
LOG2 = alt.Scale(type="log", base=2)


def kernel_rows(data) -> pd.DataFrame:
    """Every kernel probe's results.csv on every testbed, with one `operator` label per kernel."""
    frames = []
    for probe in KERNELS:
        frame = data.frame(probe, cited=True)
        if "operator" not in frame.columns:
            frame["operator"] = probe
        frame["operator"] = frame["operator"].map(_label)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _label(operator: str) -> str:
    names = {
        "proj_512": "512×2048 projection",
        "proj_2048": "2048×2048 projection",
        "proj_8192": "8192×2048 projection",
        "head": "248320×2048 head",
        "moe": "MoE layer, top-8 of 256",
        "recurrent": "Gated DeltaNet state",
    }
    return names.get(operator, operator)


@chart("flat-line")
def flat_line(data):
    """Per-token time against B: one batched call against B separate calls
    Median ms per token over the interleaved rounds, log scales; solid lines are one batched call, dashed
    lines B separate calls. A line that stays flat as B grows is
    batching on paper: the work per token did not shrink. On the CPU neither line falls beyond its
    rounds' noise (why is a hypothesis: testbeds.md); on the H200 the batched line falls steeply from
    B=8 on, and the separate calls fall a little for the smaller matrices."""
    frame = kernel_rows(data)
    frame["call"] = frame["mode"].map({"batched": "one batched call", "looped": "B separate calls"})
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("batch:Q", scale=LOG2, title="sequences decoded together (B)"),
            y=alt.Y("ms_per_token:Q", scale=alt.Scale(type="log"), title="ms per token (median)"),
            color=alt.Color("operator:N", title="operator"),
            strokeDash=alt.StrokeDash(
                "call:N",
                title="how B is served",
                scale=alt.Scale(domain=["one batched call", "B separate calls"], range=[[1, 0], [6, 4]]),
            ),
            tooltip=[
                "testbed",
                "operator",
                "call",
                "batch",
                alt.Tooltip("ms_per_token:Q", format=".4g"),
                alt.Tooltip("speedup:Q", format=".3g"),
                "rounds",
            ],
        )
        .properties(width=300, height=260)
        .facet(column=alt.Column("testbed:N", title=None))
        .resolve_scale(y="independent")
    )


@chart("utilization")
def utilization(data):
    """Bandwidth used at B=1, as a share of each testbed's read ceiling
    The lower an operator sits at B=1, the more room the ceiling leaves its bandwidth to grow (a bound, not
    a forecast of the gain: batching.md). Bars are
    extrapolated claims (B=1 bandwidth measured by the kernel probes ÷ the ceiling measured by the
    bandwidth probe); the M1 Max bars are the write-up's borrowed figures."""
    rows = []
    for label, stem in OPERATORS.items():
        for testbed, prefix in TESTBEDS.items():
            claim = data.claim(f"{prefix}-{stem}-b1-utilization")
            rows.append({"operator": label, "testbed": testbed, "percent": claim.value, "kind": claim.kind})
    for label, claim_id in [
        ("Gated DeltaNet state", "m1max-recurrent-b1-utilization"),
        ("MoE layer, top-8 of 256", "m1max-moe-b1-utilization"),
        ("248320×2048 head", "m1max-head-b1-utilization"),
    ]:
        claim = data.claim(claim_id)
        rows.append({"operator": label, "testbed": claim.testbed, "percent": claim.value, "kind": "borrowed"})
    frame = pd.DataFrame(rows)
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            y=alt.Y("operator:N", title=None, sort=list(OPERATORS)),
            x=alt.X("percent:Q", title="% of the read ceiling at B=1", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("testbed:N", title="testbed"),
            yOffset="testbed:N",
            opacity=alt.Opacity(
                "kind:N", title="kind", scale=alt.Scale(domain=["extrapolated", "borrowed"], range=[1.0, 0.45])
            ),
            tooltip=["operator", "testbed", "kind", alt.Tooltip("percent:Q", format=".3g")],
        )
        .properties(width=480, height=alt.Step(10))
    )


@chart("speedup-vs-prediction")
def speedup_vs_prediction(data):
    """Measured per-token speedup against the formula's prediction, per operator
    The prediction is byte ratio × (ceiling ÷ B=1 bandwidth): what the formula allows before B is
    measured. Points on the diagonal met it; points below did not reach the ceiling at that B. The
    M1 Max points are the write-up's borrowed figures (its prediction used the measured bandwidth
    ratio, so they sit on the diagonal by construction)."""
    rows = []
    for label, stem in OPERATORS.items():
        for testbed, prefix in TESTBEDS.items():
            for batch in [16] if prefix == "cpu" else [16, 256]:
                rows.append(
                    {
                        "operator": label,
                        "testbed": testbed,
                        "B": f"B={batch}",  # a label, not a measured value
                        "predicted": data.claim(f"{prefix}-{stem}-bound-b{batch}").value,
                        "measured": data.claim(f"{prefix}-{stem}-speedup-b{batch}").value,
                    }
                )
    for label, predicted, measured in [
        ("MoE layer, top-8 of 256", "m1max-moe-predicted-b16", "m1max-moe-speedup-b16"),
        ("Gated DeltaNet state", "m1max-recurrent-predicted-b16", "m1max-recurrent-speedup-b16"),
        ("248320×2048 head", "m1max-head-ratio-ceiling", "m1max-head-speedup"),
    ]:
        rows.append(
            {
                "operator": label,
                "testbed": "apple-m1-max",
                "B": "B=16",
                "predicted": data.claim(predicted).value,
                "measured": data.claim(measured).value,
            }
        )
    frame = pd.DataFrame(rows)
    diagonal = (  # measured = predicted, through the predictions themselves (no number of its own)
        alt.Chart(frame).mark_line(color="gray", strokeDash=[4, 4]).encode(x="predicted:Q", y="predicted:Q")
    )
    points = (
        alt.Chart(frame)
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X("predicted:Q", scale=alt.Scale(type="log"), title="predicted speedup (×)"),
            y=alt.Y("measured:Q", scale=alt.Scale(type="log"), title="measured speedup (×)"),
            color=alt.Color("testbed:N", title="testbed"),
            shape=alt.Shape("operator:N", title="operator"),
            tooltip=[
                "testbed",
                "operator",
                "B",
                alt.Tooltip("predicted:Q", format=".3g"),
                alt.Tooltip("measured:Q", format=".3g"),
            ],
        )
    )
    return alt.layer(diagonal, points).properties(width=480, height=380)


TEXT_COLUMNS = {"operator", "testbed", "quantity", "B"}


def _claim_rows(data, rows):
    """A table whose cells (outside TEXT_COLUMNS) are claim ids, shown as the claims' badges."""
    return pd.DataFrame(
        [
            {
                column: (data.claim(value) if isinstance(value, str) and column not in TEXT_COLUMNS else value)
                for column, value in row.items()
            }
            for row in rows
        ]
    )


@table("formula-per-operator")
def formula_per_operator(data):
    """The formula per operator at B=1, on both testbeds
    Each operator's bandwidth at B=1, its share of the read ceiling, and the most the bandwidth can still
    grow (the ceiling over the B=1 bandwidth): the bandwidth-ratio ceiling the prediction below uses."""
    columns = {"B=1 bandwidth": "b1-bandwidth", "share of ceiling": "b1-utilization", "ceiling ÷ B=1": "ratio-ceiling"}
    return _per_operator(data, columns)


@table("formula-per-operator-b16")
def formula_per_operator_b16(data):
    """The formula per operator at B=16, on both testbeds
    The byte ratio, the formula's prediction (byte ratio × the bandwidth-ratio ceiling above), the measured
    speedup of one batched call, and that of B separate calls (no shared read)."""
    columns = {
        "byte ratio": "byte-ratio-b16",
        "predicted": "bound-b16",
        "measured": "speedup-b16",
        "separate calls": "looped-speedup-b16",
    }
    return _per_operator(data, columns)


def _per_operator(data, columns):
    """A row per operator and testbed; columns: header -> the claim id's ending (<testbed>-<operator>-<ending>)."""
    rows = [
        {"operator": label, "testbed": testbed, **{name: f"{prefix}-{stem}-{end}" for name, end in columns.items()}}
        for label, stem in OPERATORS.items()
        for testbed, prefix in TESTBEDS.items()
    ]
    return _claim_rows(data, rows)


@table("formula-h200-b256")
def formula_h200_b256(data):
    """The same on the H200 at B=256
    Byte ratio, the formula's prediction, the measured speedup, and the share of the prediction it achieved."""
    rows = [
        {
            "operator": label,
            "byte ratio": f"h200-{stem}-byte-ratio-b256",
            "bandwidth ratio": f"h200-{stem}-bandwidth-ratio-b256",
            "predicted": f"h200-{stem}-bound-b256",
            "measured": f"h200-{stem}-speedup-b256",
            "achieved": f"h200-{stem}-achieved-b256",
        }
        for label, stem in OPERATORS.items()
    ]
    return _claim_rows(data, rows)


# (quantity, the write-up's claim, the stem of this repository's claims: cpu-<stem> and h200-<stem>)
WORKED_EXAMPLES = (
    ("recurrent state: B=1 bandwidth", "m1max-recurrent-b1-bandwidth", "recurrent-b1-bandwidth"),
    ("recurrent state: share of ceiling", "m1max-recurrent-b1-utilization", "recurrent-b1-utilization"),
    (
        "recurrent state: bandwidth ratio at B=16",
        "m1max-recurrent-bandwidth-ratio-b16",
        "recurrent-bandwidth-ratio-b16",
    ),
    ("recurrent state: speedup at B=16", "m1max-recurrent-speedup-b16", "recurrent-speedup-b16"),
    ("MoE: B=1 bandwidth", "m1max-moe-b1-bandwidth", "moe-b1-bandwidth"),
    ("MoE: share of ceiling", "m1max-moe-b1-utilization", "moe-b1-utilization"),
    ("MoE: byte ratio at B=16 (one routing draw)", "m1max-moe-byte-ratio-b16", "moe-byte-ratio-b16"),
    ("MoE: bandwidth ratio at B=16", "m1max-moe-bandwidth-ratio-b16", "moe-bandwidth-ratio-b16"),
    ("MoE: byte ratio × bandwidth ratio", "m1max-moe-predicted-b16", "moe-product-b16"),
    ("MoE: speedup at B=16", "m1max-moe-speedup-b16", "moe-speedup-b16"),
    ("output head: B=1 bandwidth", "m1max-head-b1-bandwidth", "matvec-head-b1-bandwidth"),
    ("output head: share of ceiling", "m1max-head-b1-utilization", "matvec-head-b1-utilization"),
    ("output head: ceiling ÷ B=1 bandwidth", "m1max-head-ratio-ceiling", "matvec-head-ratio-ceiling"),
    ("output head: speedup, weights re-read per sequence", "m1max-head-speedup", "matvec-head-looped-speedup-b16"),
)


@table("writeup-worked-examples")
def writeup_worked_examples(data):
    """The write-up's worked examples, recomputed, beside this repository's measurements at B=16
    Each M1 Max figure is borrowed (or computed from borrowed figures); the columns to its right are
    what the probes measured for the same operator here."""
    rows = [
        {
            "quantity": quantity,
            "M1 Max (write-up)": borrowed,
            "linux-cpu-amd-epyc": f"cpu-{stem}",
            "nvidia-h200": f"h200-{stem}",
        }
        for quantity, borrowed, stem in WORKED_EXAMPLES
    ]
    return _claim_rows(data, rows)


@chart("small-batches")
def small_batches(data):
    """One batched 4-bit call on the H200: per-token speedup over B=1 against the byte ratio
    Median speedup over the interleaved rounds for B up to 16; the grey line is the byte ratio (B), what
    sharing one read of the weights would give at constant bandwidth. At B=2 and B=4 the batched call
    gains about what separate calls gain; from B=8 it shares the read."""
    frame = data.frame("matvec", testbed="nvidia-h200")
    frame = frame[(frame["mode"] == "batched") & (frame["batch"] <= 16)].copy()
    frame["operator"] = frame["operator"].map(_label)
    ratio = pd.DataFrame({"batch": [1, 2, 4, 8, 16]}).assign(speedup=lambda f: f["batch"].astype(float))
    lines = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("batch:Q", scale=LOG2, title="sequences in one batched call (B)"),
            y=alt.Y("speedup:Q", scale=LOG2, title="per-token speedup over B=1"),
            color=alt.Color("operator:N", title="operator"),
            tooltip=[
                "operator",
                "batch",
                alt.Tooltip("speedup:Q", format=".3g"),
                alt.Tooltip("speedup_min:Q", format=".3g"),
                alt.Tooltip("speedup_max:Q", format=".3g"),
                "rounds",
            ],
        )
    )
    bytes_line = alt.Chart(ratio).mark_line(color="grey", strokeDash=[4, 4]).encode(x="batch:Q", y="speedup:Q")
    return (bytes_line + lines).properties(width=520, height=300)


@chart("looped-vs-size")
def looped_vs_size(data):
    """Separate calls against matrix size on the H200, across the L2
    Per-token speedup of sixteen separate 4-bit calls over one (B separate calls), and of one batched
    call at B=4 and B=16, for matrices of 2048 columns from under a megabyte to well past the L2; the
    vertical rule is the L2 size the CUDA runtime reports. Medians over the rounds; hover for the
    fastest and slowest round."""
    frame = data.frame("matvec", "sweep.csv", testbed="nvidia-h200").copy()
    frame["setting"] = frame["mode"].map({"looped": "B separate calls", "batched": "one batched call"}) + (
        ", B=" + frame["batch"].astype(str)
    )
    frame = frame[frame["batch"] > 1]
    cache = pd.DataFrame({"cache_bytes": [frame["cache_bytes"].iloc[0]]})
    lines = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("matrix_bytes:Q", scale=alt.Scale(type="log"), title="matrix size (bytes, 4-bit with scales)"),
            y=alt.Y("speedup:Q", scale=alt.Scale(type="log"), title="per-token speedup over one call at B=1"),
            color=alt.Color("setting:N", title="setting"),
            tooltip=[
                "setting",
                "rows",
                alt.Tooltip("matrix_bytes:Q", format=".3s"),
                alt.Tooltip("speedup:Q", format=".3g"),
                alt.Tooltip("speedup_min:Q", format=".3g"),
                alt.Tooltip("speedup_max:Q", format=".3g"),
            ],
        )
    )
    rule = alt.Chart(cache).mark_rule(color="grey", strokeDash=[4, 4]).encode(x="cache_bytes:Q")
    return (rule + lines).properties(width=520, height=300)
