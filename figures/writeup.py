"""The write-up's page (batching.md): the experts a batch touches and the claims that fell."""

import altair as alt
import pandas as pd

from generator.site.figure_api import chart, table

LOG2 = alt.Scale(type="log", base=2)


@chart("experts-touched")
def experts_touched(data):
    """Distinct experts touched by B tokens: Monte Carlo against the closed form
    Top-8 routing over every expert; the Monte Carlo mean over random routings (points) and
    256·(1−(1−8/256)^B) (line), from the MoE probe's touched.csv."""
    frame = data.frame("moe", "touched.csv", cited=True)
    line = (
        alt.Chart(frame.drop_duplicates("batch", keep="last"))
        .mark_line(color="gray")
        .encode(
            x=alt.X("batch:Q", scale=LOG2, title="tokens routed together (B)"),
            y=alt.Y("closed_form:Q", title="distinct experts touched"),
        )
    )
    points = (
        alt.Chart(frame)
        .mark_point(filled=True, size=60)
        .encode(
            x="batch:Q",
            y="mc_mean:Q",
            color=alt.Color("testbed:N", title="run"),
            tooltip=[
                "batch",
                alt.Tooltip("mc_mean:Q", format=".4g"),
                alt.Tooltip("closed_form:Q", format=".4g"),
                "trials",
            ],
        )
    )
    return alt.layer(line, points).properties(width=480, height=280)


@table("retired-claims")
def retired_claims(data):
    """The write-up's claims that fell, and what retired each"""
    rows = []
    for claim in data.claims(status="refuted")["claim"]:
        retirers = [data.claim(claim_id) for claim_id in claim.retired_by]
        rows.append(
            {
                "what it said": claim.statement,
                "figure": claim if claim.value is not None else None,  # a claim with no figure: its words are the row's
                "retired by": retirers[0],
                "also retired by": retirers[1] if len(retirers) > 1 else None,
            }
        )
    return pd.DataFrame(rows)
