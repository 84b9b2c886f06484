"""Intervals: a measured claim's raw rounds, or a formula's inputs' intervals -> its ClaimInterval. Pure.

A measured claim's row selection (`where`) selects its rounds directly from the run's samples file
(samples.csv for results.csv, NAME.samples.csv for NAME.csv: timing.samples_file, the convention the
probes write), one row per round, the claim's column holding that round's value; the evidence value
must be their median (a summary that is not is `tampered`: the row does not follow from its rounds). Its
interval is the median's order-statistic interval at the highest level the
round count allows up to 99% (stats.median_interval). A run without raw rounds still checks: its
interval is the row's X_min–X_max (or X_low–X_high) range, which covers the median with 1 − 2·0.5ⁿ
for the row's n `rounds`, and its claims say "no raw rounds". A value with no sign of timing (no
min–max columns and no `rounds` in its row; or a column its samples file leaves out, so not a
per-round value) is computed from counts: it is *exact*. That is an inference, made only where the run
declares no kind for the column (runs.Column: timed or exact); a column the run declares timed is never
exact, whatever its samples file leaves out, and one declared exact is. An extrapolated claim's interval is carried
through its formula: paired by round when every input with an interval has raw rounds from one run
(drift cancels), else by interval arithmetic over the inputs' intervals at the Bonferroni level.
Visiting the claims inputs first, the evidence stage also decides here which claims are exact and
why a claim's noise is unknown (no interval, or an input's missing one), for asserted.py's judgement;
both go on the claim's ClaimVerdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from ..lang import formula, stats
from ..lang.rows import Table, cell_number, row_spread, select_row
from ..lang.values import finite_number, parse_number
from ..points import Point
from ..records import Cause, Claim, ClaimInterval, ClaimVerdict, Evidence, Run
from ..timing import median_coverage, samples_file

ROUND = "round"  # the samples file's column numbering the rounds (global within a run, for pairing)
MAX_ROW_ROUNDS = 100_000  # a row's `rounds` count read for min–max's coverage, 1 − 2·0.5ⁿ (cheap for any n)
RERUN = "rerun the probe"
NO_INPUT_INTERVAL = "no input has an interval"  # every input is exact (or borrowed, taken as stated)


@attrs.frozen(weakref_slot=False)
class Found:
    interval: ClaimInterval | None = None
    missing: str = ""  # why there are no raw rounds ("" when there are)
    exact: bool = False  # computed from counts: no timing, so its value is its own interval
    problem: str = ""  # the raw rounds contradict the run: a finding of `rule`
    fix: str = ""
    rule: str = "invalid"  # tampered: the row's summary is not what its raw rounds give
    inferred: bool = False  # exact only by inference: its run declares no kind for the column (undeclared-kind)


class RowIndex:
    """A table's rows grouped by the cells of some columns, read as the `where` values they are compared
    with (rows.matches: numbers as numbers, booleans by their words, text as text), built once per
    table, columns and kinds of value, so a run's samples are scanned once however many claims select
    from them."""

    def __init__(self) -> None:
        self._groups: dict[tuple, tuple[Table, dict[tuple, tuple[int, ...]]]] = {}

    def rows(self, table: Table, where: tuple[tuple[str, object], ...]) -> tuple[int, ...]:
        """Indexes of the rows whose cells equal every value in `where` (as rows.select_row)."""
        wanted = cell_key(where)
        return () if None in wanted else self.cells(table, where).get(wanted, ())

    def cells(self, table: Table, where: tuple[tuple[str, object], ...]) -> dict[tuple, tuple[int, ...]]:
        """Every row of the table grouped by its cells in `where`'s columns, each read as the `where` value of
        that column is (cell_key of a `where` names its group): the cells of a column that a claim's row is one of."""
        columns = [column for column, _ in where]
        kinds = [_kind(value) for _, value in where]
        key = (id(table), *columns, *kinds)
        found = self._groups.get(key)
        if found is None:  # the table is kept with its groups, so its id stays its own
            found = self._groups[key] = (table, _grouped(table, columns, kinds))
        return found[1]


def cell_key(where: tuple[tuple[str, object], ...]) -> tuple:
    """The group RowIndex.cells files the rows `where` selects under (None in it: it selects none)."""
    return tuple(_wanted(value) for _, value in where)


def _grouped(table: Table, columns: list[str], kinds: list[str]) -> dict[tuple, tuple[int, ...]]:
    """The table's row indexes by their cells in the columns, each read as a `where` value of its kind."""
    readers = [(table.columns.index(column), _READERS[kind]) for column, kind in zip(columns, kinds, strict=True)]
    groups: dict[tuple, list[int]] = {}
    if len(readers) == 1:  # the commonest `where`: one column
        [(position, read)] = readers
        for index, row in enumerate(table.rows):
            groups.setdefault((read(row[position]),), []).append(index)
    else:
        for index, row in enumerate(table.rows):
            groups.setdefault(tuple([read(row[p]) for p, read in readers]), []).append(index)
    return {cells: tuple(rows) for cells, rows in groups.items()}


def _kind(value: object) -> str:
    return "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float)) else "text"


# A cell as rows.matches compares it with a value of each kind (None: equals no value).
_READERS: dict[str, Callable[[str], object]] = {
    "number": parse_number,
    "bool": lambda cell: cell.strip().lower(),
    "text": lambda cell: cell,
}


def _wanted(value: object) -> object:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return finite_number(value)
    return "" if value is None else str(value)


@attrs.frozen(weakref_slot=False)
class Cell:
    """What a claim's evidence reads in a table: the rows `where` selects, the value, or why there is none."""

    rows: tuple[int, ...] = ()
    value: float | None = None
    cause: Cause = ""
    missing: str = ""  # the first column the table lacks (cause no-column)


def read_cell(table: Table | None, evidence: Evidence, index: RowIndex | None = None) -> Cell:
    """The one place a claim's row is selected and its cell read (refresh reads newer runs through it);
    index: the tables' rows grouped once (RowIndex), for a stage that selects many rows."""
    if table is None or table.problem:
        return Cell(cause="unreadable-file")
    missing = [c for c in (evidence.column, *(c for c, _ in evidence.where)) if c not in table.columns]
    # The rows `where` selects, even when the value's column is missing (the claim page shows them).
    if set(missing) - {evidence.column}:
        rows: tuple[int, ...] = ()
    else:
        rows = tuple(index.rows(table, evidence.where) if index is not None else select_row(table, evidence.where))
    if missing:
        return Cell(rows, cause="no-column", missing=missing[0])
    if len(rows) != 1:
        return Cell(rows, cause="many-rows" if rows else "no-row")
    value = cell_number(table, rows[0], evidence.column)
    return Cell(rows, value, "" if value is not None else "not-a-number")


def point(run: Run, value: float, found: Found) -> Point | None:
    """A run's point of a claim's series: its value and interval as measured() read them (the evidence
    stage makes the cited run's, series/stage.py every other run's); None for a run with no start."""
    if run.started is None:
        return None
    interval = found.interval
    if interval is None:
        return Point(run.path, run.started, value)
    return Point(run.path, run.started, value, interval.low, interval.high, interval.basis, level=interval.level)


def measured(run: Run, evidence: Evidence, table: Table, row: int, value: float, index: RowIndex) -> Found:
    """A measured claim's interval from the run's raw rounds, else its row's min–max (no raw rounds)."""
    name = samples_file(evidence.file)
    samples = run.tables.get(name)
    where = _Where(evidence)  # words for a message, made only for one
    declared = run.columns.get(evidence.file, {}).get(evidence.column)
    if declared is not None and declared.kind == "exact":
        varies = _varies(samples, name, evidence, table, row, index)
        if varies:  # the run's own rows contradict its declaration: an assertion would hold on nothing
            return Found(
                problem=f"{run.path} declares {evidence.file} column {evidence.column} exact, but {varies}: a column "
                "with rounds or a spread is not exact",
                fix="measure again with a probe that declares the column timed (guide/probes.md)",
            )
        return Found(missing="declared exact", exact=True)  # the run says so: its value is its own interval
    timed = declared is not None  # declared timed: no omission can make it exact
    if name not in run.declared_files or samples is None:
        return _min_max(table, row, evidence.column, f"the run has no {name}", timed)
    if samples.problem:
        return Found(problem=f"{run.path}/{name} {samples.problem}", fix=RERUN)
    if evidence.column not in samples.columns:  # the probe kept no rounds of it: not a per-round value
        missing = f"{name} has no column {evidence.column!r}"
        if timed:
            return Found(missing=f"{missing}, though the run declares it timed")
        return Found(missing=missing, exact=True, inferred=True)
    absent = [c for c in (ROUND, *(c for c, _ in evidence.where)) if c not in samples.columns]
    if absent:
        return _min_max(table, row, evidence.column, f"{name} has no column {absent[0]!r}", timed)
    rows = index.rows(samples, evidence.where)
    if not rows:
        return _min_max(table, row, evidence.column, f"{name} has no rounds where {where}", timed)
    by_round: dict[int, float] = {}
    at_round, at_value = samples.columns.index(ROUND), samples.columns.index(evidence.column)
    for i in rows:
        cells = samples.rows[i]
        cell = cells[at_value]
        if not cell or cell.isspace():
            continue  # no value in this round (a ratio whose other setting had stopped): not a round of it
        number, found = parse_number(cells[at_round]), parse_number(cell)
        if number is None or not number.is_integer():
            return Found(problem=f"{name} line {i + 2}: round {cells[at_round]!r} is not a whole number", fix=RERUN)
        if found is None:
            return Found(problem=f"{name} line {i + 2}, column {evidence.column}: {cell!r} is not a number", fix=RERUN)
        if int(number) in by_round:
            return Found(
                problem=f"{name}: round {int(number)} appears twice where {where}",
                fix="add the columns that name one setting to `where`",
            )
        by_round[int(number)] = found
    if not by_round:
        return _min_max(table, row, evidence.column, f"{name} has no rounds of {evidence.column} where {where}", timed)
    rounds = sorted(by_round.items())
    ordered = sorted(by_round.values())
    middle = len(ordered) // 2  # the median, as statistics.median takes it
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    if abs(median - value) > 1e-9 * max(abs(value), abs(median)):
        return Found(
            problem=f"{run.path}/{evidence.file}, {where}, column {evidence.column} is {value!r}, but the median of "
            f"its {len(rounds)} rounds in {name} is {median!r}: the row's summary does not follow from its raw rounds",
            fix="restore the run's files from git, or rerun the probe: a run's summary is the median of its rounds "
            "(guide/probes.md)",
            rule="tampered",
        )
    try:
        interval = stats.median_interval(ordered)
    except ValueError as error:
        return Found(
            problem=f"{name}, {where}: {error}",
            fix=f"rerun the probe with at most {stats.MAX_ROUNDS} rounds a setting (generator.timing.Stop's max_rounds)",
        )
    return Found(
        ClaimInterval(interval.low, interval.high, interval.level, "rounds", len(rounds), tuple(rounds), run.path)
    )


def _varies(samples: Table | None, name: str, evidence: Evidence, table: Table, row: int, index: RowIndex) -> str:
    """Where a column's own data shows it was timed ("" where it does not): its row's min–max apart, or rounds
    of it in the samples file that differ (a key or a count repeats in every round alike)."""
    spread = row_spread(table, row, evidence.column)
    if spread is not None and spread[0] != spread[1]:
        return f"its row's min–max is {spread[0]:g}–{spread[1]:g}"
    columns = (ROUND, evidence.column, *(c for c, _ in evidence.where))
    if samples is None or samples.problem or any(c not in samples.columns for c in columns):
        return ""
    at = samples.columns.index(evidence.column)
    found = {parse_number(samples.rows[i][at]) for i in index.rows(samples, evidence.where)} - {None}
    if len(found) < 2:
        return ""
    low, high = min(found), max(found)  # type: ignore[type-var]
    return f"its {name} holds rounds of it from {low:g} to {high:g}"


class _Where:
    """A claim's `where` in words ('batch=16, mode=batched', 'no filter'), made when a message shows it."""

    __slots__ = ("evidence",)

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence

    def __str__(self) -> str:
        return ", ".join(f"{c}={v}" for c, v in self.evidence.where) or "no filter"


def _min_max(table: Table, row: int, column: str, missing: str, timed: bool = False) -> Found:
    """The row's min–max range as the interval (no raw rounds); without one, exact when nothing says it
    was timed (no `rounds` in the row, no declaration: inferred), else no interval."""
    spread = row_spread(table, row, column)
    rounds_cell = table.rows[row][table.columns.index("rounds")].strip() if "rounds" in table.columns else ""
    if spread is None:
        if timed:
            return Found(missing=f"{missing}, though the run declares it timed")
        exact = not rounds_cell  # a row without rounds was not timed, as far as the run says
        return Found(missing=missing, exact=exact, inferred=exact)
    count = parse_number(rounds_cell)
    rounds = int(count) if count is not None and count.is_integer() and 1 <= count <= MAX_ROW_ROUNDS else 0
    level = median_coverage(rounds, 1) if rounds else None
    return Found(ClaimInterval(spread[0], spread[1], level, "min-max", rounds), missing=missing)


def through_formula(
    text: str,
    values: Mapping[str, float],
    inputs: Mapping[str, ClaimInterval | None],
    value: float,
    scaled: formula.Scales = formula.PLAIN,
) -> Found:
    """An extrapolated claim's interval from its inputs' (each in its input's unit; `scaled` gives the
    result in the claim's unit, as its value is): paired by round where it can be, else interval
    arithmetic; Found with `missing` when no input has one or the result is unbounded."""
    carried = {name: found for name, found in inputs.items() if found is not None}
    if not carried:
        return Found(missing=NO_INPUT_INTERVAL)
    evaluate: Callable[[Mapping[str, float]], float] = lambda point: formula.evaluate(text, {**values, **point}, scaled)  # noqa: E731
    runs = {found.run for found in carried.values()}
    # Pairing is what cancels drift between inputs: with one input, interval arithmetic is the same
    # interval for a monotone formula (and a wider, still valid one otherwise), at a fraction of the cost.
    if len(carried) > 1 and len(runs) == 1 and all(found.samples for found in carried.values()):
        paired = stats.paired_interval(evaluate, {name: dict(found.samples) for name, found in carried.items()})
        # The paired interval is the median's of the per-round results; it is used when it holds the
        # value the formula gives on the medians (it nearly always does), else interval arithmetic.
        if paired is not None and paired[0].low <= value <= paired[0].high:
            interval, results = paired
            return Found(
                ClaimInterval(interval.low, interval.high, interval.level, "paired", len(results), results, runs.pop())
            )
    spans = {name: (found.low, found.high) if found else (values[name], values[name]) for name, found in inputs.items()}
    try:
        low, high = formula.evaluate_interval(text, spans, scaled)
    except formula.FormulaError as error:
        return Found(missing=f"it has no interval: its inputs' cannot be carried through the formula ({error})")
    level = stats.joint_level(found.level for found in carried.values())
    fewest = min(found.runs for found in carried.values())  # run-to-run variation is in it only if every input's is
    return Found(ClaimInterval(low, high, level, "formula", runs=fewest))


def measured_noise(found: Found) -> str:
    """Why a measured claim's noise is unknown ('' when it is exact or has an interval)."""
    if found.exact or found.interval is not None:
        return ""
    return f"it has no interval: a timed row with no raw rounds ({found.missing}) and no min–max columns"


def formula_noise(claim: Claim, found: Found, verdicts: Mapping[str, ClaimVerdict]) -> tuple[bool, str]:
    """(exact, why its noise is unknown) for an extrapolated claim. Known only when every input's is: the
    arithmetic counts an input without an interval as exact, true only of an exact input (or a borrowed
    one, taken as stated). Its inputs were visited first, so their verdicts say."""
    unsure = next((target for _, target in claim.inputs if _unknown(target, verdicts)), None)
    if unsure is not None:
        root = _unknown_root(unsure, verdicts)
        which = f"its input {root}" if root == unsure else f"{root}, which its input {unsure} rests on,"
        return False, f"{which} has no interval, so its own interval leaves that noise out"
    if found.interval is None and found.missing == NO_INPUT_INTERVAL:
        return True, ""
    return False, found.missing if found.interval is None else ""


def _unknown(claim_id: str, verdicts: Mapping[str, ClaimVerdict]) -> bool:
    found = verdicts.get(claim_id)
    return found is not None and bool(found.noise_unknown)


def _unknown_root(target: str, verdicts: Mapping[str, ClaimVerdict]) -> str:
    """The claim without an interval that made `target`'s noise unknown: itself, or one it rests on."""
    seen = {target}
    while (
        below := next((t for _, t in verdicts[target].claim.inputs if _unknown(t, verdicts) and t not in seen), None)
    ) is not None:
        target = below
        seen.add(target)
    return target
