"""Figures, the authors' API: what figures/*.py import (@table, @chart; Data is what their functions receive).

    import altair as alt

    from generator.site.figure_api import chart, table

    @chart("bandwidth-sweep")                 # the id is a literal string: the gate reads it by AST
    def bandwidth_sweep(data):
        \"\"\"Read bandwidth against buffer size: the cache effect.\"\"\"   # the caption's title
        frame = data.frame("bandwidth", "sweep.csv")                   # latest run per testbed
        return alt.Chart(frame).mark_line().encode(x="bytes:Q", y="gb_per_s:Q", color="testbed:N")

A table function returns a DataFrame, a chart function an Altair chart. Data (figure_data.py) hands
out runs and claims from the gate's Report (never files), and remembers which it handed out: the
caption names those runs, testbeds and kinds, so a figure cannot hide where its numbers came from.
The stage that imports and draws figures is drawing.py; its names stay importable from here, as
they were before the two were apart.
"""

from __future__ import annotations

from collections.abc import Callable

from .drawing import MARK, Drawn, Figure, caption_html, draw, figure_html, load, svg_name
from .figure_data import Data, FigureError, Provenance

__all__ = [
    "chart",
    "table",
    "Data",
    "FigureError",
    "Provenance",
    # the drawing stage (drawing.py)
    "MARK",
    "Drawn",
    "Figure",
    "caption_html",
    "draw",
    "figure_html",
    "load",
    "svg_name",
]


def table(figure_id: str):
    """Mark a function as the table `figure_id`: it takes Data and returns a pandas DataFrame."""
    return _mark("table", figure_id)


def chart(figure_id: str):
    """Mark a function as the chart `figure_id`: it takes Data and returns an Altair chart."""
    return _mark("chart", figure_id)


def _mark(kind: str, figure_id: str):
    if not isinstance(figure_id, str) or not figure_id:
        raise TypeError(f"@{kind}(...) takes the figure's id as a literal string")

    def decorate(function: Callable) -> Callable:
        setattr(function, MARK, (kind, figure_id))
        return function

    return decorate
