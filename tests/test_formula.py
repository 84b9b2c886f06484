"""The formula evaluator: arithmetic over named inputs, nothing else, never executed."""

import pytest
from helpers import REPO  # noqa: F401  (puts the repository on sys.path)

from generator.formula import FormulaError, evaluate, names


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
