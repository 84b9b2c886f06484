"""unused-input is not defeated by errors or by weak dependence (issue 46, class 2): an input counts only if
moving it ×0.5 or ×2 moves the result beyond the loosest tolerance judging it (the checks the formula's claim
could agree in, else its own); an error or an overflow under a perturbation is a finding of its own
(fragile-formula), never dependence. Formulas are generated: ones that clamp, flatten, cancel, weakly use,
overflow on or break on an input, and ones that depend on every input."""

from __future__ import annotations

import random
import re

import pytest
from helpers import MEASURED, ledger

from generator.lang import formula
from generator.lang.formula import evaluate

TOLERANCE = 0.10  # a borrowed claim's check tolerance (the policy's default): the share a move must pass
FAMILIES = ("clamp", "flatten", "cancel", "weak", "overflow", "breaks")


def _rest(rng: random.Random, names: list[str]) -> str:
    """A positive expression over the other inputs that moves with each of them (a product of powers)."""
    powers = " * ".join(f"{name} ** {rng.choice((-2, -1, -0.5, 0.5, 1, 1.5, 2))}" for name in names)
    return f"{rng.uniform(0.5, 3):.3f} * {powers}"


def losing(seed: int, lost: float | None = None) -> tuple[str, dict[str, float], str]:
    """(formula, values, family): `lost` (its value given, or drawn) never moves the result beyond 10% under ×0.5
    or ×2, in one of six ways."""
    rng = random.Random(seed)
    names = ["a", "b", "c"][: rng.randint(1, 3)]
    values = {name: round(rng.uniform(0.5, 5.0), 3) for name in [*names, "lost"]}
    values["lost"] = values["lost"] if lost is None else lost
    rest, v = _rest(rng, names), values["lost"]
    family = FAMILIES[seed % len(FAMILIES)]
    base = evaluate(rest, values)
    if family == "clamp":  # the other argument is more than twice as far: ×2 never reaches it
        far = v * rng.uniform(2.5, 1000)
        text = rng.choice(
            (f"({rest}) * max(lost, {far:.6g}) / {far:.6g}", f"({rest}) + min(lost, {v / rng.uniform(2.5, 1000):.6g})")
        )
    elif family == "flatten":
        text = rng.choice((f"({rest}) * lost ** {rng.uniform(1e-12, 1e-3):.3g}", f"({rest}) + 1e-9 * lost"))
    elif family == "cancel":
        text = rng.choice((f"({rest}) + lost - lost", f"({rest}) * (lost / lost)", f"(({rest}) + lost) - lost"))
    elif family == "weak":  # moves the result at ×10 (beyond 10%), never at ×2: a value of the author's choosing
        weight = rng.uniform(TOLERANCE / 9, TOLERANCE * 0.9) * base / v
        text = f"({rest}) + {weight:.6g} * lost"
    elif family == "overflow":  # 10 ** (lost · k) is finite at lost, beyond a float at 2 · lost
        text = f"({rest}) + 0 * 10 ** (lost * {rng.uniform(170, 300) / v:.6g})"
    else:  # a division by zero, or the root of a negative number, at ×0.5 or ×2
        text = rng.choice(
            (
                f"({rest}) + 0 / (lost - {2 * v!r})",
                f"({rest}) + 0 / ({v!r} - 2 * lost)",
                f"({rest}) + 0 * (lost - {0.75 * v!r}) ** 0.5",
            )
        )
    return text, values, family


def dependent(seed: int) -> tuple[str, dict[str, float]]:
    """A formula every input moves beyond 10% at ×0.5 or ×2: a product of powers of at least a half, a sum of
    terms each a third of the whole or more, or min/max of two such arguments close to each other."""
    rng = random.Random(seed)
    names = ["a", "b", "c", "d"][: rng.randint(1, 4)]
    values = {name: round(rng.uniform(0.2, 50.0), 3) for name in names}
    form = rng.choice(("product", "sum", "minmax"))
    if form == "product" or len(names) == 1:
        return _rest(rng, names), values
    if form == "sum":  # each term scaled to about one share of the whole: ×2 moves the sum by a share of it
        return " + ".join(f"{rng.uniform(0.8, 1.2) / values[name]:.6g} * {name}" for name in names), values
    first, rest = names[0], _rest(rng, names[1:])  # a product of powers of a half or more of the others
    scale = values[first] * rng.uniform(0.9, 1.1) / evaluate(rest, values)  # about the first's size: both matter
    return f"{rng.choice(('min', 'max'))}({first}, {scale:.6g} * {rest})", values


@pytest.mark.parametrize("seed", range(240))
def test_a_generated_formula_that_loses_an_input_names_it_and_an_error_is_never_dependence(seed):
    text, values, family = losing(seed)
    allowed = TOLERANCE * abs(evaluate(text, values))
    found = formula.use(text, values, allowed)
    assert found.unused == ("lost",), (family, text, found)
    broken = [key for key, _, _ in found.breaks]
    assert broken == (["lost"] if family in ("overflow", "breaks") else []), (family, text, found)


@pytest.mark.parametrize("seed", range(200))
def test_a_generated_formula_that_depends_on_every_input_uses_them_all_beyond_ten_percent(seed):
    text, values = dependent(seed)
    allowed = TOLERANCE * abs(evaluate(text, values))
    found = formula.use(text, values, allowed)
    assert found.unused == () and found.breaks == (), (text, found)


def test_an_input_that_moves_only_at_ten_times_or_by_less_than_the_checks_tolerance_is_unused():
    values = {"m": 3.6}
    assert formula.use("3 + 0.02 * m", values, 0.3).unused == ("m",)  # ×2 moves it by 0.072; ×10 would by 0.65
    assert formula.use("3 + 0.02 * m", values, 0.005).unused == ()  # its own precision: it moves it
    assert formula.use("max(m, 8)", values, 0.0).unused == ("m",)  # ×2 stops at 7.2: the clamp at 8 never lets go


# -- through the command line: a formula that checks a borrowed claim --------------------------------------


def attack(seed: int) -> tuple[str, str]:
    """(a formula over the measured `s` (3.6×), its family): generated as above, `s` the input it loses and the
    other inputs written as the numbers they were."""
    text, values, family = losing(seed, lost=3.6)
    text = re.sub(r"\b[abc]\b", lambda name: repr(values[name[0]]), text)
    return text.replace("lost", "s"), family


def claims(text: str) -> str:
    value = evaluate(text, {"s": 3.6})
    return MEASURED + (
        f"  - id: derived\n    kind: extrapolated\n    formula: {text}\n    inputs: {{s: moe-speedup-b16}}\n"
        f"    value: {value!r}\n    unit: '×'\n"
        f"  - id: chosen\n    kind: borrowed\n    value: {value:.4g}\n    unit: '×'\n"
        "    source: {title: the author's choice}\n    checked_by: [derived]\n"
    )


@pytest.mark.parametrize("seed", range(6, 12))
def test_a_formula_that_carries_a_chosen_value_as_agreeing_fails_at_its_formula_line(tmp_path, seed):
    text, family = attack(seed)
    result = ledger(tmp_path, claims(text))
    assert result.exit_code == 1 and not result.errors, result.output
    line = 1 + (tmp_path / "claims/moe.yaml").read_text().splitlines().index(f"    formula: {text}")
    rule = "fragile-formula" if family in ("overflow", "breaks") else "unused-input"
    assert f"claims/moe.yaml:{line}: derived: {rule}: " in result.output, (text, result.output)
    if rule == "unused-input":
        assert "stays within the tolerance of its check of chosen (±" in result.output, result.output
    else:
        assert "cannot be evaluated when input s (moe-speedup-b16) is multiplied by" in result.output
    assert "chosen: only-borrowed: borrowed, and no check here agrees with its value" in result.output


def test_the_claims_own_tolerance_judges_a_formula_that_checks_nothing(tmp_path):
    alone = claims("3 + 0.02 * s").split("  - id: chosen")[0]
    assert ledger(tmp_path, alone).exit_code == 0  # ×2 moves it by 0.072, beyond its own precision
    result = ledger(tmp_path, claims("3 + 0.02 * s"))  # within the 10% its check of `chosen` allows
    assert result.exit_code == 1 and "derived: unused-input: input s (moe-speedup-b16)" in result.output
