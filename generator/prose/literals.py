"""A drawn figure's numbers against the ledger: a figure table (as a page shows it) or a chart's Vega-Lite
spec, the runs and claims the figure read, and a Report -> every number no run and no claim holds (a
figure's literal), in words. Pure. One rule, applied where the figure is drawn (the build and `ledger
pages`: site/drawing.py, at the figure's file:line) and again by verify-site on the built page.

A table's number with a unit (in its cell or its column's header) or a cell whose text holds a figure
must be a claim (its badge, or its value) or a cell of a run: of the run its row names
(`data-ledger-run`), in the same column where the run has that column; else of the runs the figure
read (`data-ledger-runs`: a pivoted table's cells come from several rows, or several runs). A chart's
row that names its run (`run`, `testbed`: the figure API adds them) must come from an intact run the
ledger holds, and every number it shows in a column of one of that run's tables must be that table's
value in one row; a column the figure computed from the row (a ratio) is not compared: the figure's
code computes it, and `ledger diff` lists that code for review. A row that names a claim (`id`,
`value`) must show its value. Any other row is the figure's own: each number in it must be a cell of a
run the figure read or the value of a claim it read (a literal frame in figure code is refused).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache

from ..lang.rows import Table
from ..lang.values import format_value, parse_number
from ..records import Report, Run
from ..wording import displayed, stated
from . import numbers
from .reader import FigureTable, TableCell

MAX_ROWS = 200_000  # rows read from one chart: a spec is read, never executed


def chart_problems(
    chart_id: str, spec_text: str, report: Report, runs: Iterable[str], claims: Iterable[str]
) -> list[str]:
    """What is wrong with one chart's data (runs, claims: the run paths and claim ids it read), each in
    words naming the chart."""
    try:
        spec = json.loads(spec_text)
    except (ValueError, RecursionError):
        return [f"chart {chart_id!r}: its embedded spec is not JSON"]
    found: list[str] = []
    by_name: dict[tuple[str, str], Run] = {(run.name, run.testbed): run for run in report.runs.values()}
    read = Read(report, runs, claims)
    for number, row in enumerate(_rows(spec)):
        if number >= MAX_ROWS:
            found.append(f"chart {chart_id!r}: more than {MAX_ROWS:,} rows; the rest were not verified")
            break
        found += _row_problems(chart_id, row, by_name, report, read)
        if len(found) >= 20:
            break
    return found


def _rows(node: object, depth: int = 0) -> Iterator[Mapping[str, object]]:
    """Every data row in a spec: its named datasets and inline `values`."""
    if depth > 64:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("datasets",) and isinstance(value, dict):
                for rows in value.values():
                    yield from (row for row in rows if isinstance(row, dict)) if isinstance(rows, list) else ()
            elif key == "values" and isinstance(value, list):
                yield from (row for row in value if isinstance(row, dict))
            else:
                yield from _rows(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _rows(item, depth + 1)


def _row_problems(chart_id: str, row: Mapping[str, object], runs: dict, report: Report, read: Read) -> list[str]:
    shown = ", ".join(f"{k}={str(v)[:20]}" for k, v in list(row.items())[:4])
    if "run" in row and "testbed" in row:
        run = runs.get((str(row["run"]), str(row["testbed"])))
        if run is None:
            return [f"chart {chart_id!r}: a row ({shown}) names run {row['run']!r}, which the ledger does not hold"]
        state = report.run_state(run.path)
        if not state.intact:
            return [f"chart {chart_id!r}: a row comes from run {run.path}, which is {state.label}"]
        tables = [table for table in run.tables.values() if not table.problem]
        shared = [table for table in tables if numeric_columns(row) & set(table.columns)]
        if shared and not any(in_table(row, table) for table in shared):
            return [f"chart {chart_id!r}: a row ({shown}) is in no table of run {run.path}"]
    elif "id" in row and "value" in row:
        claim = report.claim(str(row["id"]))
        if claim is not None and claim.value is not None and not same_value(row["value"], str(claim.value)):
            return [
                f"chart {chart_id!r}: claim {claim.id} is drawn as {row['value']!r}; the ledger gives {claim.value}"
            ]
    else:
        for name in numeric_columns(row):
            if not read.holds(row[name], CHART_TOLERANCE):
                return [f"chart {chart_id!r}: a row ({shown}) shows {name}={row[name]!r}, {read.none_holds}"]
    return []


def numeric_columns(row: Mapping[str, object]) -> set[str]:
    return {name for name, value in row.items() if isinstance(value, (int, float)) and not isinstance(value, bool)}


def in_table(row: Mapping[str, object], table: Table) -> bool:
    """Whether some row of the table holds every number this row shows in the table's columns (text
    columns are labels a figure may reword; a number is what the page claims)."""
    numeric = numeric_columns(row)
    columns = [(index, name) for index, name in enumerate(table.columns) if name in numeric]
    index, name = max(columns, key=lambda column: len(_rows_by_value(table, column[0])[1]))  # the most apart
    value = row[name]
    try:
        first = float(value) if isinstance(value, (int, float)) else math.nan  # (a number: numeric_columns)
    except OverflowError:
        return False  # no cell is as close to it as same_value asks
    return any(
        all(at < len(cells) and same_value(row[other], cells[at]) for at, other in columns)
        for cells in _near(table, index, first)
    )


_BY_VALUE: dict[tuple[int, int], tuple[Table, dict[float, list[tuple[str, ...]]], list[float]]] = {}


def _near(table: Table, index: int, number: float) -> Iterator[tuple[str, ...]]:
    """The table's rows whose number in one column may be `number` as same_value compares them (within twice
    its tolerance: those rows are then compared whole), found by bisection in the rows kept by that number
    (a chart draws many rows of one table, each checked against every table sharing a column)."""
    rows, numbers = _rows_by_value(table, index)
    if math.isnan(number):
        return
    if math.isinf(number):
        yield from rows.get(number, ())
        return
    width = max(2e-9 * abs(number), 2e-12)  # (same_value: rel_tol 1e-9, abs_tol 1e-12)
    at = bisect.bisect_left(numbers, number - width)
    while at < len(numbers) and numbers[at] <= number + width:
        yield from rows[numbers[at]]
        at += 1


def _rows_by_value(table: Table, index: int) -> tuple[dict[float, list[tuple[str, ...]]], list[float]]:
    """A table's rows by the number in one column (none for a cell that is no number, or NaN, which no
    number is close to), and those numbers in order."""
    kept = _BY_VALUE.get((id(table), index))
    if kept is not None and kept[0] is table:
        return kept[1], kept[2]
    rows: dict[float, list[tuple[str, ...]]] = {}
    for cells in table.rows:
        number = parse_number(cells[index]) if index < len(cells) else None
        if number is not None and not math.isnan(number):
            rows.setdefault(number, []).append(cells)
    if len(_BY_VALUE) >= 1 << 12:
        _BY_VALUE.clear()
    numbers = sorted(rows)
    _BY_VALUE[(id(table), index)] = (table, rows, numbers)
    return rows, numbers


def same_value(shown: object, cell: str) -> bool:
    """Whether a chart's value is the table's cell: numbers as numbers, text as text."""
    if isinstance(shown, bool) or shown is None:
        return str(shown).lower() == cell.strip().lower() or (shown is None and cell.strip() == "")
    if isinstance(shown, (int, float)):
        number = parse_number(cell)
        if number is None:
            return False
        try:
            return math.isclose(float(shown), number, rel_tol=1e-9, abs_tol=1e-12)
        except OverflowError:  # an integer past any float: close to no cell
            return False
    return str(shown) == cell


CHART_TOLERANCE = 1e-9  # a chart's data is the value itself (same_value)
TABLE_TOLERANCE = 5e-4  # a table shows four significant digits (format_value)
LITERAL = "a number from no claim and no run (a figure's literal)"


class Read:
    """The runs and claims a figure read (by their paths and ids, as its figure element names them; those
    the Report does not hold, or whose run is not intact, hold nothing), and the numbers in them."""

    def __init__(self, report: Report, runs: Iterable[str], claims: Iterable[str]):
        self.runs = [
            run for path in dict.fromkeys(runs) if (run := report.runs.get(path)) and report.run_state(path).intact
        ]
        self.claims = [claim for i in dict.fromkeys(claims) if (claim := report.claim(i)) is not None]
        self.report = report
        self._numbers: list[float] | None = None
        self._texts: set[str] | None = None
        self._stated: set[str] | None = None

    @property
    def none_holds(self) -> str:
        return "which no run and no claim it read holds (a figure's literal)" if self.runs or self.claims else LITERAL

    def holds(self, shown: object, tolerance: float) -> bool:
        """Whether a number (or its text as a table shows it) is a cell of one of the runs or a claim's value."""
        number = (
            shown if isinstance(shown, (int, float)) else parse_number(str(shown).replace(",", "").replace("−", "-"))
        )
        if number is None or isinstance(number, bool):
            return False
        if self._numbers is None:
            cells = {value for run in self.runs for table in run.tables.values() for value in _table_numbers(table)}
            cells |= {float(claim.value) for claim in self.claims if isinstance(claim.value, (int, float))}
            self._numbers = sorted(cells)
        return _near_any(self._numbers, float(number), tolerance) or (
            isinstance(shown, str)
            and any(format_value(value) == shown for value in _near_all(self._numbers, float(number)))
        )

    def written(self, text: str) -> bool:
        """Whether a text is, as written, a cell of one of the runs or a claim's statement or note (the
        ledger's own text, which the gate reads)."""
        if self._texts is None:
            self._texts = {
                cell for run in self.runs for table in run.tables.values() for row in table.rows for cell in row
            }
            self._texts |= {" ".join(getattr(claim, name).split()) for claim in self.claims for name in TEXTS}
        return " ".join(text.split()) in self._texts

    def stated(self, text: str) -> bool:
        """Whether a text is one of the claims' values as stated or as the site shows it (made when first asked:
        most tables hold no figure in a text that is not the ledger's own)."""
        if self._stated is None:
            verdicts = [verdict for claim in self.claims if (verdict := self.report.verdict(claim.id)) is not None]
            self._stated = {said for verdict in verdicts for said in (stated(verdict), displayed(verdict))}
        return " ".join(text.split()) in self._stated


def table_problems(table: FigureTable, report: Report) -> list[tuple[int, str]]:
    """(line, what) for each number a figure table shows that no claim and no run holds."""
    found = []
    runs = {(run.name, run.testbed): run for run in report.runs.values()}
    read = Read(report, table.runs, table.claims)
    for row in table.rows:
        run = runs.get((row.run, row.testbed)) if row.run else None
        for position, cell in enumerate(row.cells):
            header = table.header[position] if position < len(table.header) else ""
            if cell.header or cell.claim:
                continue
            text = cell.text.strip()
            if _is_number(text, header):
                if run is not None and report.run_state(run.path).intact and _in_run(cell, run):
                    continue
                if run is None and read.holds(text, TABLE_TOLERANCE):
                    continue
            elif read.written(text) or not _holds_figure(text) or read.stated(text):
                continue
            elif run is not None and _text_in_run(text, run):
                continue
            why = (
                f"which is no cell of run {run.path}"
                if run is not None
                else (LITERAL if not read.runs and not read.claims else read.none_holds)
            )
            found.append((row.line, f"table {table.id!r} shows {text!r} under {header!r}, {why}"))
    return found


TEXTS = ("statement", "note")  # a claim's text fields a table may show


@lru_cache(maxsize=1 << 14)
def _holds_figure(text: str) -> bool:
    """Whether a text holds a figure (cells repeat: a testbed's name on every row)."""
    return bool(numbers.figures(text))


def _is_number(text: str, header: str) -> bool:
    """A number a reader reads with a unit: in its own text, or in its column's header "(unit)"."""
    if parse_number(text.replace(",", "")) is None:
        return False  # text: held as text, if it holds a figure
    unit = re.search(r"\(([^()]+)\)\s*$", header)  # as tables.header writes it: "gb_per_s (GB/s)"
    return bool(unit and numbers.figures(f"1 {unit.group(1)}"))


def _in_run(cell: TableCell, run: Run) -> bool:
    """Whether a table's number is a cell of the run: in its column where the run has that column, else in
    any of the run's columns (a column the figure made: a pivoted table's)."""
    number = parse_number(cell.text.strip().replace(",", "").replace("−", "-"))
    if number is None:
        return False
    tables = [table for table in run.tables.values() if not table.problem]
    named = [table for table in tables if cell.column in table.columns]
    for table in named or tables:
        index = table.columns.index(cell.column) if named else None
        for cells in table.rows:
            for value_text in (
                [cells[index]] if index is not None and index < len(cells) else cells if index is None else []
            ):
                value = parse_number(value_text)
                if value is not None and (
                    format_value(value) == cell.text.strip() or math.isclose(value, number, rel_tol=TABLE_TOLERANCE)
                ):
                    return True
    return False


def _text_in_run(text: str, run: Run) -> bool:
    return any(" ".join(text.split()) == cell for table in run.tables.values() for row in table.rows for cell in row)


_NUMBERS: dict[int, tuple[Table, list[float]]] = {}


def _table_numbers(table: Table) -> list[float]:
    """Every finite number in a table's cells (made once per table)."""
    kept = _NUMBERS.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    found = [
        value
        for row in table.rows
        for cell in row
        if (value := parse_number(cell)) is not None and math.isfinite(value)
    ]
    if len(_NUMBERS) >= 1 << 12:
        _NUMBERS.clear()
    _NUMBERS[id(table)] = (table, found)
    return found


def _near_any(sorted_numbers: list[float], number: float, tolerance: float) -> bool:
    if not math.isfinite(number):
        return False
    width = max(tolerance * abs(number), 1e-12)
    at = bisect.bisect_left(sorted_numbers, number - width)
    return at < len(sorted_numbers) and sorted_numbers[at] <= number + width


def _near_all(sorted_numbers: list[float], number: float) -> list[float]:
    """The numbers within a tenth of this one (those a shorter format could show as it)."""
    if not math.isfinite(number):
        return []
    at = bisect.bisect_left(sorted_numbers, number - 0.1 * abs(number))
    end = bisect.bisect_right(sorted_numbers, number + 0.1 * abs(number))
    return sorted_numbers[at:end]
