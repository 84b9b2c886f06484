"""Formulas: parse and evaluate arithmetic over named inputs. Pure; never executes anything.

Allowed: numbers, input names (ASCII), + - * / ** (and the typographic − × ÷), parentheses, and
min(...) and max(...) of two or more arguments. Everything else (calls, attributes, indexing,
comparisons, strings, look-alike letters, ...) is rejected with a FormulaError that says what was
found. A formula also has a dimension, computed from its inputs' (numbers are dimensionless), and an
input that no perturbation moves the result of is reported (use).

A formula is evaluated on quantities (Scales): each input's number times its unit's scale, so the
arithmetic runs in the base units of each dimension, and the result divided by the scale of the
claim's unit. `1 - a / b` stated in % is then 11.2 (%), not 0.112; numbers in a formula are plain
numbers, never conversion factors. PLAIN (every scale 1) evaluates the numbers as they are.

evaluate_interval() carries intervals through the same tree (interval arithmetic): the result holds
every value the formula takes when each input lies anywhere in its interval. Division by an interval
that contains 0 is unbounded, and so a FormulaError; an even power of an interval around 0 starts at 0.
"""

from __future__ import annotations

import ast
import functools
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .units import DIMENSIONLESS, Dimension

MAX_LENGTH = 500
_TYPOGRAPHIC = str.maketrans({"−": "-", "×": "*", "÷": "/", "·": "*"})
_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: a}
Span = tuple[float, float]  # (low, high), low <= high
_FUNCTIONS = {"min": min, "max": max}
_DESCRIBE = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "indexing is not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "boolean operators are not allowed",
    ast.IfExp: "conditional expressions are not allowed",
    ast.Lambda: "lambdas are not allowed",
    ast.Starred: "unpacking is not allowed",
    ast.JoinedStr: "strings are not allowed",
}


class FormulaError(ValueError):
    """A formula that is not plain arithmetic over its inputs, or that cannot be evaluated."""


def parse(text: str) -> ast.Expression:
    """Parse a formula and check that it only uses allowed syntax; returns the checked tree."""
    if not isinstance(text, str):
        raise FormulaError("empty formula")
    return _parsed(text)


@functools.lru_cache(maxsize=1 << 14)  # validate, evaluate and the spread's corners parse the same text
def _parsed(text: str) -> ast.Expression:
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("empty formula")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula is {len(text)} characters long; at most {MAX_LENGTH}")
    plain = text.translate(_TYPOGRAPHIC).strip()
    _ascii_only(plain)
    try:
        tree = ast.parse(plain, mode="eval")
    except SyntaxError as error:
        raise FormulaError(f"not arithmetic: {error.msg}") from None
    except (RecursionError, MemoryError):
        raise FormulaError("formula is nested too deeply") from None
    _check(tree.body)
    return tree


def _ascii_only(text: str) -> None:
    """Python reads a full-width 'ｍａｘ' as 'max' (NFKC): a formula is ASCII, so it reads as it evaluates."""
    if text.isascii():
        return
    character = next(c for c in text if not c.isascii())
    plain = unicodedata.normalize("NFKC", text)
    hint = f"; write {plain!r}" if plain.isascii() else "; write names and numbers in plain ASCII"
    raise FormulaError(f"{character!r} (U+{ord(character):04X}) is not plain ASCII{hint}")


@functools.lru_cache(maxsize=1 << 12)  # a ledger writes a few formulas many times
def numbers(text: str) -> tuple[float, ...]:
    """The numbers written in a formula, in order ('100 * a / b' -> (100.0,))."""
    return tuple(
        float(node.value)
        for node in ast.walk(parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
    )


@functools.lru_cache(maxsize=1 << 12)  # validate asks of every formula; a ledger writes a few many times
def names(text: str) -> frozenset[str]:
    """The input names a formula uses."""
    return frozenset({node.id for node in ast.walk(parse(text)) if isinstance(node, ast.Name)} - set(_FUNCTIONS))


@functools.lru_cache(maxsize=1 << 12)
def canonical(text: str) -> str:
    """The formula with each sum's and product's two operands in one order: formulas alike but for that order
    ('2 * a', 'a * 2') give the same canonical text. IEEE 754 addition and multiplication are commutative,
    bit for bit, and so is every other step of evaluate(), evaluate_interval() and use() (_hull), so where one
    of them raises no error, the other gives the same numbers. Nothing else is reordered: (a + b) + c and
    a + (b + c) can round differently. A formula that does not parse is its own text."""
    try:
        return _canonical(parse(text).body)
    except FormulaError:
        return text


def _canonical(node: ast.AST) -> str:
    if isinstance(node, ast.BinOp):
        operands = [_canonical(node.left), _canonical(node.right)]
        if isinstance(node.op, (ast.Add, ast.Mult)):
            operands.sort()
        return f"{type(node.op).__name__}({operands[0]}, {operands[1]})"
    if isinstance(node, ast.UnaryOp):
        return f"{type(node.op).__name__}({_canonical(node.operand)})"
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)  # _check allowed only min and max
        return f"{node.func.id}({', '.join(_canonical(argument) for argument in node.args)})"
    return ast.dump(node)


@dataclass(frozen=True, slots=True)
class Scales:
    """How a formula's numbers are quantities: each input's unit scale (a value times it is in the base
    units of its dimension: 1 ms -> 0.001 s) and the scale of the claim's unit, which the result is divided by."""

    inputs: tuple[tuple[str, float], ...] = ()  # name -> its unit's scale; a name not here is scale 1
    result: float = 1.0

    def quantities(self, values: Mapping[str, float]) -> Mapping[str, float]:
        """The inputs in base units (values themselves when every scale is 1: exact, and free)."""
        if not self.inputs:
            return values
        scale = dict(self.inputs)
        return {name: value * scale.get(name, 1.0) for name, value in values.items()}

    def spans(self, intervals: Mapping[str, Span]) -> Mapping[str, Span]:
        if not self.inputs:
            return intervals
        scale = dict(self.inputs)
        return {
            name: (low * scale.get(name, 1.0), high * scale.get(name, 1.0)) for name, (low, high) in intervals.items()
        }


PLAIN = Scales()  # numbers as they are: every unit of scale 1


def evaluate(text: str, values: Mapping[str, float], scales: Scales = PLAIN) -> float:
    """Evaluate a formula on its inputs' values (each in its unit; `scales` makes them quantities and
    gives the result in the claim's unit); raises FormulaError on any problem."""
    tree = parse(text)
    try:
        result = _eval(tree.body, scales.quantities(values))
        if scales.result != 1.0:
            result = result / scales.result
    except ZeroDivisionError:
        raise FormulaError("division by zero") from None
    except OverflowError:
        raise FormulaError("result too large") from None
    except TypeError:  # min/max over a complex intermediate, e.g. (-8) ** 0.5
        raise FormulaError("result is not a real number") from None
    if isinstance(result, complex) or not math.isfinite(result):
        raise FormulaError(f"result is not a finite real number ({result})")
    return float(result)


def evaluate_interval(text: str, intervals: Mapping[str, Span], scales: Scales = PLAIN) -> Span:
    """The formula over intervals: (low, high) of every value it takes with each input in its interval.

    An input is given as (low, high); a point is (x, x). Raises FormulaError when the result is
    unbounded (division by an interval containing 0), not real, or not finite.
    """
    tree = parse(text)
    try:
        low, high = _span(tree.body, scales.spans(intervals))
        if scales.result != 1.0:  # a unit's scale is positive: the order stays
            low, high = low / scales.result, high / scales.result
    except OverflowError:
        raise FormulaError("result too large") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise FormulaError("the interval is not finite")
    return float(low), float(high)


def _span(node: ast.AST, intervals: Mapping[str, Span]) -> Span:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float))  # _check allowed only numbers
        return float(node.value), float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in intervals:
            raise FormulaError(f"unknown name {node.id!r}")
        low, high = intervals[node.id]
        return float(min(low, high)), float(max(low, high))
    if isinstance(node, ast.UnaryOp):
        low, high = _span(node.operand, intervals)
        return (-high, -low) if isinstance(node.op, ast.USub) else (low, high)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        spans = [_span(argument, intervals) for argument in node.args]
        pick = min if node.func.id == "min" else max
        return pick(s[0] for s in spans), pick(s[1] for s in spans)
    assert isinstance(node, ast.BinOp)
    (a, b), (c, d) = _span(node.left, intervals), _span(node.right, intervals)
    if isinstance(node.op, ast.Add):
        return a + c, b + d
    if isinstance(node.op, ast.Sub):
        return a - d, b - c
    if isinstance(node.op, ast.Mult):
        return _hull(a * c, a * d, b * c, b * d)
    if isinstance(node.op, ast.Div):
        if c <= 0 <= d:
            raise FormulaError("division by an interval that contains 0: the result is unbounded")
        return _hull(a / c, a / d, b / c, b / d)
    return _power((a, b), (c, d))


def _power(base: Span, exponent: Span) -> Span:
    (a, b), (c, d) = base, exponent
    if c == d and float(c).is_integer():
        p = int(c)
        if p == 0:
            return 1.0, 1.0
        if p < 0:
            if a <= 0 <= b:
                raise FormulaError("a negative power of an interval that contains 0 is unbounded")
            low, high = _power((a, b), (-p, -p))
            return 1 / high, 1 / low
        if p % 2 == 0 and a < 0 < b:  # an even power of an interval around 0 starts at 0
            return 0.0, max(a**p, b**p)
        return _hull(a**p, b**p)
    if a < 0:
        raise FormulaError("a fractional power of an interval with negative values is not a real number")
    if a == 0 and c <= 0:
        raise FormulaError("0 to a power that is not positive is unbounded")
    # x**y is monotone in x for each y and in y for each x > 0: the extremes lie at the corners.
    return _hull(*(x**y for x in (a, b) for y in (c, d)))


def _hull(*values: float) -> Span:
    """The least and greatest of the corners, whatever their order (a NaN corner bounds nothing: an error; a
    zero bound is +0.0), so `a * b` and `b * a` give the same interval, bit for bit (canonical())."""
    if any(isinstance(v, complex) or v != v for v in values):
        raise FormulaError("result is not a real number")
    return min(values) + 0.0, max(values) + 0.0


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise FormulaError(f"only numbers are allowed as constants, found {node.value!r}")
    elif isinstance(node, ast.Name):
        pass
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise FormulaError(f"operator {_op_symbol(node.op)} is not allowed")
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise FormulaError(f"operator {_op_symbol(node.op)} is not allowed")
        _check(node.operand)
    elif isinstance(node, ast.Call):
        function = node.func.id if isinstance(node.func, ast.Name) else None
        if function not in _FUNCTIONS or node.keywords or not node.args:
            raise FormulaError(f"calls are not allowed ({ast.unparse(node.func)})")
        if len(node.args) < 2:  # max(a) would iterate over a number: a crash, or a silent no-op
            raise FormulaError(f"{function}() needs at least two arguments ({ast.unparse(node)})")
        for argument in node.args:
            _check(argument)
    else:
        reason = _DESCRIBE.get(type(node), f"{type(node).__name__} is not arithmetic")
        raise FormulaError(f"{reason} ({ast.unparse(node)})")


def _eval(node: ast.AST, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float))  # _check allowed only numbers
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise FormulaError(f"unknown name {node.id!r}")
        return float(values[node.id])
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, values))
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    return _FUNCTIONS[node.func.id](*(_eval(argument, values) for argument in node.args))


def _op_symbol(op: ast.AST) -> str:
    symbols = {
        ast.Mod: "%",
        ast.FloorDiv: "//",
        ast.MatMult: "@",
        ast.BitAnd: "&",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.Invert: "~",
        ast.Not: "not",
    }
    return symbols.get(type(op), type(op).__name__)


# -- dimensions and use ----------------------------------------------------------------------------


def dimension(text: str, inputs: Mapping[str, Dimension]) -> Dimension:
    """The result's dimension from its inputs' (numbers are dimensionless); FormulaError says where they clash."""
    return _dimension_of(text, tuple(sorted(inputs.items())))


@functools.lru_cache(maxsize=1 << 12)  # a ledger repeats a few formulas over inputs in a few units
def _dimension_of(text: str, inputs: tuple[tuple[str, Dimension], ...]) -> Dimension:
    return _dimension(parse(text).body, dict(inputs))


def _dimension(node: ast.AST, inputs: Mapping[str, Dimension]) -> Dimension:
    if isinstance(node, ast.Constant):
        return DIMENSIONLESS
    if isinstance(node, ast.Name):
        if node.id not in inputs:
            raise FormulaError(f"unknown name {node.id!r}")
        return inputs[node.id]
    if isinstance(node, ast.UnaryOp):
        return _dimension(node.operand, inputs)
    if isinstance(node, ast.Call):
        found = [_dimension(argument, inputs) for argument in node.args]
        _same_dimension(node, found)
        return found[0]
    assert isinstance(node, ast.BinOp)  # _check allowed nothing else
    left, right = _dimension(node.left, inputs), _dimension(node.right, inputs)
    if isinstance(node.op, (ast.Add, ast.Sub)):
        _same_dimension(node, [left, right])
        return left
    if isinstance(node.op, ast.Mult):
        return left * right
    if isinstance(node.op, ast.Div):
        return left / right
    if right != DIMENSIONLESS:
        raise FormulaError(f"an exponent must be a plain number, found {right.describe()} ({ast.unparse(node)})")
    if left == DIMENSIONLESS:
        return left
    try:
        power = _eval(node.right, {})
    except FormulaError:
        raise FormulaError(
            f"{ast.unparse(node)} raises {left.describe()} to a power that depends on an input"
        ) from None
    except (ArithmeticError, TypeError):  # e.g. 0 ** -1, or a complex power
        raise FormulaError(f"the exponent of {ast.unparse(node)} is not a real number") from None
    if isinstance(power, complex) or not math.isfinite(power):
        raise FormulaError(f"the exponent of {ast.unparse(node)} is not a finite number")
    return left ** Fraction(power).limit_denominator(1000)


def _same_dimension(node: ast.AST, found: list[Dimension]) -> None:
    for other in found[1:]:
        if other != found[0]:
            verb = "compares" if isinstance(node, ast.Call) else "adds"
            raise FormulaError(f"{ast.unparse(node)} {verb} {found[0].describe()} and {other.describe()}")


PERTURBATIONS = (0.5, 2.0)  # each input in turn, times each (an input of 0 is set to each): a plausible other value


@dataclass(frozen=True, slots=True)
class Use:
    """How a formula's result depends on its inputs near their values: the inputs (or groups) that no
    perturbation moves it beyond the allowed amount, and those under which it cannot be evaluated at all
    (key, the factor, the error): a formula that divides by zero or overflows there says nothing about a value
    near its inputs', and an error is never taken for dependence."""

    unused: tuple[str, ...] = ()
    breaks: tuple[tuple[str, float, str], ...] = ()


def use(
    text: str,
    values: Mapping[str, float],
    allowed: float = 0.0,
    scales: Scales = PLAIN,
    groups: Mapping[str, Sequence[str]] | None = None,
    result: float | None = None,
) -> Use:
    """Each input (or group) moved ×0.5 and ×2 in turn: 'a - a + b' leaves a unused; 'a ** 0.0001 * b' too
    when b is 999 within ±0.5; min and max move only where the other argument is within a factor of two.

    allowed: the largest move that does not count (the loosest tolerance that judges the result).
    groups: what is perturbed, each key's names together (the names bound to one input claim: with
    a and b both bound to one claim, `a - b` never moves, however the claim does); the keys are returned.
    Default: each name alone. A property of the formula's value, whatever its syntax: an input that a
    formula flattens (a ** 1e-9), clamps (max(a, 1e9)) or cancels (a - a, a / a) is found alike.
    result: the formula on `values` (evaluate(text, values, scales)), when the caller has it already."""
    if result is None:
        result = evaluate(text, values, scales)
    unused: list[str] = []
    breaks: list[tuple[str, float, str]] = []
    for key, members in (groups or {name: (name,) for name in values}).items():
        moves = False
        for factor in PERTURBATIONS:
            point = {**values, **{name: values[name] * factor if values[name] else factor for name in members}}
            try:
                moved = evaluate(text, point, scales)
            except FormulaError as error:
                if not any(broken[0] == key for broken in breaks):
                    breaks.append((key, factor, str(error)))
                continue
            moves = moves or abs(moved - result) > max(allowed, 1e-9 * max(abs(moved), abs(result)))
        if not moves:
            unused.append(key)
    return Use(tuple(unused), tuple(breaks))
