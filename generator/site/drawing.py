"""The figure stage: find figures/*.py, import them, draw each figure a page wants, and its HTML.

A figure module marks its functions with @table / @chart (figure_api.py, the authors' API); load()
imports every module by path, fresh each build, and draw() calls a function with a fresh Data
(figure_data.py). A figure that fails is drawn as its error, with the line that raised.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..inputs.reads import FIGURES
from ..records import LedgerError, Report, Source
from .figure_data import Data, FigureError, Provenance

MARK = "__ledger_figure__"  # set by @table / @chart (figure_api.py): (kind, id)


@dataclass(frozen=True, slots=True)
class Figure:
    kind: str  # table | chart
    id: str
    function: Callable
    where: Source
    title: str  # the docstring's first line (or the id)
    description: str = ""  # the rest of the docstring

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


@dataclass(frozen=True, slots=True)
class Drawn:
    figure: Figure
    result: Any = None  # a DataFrame (table) or a Vega-Lite spec dict (chart)
    used: Provenance = Provenance()
    error: str = ""


def load(root: Path, folder: str = FIGURES) -> tuple[dict[str, Figure], list[str]]:
    """Import every figures/*.py by path (fresh each build) -> ({"chart:id": Figure}, problems)."""
    figures: dict[str, Figure] = {}
    problems: list[str] = []
    base = root / folder
    for path in sorted(base.glob("*.py")) if base.is_dir() else []:
        relative = path.relative_to(root).as_posix()
        name = f"ledger_figures_{path.stem}"
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None  # a .py path always has a loader
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses and pickling look modules up by name
            spec.loader.exec_module(module)
        except Exception as error:  # the figure file's own bug: say where, keep serving
            problems.append(f"{relative}: cannot import: {_short(error)}")
            continue
        for function in vars(module).values():
            mark = getattr(function, MARK, None)
            if not mark or not callable(function) or getattr(function, "__module__", name) != name:
                continue
            kind, figure_id = mark
            doc = inspect.getdoc(function) or ""
            title, _, rest = doc.partition("\n")
            line = function.__code__.co_firstlineno if hasattr(function, "__code__") else 0
            figures[f"{kind}:{figure_id}"] = Figure(
                kind, figure_id, function, Source(relative, line), title.strip() or figure_id, rest.strip()
            )
    return figures, problems


def draw(figure: Figure, report: Report) -> Drawn:
    """Call the figure's function with a fresh Data; a chart becomes its Vega-Lite spec."""
    from . import charts  # altair and vl-convert load only when a figure is drawn

    data = Data(report)
    try:
        result = figure.function(data)
        if figure.kind == "table":
            if not isinstance(result, pd.DataFrame):
                raise FigureError(f"returned {type(result).__name__}; a table returns a pandas DataFrame")
            unnamed = unnamed_runs(result, data.used)
            if unnamed:
                raise FigureError(unnamed)
        else:
            if not hasattr(result, "to_dict") or not type(result).__module__.startswith("altair"):
                raise FigureError(f"returned {type(result).__name__}; a chart returns an Altair chart")
            result = charts.spec_of(result)
    except LedgerError as error:
        return Drawn(figure, used=data.used, error=f"{figure.where}: {figure.kind} {figure.id!r}: {error}")
    except Exception as error:  # the figure's own bug: name it, with the line that raised
        return Drawn(
            figure, used=data.used, error=f"{figure.where}: {figure.kind} {figure.id!r} raised {_short(error)}"
        )
    wrong = literal_problems(figure, result, data.used, report)
    if wrong:  # verify-site would refuse the page: the build says so first, at the figure
        more = f"; and {len(wrong) - MAX_LITERALS} more" if len(wrong) > MAX_LITERALS else ""
        return Drawn(figure, used=data.used, error=f"{figure.where}: {'; '.join(wrong[:MAX_LITERALS])}{more}")
    return Drawn(figure, result, data.used)


MAX_LITERALS = 5  # a figure's literals named one by one in its error


def literal_problems(figure: Figure, result: Any, used: Provenance, report: Report) -> list[str]:
    """Each number of a drawn figure that no run and no claim it read holds, in verify-site's words (the
    table read as the page shows it: literals.py is the rule both apply)."""
    from ..prose import literals, reader
    from . import tables

    runs, claims = tuple(run.path for run in used.runs), tuple(claim.id for claim in used.claims)
    if figure.kind == "chart":
        return literals.chart_problems(figure.id, json.dumps(result), report, runs, claims)
    html = figure_table(figure.id, runs, claims, tables.html_table(result, claim=_claim_cell, source=_source(used)))
    return [
        what
        for table in reader.read(html, cells_apart=True).tables
        for _, what in literals.table_problems(table, report)
    ]


def _claim_cell(claim) -> str:
    from .render import esc

    return f'<a data-claim="{esc(claim.id)}"><span class="ledger-value">{esc(claim.id)}</span></a>'


def _source(used: Provenance) -> tuple[str, str] | None:
    """The run every row of a table comes from: the one run it read, else none."""
    return (used.runs[0].name, used.runs[0].testbed) if len(used.runs) == 1 else None


def figure_table(figure_id: str, runs: tuple[str, ...], claims: tuple[str, ...], body: str) -> str:
    """A table's <figure>, naming the runs and claims it read (verify-site holds its numbers to them)."""
    from .render import esc

    return (
        f'<figure class="ledger-figure ledger-table" id="table-{esc(figure_id)}" '
        f'data-ledger-runs="{esc(" ".join(runs))}" data-claims="{esc(" ".join(claims))}">{body}</figure>'
    )


def unnamed_runs(frame: pd.DataFrame, used: Provenance) -> str:
    """Why verify-site could not hold a table's numbers to their runs: it read several runs and keeps no
    `run` and `testbed` columns, so no row says which run it is from ('' when it does, or reads one run,
    whose every row is then its, or shows no number with a unit)."""
    units = frame.attrs.get("units", {})
    with_units = [
        str(column) for column in frame.columns if units.get(column) and pd.api.types.is_numeric_dtype(frame[column])
    ]
    if len(used.runs) < 2 or {"run", "testbed"} <= set(frame.columns) or not with_units:
        return ""
    return (
        f"reads {len(used.runs)} runs but keeps no `run` and `testbed` columns: no row says which run it comes "
        f"from, so verify-site would refuse its numbers with a unit ({', '.join(with_units)}) as literals; keep "
        "both columns (data.frame gives them), or read one run (`run=`)"
    )


def _short(error: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/generator/" not in f.filename]
    at = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{at}"


# -- HTML: the figure with its caption -------------------------------------------------------------


def figure_html(drawn: Drawn, report: Report, links) -> str:
    """A drawn table or chart for a page (links: render.Links from that page)."""
    from . import charts, render, tables

    figure = drawn.figure
    if drawn.error:
        return render.admonition(
            "failure", f"{figure.kind} {figure.id!r} could not be drawn", f"<p>{render.esc(drawn.error)}</p>"
        )
    caption = caption_html(drawn, report, links)
    runs, claims = tuple(run.path for run in drawn.used.runs), tuple(claim.id for claim in drawn.used.claims)
    if figure.kind == "table":
        claim = lambda c: render.claim_inline(report.of(c), links)  # noqa: E731
        body = tables.html_table(
            drawn.result, claim=claim, source=_source(drawn.used)
        )  # one run read: every row is its
        return figure_table(figure.id, runs, claims, f"<figcaption>{caption}</figcaption>{body}")
    return charts.chart_html(
        figure.id, drawn.result, links.asset(svg_name(figure.id)), figure.title, caption, claims, runs
    )


def svg_name(figure_id: str) -> str:
    return f"charts/{figure_id}.svg"


def caption_html(drawn: Drawn, report: Report, links) -> str:
    """Title, then where the data came from: runs (linked), testbeds, claims by kind, stale runs."""
    from . import render

    esc, figure, used = render.esc, drawn.figure, drawn.used
    parts = [f'<span class="ledger-caption-title">{esc(figure.title)}</span>']
    if figure.description:
        parts.append(f'<span class="ledger-caption-text">{esc(figure.description)}</span>')
    facts = [" ".join(render.badge(kind, kind) for kind in used.kinds)] if used.kinds else []
    if used.runs:
        runs = ", ".join(render.run_link(run, links) for run in used.runs)
        facts.append(f"run{'s' if len(used.runs) > 1 else ''} {runs}")
    if used.claims:
        if len(used.claims) <= 6:
            facts.append(
                "claims "
                + ", ".join(f'<a href="{esc(links.claim(c.id))}"><code>{esc(c.id)}</code></a>' for c in used.claims)
            )
        else:
            counts = {k: sum(c.kind == k for c in used.claims) for k in used.kinds}
            facts.append(f"{len(used.claims)} claims (" + ", ".join(f"{n} {k}" for k, n in counts.items() if n) + ")")
    if used.testbeds:
        facts.append(
            "testbed"
            + ("s " if len(used.testbeds) > 1 else " ")
            + ", ".join(f"<code>{esc(t)}</code>" for t in used.testbeds)
        )
    if not used.runs and not used.claims:
        facts.append("no runs or claims: this figure shows no evidence")
    facts.append(f"defined in <code>{esc(figure.where)}</code>")
    parts.append(f'<span class="ledger-caption-data">{" · ".join(facts)}</span>')
    for run in used.runs:
        problems = report.run_state(run.path).reasons
        if problems:
            parts.append(
                f'<span class="ledger-caption-stale">{render.badge("stale run", "failing")} '
                f"{esc(run.name)}: {esc('; '.join(problems))}</span>"
            )
    return "".join(parts)
