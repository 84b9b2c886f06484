"""A run's table and its rows: the Table record, the rows a claim's `where:` selects, a cell as a number,
and a row's spread across rounds. Pure, on the floor.

A measured column X carries its low and high across rounds in the columns X_min and X_max (or X_low and
X_high), beside a `rounds` column. Runs with raw rounds have samples instead (judging/intervals.py); the
spread is what a run without them still gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from .values import finite_number, parse_number


@dataclass(frozen=True, slots=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    problem: str = ""  # why it could not be read, if it could not
    counted: int | None = None  # rows read and counted but not kept (a run no claim reads: bounded memory)

    @property
    def row_count(self) -> int:
        """Its rows, kept or only counted."""
        return len(self.rows) if self.counted is None else self.counted


def cell_number(table: Table, row: int, column: str) -> float | None:
    """The one cell reader for the gate and every command: a table's cell as a number (parse_number).

    None when the column is missing or the cell is not a plain finite decimal ('3_7', 'inf', '')."""
    if column not in table.columns or not 0 <= row < len(table.rows):
        return None
    return parse_number(table.rows[row][table.columns.index(column)])


def select_row(table: Table, where: tuple[tuple[str, object], ...]) -> list[int]:
    """Indexes of the rows whose cells equal every value in `where` (numbers compared as numbers)."""
    positions = [(table.columns.index(column), value) for column, value in where]
    return [
        i for i, row in enumerate(table.rows) if all(matches(row[position], value) for position, value in positions)
    ]


def matches(cell: str, value: object) -> bool:
    """Whether a CSV cell equals a `where` value: numbers as numbers, booleans by their words."""
    if isinstance(value, bool):
        return cell.strip().lower() == str(value).lower()
    if isinstance(value, (int, float)):
        number = parse_number(cell)
        return number is not None and number == finite_number(value)
    return cell == ("" if value is None else str(value))


SPREAD_SUFFIXES = (("_min", "_max"), ("_low", "_high"))


def spread_columns(columns: tuple[str, ...], column: str) -> tuple[str, str] | None:
    """The (low, high) column names that carry `column`'s spread, if the table has them."""
    for low, high in SPREAD_SUFFIXES:
        if column + low in columns and column + high in columns:
            return column + low, column + high
    return None


def row_spread(table: Table, row: int, column: str) -> tuple[float, float] | None:
    """(low, high) of one cell across rounds, from its spread columns; None when it has none."""
    names = spread_columns(table.columns, column)
    if names is None:
        return None
    low, high = (cell_number(table, row, name) for name in names)
    if low is None or high is None:
        return None
    return min(low, high), max(low, high)
