"""Figures from the bandwidth probe's runs (probes/bandwidth.py): the size sweep and the ceilings."""

import altair as alt

from generator.site.figure_api import chart, table


@chart("bandwidth-sweep")
def bandwidth_sweep(data):
    """Bandwidth against buffer size: where the caches stop flattering the figure
    Median GB/s over the rounds (the band spans the slowest and fastest round), MLX and numpy in the
    same run. Below a few MiB the buffer fits in cache and the figure is not memory bandwidth."""
    frame = data.frame("bandwidth", cited=True)
    frame["series"] = frame["impl"] + " " + frame["op"]
    x = alt.X("size_mib:Q", scale=alt.Scale(type="log", base=2), title="buffer size (MiB)")
    base = alt.Chart(frame).encode(x=x, detail="series:N")
    band = base.mark_area(opacity=0.15).encode(
        y="gb_per_s_min:Q", y2="gb_per_s_max:Q", fill=alt.Fill("op:N", legend=None)
    )
    lines = base.mark_line().encode(
        y=alt.Y("gb_per_s:Q", title="GB/s (median)"),
        color=alt.Color("op:N", title="operation"),
        strokeDash=alt.StrokeDash("impl:N", title="library", legend=alt.Legend(symbolStrokeColor="gray")),
    )
    points = base.mark_point(filled=True, size=30).encode(
        y="gb_per_s:Q",
        color=alt.Color("op:N", title="operation"),
        tooltip=["impl", "op", "size_mib", alt.Tooltip("gb_per_s:Q", format=".1f"), "rounds", "testbed"],
    )
    layered = alt.layer(band, lines, points).properties(height=320)
    if frame["testbed"].nunique() > 1:
        # Each testbed on its own GB/s scale: on the H200's the CPU's few GB/s would lie flat on zero.
        return layered.properties(width=320).facet(column="testbed:N").resolve_scale(y="independent")
    return layered


@table("bandwidth-ceilings")
def bandwidth_ceilings(data):
    """The bandwidth ceiling: the best median at the largest buffers (the summary the probe writes)"""
    frame = data.frame("bandwidth", "summary.csv", cited=True)
    frame = frame[["testbed", "impl", "op", "gb_per_s", "best_op", "size_mib", "rounds"]]
    frame.attrs["units"] = {"gb_per_s": "GB/s", "size_mib": "MiB"}
    return frame
