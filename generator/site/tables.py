"""Tables: a pandas DataFrame (or a run's CSV Table) -> an HTML table that Material styles. Pure.

Numbers get four significant digits (the ledger's format_value), whole numbers get thousands
separators, and units go in the column header: df.attrs["units"] = {"gb_per_s": "GB/s"}.
A cell holding a Claim renders as the claim's badge, linking to its page. A row the figure API read
from a run (its `run` and `testbed` columns) says so (`data-ledger-run`, `data-ledger-testbed`), and a
number says its column (`data-ledger-column`): `ledger verify-site` holds each to the run's cells, and
refuses a number with a unit that comes from no claim and no run.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..lang.rows import Table
from ..lang.values import format_value, plain_number
from ..records import Claim
from .render import esc

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made or read: a claim page's row table needs none
    import pandas as pd

ClaimRenderer = Callable[[Claim], str]


def number(value: float, whole: bool = False) -> str:
    """A number for a table cell: '1,048,576', '3.59', '0.0012', '—' for NaN."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—" if value is None or math.isnan(value) else ("∞" if value > 0 else "−∞")
    if whole or (type(value) is not float and isinstance(value, numbers.Integral)):  # a float: not Integral
        return f"{int(value):,}"
    return format_value(float(value))


def cell(value: object, whole: bool = False, claim: ClaimRenderer | None = None) -> tuple[str, bool]:
    """(HTML, is_number) for one cell."""
    if isinstance(value, str):  # a run's CSV cells first, without the numbers ABCs (slow to ask)
        return esc(value), False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return esc(number(value, whole)), True
    if isinstance(value, Claim):
        return (claim(value) if claim else esc(value.id)), False
    if isinstance(value, bool):
        return number(value), False
    if isinstance(value, numbers.Real):
        return esc(number(float(value) if not isinstance(value, numbers.Integral) else int(value), whole)), True
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—", False
    import pandas as pd  # any other value came from a DataFrame: pandas is loaded already

    return ("—", False) if value is pd.NA else (esc(value), False)


PROSE_LENGTH = 30  # a text cell this long with a space in it is prose (a statement), not an identifier


def _is_prose(value: object) -> bool:
    """Text that may wrap at its spaces in a figure table (identifiers have no spaces and never wrap)."""
    return isinstance(value, str) and len(value) > PROSE_LENGTH and " " in value.strip()


def header(column: object, units: dict) -> str:
    unit = units.get(column, "")
    return esc(column) + (f' <span class="ledger-unit">({esc(unit)})</span>' if unit else "")


def html_table(
    frame: pd.DataFrame,
    claim: ClaimRenderer | None = None,
    max_rows: int | None = None,
    highlight: dict[int, set[str]] | None = None,
    source: tuple[str, str] | None = None,
) -> str:
    """The DataFrame as <table>: headers with units, numbers right-aligned.

    highlight: row position -> columns whose cells are marked (the row and column a claim uses).
    source: (run, testbed) every row came from, when the figure read one run and kept no run column.
    """
    import pandas as pd

    columns = list(frame.columns)
    kinds = {
        c: "int"
        if pd.api.types.is_integer_dtype(frame[c])
        else "number"
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        else "other"
        for c in columns
    }
    shown = frame if max_rows is None else frame.head(max_rows)
    rows = shown.itertuples(index=False, name=None)
    units = dict(frame.attrs.get("units", {}))
    return _table(columns, kinds, rows, len(frame), units, claim, max_rows, highlight, source)


def table_html(
    table: Table,
    max_rows: int | None = None,
    highlight: dict[int, set[str]] | None = None,
    source: tuple[str, str] | None = None,
) -> str:
    """A run's CSV table as <table>, exactly as html_table(frame_of(table)) shows it, without a DataFrame
    (a claim page shows one row: typing it costs microseconds, a DataFrame a millisecond)."""
    cells = zip(*table.rows, strict=True) if table.rows else [()] * len(table.columns)  # column by column, in C
    count = len(table.rows) if max_rows is None else min(max_rows, len(table.rows))
    typed_columns = [column_of(column, count) for column in cells]
    if any(kind == "" for kind, _ in typed_columns):  # an integer beyond int64: pandas' own rules
        return html_table(frame_of(table), max_rows=max_rows, highlight=highlight, source=source)
    kinds = dict(zip(table.columns, (kind for kind, _ in typed_columns), strict=True))
    shown = [values for _, values in typed_columns]
    rows = list(zip(*shown, strict=True)) if shown else [()] * count
    texts = None
    if len(kinds) == len(table.columns):  # each column's cells as cell() writes them, by its kind (names unique)
        by_column = [_texts(kind, values) for (kind, _), values in zip(typed_columns, shown, strict=True)]
        texts = list(zip(*by_column, strict=True)) if by_column else [()] * count
    return _table(list(table.columns), kinds, rows, len(table.rows), {}, None, max_rows, highlight, source, texts)


def _texts(kind: str, values: list) -> list[tuple[str, bool]]:
    """cell()'s (HTML, is_number) for a typed CSV column's values, without asking each value its type; a
    number's text is digits, signs and separators (number()), which esc() leaves as they are."""
    if kind == "int":
        return [(f"{value:,}", True) for value in values]
    if kind == "number":  # floats: number() of a finite one is its plain_number (format_value with no unit)
        return [(plain_number(value) if math.isfinite(value) else number(value), True) for value in values]
    return [(number(value), False) if isinstance(value, bool) else (esc(value), False) for value in values]


_SPACE = r"[ \t\n\r\f\v]*"  # around a number: what pandas strips
_INTEGER = re.compile(rf"{_SPACE}[+-]?\d+{_SPACE}", re.ASCII)
_NUMBER = re.compile(  # a decimal (an integer too), or an empty cell (NaN)
    rf"{_SPACE}(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?){_SPACE}|", re.IGNORECASE | re.ASCII
)
_INT64 = range(-(2**63), 2**63)
_INT64_END = float(2**63)
_BOOLEANS = frozenset(("true", "false"))


def column_of(cells: Sequence[str], shown: int | None = None) -> tuple[str, list]:
    """One CSV column typed as frame_of types it (pandas.to_numeric's rules): ("int", ints), ("number",
    floats, '' as NaN), ("other", booleans or text); ("", []) for a number column holding an integer beyond
    int64 (frame_of types it). The values of the first `shown` cells (all by default), typed by every cell. Pure."""
    # each test maps over the whole column in C: a run page types every cell of its tables to show 20 rows
    head = cells if shown is None else cells[:shown]
    if cells and all(map(_BOOLEANS.__contains__, cells)):
        return "other", [cell == "true" for cell in head]
    joined = "".join(cells)
    short = not cells or max(map(len, cells)) <= 18  # no cell reaches 10**18 without an exponent
    if short and "" not in cells and joined.isascii() and joined.isdigit():  # ASCII digits alone: _INTEGER's
        return "int", list(map(int, head))  # each within int64
    if all(map(_INTEGER.fullmatch, cells)):
        numbers_ = list(map(int, cells))
        if numbers_ and not (min(numbers_) in _INT64 and max(numbers_) in _INT64):
            return "", []
        return "int", numbers_[:shown]
    values = _plain_numbers(cells, joined)
    if values is not None:
        if short and "e" not in joined and "E" not in joined:  # every value under 10**18: none beyond int64
            return "number", values[:shown]
    elif not all(map(_NUMBER.fullmatch, cells)):
        return "other", list(map(str, head))
    else:
        values = [float(cell) if cell != "" else math.nan for cell in cells] if "" in cells else list(map(float, cells))
    if any(map(_INT64_END.__le__, map(abs, values))):  # where an integer beyond int64 would be, as a float
        if any(int(cell) not in _INT64 for cell in filter(_INTEGER.fullmatch, cells)):
            return "", []  # an integer beyond int64 among decimals: pandas' rules are its own
    return "number", values[:shown]


_PLAIN = re.compile(r"[0-9.eE+-]*")  # the characters of a plain decimal: no spaces, inf, nan or "_"


def _plain_numbers(cells: Sequence[str], joined: str) -> list[float] | None:
    """Every cell as a float when each is a plain decimal, else None (joined: the cells, joined): a cell of
    these characters alone is one float() reads exactly when _NUMBER does (no "_", no spaces, no words), so
    float() checks them all in one pass of C, where a match per cell costs several times as much (a run's
    numbers, most of a table)."""
    if "" in cells or not _PLAIN.fullmatch(joined):
        return None
    try:
        return list(map(float, cells))
    except ValueError:  # "1.2.3", "e5", "+": not a number, _NUMBER says so too
        return None


def _table(columns, kinds, rows, total, units, claim, max_rows, highlight, source, texts=None) -> str:  # noqa: PLR0913
    """The <table> for typed rows; kinds: column -> "int", "number" or "other"; source as html_table's;
    texts: each row's cells as cell() makes them, when the caller has them (else made here)."""
    head = "".join(f"<th{_align(kinds[c] != 'other')}>{header(c, units)}</th>" for c in columns)
    out = []
    provenance = "run" in columns and "testbed" in columns  # rows the figure API read from runs
    wholes = [kinds[column] == "int" for column in columns]
    numbers_at = [f'{_align(True)} data-ledger-column="{esc(column)}"' for column in columns]  # a number's <td>
    highlight = highlight or {}
    if texts is None:
        rows = list(rows)
        texts = [[cell(value, whole, claim) for value, whole in zip(values, wholes, strict=True)] for values in rows]
    for position, (values, shown) in enumerate(zip(rows, texts, strict=True)):
        marked = highlight.get(position, ())
        cells = []
        for column, value, (text, is_number), number_attrs in zip(columns, values, shown, numbers_at, strict=True):
            attrs = number_attrs if is_number else ""
            prose = _is_prose(value)
            if column in marked:
                attrs += ' class="ledger-used ledger-text"' if prose else ' class="ledger-used"'
            elif prose:
                attrs += ' class="ledger-text"'
            cells.append(f"<td{attrs}>{text}</td>")
        row_attrs = ' class="ledger-used-row"' if marked else ""
        origin = source
        if provenance:
            found = dict(zip(columns, values, strict=True))
            origin = (str(found["run"]), str(found["testbed"]))
        if origin:  # verify-site holds each number of the row to that run's cells
            row_attrs += f' data-ledger-run="{esc(origin[0])}" data-ledger-testbed="{esc(origin[1])}"'
        out.append(f"<tr{row_attrs}>{''.join(cells)}</tr>")
    more = "" if total else '<p class="ledger-more">No rows.</p>'
    if max_rows is not None and total > max_rows:
        more = f'<p class="ledger-more">First {max_rows} of {total:,} rows.</p>'
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(out)}</tbody></table>{more}"


def _align(is_number: bool) -> str:
    return ' style="text-align: right"' if is_number else ""


def frame_of(table: Table) -> pd.DataFrame:
    """A run's CSV table as a DataFrame: numeric columns as numbers, 'true'/'false' as booleans."""
    import pandas as pd

    frame = pd.DataFrame(list(table.rows), columns=list(table.columns), dtype=object)
    for column in frame.columns:
        frame[column] = typed(frame[column])
    return frame


def typed(series: pd.Series) -> pd.Series:
    """Strings -> integers, floats or booleans when every cell is one; otherwise left as text."""
    import pandas as pd

    values = list(series)
    if values and all(v in ("true", "false") for v in values):
        return series.map(lambda v: v == "true").astype(bool)
    try:
        as_numbers = pd.to_numeric(series)
    except (ValueError, TypeError):
        return series.astype(str)
    return as_numbers
