"""Figures: what figures/*.py import (@table, @chart, the Data accessor), and the stage that draws them.

    from generator.figure_api import chart, table

    @chart("bandwidth-sweep")                 # the id is a literal string: the gate reads it by AST
    def bandwidth_sweep(data):
        \"\"\"Read bandwidth against buffer size: the cache effect.\"\"\"   # the caption's title
        frame = data.frame("bandwidth", "sweep.csv")                   # latest run per testbed
        return alt.Chart(frame).mark_line().encode(x="bytes:Q", y="gb_per_s:Q", color="testbed:N")

A table function returns a DataFrame, a chart function an Altair chart. Data hands out runs and
claims from the gate's Report (never files), and remembers which it handed out: the caption names
those runs, testbeds and kinds, so a figure cannot hide where its numbers came from.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..reads import FIGURES
from ..records import Claim, LedgerError, Report, Run, Source
from .tables import frame_of

MARK = "__ledger_figure__"


class FigureError(LedgerError):
    """A figure asked for data that does not exist, or returned the wrong thing."""


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


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a figure read: the runs and claims, in the order it asked for them."""

    runs: tuple[Run, ...] = ()
    claims: tuple[Claim, ...] = ()

    @property
    def testbeds(self) -> list[str]:
        found = [run.testbed for run in self.runs] + [claim.testbed for claim in self.claims]
        return sorted({t for t in found if t})

    @property
    def kinds(self) -> list[str]:
        found = {"measured"} if self.runs else set()
        found |= {claim.kind for claim in self.claims}
        return [kind for kind in ("measured", "extrapolated", "borrowed") if kind in found]


class Data:
    """The accessor a figure function receives: runs and claims from the Report, recorded as used."""

    def __init__(self, report: Report):
        self._report = report
        self._runs: dict[str, Run] = {}
        self._claims: dict[str, Claim] = {}

    @property
    def used(self) -> Provenance:
        return Provenance(tuple(self._runs.values()), tuple(self._claims.values()))

    def runs(self, probe: str, *, testbed: str | None = None, latest: bool = True) -> list[Run]:
        """Usable runs of a probe (oldest first); latest=True keeps the newest per testbed."""
        found = [
            run
            for run in self._report.runs.values()
            if run.probe_name == probe and not run.problem and (testbed is None or run.testbed == testbed)
        ]
        found.sort(key=lambda run: (run.started.timestamp() if run.started else 0.0, run.path))
        if latest:
            newest = {run.testbed: run for run in found}
            found = [run for run in found if newest[run.testbed] is run]
        for run in found:
            self._refuse_if_not_intact(run)
        if not found:
            where = f" on testbed {testbed!r}" if testbed else ""
            known = sorted({run.probe_name for run in self._report.runs.values()})
            raise FigureError(
                f"no run of probe {probe!r}{where} under measurements/ (probes with runs: {', '.join(known) or 'none'})"
            )
        return found

    def frame(
        self,
        probe: str,
        file: str = "results.csv",
        *,
        testbed: str | None = None,
        run: str | None = None,
        latest: bool = True,
    ) -> pd.DataFrame:
        """Rows of `file` from the probe's runs (or the one run named), with `run` and `testbed` columns."""
        if run is not None:
            chosen = self._report.runs.get(run)
            if chosen is None or chosen.problem:
                raise FigureError(f"run {run!r} does not exist or has no usable manifest")
            self._refuse_if_not_intact(chosen)
            selected = [chosen]
        else:
            selected = self.runs(probe, testbed=testbed, latest=latest)
        frames = []
        for chosen in selected:
            data = chosen.tables.get(file)
            if data is None or data.problem:
                why = data.problem if data else f"has no {file} (it has {', '.join(sorted(chosen.tables)) or 'none'})"
                raise FigureError(f"run {chosen.path}: {file} {why}" if data else f"run {chosen.path} {why}")
            frame = frame_of(data)
            for column, value in (("run", chosen.name), ("testbed", chosen.testbed)):
                if column not in frame.columns:
                    frame[column] = value
            frames.append(frame)
            self._runs.setdefault(chosen.path, chosen)
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    def _refuse_if_not_intact(self, run: Run) -> None:
        """A figure never draws from a run whose files are not what was measured (the gate's verdict)."""
        state = self._report.run_state(run.path)
        if not state.intact:
            raise FigureError(f"run {run.path} is {state.label}: {'; '.join(state.reasons)}")

    def claim(self, claim_id: str) -> Claim:
        """One claim (a table cell holding it renders as its badge)."""
        found = self._report.claim(claim_id)
        if found is None:
            raise FigureError(f"no claim {claim_id!r}")
        self._claims.setdefault(found.id, found)
        return found

    def claims(
        self,
        ids: Iterable[str] | None = None,
        *,
        kind: str | None = None,
        status: str | None = None,
        testbed: str | None = None,
    ) -> pd.DataFrame:
        """Claims as rows: id, statement, value, unit, kind, status, testbed and `claim` (the record)."""
        chosen = (
            [self.claim(i) for i in ids]
            if ids is not None
            else [
                c
                for c in self._report.claims
                if (kind is None or c.kind == kind)
                and (status is None or c.status == status)
                and (testbed is None or c.testbed == testbed)
            ]
        )
        for claim in chosen:
            self._claims.setdefault(claim.id, claim)
        rows = [
            {
                "id": c.id,
                "statement": c.statement,
                "value": c.value,
                "unit": c.unit,
                "kind": c.kind,
                "status": c.status,
                "testbed": c.testbed,
                "claim": c,
            }
            for c in chosen
        ]
        columns = ["id", "statement", "value", "unit", "kind", "status", "testbed", "claim"]
        return pd.DataFrame(rows, columns=columns)


# -- the stage: find, import and draw figure definitions -----------------------------------------


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
    return Drawn(figure, result, data.used)


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
    if figure.kind == "table":
        body = tables.html_table(drawn.result, claim=lambda c: render.claim_inline(c, report, links))
        return (
            f'<figure class="ledger-figure ledger-table" id="table-{render.esc(figure.id)}">'
            f"<figcaption>{caption}</figcaption>{body}</figure>"
        )
    return charts.chart_html(figure.id, drawn.result, links.asset(svg_name(figure.id)), figure.title, caption)


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
