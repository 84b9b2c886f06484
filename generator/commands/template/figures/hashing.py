"""Figures from the hashing probe. They read the runs the claims cite (not simply the newest run), so a
figure and the claims beside it always show the same measurement; `ledger refresh --write` moves both.
The table shows each claim in its own cell (its value as the gate states it: pooled over its replicate
runs where it cites several), the chart every run the claim rests on, labelled."""

import altair as alt

from generator.site.figure_api import chart, table

CITED = "sha256-1mib-throughput"  # the claim whose evidence run these figures show


@table("hash-throughput")
def hash_throughput(data):
    """Hash throughput by algorithm and buffer size
    Median over the rounds, with the slowest and fastest round."""
    frame = data.frame("hashing", run=data.claim(CITED).evidence.run)
    frame = data.claim_cells(frame, [CITED, "blake2b-1mib-throughput"])  # one number for each claim, as the prose
    frame = frame[["algorithm", "size_kib", "gb_per_s", "gb_per_s_min", "gb_per_s_max", "rounds"]]
    frame.attrs["units"] = {"size_kib": "KiB", "gb_per_s": "GB/s", "gb_per_s_min": "GB/s", "gb_per_s_max": "GB/s"}
    return frame


@chart("hash-throughput-by-size")
def hash_throughput_by_size(data):
    """Throughput against buffer size
    The line is the median round; the band spans the slowest and fastest round."""
    frame = data.frame("hashing", replicates_of=CITED)  # every run the claim rests on
    x = alt.X("size_kib:Q", scale=alt.Scale(type="log", base=2), title="buffer size (KiB)")
    base = alt.Chart(frame).encode(x=x, color=alt.Color("algorithm:N", title="algorithm"), detail="run:N")
    band = base.mark_area(opacity=0.2).encode(y="gb_per_s_min:Q", y2="gb_per_s_max:Q")
    line = base.mark_line(point=True).encode(
        y=alt.Y("gb_per_s:Q", title="GB/s (median)"), tooltip=["run", "algorithm", "size_kib", "gb_per_s", "rounds"]
    )
    return alt.layer(band, line).properties(height=280)
