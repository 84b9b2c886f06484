"""Charts: an Altair chart -> a Vega-Lite spec embedded in the page, plus a static SVG fallback.

The Vega, Vega-Lite and vega-embed JavaScript comes from vl-convert's bundle and ships with the
site (assets/ledger/vega.js), so a chart draws with no network; the SVG (rendered by vl-convert
at build time) is what a reader without JavaScript sees.
"""

from __future__ import annotations

import copy
import functools
import json

import altair as alt
import vl_convert

from .render import esc

FALLBACK_WIDTH = 640  # px: the SVG's width when the chart leaves width to its container


def spec_of(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec with its data inlined (no row limit: the data is the evidence)."""
    with alt.data_transformers.disable_max_rows():
        return chart.to_dict()


def live_spec(spec: dict) -> dict:
    """The spec for the page: a single view without a width fills its container (phones too)."""
    spec = copy.deepcopy(spec)
    if _single_view(spec) and "width" not in spec:
        spec["width"] = "container"
    spec.setdefault("background", "transparent")  # the page's own background, light or dark
    return spec


def static_spec(spec: dict) -> dict:
    spec = copy.deepcopy(spec)
    if _single_view(spec) and spec.get("width", "container") == "container":
        spec["width"] = FALLBACK_WIDTH
    spec["background"] = "white"
    return spec


def _single_view(spec: dict) -> bool:
    return "mark" in spec or "layer" in spec


@functools.lru_cache(maxsize=256)
def _svg(spec_json: str) -> str:
    return vl_convert.vegalite_to_svg(json.loads(spec_json))


def svg(spec: dict) -> str:
    """The static fallback image (cached by spec, so serve's rebuilds redraw only what changed)."""
    return _svg(json.dumps(static_spec(spec), sort_keys=True))


@functools.lru_cache(maxsize=1)
def bundle() -> str:
    """vega + vega-lite + vega-embed in one classic script, wrapped so nothing but the three
    globals it assigns (vegaEmbed, vega, vegaLite) leaks into the page."""
    return "/* vega, vega-lite, vega-embed: bundled by vl-convert */\n(function () {\n" + \
        vl_convert.javascript_bundle() + "\n})();\n"


def script_json(data: object) -> str:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' survive."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def chart_html(figure_id: str, spec: dict, svg_url: str, title: str, caption_html: str) -> str:
    """A chart's figure: the live view (drawn by charts.js), the SVG fallback, the caption."""
    return (f'<figure class="ledger-figure ledger-chart" id="chart-{esc(figure_id)}" '
            f'data-chart="{esc(figure_id)}">'
            f'<div class="ledger-chart-view" role="img" aria-label="{esc(title)}"></div>'
            f'<img class="ledger-chart-fallback" src="{esc(svg_url)}" alt="{esc(title)}" loading="lazy">'
            f'<script type="application/json" class="ledger-chart-spec">{script_json(live_spec(spec))}</script>'
            f"<figcaption>{caption_html}</figcaption></figure>")
