"""A chart's data against the ledger: a chart's embedded Vega-Lite spec + a fresh Report -> what in its
rows the ledger does not hold. Pure.

Figures draw from runs through the figure API, which adds each row's `run` and `testbed`. Each such
row must come from an intact run the ledger holds, and every number the row shows in a column of one
of that run's tables must be that table's value in one row (compared as numbers). Text columns are
labels a figure may reword; a column the figure computed (a ratio) is not a column of any table and
is not compared: the figure's code computes it, and `ledger diff` lists that code for review. A row that names a claim (`id`, `value`) must show its value.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Iterator, Mapping

from ..lang.rows import Table
from ..lang.values import parse_number
from ..records import Report, Run

MAX_ROWS = 200_000  # rows read from one chart: a spec is read, never executed


def problems(chart_id: str, spec_text: str, report: Report) -> list[str]:
    """What is wrong with one chart's data, each in words naming the chart."""
    try:
        spec = json.loads(spec_text)
    except (ValueError, RecursionError):
        return [f"chart {chart_id!r}: its embedded spec is not JSON"]
    found: list[str] = []
    by_name: dict[tuple[str, str], Run] = {(run.name, run.testbed): run for run in report.runs.values()}
    for number, row in enumerate(_rows(spec)):
        if number >= MAX_ROWS:
            found.append(f"chart {chart_id!r}: more than {MAX_ROWS:,} rows; the rest were not verified")
            break
        found += _row_problems(chart_id, row, by_name, report)
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


def _row_problems(chart_id: str, row: Mapping[str, object], runs: dict, report: Report) -> list[str]:
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
