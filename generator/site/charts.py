"""Charts: an Altair chart -> a Vega-Lite spec embedded in the page, plus a static SVG fallback.

The Vega, Vega-Lite and vega-embed JavaScript comes from vl-convert's bundle and ships with the
site (assets/ledger/vega.js), so a chart draws with no network; the SVG (rendered by vl-convert
at build time) is what a reader without JavaScript sees.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path

import altair as alt
import vl_convert

from ..inputs.hashcache import CACHE_ROOT
from .render import esc, script_json

VL_VERSION = getattr(vl_convert, "__version__", "unknown")  # keys the cache; the stub does not declare it

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


def svg(spec: dict, cache: Path | None, made: dict[str, str]) -> str:
    """The static fallback image, cached by spec and vl-convert version (vl-convert is a chart's slowest step;
    made: what it made already, kept by the caller)."""
    text = json.dumps(static_spec(spec), sort_keys=True)
    key = hashlib.sha256(f"{VL_VERSION}\n{text}".encode()).hexdigest()[:32]
    return _cached(cache, f"svg/{key}.svg", lambda: vl_convert.vegalite_to_svg(json.loads(text)), made)


def bundle(cache: Path | None, made: dict[str, str]) -> str:
    """vega + vega-lite + vega-embed in one classic script, wrapped so nothing but the three
    globals it assigns (vegaEmbed, vega, vegaLite) leaks into the page (slow to make: cached)."""

    def make() -> str:
        return (
            "/* vega, vega-lite, vega-embed: bundled by vl-convert */\n(function () {\n"
            + vl_convert.javascript_bundle()  # type: ignore[call-arg]  # the stub omits the default
            + "\n})();\n"
        )

    return _cached(cache, f"vega-{VL_VERSION}.js", make, made)


def _remembered(made: dict[str, str], name: str, make) -> str:
    if name not in made:
        made[name] = make()
    return made[name]


NO_CACHE = "LEDGER_NO_CACHE"  # set (to anything) in CI: the build reads and keeps no cache on disk


def _cached(cache: Path | None, name: str, make, made: dict[str, str]) -> str:
    """make() once for `made` (the caller's: a build's, or serve's session), and once per machine when a
    cache folder is given (and CI has not said LEDGER_NO_CACHE: a cache in the tree is read unverified)."""
    if cache is None or os.environ.get(NO_CACHE):
        return _remembered(made, name, make)
    path = cache / name
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    text = _remembered(made, name, make)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not (cache.parent / ".gitignore").exists() and cache.parent.name == CACHE_ROOT:
            (cache.parent / ".gitignore").write_text("# build cache of the ledger plugin\n*\n")
        temporary = path.with_name(f".{path.name}.{id(text)}")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass  # a read-only checkout still builds, just without the cache
    return text


def chart_html(
    figure_id: str,
    spec: dict,
    svg_url: str,
    title: str,
    caption_html: str,
    claims: tuple[str, ...] = (),
    runs: tuple[str, ...] = (),
) -> str:
    """A chart's figure: the live view (drawn by charts.js), the SVG fallback, the caption; `data-claims`
    and `data-ledger-runs` name the claims and runs it read (verify-site holds its numbers to them, and
    its claims to a page that forbids leads)."""
    return (
        f'<figure class="ledger-figure ledger-chart" id="chart-{esc(figure_id)}" '
        f'data-chart="{esc(figure_id)}" data-claims="{esc(" ".join(claims))}" '
        f'data-ledger-runs="{esc(" ".join(runs))}">'
        f'<div class="ledger-chart-view" role="img" aria-label="{esc(title)}"></div>'
        f'<img class="ledger-chart-fallback" src="{esc(svg_url)}" alt="{esc(title)}" loading="lazy">'
        f'<script type="application/json" class="ledger-chart-spec">{script_json(live_spec(spec))}</script>'
        f"<figcaption>{caption_html}</figcaption></figure>"
    )
