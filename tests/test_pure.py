"""Small pure functions of the gate, table-driven: no files, no clocks."""

import pytest
from helpers import REPO  # noqa: F401

from generator.claims.lineage import downstream, input_closure, upstream
from generator.inputs.config import DEFAULTS
from generator.lang import units, values
from generator.lang.rows import Table, select_row
from generator.lang.values import Tolerance, format_value, parse_tolerance, precision_of, show_to, step, within
from generator.prose.references import find
from generator.records import Claim, Report, Source


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5%", Tolerance("5%", relative=0.05)),
        ("0.01", Tolerance("0.01", absolute=0.01)),
        (0.5, Tolerance("0.5", absolute=0.5)),
        (2, Tolerance("2", absolute=2.0)),
        ("precision", Tolerance("precision")),
        (" 2.5 % ", Tolerance("2.5 %", relative=0.025)),
    ],
)
def test_parse_tolerance(text, expected):
    assert parse_tolerance(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3.59", 0.005),
        ("67", 0.5),
        ("67.4", 0.05),
        ("1.2e3", 0.5),
        ("0.0e+99", 0.5),
        ("0.1607", 0.00005),
        ("-2.50", 0.005),
        ("1_000", 0.5),
    ],
)
def test_precision_is_half_a_unit_in_the_last_written_digit(text, expected):
    assert precision_of(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "stated, computed, tolerance, expected",
    [
        (3.59, 3.21, Tolerance("5%", relative=0.05), False),
        (3.59, 3.45, Tolerance("5%", relative=0.05), True),
        (15.2, 15.22, Tolerance("p", absolute=0.05), True),
        (15.2, 15.26, Tolerance("p", absolute=0.05), False),
        (0.1 + 0.2, 0.3, Tolerance("0", absolute=0.0), True),  # float noise is not drift
    ],
)
def test_within(stated, computed, tolerance, expected):
    assert within(stated, computed, tolerance) is expected


@pytest.mark.parametrize(
    "value, unit, expected",
    [
        (3.5912, "×", "3.591×"),
        (367.0, "GB/s", "367 GB/s"),
        (0.1607, "ms", "0.1607 ms"),
        (11.8e9, "B", "11.8 GB"),
        (143141, "", "143141"),
        (0, "%", "0%"),
        (72.02, "%", "72.02%"),
        (1e290, "GB", "1e+284 PB"),  # an extreme exponent, short: never hundreds of digits
        (1e300, "GB", "1e+300 GB"),  # beyond what a float holds in bytes: as written, never a crash
        (1.5e300, "requests", "1.5e+300 requests"),
    ],
)
def test_format_value(value, unit, expected):
    assert format_value(value, units.parse(unit)) == expected


def test_format_value_remembers_each_value_in_its_own_unit():
    """format_value keeps what it made by value and unit: another unit of the same value, a unit made again
    after the first was let go, 0.0 and -0.0, an int: each reads as a first call makes it."""
    for _ in range(2):
        for value in (1536.0, 0.0, -0.0, 1536, 2.5e-7, float("inf")):
            for text in ("", "B", "KiB", "tokens", "ms", "zorbs"):
                unit = units.read(text)
                expected = values.show(value, unit) if unit.text else values.plain_number(value)
                assert format_value(value, unit) == expected
                assert format_value(value, units.read(text)) == expected
        assert format_value(1536.0) == values.plain_number(1536.0)


@pytest.mark.parametrize(
    "value, low, high, expected",
    [
        (22.341, 17, 34, 1.0),  # half-width 8.5 (leading digits 850): its first digit's place
        (3.59, 3.41, 3.79, 0.01),  # 0.19 (190): two significant digits
        (41.5, 24.5, 79.1, 1.0),  # 27.3 (273): two significant digits, the units place
        (1.0, 0.95, 1.05, 0.01),  # 0.05 (500): one
        (7.3, 7.1, 7.0 + 0.9896, 0.1),  # 0.4448 (445): one
        (100.0, 0.0, 7.09, 0.1),  # 3.545 (354.5): still two
        (100.0, 0.0, 7.1, 1.0),  # 3.55 (355): one
        (0.5, -3.0, 4.0, 0.1),  # 3.5 (350): two; never coarser than the value's own first digit
        (0.02, -300.0, 300.0, 0.01),  # a value inside a wide interval keeps its first digit
        (5.0, 5.0, 5.0, None),  # a point supports every digit
        (5.0, 4.0, float("inf"), None),
    ],
)
def test_the_step_an_interval_supports(value, low, high, expected):
    found = step(value, low, high)
    assert found == pytest.approx(expected) if expected is not None else found is None


@pytest.mark.parametrize(
    "value, unit, quantum, expected",
    [
        (22.0, "ms", 1.0, "22 ms"),
        (42.0, "×", 1.0, "42×"),
        (3.6, "×", 0.1, "3.6×"),
        (3.0, "×", 0.1, "3.0×"),  # the zero the step supports is written
        (7.5, "%", 0.1, "7.5%"),
        (143100.0, "requests", 100.0, "143,100 requests"),
        (64400000.0, "B", 1e5, "64.4 MB"),
        (64000000.0, "B", 1e6, "64 MB"),
        (1.5, "GB", 0.1, "1.5 GB"),
        (1.5, "GiB", 0.1, "1.5 GiB"),
        (-0.0, "ms", 0.1, "0.0 ms"),  # never '-0.0'
        (1.2e300, "×", 1e299, "1.2e+300×"),  # extreme exponents: the digits the step has, never hundreds
        (1.2e20, "requests", 1e19, "1.2e+20 requests"),
        (1.234e-300, "s", 1e-302, "1.23e-300 s"),
        (1.2e300, "B", 1e299, "1.2e+285 PB"),
    ],
)
def test_a_rounded_value_is_written_with_its_steps_decimals_by_unit(value, unit, quantum, expected):
    assert show_to(value, units.parse(unit), quantum) == expected


TABLE = Table(("batch", "mode", "ms"), (("1", "batched", "0.5"), ("16", "batched", "0.2"), ("16", "looped", "0.4")))


@pytest.mark.parametrize(
    "where, rows",
    [
        ((("batch", 16),), [1, 2]),
        ((("batch", 16), ("mode", "looped")), [2]),
        ((("batch", 16.0),), [1, 2]),
        ((("batch", "16"),), [1, 2]),
        ((("batch", 3),), []),
        ((), [0, 1, 2]),
    ],
)
def test_select_row_compares_numbers_as_numbers(where, rows):
    assert select_row(TABLE, where) == rows


def test_references_skip_code_and_report_malformed_ones():
    page = (
        "Value {{ claim(\"a-b\") }} and {{ chart('c') }}.\n"
        '`{{ claim("in-code") }}`\n'
        '```\n{{ claim("in-fence") }}\n```\n'
        '{{ claim(a-b) }} {{ table("t1") }}\n'
    )
    found = [(ref.where.line, ref.where.column, ref.kind, ref.name) for ref in find(page, "docs/x.md")]
    assert found == [
        (1, 7, "claim", "a-b"),
        (1, 30, "chart", "c"),
        (6, 1, "malformed", "{{ claim(a-b) }}"),
        (6, 18, "table", "t1"),
    ]
    first = find(page, "docs/x.md")[0]
    assert page[first.start : first.end] == '{{ claim("a-b") }}'


def claim(claim_id, **fields):
    return Claim(claim_id, fields.pop("kind", "extrapolated"), Source("claims/x.yaml", 1), **fields)


def test_lineage_up_down_and_input_closure():
    claims = [
        claim("m", kind="measured"),
        claim("e", inputs=(("a", "m"), ("b", "b1"))),
        claim("b1", kind="borrowed", checked_by=("e",)),
        claim("top", inputs=(("x", "e"),)),
    ]
    by_id = {c.id: c for c in claims}
    assert [(e.target_id, e.relation) for e in upstream("e", by_id)] == [("m", "input"), ("b1", "input")]
    assert [(e.claim_id, e.relation) for e in downstream("e", claims)] == [("b1", "checked by"), ("top", "input")]
    assert input_closure("top", by_id) == ["e", "m", "b1"]


def test_report_by_id_keeps_the_first_claim_of_a_duplicate_id_in_order_as_the_gate_judges_it():
    first, other, second = (Claim(i, k, Source("claims/a.yaml", n)) for n, (i, k) in enumerate(DUPLICATED, 1))
    report = Report(claims=(first, other, second), runs={}, findings=(), verdicts={}, policy=DEFAULTS)
    assert list(report.by_id) == ["a", "b"] and report.by_id["a"] is first and report.claim("a") is first


DUPLICATED = (("a", "measured"), ("b", "borrowed"), ("a", "borrowed"))
