"""Figure definitions: which tables and charts exist, found without importing them.

Tables and charts are Python functions in figures/*.py decorated with @table("id") or @chart("id")
(see generator.figure_api). The gate only needs their ids, so it reads them from the syntax tree:
nothing is imported or run, and `ledger check` stays fast.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .records import LedgerError, Source

FOLDER = "figures"


@dataclass(frozen=True)
class Defined:
    tables: frozenset[str] = frozenset()
    charts: frozenset[str] = frozenset()
    where: dict[str, Source] = field(default_factory=dict)  # "chart:id" -> definition


def defined(root: Path, folder: str = FOLDER) -> Defined:
    """Ids of every @table("...") and @chart("...") function under root/figures."""
    base = root / folder
    tables, charts, where = set(), set(), {}
    for path in sorted(base.glob("*.py")) if base.is_dir() else []:
        relative = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        except SyntaxError as error:
            raise LedgerError(f"{relative}:{error.lineno}: {error.msg}") from None
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                kind, name = _figure_decorator(decorator)
                if not kind:
                    continue
                key = f"{kind}:{name}"
                if key in where:
                    raise LedgerError(f"{relative}:{decorator.lineno}: {kind} {name!r} is already "
                                      f"defined at {where[key]}")
                where[key] = Source(relative, decorator.lineno)
                (tables if kind == "table" else charts).add(name)
    return Defined(frozenset(tables), frozenset(charts), where)


def _figure_decorator(node: ast.expr) -> tuple[str, str]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))):
        return "", ""
    kind = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    if kind not in ("table", "chart"):
        return "", ""
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
        raise LedgerError(f"line {node.lineno}: @{kind}(...) takes the id as one literal string")
    return kind, node.args[0].value
