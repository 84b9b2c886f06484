"""Figure definitions: which tables and charts exist, found without importing them.

Tables and charts are Python functions in figures/*.py decorated with @table("id") or @chart("id")
(see generator.site.figure_api). The gate only needs their ids, so it reads them from the syntax tree:
nothing is imported or run, and `ledger check` stays fast.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from ..records import Finding, Source
from .load import Unreadable, read_capped
from .reads import FIGURES

MAX_FIGURE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Defined:
    tables: frozenset[str] = frozenset()
    charts: frozenset[str] = frozenset()
    where: dict[str, Source] = field(default_factory=dict)  # "chart:id" -> definition
    findings: tuple[Finding, ...] = ()  # definitions that cannot be read, each with file:line
    captions: dict[str, tuple[Source, str]] = field(default_factory=dict)  # "chart:id" -> its docstring, where it is


class _BadDecorator(Exception):
    pass


def defined(root: Path, folder: str = FIGURES) -> Defined:
    """Ids of every @table("...") and @chart("...") function under root/figures, and the problems."""
    base = root / folder
    tables: set[str] = set()
    charts: set[str] = set()
    where: dict[str, Source] = {}
    findings: list[Finding] = []
    captions: dict[str, tuple[Source, str]] = {}

    def problem(relative: str, line: int, what: str, fix: str) -> None:
        findings.append(Finding(Source(relative, line), "", "invalid", what, fix))

    for path in sorted(base.glob("*.py")) if base.is_dir() else []:
        relative = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(read_capped(path, MAX_FIGURE_BYTES).decode("utf-8"), filename=relative)
        except Unreadable as error:
            problem(relative, 0, f"figure file {error}", "replace it with a regular Python file")
            continue
        except (RecursionError, MemoryError):
            problem(relative, 0, "figure file is nested too deeply to parse", "simplify it")
            continue
        except SyntaxError as error:
            problem(relative, error.lineno or 0, f"figure file does not parse: {error.msg}", "fix the Python syntax")
            continue
        except (OSError, UnicodeDecodeError, ValueError) as error:
            problem(relative, 0, f"figure file cannot be read: {error}", "save it as UTF-8 Python source")
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                try:
                    kind, name = _figure_decorator(decorator)
                except _BadDecorator as error:
                    problem(relative, decorator.lineno, error.args[0], f'write @{error.args[1]}("some-id")')
                    continue
                if not kind:
                    continue
                key = f"{kind}:{name}"
                if key in where:
                    problem(
                        relative,
                        decorator.lineno,
                        f"{kind} {name!r} is already defined at {where[key]}",
                        "give one of the two figures another id",
                    )
                    continue
                where[key] = Source(relative, decorator.lineno)
                (tables if kind == "table" else charts).add(name)
                doc = node.body[0] if node.body else None
                if (
                    isinstance(doc, ast.Expr)
                    and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)
                ):
                    raw = doc.value.value
                    first = doc.lineno + raw[: len(raw) - len(raw.lstrip())].count("\n")  # (blank lines dropped)
                    captions[key] = (Source(relative, first), ast.get_docstring(node) or "")
    return Defined(frozenset(tables), frozenset(charts), where, tuple(findings), captions)


def _figure_decorator(node: ast.expr) -> tuple[str, str]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))):
        return "", ""
    kind = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    if kind not in ("table", "chart"):
        return "", ""
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
        raise _BadDecorator(f"@{kind}(...) takes the figure's id as one literal string", kind)
    return kind, node.args[0].value
