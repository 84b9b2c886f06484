"""The formula evaluator: arithmetic over named inputs, nothing else, never executed."""

import math

import pytest
from helpers import REPO  # noqa: F401  (puts the repository on sys.path)

from generator.lang import units
from generator.lang.formula import (
    PLAIN,
    FormulaError,
    Scales,
    canonical,
    dimension,
    evaluate,
    evaluate_interval,
    names,
    use,
)


@pytest.mark.parametrize(
    "text, values, expected",
    [
        ("byte_ratio * bandwidth_ratio", {"byte_ratio": 1.3, "bandwidth_ratio": 2.75}, 3.575),
        ("1000 / tok_per_s", {"tok_per_s": 65.7}, 1000 / 65.7),
        ("n * (1 - (1 - k / n) ** b)", {"n": 256, "k": 8, "b": 16}, 256 * (1 - (1 - 8 / 256) ** 16)),
        ("min(a, b) + max(a, b)", {"a": 2, "b": 5}, 7),
        ("-a + +b", {"a": 2, "b": 5}, 3),
        ("a × b ÷ c − 1", {"a": 6, "b": 2, "c": 4}, 2),
        ("2.5e3", {}, 2500),
    ],
)
def test_formula_evaluates_arithmetic(text, values, expected):
    assert evaluate(text, values) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text, message",
    [
        ("open('x')", "calls are not allowed (open)"),
        ("__import__('os').system('true')", "calls are not allowed (__import__('os').system)"),
        ("a.real", "attribute access is not allowed (a.real)"),
        ("a[0]", "indexing is not allowed (a[0])"),
        ("a if b else c", "conditional expressions are not allowed (a if b else c)"),
        ("a < b", "comparisons are not allowed (a < b)"),
        ("'text'", "only numbers are allowed as constants, found 'text'"),
        ("True", "only numbers are allowed as constants, found True"),
        ("a % b", "operator % is not allowed"),
        ("a // b", "operator // is not allowed"),
        ("(lambda: 1)()", "calls are not allowed (lambda: 1)"),
        ("min(a, key=b)", "calls are not allowed (min)"),
        ("[a, b]", "List is not arithmetic ([a, b])"),
        ("a +", "not arithmetic: invalid syntax"),
        ("", "empty formula"),
        ("a" * 501, "formula is 501 characters long; at most 500"),
    ],
)
def test_formula_rejects_anything_but_arithmetic(text, message):
    with pytest.raises(FormulaError) as error:
        evaluate(text, {"a": 1.0, "b": 2.0, "c": 3.0})
    assert str(error.value) == message


@pytest.mark.parametrize(
    "text, values, message",
    [
        ("a / b", {"a": 1, "b": 0}, "division by zero"),
        ("10.0 ** 400", {}, "result too large"),
        ("a ** 0.5", {"a": -8}, "result is not a finite real number ((1.7319121124709868e-16+2.8284271247461903j))"),
        ("a * b", {"a": 1}, "unknown name 'b'"),
    ],
)
def test_formula_reports_evaluation_problems(text, values, message):
    with pytest.raises(FormulaError) as error:
        evaluate(text, values)
    assert str(error.value) == message


def test_formula_names_lists_inputs_but_not_functions():
    assert names("min(a, b) * c ** 2") == {"a", "b", "c"}


def test_formula_at_the_length_limit_evaluates_without_crashing():
    assert evaluate("-" * 499 + "1", {}) == -1.0
    with pytest.raises(FormulaError, match="not arithmetic"):
        evaluate("(" * 250 + "1" + ")" * 249, {})


@pytest.mark.parametrize(
    "text, message",
    [
        ("ｍａｘ(a, b)", "'ｍ' (U+FF4D) is not plain ASCII; write 'max(a, b)'"),
        ("a + ｂ", "'ｂ' (U+FF42) is not plain ASCII; write 'a + b'"),
        ("a + а", "'а' (U+0430) is not plain ASCII; write names and numbers in plain ASCII"),
        ("a\u00a0* b", "'\\xa0' (U+00A0) is not plain ASCII; write 'a * b'"),
        ("max(a)", "max() needs at least two arguments (max(a))"),
        ("min((a))", "min() needs at least two arguments (min(a))"),
        ("max(*[a, b])", "max() needs at least two arguments (max(*[a, b]))"),
    ],
)
def test_a_formula_is_plain_ascii_and_min_max_take_two_arguments(text, message):
    with pytest.raises(FormulaError) as error:
        evaluate(text, {"a": 1.0, "b": 2.0})
    assert str(error.value) == message


def test_the_typographic_operators_are_still_allowed():
    assert evaluate("a × b ÷ c − 1 · 1", {"a": 6, "b": 2, "c": 4}) == 2


TOK_S, MS, BYTES, TOKENS = (units.parse(u).dimension for u in ("tok/s", "ms", "B", "tokens"))


@pytest.mark.parametrize(
    "text, inputs, expected",
    [
        ("1000 / tok_s", {"tok_s": TOK_S}, "seconds/tokens"),
        ("b / t", {"b": BYTES, "t": TOKENS}, "bytes/tokens"),
        ("b / t * tok_s", {"b": BYTES, "t": TOKENS, "tok_s": TOK_S}, "bytes/seconds"),
        ("a / b", {"a": TOKENS, "b": TOKENS}, ""),
        ("2 * a + 3 * a", {"a": MS}, "seconds"),
        ("min(a, b)", {"a": MS, "b": MS}, "seconds"),
        ("b ** 2", {"b": BYTES}, "bytes^2"),
        ("b ** 0.5", {"b": BYTES}, "bytes^1/2"),
        ("(b / b) ** x", {"b": BYTES, "x": TOKENS / TOKENS}, ""),
        ("-a", {"a": MS}, "seconds"),
        ("3.5", {}, ""),
    ],
)
def test_a_formula_has_the_dimension_its_inputs_give_it(text, inputs, expected):
    assert str(dimension(text, inputs)) == expected


@pytest.mark.parametrize(
    "text, inputs, message",
    [
        ("a + b", {"a": MS, "b": BYTES}, "a + b adds seconds and bytes"),
        ("a - 1", {"a": MS}, "a - 1 adds seconds and a plain ratio"),
        ("max(a, b)", {"a": MS, "b": TOKENS}, "max(a, b) compares seconds and a count of tokens"),
        ("b ** a", {"a": MS, "b": BYTES}, "an exponent must be a plain number, found seconds (b ** a)"),
        ("b ** x", {"x": TOKENS / TOKENS, "b": BYTES}, "b ** x raises bytes to a power that depends on an input"),
        ("b ** 1e999", {"b": BYTES}, "the exponent of b ** 1e309 is not a finite number"),
        ("b ** (1e999 - 1e999)", {"b": BYTES}, "the exponent of b ** (1e309 - 1e309) is not a finite number"),
        ("b ** (0 ** -1)", {"b": BYTES}, "the exponent of b ** 0 ** (-1) is not a real number"),
        ("b ** ((-8) ** 0.5)", {"b": BYTES}, "the exponent of b ** (-8) ** 0.5 is not a finite number"),
    ],
)
def test_quantities_of_different_dimensions_do_not_add_or_compare(text, inputs, message):
    with pytest.raises(FormulaError) as error:
        dimension(text, inputs)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "text, values, unused",
    [
        ("a * b", {"a": 2, "b": 3}, []),
        ("a - a + b", {"a": 2, "b": 3}, ["a"]),
        ("a * 0 + b", {"a": 2, "b": 3}, ["a"]),
        ("(a / a) * b", {"a": 2, "b": 3}, ["a"]),
        ("a + b - b", {"a": 2, "b": 3}, ["b"]),
        ("min(a, b)", {"a": 2, "b": 3}, []),  # min and max are not flagged: scaled, the other one takes over
        ("max(a, b)", {"a": 2, "b": 3.5}, []),
        ("max(a, b)", {"a": 2, "b": 15}, ["a"]),  # more than twice smaller: ×2 never reaches it
        ("a + b", {"a": 0, "b": 3}, []),  # an input of 0 is perturbed to 0.5 and 2
        ("a * b", {"a": 0, "b": 3}, ["b"]),  # multiplied by an input of exactly 0, b does not move it
        ("1 / (a - 1)", {"a": 2}, []),  # ×2 moves it (×0.5 cannot be evaluated: fragile-formula, never use)
    ],
)
def test_an_input_that_no_perturbation_moves_is_unused(text, values, unused):
    assert use(text, values).unused == tuple(unused)


@pytest.mark.parametrize(
    "text, values, allowed, unused",
    [
        ("a ** 0.0001 * b", {"a": 2, "b": 999}, 0.5, ["a"]),  # x2 moves it by 0.07: inside ±0.5, any a passes
        ("a ** 0.0001 * b", {"a": 2, "b": 999}, 0.0, []),
        ("a + b", {"a": 1000, "b": 0.01}, 0.5, ["b"]),
        ("a + b", {"a": 1000, "b": 0.01}, 0.005, []),
    ],
)
def test_an_input_must_move_the_result_beyond_the_claims_tolerance(text, values, allowed, unused):
    assert use(text, values, allowed).unused == tuple(unused)


# -- unused-input is a property of the formula's value: formulas generated to depend on every input, or to
#    flatten, clamp or cancel one of them (or to bind one claim to two names) --------------------------------


def _dependent(rng, names: list[str], values: dict[str, float]) -> str:
    """A formula that moves with every input: a sum of positive monomials, each input in at least one, with
    one sign of exponent per input (so a larger input moves every monomial it is in the same way); some
    monomials wrapped in min or max of two arguments of about one size (a perturbation crosses them)."""
    sign = {name: rng.choice((-1, 1)) for name in names}
    terms = []
    for group in [names[i:] + names[:i] for i in range(rng.randint(1, len(names)))]:
        chosen = group[: rng.randint(1, len(group))]
        powers = " * ".join(f"{name} ** {sign[name] * rng.choice((0.5, 1, 1.5, 2))}" for name in chosen)
        terms.append(f"{rng.uniform(0.5, 2):.3f} * {powers}")
    missing = [name for name in names if not any(name in term for term in terms)]
    terms += [f"{name} ** {sign[name]}" for name in missing]
    if rng.random() < 0.5:
        first = terms.pop()
        other = f"{rng.uniform(0.7, 1.4):.3f} * ({first})"
        terms.append(f"{rng.choice(('min', 'max'))}({first}, {other})")
    return " + ".join(terms)


def _losing(rng, name: str, rest: str, value: float) -> str:
    """A formula in which `name` never moves the result: flattened, clamped or cancelled."""
    ways = [
        f"({rest}) * {name} ** 1e-12",  # flattened: x10 moves it by 3e-12 of itself
        f"({rest}) + 1e-15 * {name}",
        f"({rest}) * max({name}, {value * 1000:.6g}) / {value * 1000:.6g}",  # clamped above x10
        f"({rest}) + min({name}, {value / 1000:.6g})",  # clamped below x0.1: a constant summand
        f"({rest}) + {name} - {name}",  # cancelled
        f"({rest}) * ({name} / {name})",
        f"({rest}) + 0 * {name}",
        f"(({rest}) + {name}) - {name}",
    ]
    return rng.choice(ways)


def _case(seed: int) -> tuple[str, dict[str, float]]:
    import random

    rng = random.Random(seed)
    names = ["a", "b", "c"][: rng.randint(1, 3)]
    values = {name: round(rng.uniform(0.5, 5.0), 3) for name in names}
    return _dependent(rng, names, values), values


@pytest.mark.parametrize("seed", range(300))
def test_a_generated_formula_that_depends_on_every_input_uses_them_all(seed):
    text, values = _case(seed)
    allowed = 1e-6 * abs(evaluate(text, values))  # a tolerance far below any input's share of the result
    assert use(text, values, allowed).unused == (), text


@pytest.mark.parametrize("seed", range(300))
def test_a_generated_formula_that_flattens_clamps_or_cancels_an_input_names_it(seed):
    import random

    text, values = _case(seed)
    rng = random.Random(seed + 10_000)
    values["lost"] = round(rng.uniform(0.5, 5.0), 3)
    losing = _losing(rng, "lost", text, values["lost"])
    allowed = 1e-6 * abs(evaluate(losing, values))
    assert use(losing, values, allowed).unused == ("lost",), losing


@pytest.mark.parametrize("seed", range(100))
def test_one_claim_under_two_names_is_perturbed_as_one_and_counted_once(seed):
    text, values = _case(seed)
    values |= {"x": 3.0, "y": 3.0}  # two names of one claim
    groups = {name: (name,) for name in values if name not in "xy"} | {"one-claim": ("x", "y")}
    cancelling = f"({text}) * x / y"  # each name alone moves it; the claim never does
    assert use(cancelling, values, 1e-9, groups=groups).unused == ("one-claim",)
    assert use(cancelling, values, 1e-9).unused == ()  # perturbing names, not claims, misses it
    assert use(f"({text}) * x * y", values, 1e-9, groups=groups).unused == ()


@pytest.mark.parametrize(
    "text, values, scales, expected",
    [
        ("1 - a / b", {"a": 0.888, "b": 1.0}, Scales(result=0.01), 11.2),  # a fraction stated in %: 11.2 %
        ("1 / r", {"r": 50.0}, Scales(result=0.001), 20.0),  # 50 tok/s in ms/token
        ("a + b", {"a": 5.0, "b": 1.0}, Scales((("a", 0.001),), 0.001), 1005.0),  # 5 ms + 1 s in ms
        ("a / b", {"a": 1.0, "b": 1.0}, Scales((("a", 2.0**30), ("b", 1e9))), 1.073741824),  # GiB / GB
        ("a * b", {"a": 2.0, "b": 3.0}, PLAIN, 6.0),
    ],
)
def test_a_formula_is_evaluated_on_quantities_and_stated_in_the_claims_unit(text, values, scales, expected):
    assert evaluate(text, values, scales) == pytest.approx(expected, rel=1e-12)
    low, high = evaluate_interval(text, {name: (v, v) for name, v in values.items()}, scales)
    assert low == pytest.approx(expected, rel=1e-12) and high == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "one, other, alike",
    [
        ("2 * a", "a * 2", True),
        ("a + b * c", "c * b + a", True),
        ("2 * a", "2 × a", True),  # the typographic sign reads as the plain one
        ("a - b", "b - a", False),
        ("a / b", "b / a", False),
        ("(a + b) + c", "a + (b + c)", False),  # regrouped: it can round differently
        ("(a * b) * c", "a * (b * c)", False),
        ("max(a, b)", "max(b, a)", False),  # max of a NaN depends on the order
        ("2 * a", "2.0 * a", False),
    ],
)
def test_formulas_alike_but_for_a_sums_or_products_operand_order_have_one_canonical_text(one, other, alike):
    assert (canonical(one) == canonical(other)) is alike


@pytest.mark.parametrize(
    "spans",
    [
        {"a": (-1.0, -0.0), "b": (-1.0, 0.0)},  # min and max of corners ±0 took the first: -0.0 one way, 0.0 the other
        {"a": (-2.5, 3.0), "b": (0.1, 7.0)},
        {"a": (1e-300, 1e-300), "b": (1e-300, 2e-300)},
    ],
)
def test_an_interval_through_a_reordered_product_or_sum_is_the_same_bit_for_bit(spans):
    for one, other in (("a * b", "b * a"), ("a + b * 3", "3 * b + a")):
        low, high = evaluate_interval(one, spans)
        low_too, high_too = evaluate_interval(other, spans)
        assert (low, high) == (low_too, high_too)
        assert (math.copysign(1, low), math.copysign(1, high)) == (
            math.copysign(1, low_too),
            math.copysign(1, high_too),
        )


def test_an_interval_with_an_undefined_corner_is_an_error_not_a_bound():
    with pytest.raises(FormulaError, match="not a real number"):
        evaluate_interval("a * 1e308 * 10 * b", {"a": (1.0, 1.0), "b": (0.0, 1.0)})  # inf × 0
