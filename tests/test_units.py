"""Units: parsing, conversion and display by unit (generator/lang/units.py), and the relations checks state."""

from __future__ import annotations

import functools

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, run_ledger, write_tree

from generator.lang import ownunits, relations, units, values
from generator.lang.units import BASES, CURRENCIES, PREFIXES


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
        (80000, "bit", "80000 bit"),  # bits stay bits; bytes get a readable prefix
        (3.2, "GHz", "3.2 GHz"),
        (1234567, "cycles", "1,234,567 cycles"),
    ],
)
def test_values_display_by_unit_with_the_unit_written_once(value, unit, shown):
    assert values.show(value, units.parse(unit)) == shown


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
    assert (relation.op, relation.bound, relation.unit.text if relation.unit else "") == (op, bound, unit)


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
    from helpers import verdict_of

    from generator.records import Claim, Source
    from generator.wording import stated

    def shown(value: float, written: str, unit: str) -> str:
        where = Source("claims/a.yaml", 1)
        return stated(verdict_of(Claim("a", "measured", where, value=value, value_text=written, unit=unit)))

    assert shown(40.0, "40.00", "layers") == "40 layers"
    assert shown(101.9, "101.90", "experts") == "101.90 experts"
    assert shown(64389120.0, "64389120", "B") == "64.4 MB"
    assert shown(3.59, "3.59", "×") == "3.59×"


# -- units of any field: every prefix on every base, the named units, currencies, temperatures, and a
#    project's own units (generator/lang/units.py, generator/lang/ownunits.py) ------------------------------

PREFIXED = [(prefix, factor, base) for base in BASES for prefix, factor in PREFIXES[base.prefixes].items()]
OTHER = {"bytes": "s", "seconds": "B", "FLOP": "J", "joules": "FLOP", "cycles": "instructions"}


@pytest.mark.parametrize("prefix, factor, base", PREFIXED, ids=[p + b.symbol for p, _, b in PREFIXED])
def test_every_prefix_on_every_base_parses_converts_and_refuses_other_dimensions(prefix, factor, base):
    unit, plain = units.parse(prefix + base.symbol), units.parse(base.symbol)
    assert unit.dimension == units.Dimension.of(**base.dimension) == plain.dimension
    assert unit.scale == pytest.approx(factor * base.scale)
    assert units.convert(3, unit, plain) == pytest.approx(3 * factor)
    assert units.convert(3 * factor, plain, unit) == pytest.approx(3)
    rate = units.parse(f"{prefix}{base.symbol}/s")
    assert rate.dimension == plain.dimension / units.Dimension.of(seconds=1)
    first = next(iter(base.dimension))
    for other in ("×", OTHER.get(first, "tokens"), f"{prefix}{base.symbol}/token"):
        with pytest.raises(units.UnitError, match="^cannot compare "):
            units.convert(1, unit, units.parse(other))


@pytest.mark.parametrize(
    "text, same, factor, different",
    [
        ("TFLOP/s", "GFLOP/s", 1000, "TB/s"),
        ("TFLOPS", "TFLOP/s", 1, "TFLOP"),
        ("W", "J/s", 1, "J"),
        ("kW", "W", 1000, "GHz"),
        ("GHz", "1/s", 1e9, "s"),
        ("GHz", "MHz", 1000, "cycles/s"),
        ("cycles", "Mcycles", 1e-6, "instructions"),
        ("Gcycles/s", "cycles/s", 1e9, "GHz"),
        ("J/token", "mJ/token", 1000, "J/image"),
        ("images/s", "images/min", 60, "tokens/s"),
        ("USD/million tokens", "USD/token", 1e-6, "EUR/million tokens"),
        ("$", "USD", 1, "€"),
        ("Gbit/s", "GB/s", 1 / 8, "Gcycles/s"),
        ("pJ", "nJ", 1e-3, "pW"),
    ],
)
def test_units_of_any_performance_field_convert_within_a_dimension_and_refuse_across(text, same, factor, different):
    assert units.convert(1, units.parse(text), units.parse(same)) == pytest.approx(factor)
    with pytest.raises(units.UnitError, match=f"cannot compare .* \\({different!r}\\)"):
        units.convert(1, units.parse(text), units.parse(different))


def test_every_currency_is_its_own_dimension_and_none_converts_into_another():
    dimensions = {units.parse(code).dimension for code in CURRENCIES}
    assert len(dimensions) == len(CURRENCIES) > 150
    assert units.parse("EUR").describe() == "an amount in EUR"
    assert units.convert(2, units.parse("thousand USD"), units.parse("USD")) == 2000
    with pytest.raises(units.UnitError, match=r"cannot compare an amount in USD \('\$'\) with an amount in JPY"):
        units.convert(1, units.parse("$"), units.parse("JPY"))


def test_temperatures_parse_and_show_but_never_convert():
    assert values.show(71.5, units.parse("°C")) == "71.5 °C"
    assert units.convert(71.5, units.parse("°C"), units.parse("degC")) == 71.5  # one scale, two spellings
    with pytest.raises(units.UnitError, match="with a temperature in K .*; temperatures never convert$"):
        units.convert(300, units.parse("°C"), units.parse("K"))
    for text in ("mK", "million °C", "k°C"):  # no prefixes, no scale words: nothing multiplies a temperature
        with pytest.raises(units.UnitError, match="unknown unit"):
            units.parse(text)


@pytest.mark.parametrize(
    "text, near",
    [("gflop/s", "GFLOP/s"), ("ghz", "GHz"), ("Watts", "watts"), ("eur", "EUR"), ("kw", "kW"), ("tokns", "tokens")],
)
def test_the_nearest_unit_is_suggested_for_the_new_units_too(text, near):
    with pytest.raises(units.UnitError, match=f"did you mean {near!r}"):
        units.parse(text)


DECLARED = {
    "prompts": {"dimension": "prompts"},
    "prompt": {"dimension": "prompts"},
    "kWh": {"dimension": "J", "scale": 3600000},
    "px": {"dimension": "px", "prefixes": "si"},
    "page": {"dimension": "KiB", "scale": 4},
}


def test_a_project_declares_counted_things_and_units_that_convert_and_refuse_like_built_in_ones():
    table = ownunits.read(DECLARED.items())
    parse = functools.partial(units.parse, table=table)
    assert parse("prompts/s").dimension == units.Dimension.of(prompts=1, seconds=-1)
    assert parse("prompt").describe() == "a count of prompts"
    assert units.convert(2, parse("kWh"), parse("MJ")) == pytest.approx(7.2)
    assert units.convert(1, parse("kWh/prompt"), parse("J/prompt")) == 3.6e6
    assert units.convert(3, parse("Mpx/s"), parse("px/s")) == 3e6
    assert units.convert(1, parse("page"), parse("B")) == 4096
    assert units.convert(1, parse("USD/million prompts"), parse("USD/prompt")) == pytest.approx(1e-6)
    for first, second in (("prompts", "tokens"), ("kWh", "kW"), ("Mpx", "prompts"), ("J/prompt", "J/token")):
        with pytest.raises(units.UnitError, match="cannot compare"):
            units.convert(1, parse(first), parse(second))
    with pytest.raises(units.UnitError, match="unknown unit 'prompts'"):
        units.parse("prompts")  # only the project that declares it knows it
    assert ownunits.shown(table) == (
        "prompts (a count of prompts); prompt = 1 prompts; kWh = 3.6e+06 J; px (a count of px, SI prefixes); page = 4096 B"
    )


@pytest.mark.parametrize(
    "entries, message",
    [
        ({"kW": {"dimension": "W"}}, "kW: 'kW' is already a unit"),
        ({"p": {"dimension": "p"}, "x": {"dimension": "p", "prefixes": "si"}}, "x: 'x' is already a unit"),
        ({"in": {"dimension": "in", "prefixes": "si"}}, "in: 'min' is already a unit"),
        ({"tile": {"dimension": "tokns"}}, "tile: dimension: unknown unit 'tokns'; did you mean 'tokens'?"),
        ({"tile": {"dimension": "J", "scale": 0}}, "tile: `scale` must be above 0, got 0"),
        (
            {"tile": {"dimension": "J", "scale": float("inf")}},
            "tile: `scale` is out of range (too large to hold): a unit's scale is from 1e-100 to 1e+100",
        ),
        (
            {"tile": {"dimension": "J", "scale": 1e200}},
            "tile: `scale` is out of range (1e+200): a unit's scale is from 1e-100 to 1e+100",
        ),
        ({"tile": {"dimension": "J", "scale": True}}, "tile: `scale` must be a number, got True"),
        ({"tile": {"dimension": "J", "unit": "x"}}, "tile: unknown key 'unit'; keys are: dimension, scale, prefixes"),
        ({"tile": {"dimension": "J", "prefixes": "binary"}}, "tile: `prefixes` can only be si, got binary"),
        ({"tile": "J"}, "tile: must be a mapping with `dimension`"),
        ({"tile": {"dimension": 3}}, "tile: `dimension` must be a unit"),
        ({"a/b": {"dimension": "J"}}, "a/b: a unit's name is up to 40 characters, without spaces or '/'"),
        ({"two words": {"dimension": "J"}}, "two words: a unit's name is up to 40 characters"),
        ({"mdeg": {"dimension": "°C", "scale": 0.001}}, "mdeg: temperatures never convert"),
        ({f"u{i}": {"dimension": "J"} for i in range(201)}, "201 entries: at most 200 units may be declared"),
    ],
)
def test_a_bad_declaration_names_its_entry_and_what_is_wrong(entries, message):
    with pytest.raises(ownunits.DeclarationError) as caught:
        ownunits.read(entries.items())
    assert str(caught.value).startswith(message)


UNITS_POLICY = """
site_name: t
plugins:
  - ledger:
      units:
        prompts: {dimension: prompts}
        prompt: {dimension: prompts}
        kWh: {dimension: J, scale: 3600000}
"""
PROMPTS = """
claims:
  - id: energy-per-prompt
    statement: energy per prompt at batch 1
    kind: measured
    value: 7200000
    unit: J/prompt
    evidence: {run: RUN, file: results.csv, where: {batch: 1}, column: joules_per_prompt}
  - id: energy-kwh
    statement: a write-up's energy per prompt
    kind: borrowed
    value: 2
    unit: kWh/prompt
    source: {title: a write-up}
    checked_by: [energy-per-prompt]
  - id: prompt-rate
    statement: prompts per second at batch 1
    kind: extrapolated
    formula: watts / energy
    inputs: {watts: power, energy: energy-per-prompt}
    value: 0.0001
    unit: prompts/s
  - id: power
    statement: the draw at batch 1
    kind: measured
    value: 720
    unit: W
    evidence: {run: RUN, file: results.csv, where: {batch: 1}, column: watts}
"""


def test_a_declared_unit_converts_in_checks_and_formulas_through_ledger_check(tmp_path):
    run = a_run(tmp_path, [{"batch": 1, "joules_per_prompt": 7200000, "watts": 720}])
    write_tree(tmp_path, {"mkdocs.yml": UNITS_POLICY, "claims/energy.yaml": PROMPTS.replace("RUN", run)})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "0 failures" in result.output
    contradicted = PROMPTS.replace("RUN", run).replace("    value: 2\n", "    value: 3\n")
    write_tree(tmp_path, {"claims/energy.yaml": contradicted})
    result = run_ledger("check", cwd=tmp_path)
    assert "energy-kwh: contradicted: stated 3 kWh/prompt, but energy-per-prompt gives 2 kWh/prompt" in result.output


def test_a_declared_unit_refuses_another_dimension_in_checks_and_formulas(tmp_path):
    run = a_run(tmp_path, [{"batch": 1, "joules_per_prompt": 7200000, "watts": 720}])
    claims = PROMPTS.replace("RUN", run).replace("unit: kWh/prompt", "unit: kWh/token")
    claims = claims.replace("unit: prompts/s", "unit: tokens/s")
    write_tree(tmp_path, {"mkdocs.yml": UNITS_POLICY, "claims/energy.yaml": claims})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "claims/energy.yaml:14: energy-kwh: invalid: checked_by energy-per-prompt in the plain form compares "
        "energy-per-prompt's value, joules per prompt (J/prompt), with this claim's, joules per token (kWh/token): "
        "its value cannot enter"
    ) in result.output
    assert (
        "claims/energy.yaml:21: prompt-rate: invalid: formula watts / energy gives prompts per second, but the "
        "claim's unit 'tokens/s' is tokens per second\n"
        "  fix: state the claim in prompts per second (e.g. `unit: 'prompts/s'`: the result is converted to the "
        "claim's unit), or correct the formula\n"
    ) in result.output


def test_a_bad_units_entry_is_invalid_at_its_own_line_in_mkdocs_yml(tmp_path):
    policy = UNITS_POLICY.replace("        kWh: {dimension: J, scale: 3600000}\n", "        kW: {dimension: J}\n")
    write_tree(tmp_path, {"mkdocs.yml": policy, "claims/a.yaml": "claims: []\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "mkdocs.yml:7: invalid: ledger option units: kW: 'kW' is already a unit\n  fix: choose another spelling\n"
    ) in result.output


def test_a_claim_in_an_undeclared_unit_says_where_to_declare_it(tmp_path):
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    value: 1\n    unit: zorps\n    source: {title: x}\n"
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert (
        "claims/a.yaml:5: a: invalid: unknown unit 'zorps'; did you mean 'ops'?\n"
        '  fix: write `unit: "ops"` and put any qualifier in the statement, or declare `zorps` under `units:` in '
        "mkdocs.yml\n"
    ) in result.output


@pytest.mark.parametrize(
    "text, same, factor",
    [
        ("Mtok", "tokens", 1e6), ("ktok/s", "tok/s", 1e3), ("Mtokens/s", "tokens/s", 1e6),
        ("krequests/s", "requests/s", 1e3), ("Gops", "operations", 1e9), ("tokens/s/W", "tokens/J", 1.0),
        ("Mtok/s/W", "tok/J", 1e6), ("GB/s/W", "bytes/J", 1e9),
    ],
)  # fmt: skip
def test_units_people_type_parse_prefixed_counts_and_rates_per_watt(text, same, factor):
    """Counts take k, M, G, T (a thousand requests; no thousandth of a token); a/b/c reads left to right."""
    assert units.convert(1.0, units.parse(text), units.parse(same)) == pytest.approx(factor)


@pytest.mark.parametrize("text", ["mtok", "µtokens", "tokens/s/", "a/b/c"])
def test_no_fraction_of_a_count_and_no_empty_part_is_a_unit(text):
    with pytest.raises(units.UnitError):
        units.parse(text)


def test_a_project_that_declared_mtok_before_the_table_had_it_keeps_working_and_a_clash_is_still_refused():
    table = ownunits.read({"Mtok": {"dimension": "tokens", "scale": 1000000}}.items())
    assert units.convert(2.0, units.parse("Mtok", table), units.parse("tokens")) == pytest.approx(2e6)
    with pytest.raises(ownunits.DeclarationError, match="'Mtok' reads as 'M' on 'tok'"):
        ownunits.read({"Mtok": {"dimension": "tokens", "scale": 1000}}.items())


def test_a_check_across_currencies_names_each_amount_once_in_a_sentence(tmp_path):
    """'compares an amount in USD (USD) with this claim's an amount in EUR' said each unit twice and lost a
    word: each claim's quantity is said once, with whose value it is."""
    from generator.runs import Column

    run = a_run(
        tmp_path,
        [{"batch": 1, "cost": 3.5}],
        probe="price",
        columns={"batch": Column("", "exact"), "cost": Column("USD", "exact")},
    )
    claims = (
        "claims:\n  - id: cost-usd\n    kind: measured\n    value: 3.5\n    unit: USD\n"
        f"    evidence: {{run: {run}, file: results.csv, where: {{batch: 1}}, column: cost}}\n"
        "  - id: cost-eur\n    kind: borrowed\n    value: 3.2\n    unit: EUR\n    source: {title: t}\n"
        "    checked_by: [cost-usd]\n"
    )
    write_tree(tmp_path, {"claims/c.yaml": claims})
    result = run_ledger("check", cwd=tmp_path)
    assert (
        "claims/c.yaml:12: cost-eur: invalid: checked_by cost-usd in the plain form compares cost-usd's value, an "
        "amount in USD, with this claim's, an amount in EUR: its value cannot enter\n"
    ) in result.output, result.output
