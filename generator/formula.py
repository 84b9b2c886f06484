"""Formulas: parse and evaluate arithmetic over named inputs. Pure; never executes anything.

Allowed: numbers, input names, + - * / ** (and the typographic − × ÷), parentheses, min(...) and
max(...). Everything else (calls, attributes, indexing, comparisons, strings, ...) is rejected with
a FormulaError that says what was found.
"""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping

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
    try:
        tree = ast.parse(text.translate(_TYPOGRAPHIC).strip(), mode="eval")
    except SyntaxError as error:
        raise FormulaError(f"not arithmetic: {error.msg}") from None
    except (RecursionError, MemoryError):
        raise FormulaError("formula is nested too deeply") from None
    _check(tree.body)
    return tree


def names(text: str) -> set[str]:
    """The input names a formula uses."""
    return {node.id for node in ast.walk(parse(text)) if isinstance(node, ast.Name)} - set(_FUNCTIONS)


def evaluate(text: str, values: Mapping[str, float]) -> float:
    """Evaluate a formula with the given input values; raises FormulaError on any problem."""
    tree = parse(text)
    try:
        result = _eval(tree.body, values)
    except ZeroDivisionError:
        raise FormulaError("division by zero") from None
    except OverflowError:
        raise FormulaError("result too large") from None
    except TypeError:  # min/max over a complex intermediate, e.g. (-8) ** 0.5
        raise FormulaError("result is not a real number") from None
    if isinstance(result, complex) or not math.isfinite(result):
        raise FormulaError(f"result is not a finite real number ({result})")
    return float(result)


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
