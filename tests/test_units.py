"""Units: parsing, conversion and display by unit (generator/units.py), and the relations checks state."""

from __future__ import annotations

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, run_ledger, write_tree

from generator import relations, units


@pytest.mark.parametrize(
    "text, dimension, scale",
    [
        ("tok/s", "tokens/seconds", 1.0),
        ("×", "", 1.0),
        ("x", "", 1.0),
        ("%", "", 0.01),
        ("KB", "bytes", 1e3),
        ("KiB", "bytes", 1024.0),
        ("GiB", "bytes", 1024.0**3),
        ("GB/s", "bytes/seconds", 1e9),
        ("TB/s", "bytes/seconds", 1e12),
        ("ms", "seconds", 1e-3),
        ("µs", "seconds", 1e-6),
        ("us", "seconds", 1e-6),
        ("ns", "seconds", 1e-9),
        ("layers", "layers", 1.0),
        ("million tokens", "tokens", 1e6),
        ("bytes/token", "bytes/tokens", 1.0),
        ("TFLOP/s", "FLOP/seconds", 1e12),
        ("s/GiB", "seconds/bytes", 1 / 1024.0**3),
        ("$", "USD", 1.0),
    ],
)
def test_units_parse_to_a_dimension_and_a_scale(text, dimension, scale):
    unit = units.parse(text)
    assert (str(unit.dimension), unit.scale) == (dimension, pytest.approx(scale))


@pytest.mark.parametrize("text, near", [("% slower", "%"), ("Gb/s", "GB/s"), ("tokns", "tokens")])
def test_an_unknown_unit_suggests_the_nearest_known_one(text, near):
    with pytest.raises(units.UnitError, match=f"unknown unit {text!r}; did you mean {near!r}"):
        units.parse(text)


def test_conversion_across_prefixes_and_refusal_across_dimensions():
    assert units.convert(45, units.parse("KB"), units.parse("B")) == 45000
    assert 45000 / 20480 == pytest.approx(2.197, abs=1e-3)  # 45 KB against 20,480 B is 2.2x
    with pytest.raises(units.UnitError, match="cannot compare bytes per second"):
        units.convert(1, units.parse("GB/s"), units.parse("×"))


@pytest.mark.parametrize(
    "value, unit, shown",
    [
        (40, "layers", "40 layers"),
        (143141, "requests", "143,141 requests"),
        (64389120, "B", "64.4 MB"),
        (20480, "B", "20.5 KB"),
        (45, "KB", "45 KB"),
        (3.59, "×", "3.59×"),
        (28.493, "tok/s", "28.49 tok/s"),
        (7.5, "%", "7.5%"),
    ],
)
def test_values_display_by_unit_with_the_unit_written_once(value, unit, shown):
    assert units.show(value, unit) == shown


@pytest.mark.parametrize(
    "text, op, bound, unit",
    [
        ("> 1", ">", 1.0, ""),
        (">= 0.9", ">=", 0.9, ""),
        ("≤ 50 %", "<=", 50.0, "%"),
        ("> 10 GB/s", ">", 10.0, "GB/s"),
        ("above", "above", 0.0, ""),
        ("within 2x", "within", 2.0, ""),
        ("within 1.05×", "within", 1.05, ""),
    ],
)
def test_relations_are_parsed_never_executed(text, op, bound, unit):
    relation = relations.parse(text)
    assert (relation.op, relation.bound, relation.unit) == (op, bound, unit)


@pytest.mark.parametrize("text", ["__import__('os')", "> inf", "within 0.5x", "== 1", ""])
def test_a_relation_outside_the_set_is_refused(text):
    with pytest.raises(relations.RelationError):
        relations.parse(text)


def test_claim_with_an_unknown_unit_is_invalid_and_names_the_nearest(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace('unit: "×"', 'unit: "% slower"')})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/moe.yaml:5: moe-speedup-b16: invalid: unknown unit '% slower'; did you mean '%'?\n"
        '  fix: write `unit: "%"` and put any qualifier in the statement\n'
    ) in result.output


def test_a_stated_count_shows_as_a_whole_number_and_bytes_with_a_prefix():
    from generator.records import Claim, Source
    from generator.values import stated

    where = Source("claims/a.yaml", 1)
    assert stated(Claim("a", "measured", where, value=40.0, value_text="40.00", unit="layers")) == "40 layers"
    assert stated(Claim("a", "measured", where, value=101.9, value_text="101.90", unit="experts")) == "101.90 experts"
    assert stated(Claim("a", "measured", where, value=64389120.0, value_text="64389120", unit="B")) == "64.4 MB"
    assert stated(Claim("a", "measured", where, value=3.59, value_text="3.59", unit="×")) == "3.59×"
