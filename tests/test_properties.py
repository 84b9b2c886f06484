"""Property tests: random mutations of a small valid ledger never raise out of check(), and every
finding names its file. Derandomized, with a capped number of examples, so the file stays fast."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from helpers import BORROWED_CHECKED, DOUBLED, MEASURED, RUN, SPEEDUP_ROWS, a_run, write_tree
from helpers_rounds import claim, rounds_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.gate import check
from generator.inputs.config import DEFAULTS, read_policy
from generator.lang import units
from generator.lang.values import format_pair, parse_tolerance, within
from generator.records import LedgerError
from generator.runs import sha256_file

NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)
SETTINGS = settings(
    derandomize=True, max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
TEMPLATE = Path(tempfile.mkdtemp(prefix="ledger-template-"))
atexit.register(shutil.rmtree, TEMPLATE, True)
a_run(TEMPLATE, SPEEDUP_ROWS)
write_tree(
    TEMPLATE,
    {"claims/moe.yaml": MEASURED + BORROWED_CHECKED + DOUBLED, "docs/index.md": '{{ claim("moe-speedup-b16") }}\n'},
)
assert check(TEMPLATE, DEFAULTS, NOW).ok

SCALARS = st.one_of(
    st.text(max_size=12),
    st.integers(min_value=-(10**400), max_value=10**400).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            ".nan",
            ".inf",
            "-.inf",
            "1e999",
            "0xee",
            "0o17",
            "010",
            "1:30",
            "yes",
            "~",
            "''",
            "[]",
            "{}",
            "[a, {b: c}]",
            "!!binary aGk=",
            "*x",
            "&a 1",
            '"\\0"',
            "'  id  '",
            '"> 1"',
            "{claim: moe-speedup-b16, expects: '> 1'}",
            "[{claim: moe-speedup-b16, expects: within 0x}]",
        ]
    ),
)
UNITS_OF_A_PROJECT = st.sampled_from(["prompts", "px/s", "Mpx", "kpx/prompt", "J/prompt", "°C", "prompts/s"])
FIELDS = ("value", "unit", "testbed", "tolerance", "checked_by", "where", "column", "run", "formula", "inputs", "id")


def copy() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ledger-mutant-"))
    shutil.copytree(TEMPLATE, root, dirs_exist_ok=True, symlinks=True)
    return root


def judged(root: Path) -> None:
    try:
        report = check(root, DEFAULTS, NOW)
        for finding in report.findings:
            assert finding.where.path, finding
    finally:
        shutil.rmtree(root, ignore_errors=True)


@SETTINGS
@given(field=st.sampled_from(FIELDS), value=SCALARS, occurrence=st.integers(0, 2))
def test_any_yaml_value_in_any_field_gives_findings_not_a_crash(field, value, occurrence):
    root = copy()
    path = root / "claims/moe.yaml"
    lines = path.read_text().split("\n")
    hits = [i for i, line in enumerate(lines) if line.strip().startswith(f"{field}:") or f" {field}: " in line]
    if hits:
        i = hits[occurrence % len(hits)]
        head = lines[i].split(f"{field}:")[0]
        lines[i] = f"{head}{field}: {value}"
    path.write_text("\n".join(lines))
    judged(root)


@SETTINGS
@given(
    name=st.one_of(SCALARS, st.sampled_from(["prompts", "kW", "px", "in", "°C"])),
    key=st.sampled_from(["dimension", "scale", "prefixes", "unit"]),
    value=st.one_of(SCALARS, st.sampled_from(["prompts", "J", "°C", "tokns", "si", "1e400", "0", "-1"])),
    unit=UNITS_OF_A_PROJECT,
)
def test_any_units_declaration_in_mkdocs_yml_gives_findings_not_a_crash(name, key, value, unit):
    root = copy()
    entry = f"{name}: {{dimension: prompts}}\n        px: {{{key}: {value}}}"
    (root / "mkdocs.yml").write_text(f"site_name: t\nplugins:\n  - ledger:\n      units:\n        {entry}\n")
    text = (root / "claims/moe.yaml").read_text().replace('unit: "×"', f"unit: '{unit}'", 1)
    (root / "claims/moe.yaml").write_text(text)
    try:
        policy = read_policy(root / "mkdocs.yml")
        for _, finding in policy.problems:
            assert str(finding.where).startswith("mkdocs.yml:"), finding
        check(root, policy, NOW)
    except LedgerError as error:  # malformed YAML: named with its line, and the gate does not start
        assert str(error).startswith("mkdocs.yml:"), error
    finally:
        shutil.rmtree(root, ignore_errors=True)


@SETTINGS
@given(cell=st.one_of(st.text(max_size=10), SCALARS), row=st.integers(0, 2), column=st.integers(0, 1))
def test_any_csv_cell_gives_findings_not_a_crash(cell, row, column):
    root = copy()
    set_cell(root / RUN / "results.csv", row, column, cell)
    judged(root)


def set_cell(path: Path, row: int, column: int, cell: str) -> None:
    """Write any text into one cell of a CSV file (bytes a UTF-8 file cannot hold replaced)."""
    lines = path.read_text().split("\n")
    cells = lines[row].split(",")
    cells[column % len(cells)] = cell
    lines[row] = ",".join(cells)
    path.write_bytes("\n".join(lines).encode("utf-8", errors="replace"))


ROUNDS_TEMPLATE = Path(tempfile.mkdtemp(prefix="ledger-rounds-template-"))
atexit.register(shutil.rmtree, ROUNDS_TEMPLATE, True)
ROUNDS_RUN = rounds_run(ROUNDS_TEMPLATE, {1: [1.0] * 9, 16: [3.5, 3.52, 3.55, 3.58, 3.6, 3.61, 3.62, 3.64, 3.7]})
write_tree(
    ROUNDS_TEMPLATE, {"claims/a.yaml": "claims:" + claim("s16", ROUNDS_RUN, "3.6") + claim("s1", ROUNDS_RUN, "1", 1)}
)
assert check(ROUNDS_TEMPLATE, DEFAULTS, NOW).ok


@SETTINGS
@given(
    cell=st.one_of(st.text(max_size=10), SCALARS),
    row=st.integers(0, 18),
    column=st.integers(0, 3),
    rehash=st.booleans(),
)
def test_any_raw_rounds_cell_gives_findings_not_a_crash(cell, row, column, rehash):
    root = Path(tempfile.mkdtemp(prefix="ledger-mutant-"))
    shutil.copytree(ROUNDS_TEMPLATE, root, dirs_exist_ok=True)
    path = root / ROUNDS_RUN / "samples.csv"
    set_cell(path, row, column, cell)
    if rehash:  # as a probe would have written it: the manifest agrees, so the rounds themselves are judged
        manifest_path = root / ROUNDS_RUN / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["files"]["samples.csv"]["sha256"] = sha256_file(path)
        manifest_path.write_text(json.dumps(manifest))
    judged(root)


JSON = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False), st.text(max_size=8)
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)


@SETTINGS
@given(
    key=st.sampled_from(["probe", "files", "started", "finished", "testbed", "parameters", "environment", "code"]),
    value=JSON,
)
def test_any_manifest_field_gives_findings_not_a_crash(key, value):
    root = copy()
    path = root / RUN / "manifest.json"
    manifest = json.loads(path.read_text())
    if key == "code":
        manifest["probe"]["code"] = value
    else:
        manifest[key] = value
    path.write_text(json.dumps(manifest))
    judged(root)


@SETTINGS
@given(
    target=st.sampled_from(["claims/moe.yaml", f"{RUN}/manifest.json", f"{RUN}/results.csv", "docs/index.md"]),
    kind=st.sampled_from(["folder", "fifo", "zero-link", "empty", "binary", "dangling-link"]),
)
def test_any_file_kind_gives_findings_not_a_crash_and_is_never_read_without_bound(target, kind):
    root = copy()
    path = root / target
    path.unlink()
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero-link":
        os.symlink("/dev/zero", path)
    elif kind == "dangling-link":
        os.symlink(root / "nowhere", path)
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(bytes(range(256)) * 4)
    judged(root)


UNITS = st.one_of(
    st.sampled_from(["×", "%", "GB/s", "tok/s", "ms/token", "B", "layers", "million tokens", "$", "TFLOP/s", "s/GiB"]),
    st.text(max_size=8),
)
NUMBERS = st.one_of(
    st.sampled_from(["1", "0", "-1", "1e308", "1e999", ".5", "2.", "１", "nan", "1_0"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


@SETTINGS
@given(
    form=st.sampled_from(["{op} {n} {unit}", "{op}{n}", "within {n}x", "within {n}×", "{word}", "{op} {n}{unit}"]),
    op=st.sampled_from([">", ">=", "<", "<=", "≥", "≤", "=", "=="]),
    n=NUMBERS,
    unit=UNITS,
    word=st.sampled_from(["above", "below", "same", "ABOVE", "Within", "between"]),
)
def test_any_relation_gives_findings_not_a_crash(form, op, n, unit, word):
    root = copy()
    path = root / "claims/moe.yaml"
    relation = form.format(op=op, n=n, unit=unit, word=word).replace("'", "''")
    text = path.read_text().replace('expects: "within 1.05x"', f"expects: '{relation}'")
    path.write_text(text)
    judged(root)


ATOMS = st.sampled_from(["s", "2", "0", "1e308", "1e999", "ｓ", "а", "(s)", "-s", "0.5", "s ** 0.5", "(0 ** -1)"])
FORMULAS = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", "×", "−", "÷", "%"]), inner).map(" ".join),
        st.lists(inner, min_size=0, max_size=3).map(lambda args: f"{st_choice(args)}({', '.join(args)})"),
    ),
    max_leaves=6,
)


def st_choice(args: list[str]) -> str:
    return "max" if len(args) % 2 else "min"


@SETTINGS
@given(formula=FORMULAS, unit=UNITS, input_unit=UNITS)
def test_any_formula_and_unit_give_findings_not_a_crash(formula, unit, input_unit):
    root = copy()
    path = root / "claims/moe.yaml"
    text = path.read_text().replace("formula: 2 * s", f"formula: '{formula}'")
    text = text.replace('unit: "×"', f"unit: '{input_unit.replace(chr(39), chr(39) * 2)}'", 1)  # the input's
    text = text.replace("    value: 7.2\n", f"    value: 7.2\n    unit: '{unit.replace(chr(39), chr(39) * 2)}'\n")
    path.write_text(text)
    judged(root)


FINITE = st.floats(allow_nan=False, allow_infinity=False)


@SETTINGS
@given(first=FINITE, second=FINITE, unit=st.sampled_from(["", "×", "%", "GB/s", "B", "layers", "ms/token"]))
def test_two_values_read_alike_only_when_they_are_equal(first, second, unit):
    shown = format_pair(first, second, units.parse(unit))
    assert (shown[0] == shown[1]) == (first == second)


@SETTINGS
@given(value=FINITE, tolerance=st.sampled_from(["0", "0%", "1e-300", "precision"]))
def test_equal_values_never_drift_under_any_tolerance(value, tolerance):
    parsed = parse_tolerance(tolerance)
    assert within(value, value, parsed)


# A chart's row against a run's table: literals.py finds the rows that may hold it by bisection, in the
# column whose numbers are most apart; it must answer as comparing the row with every row of the table.
_CELL_NUMBERS = st.sampled_from([0.0, 1.0, 1.0 + 1e-10, 1.0 + 1e-8, 2.5, -2.5, 1e-13, 3e300, float("inf"), 7.0])
_CELLS = st.one_of(_CELL_NUMBERS.map(repr), st.sampled_from(["", "nan", "x", "1,000", "-0", "inf"]))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    rows=st.lists(st.lists(_CELLS, min_size=2, max_size=3), max_size=12),
    shown=st.lists(st.one_of(_CELL_NUMBERS, st.integers(-3, 3), st.just(10**400)), min_size=2, max_size=3),
)
def test_a_chart_row_is_in_a_table_exactly_when_some_row_holds_each_of_its_numbers(rows, shown):
    from generator.lang.rows import Table
    from generator.prose import literals

    table = Table(("a", "b", "c"), tuple(map(tuple, rows)))
    row = dict(zip(("a", "b", "c"), shown, strict=False))

    columns = [(at, name) for at, name in enumerate(table.columns) if name in literals.numeric_columns(row)]
    expected = any(
        all(at < len(cells) and literals.same_value(row[name], cells[at]) for at, name in columns)
        for cells in table.rows
    )
    assert literals.in_table(row, table) == expected
