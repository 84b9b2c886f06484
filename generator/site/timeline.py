"""A claim's history on its page: its Series -> a timeline chart, the table of its points, its data asset.

A series' points live once, as a CSV asset named by its hash (assets/ledger/series/<hash>.csv), made
once per build and shared by every claim page that shows the series (SeriesAssets); the page's chart
loads it. The chart is one Altair chart (points with their intervals, the cited run marked, steps and
segment boundaries drawn as rules), read once a build as a Vega-Lite spec; each page adds its own
few rows (which point it cites, its steps), so a page stays the same size however long its history.
It draws offline with the Vega bundle the other charts use (charts.js). Without JavaScript the table
below it shows the runs where something happens and the last few; the CSV holds every run. There is
no static SVG: vl-convert's cost per chart is more than a site with thousands of claim pages can pay.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import TypeVar, cast

from ..lang.units import Unit
from ..lang.values import format_value
from ..points import Series
from ..records import ClaimVerdict, Report
from ..series.words import METHODS, asset_path, gap_text, listed, listed_text, notes, point_text, points_csv
from .render import ASSETS, Asset, badge, esc, script_json

MIN_POINTS = 3  # a chart from three points on; fewer read better as the table alone
ROLES = ("run", "cited", "kept through")
MARKS = ("step", "probe changed", "environment changed")
PARSE = {"n": "number", "value": "number", "low": "number", "high": "number", "started": "date"}
SHARED_KEPT = 4096  # parts of pages SeriesAssets.shared holds at most (a chart's spec is a few KB)
BODIES_KEPT = 64  # a history table's bodies kept at most, one per place its pages link from (Links.seen_from)
T = TypeVar("T")
_ABSENT = object()


def has_timeline(series: Series | None) -> bool:
    return series is not None and len(series.points) >= MIN_POINTS


def any_timeline(report: Report) -> bool:
    """Whether some claim page draws a timeline (the site then ships the Vega bundle)."""
    return any(has_timeline(verdict.series) for verdict in report.verdicts.values())


def series_asset(series: Series, unit: Unit) -> Asset:
    """A series' points as the CSV asset its pages load, named by the hash of its content."""
    text = points_csv(series, unit)
    return Asset(asset_path(text), content=text)


class SeriesAssets:
    """The series assets of one build, each made once: claims that select the same cells of the same
    runs share one tuple of points (the series stage), so they share one asset too."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[tuple, dict[Unit, Asset]]] = {}  # id(points) -> (points, unit -> asset)
        self._shared: dict[tuple, object] = {}  # what the pages of claims sharing a series write alike
        self._template: dict | None = None  # template(), read once a build (spec() copies what it changes)

    def shared(self, name: str, series: Series, key: tuple[Hashable, ...], make: Callable[[], T]) -> T:
        """make(), once for the claims whose series have the same points (one tuple) and the same key (the
        other parts of the series, the unit and the data URL that make() reads): their chart's marks and
        spec, their history table's rows. At most SHARED_KEPT at a time."""
        self._units(series)  # points kept: ids stay
        full = (name, id(series.points), *key)
        found = self._shared.get(full, _ABSENT)  # its key hashed once (a unit's hash reads Fractions)
        if found is _ABSENT:
            if len(self._shared) >= SHARED_KEPT:  # bounded: what it holds is made again when asked for
                self._shared.clear()
            found = self._shared[full] = make()
        return cast(T, found)  # stored under this key by this make

    def template(self) -> dict:
        """The timeline's spec without data (template()), read once for the build's pages."""
        if self._template is None:
            self._template = template()
        return self._template

    def of(self, series: Series, unit: Unit) -> Asset:
        by_unit = self._units(series)
        found = by_unit.get(unit)
        if found is None:
            found = by_unit[unit] = series_asset(series, unit)
        return found

    def _units(self, series: Series) -> dict[Unit, Asset]:
        """The assets of the series' points by unit, its points kept (an id in a key stays theirs)."""
        made = self._made.get(id(series.points))
        if made is None:
            made = self._made[id(series.points)] = (series.points, {})
        return made[1]

    def all(self, verdicts: Iterable[ClaimVerdict]) -> list[Asset]:
        """Every asset the claim pages of these verdicts load, once each."""
        found = {}
        for verdict in verdicts:
            if verdict.series is not None and has_timeline(verdict.series):
                asset = self.of(verdict.series, verdict.unit)
                found[asset.path] = asset
        return list(found.values())


UTC_AXIS = {"format": "%Y-%m-%d %H:%M"}  # 24-hour UTC (Vega's default: 12-hour, no AM/PM)
SPEC = Path(__file__).with_name("timeline.vl.json")  # altair_spec(), kept: a page renders without Altair


def template() -> dict:
    """The timeline's Vega-Lite spec without data (the points layers load the series' CSV, the
    `marks` dataset is filled per page): altair_spec() as SPEC keeps it, so that rendering a claim page
    (the build, and verify-site rendering it again) imports no Altair; tests/test_timeline_site.py holds
    the two equal (refresh: `python -m generator.site.timeline`)."""
    return json.loads(SPEC.read_text(encoding="utf-8"))


def altair_spec() -> dict:
    """The timeline's spec as Altair makes it."""
    import altair as alt

    time = alt.X("started:T", title="run started (UTC)", scale=alt.Scale(type="utc"), axis=alt.Axis(**UTC_AXIS))
    base = alt.Chart(alt.Data(name="points")).encode(x=time)
    bars = base.mark_rule(strokeWidth=2, opacity=0.5).encode(
        y=alt.Y("low:Q", title="value", scale=alt.Scale(zero=False)), y2="high:Q", color=alt.Color("segment:N")
    )
    dots = base.mark_point(filled=True, stroke="currentColor").encode(
        y=alt.Y("value:Q", title="value"),
        color=alt.Color("segment:N", title="segment"),
        shape=alt.Shape(
            "role:N", title="run", scale=alt.Scale(domain=list(ROLES), range=["circle", "diamond", "square"])
        ),
        size=alt.condition(alt.datum.role == "run", alt.value(60), alt.value(240)),
        strokeWidth=alt.condition(alt.datum.role == "run", alt.value(0), alt.value(1.5)),
        tooltip=[alt.Tooltip("run:N"), alt.Tooltip("shown:N", title="value"), alt.Tooltip("interval:N"), "role:N"],
    )
    marks = (
        alt.Chart(alt.Data(name="marks"))
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("at:T", axis=alt.Axis(**UTC_AXIS)),
            strokeDash=alt.StrokeDash(
                "kind:N",
                title="between runs",
                scale=alt.Scale(domain=list(MARKS), range=[[6, 3], [2, 3], [2, 3]]),
                legend=alt.Legend(orient="bottom"),
            ),
            stroke=alt.condition(alt.datum.kind == "step", alt.value("#d62728"), alt.value("#888888")),
            tooltip=[alt.Tooltip("kind:N"), alt.Tooltip("text:N", title="what")],
        )
    )
    # as charts.live_spec gives every chart: the width of its column, the page's own background
    return alt.layer(bars, dots, marks).properties(height=240, width="container", background="transparent").to_dict()


def role_of(series: Series, index: int) -> str:
    return "cited" if index == series.cited else "kept through" if index == series.kept else "run"


def spec(verdict: ClaimVerdict, series: Series, data_url: str, assets: SeriesAssets | None = None) -> dict:
    """The template with this claim's points (loaded from data_url, the series' CSV), the run it cites,
    its steps and boundaries (the template itself is never changed)."""
    unit = verdict.unit
    assets = assets or SeriesAssets()
    key = (series.boundaries, series.steps, unit)
    marks = assets.shared("marks", series, key, lambda: _marks(series, unit))
    special = {index: role_of(series, index) for index in (series.cited, series.kept) if index >= 0}
    role = "'run'"
    for index, name in sorted(special.items(), reverse=True):
        role = f"datum.n === {index + 1} ? '{name}' : {role}"
    title = f"value ({unit.text})" if unit.text else "value"
    shown = {  # each legend lists only what this chart shows
        "shape": [r for r in ROLES if r in special.values() or (r == "run" and len(series.points) > len(special))],
        "strokeDash": [kind for kind in MARKS if any(m["kind"] == kind for m in marks)],
    }
    points = {"url": data_url, "format": {"type": "csv", "parse": PARSE}}
    layers = []
    base = assets.template()
    for layer in base["layer"]:
        layer = dict(layer)
        if layer.get("data") == {"name": "points"}:
            layer.update(data=points, transform=[{"calculate": role, "as": "role"}])
        encoding = dict(layer["encoding"])
        if "y" in encoding:
            encoding["y"] = {**encoding["y"], "title": title}
        for channel, values in shown.items():
            if channel in encoding:
                legend = {**encoding[channel].get("legend", {}), "values": values} if values else None
                encoding[channel] = {**encoding[channel], "legend": legend}
        layers.append({**layer, "encoding": encoding})
    return {**base, "layer": layers, "datasets": {"marks": marks}}


def _marks(series: Series, unit: Unit) -> list[dict]:
    """The chart's rules: each segment boundary and each step, where it lies between two runs."""
    marks = [
        {"at": _between(series, b.index), "kind": b.reason, "text": "; ".join(b.changes)} for b in series.boundaries
    ]
    marks += [
        {
            "at": _between(series, s.index),
            "kind": "step",
            "text": f"{format_value(s.before, unit)} → {format_value(s.after, unit)}",
        }
        for s in series.steps
    ]
    return marks


def _between(series: Series, index: int) -> str:
    """The moment halfway between the point before `index` and the point at it."""
    before, after = series.points[index - 1].started, series.points[index].started
    return (before + (after - before) / 2).isoformat()


def chart_html(verdict: ClaimVerdict, series: Series, data_url: str, assets: SeriesAssets | None = None) -> str:
    claim = verdict.claim
    label = f"{claim.id}: its value in each run of the same measurement, in time order"
    assets = assets or SeriesAssets()
    key = (series.cited, series.kept, series.boundaries, series.steps, verdict.unit, data_url)  # what spec() reads
    spec_json = assets.shared("spec", series, key, lambda: script_json(spec(verdict, series, data_url, assets)))
    return (
        f'<figure class="ledger-figure ledger-chart ledger-timeline" data-chart="timeline-{esc(claim.id)}">'
        f'<div class="ledger-chart-view" role="img" aria-label="{esc(label)}"></div>'
        f'<script type="application/json" class="ledger-chart-spec">{spec_json}</script>'
        '<figcaption><span class="ledger-caption-title">Timeline</span>'
        '<span class="ledger-caption-text">Each run\'s value with its interval; the cited run is the large '
        "diamond; between runs, a red dashed rule is a step (the level moved beyond noise and the claim's "
        "tolerance), a grey dotted one a segment boundary (the probe or the environment changed).</span>"
        "</figcaption></figure>"
    )


def table_html(
    verdict: ClaimVerdict, series: Series, links, data_url: str | None, assets: SeriesAssets | None = None
) -> str:
    """The runs `listed` chooses: run (linked), value, interval, and what happens there; a row says how
    many runs lie between two listed ones, and the series' CSV (data_url) holds them all."""
    key = (series.cited, series.kept, series.boundaries, series.steps, verdict.unit)

    def made() -> tuple[int, list[tuple[str, str, str]], dict[Hashable, str]]:
        return (*_rows(series, verdict.unit), {})  # the rows, and their body by the place of the pages showing them

    chosen, rows, bodies = (assets or SeriesAssets()).shared("rows", series, key, made)
    where = links.seen_from("run")  # the rows' run links read the same from every page there: one body
    body = bodies.get(where)
    if body is None:
        body = "".join(f"{before}{esc(links.run(run))}{after}" for before, run, after in rows)
        if len(bodies) >= BODIES_KEPT:
            bodies.clear()
        bodies[where] = body
    full = ""
    if data_url is not None:
        some = chosen < len(series.points)
        lead = listed_text(chosen, len(series.points)) if some else ""
        full = f'<p>{esc(lead)}Every run is in <a href="{esc(data_url)}">the series\' data (CSV)</a>.</p>'
    return (
        '<div class="ledger-series"><table><thead><tr><th>#</th><th>run</th><th>started (UTC)</th><th>value</th>'
        f"<th>interval</th><th>notes</th></tr></thead><tbody>{body}</tbody></table></div>{full}"
    )


def _rows(series: Series, unit: Unit) -> tuple[int, list[tuple[str, str, str]]]:
    """(how many runs the table lists, its rows): each row the HTML before its run link's href, the run,
    the HTML after it (a gap row has no link: all its HTML is before); the same for every claim page
    showing this series with the same cited run, so made once for them (SeriesAssets.shared)."""
    found = notes(series, unit)
    rows, last = [], -1
    chosen = listed(series, found)
    for index in chosen:
        gap = ""
        if index > last + 1:
            gap = f'<tr class="ledger-gap"><td colspan="6">… {gap_text(index - last - 1)}</td></tr>'
        point = series.points[index]
        shown, interval = point_text(point, unit)
        rows.append(
            (
                f'{gap}<tr><td>{index + 1}</td><td><a class="ledger-run" href="',
                point.run,
                f'"><code>{esc(point.run.rsplit("/", 1)[-1])}</code></a></td>'
                f"<td>{esc(point.started.strftime('%Y-%m-%d %H:%M'))}</td>"
                f'<td style="text-align: right">{esc(shown)}</td>'
                f"<td>{esc(interval or '—')}{' (' + esc(point.basis) + ')' if point.basis else ''}</td>"
                f"<td>{esc('; '.join(found.get(index, [])))}</td></tr>",
            )
        )
        last = index
    return len(chosen), rows


def section(verdict: ClaimVerdict, links, assets: SeriesAssets | None = None) -> str:
    """The claim page's History: how many runs, how steps were found, the timeline and the table."""
    claim, series = verdict.claim, verdict.series
    if series is None:
        return "<p>No series: its evidence computes no value.</p>"
    n = len(series.points)
    if n == 1:
        return (
            "<p>One run measures this: the cited one. Its series grows as runs of the same probe, testbed "
            "and defining parameters are added (<code>ledger history</code> shows it).</p>"
        )
    out = [
        f"<p>{n} runs of the same measurement (probe, testbed, defining parameters), in the order they ran. "
        f"Steps in the cited run's segment: {esc(METHODS[series.method])}; a step counts when the "
        "level moves beyond the claim's tolerance.</p>"
    ]
    if series.cited < 0:
        out.append("<p>The cited run is not among them: its files are not intact.</p>")
    if series.moved is not None:
        moved = series.moved
        changed = series.changes_after(max(series.cited, series.kept), moved.index)  # explains it, hides nothing
        said = "; ".join(
            f"from run <code>{esc(series.points[b.index].run.rsplit('/', 1)[-1])}</code>: {esc(', '.join(b.changes))}"
            for b in changed
        )
        out.append(
            f"<p><strong>Moved since cited:</strong> {esc(format_value(moved.before, verdict.unit))} → "
            f"{esc(format_value(moved.after, verdict.unit))} from run "
            f"<code>{esc(series.points[moved.index].run.rsplit('/', 1)[-1])}</code> on"
            f"{f' (the environment changed {said})' if said else ''}.</p>"
        )
    if claim.kept_through:
        out.append(
            f"<p><strong>Kept on the cited run</strong> (reviewed through <code>{esc(claim.kept_through.rsplit('/', 1)[-1])}"
            f"</code>): {esc(claim.kept_why)}</p>"
        )
    data_url = None
    assets = assets or SeriesAssets()
    if has_timeline(series):
        asset = assets.of(series, verdict.unit)
        data_url = links.asset(asset.path.removeprefix(f"{ASSETS}/"))
        out.append(chart_html(verdict, series, data_url, assets))
    out.append(table_html(verdict, series, links, data_url, assets))
    return "".join(out)


def since_cited(verdict: ClaimVerdict) -> tuple[str, str]:
    """The index's 'moved since cited' cell and its sort key: the relative move of the series' newest
    level from the cited one (series/stage.py decides it), '' and 0 when it has not moved."""
    series = verdict.series
    moved = series.moved if series is not None else None
    if moved is None:
        return "", "0"
    share = (moved.after - moved.before) / abs(moved.before) if moved.before else 0.0
    return badge(f"{share:+.1%}" if moved.before else "moved", "warning"), repr(abs(share) if moved.before else 1.0)


if __name__ == "__main__":  # write SPEC from Altair (after an Altair upgrade changes its spec)
    SPEC.write_text(json.dumps(altair_spec(), indent=1) + "\n", encoding="utf-8")
