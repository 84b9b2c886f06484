"""Safe YAML reading that keeps line numbers: bytes -> plain data with located mappings and lists.

PyYAML composes the node tree (its C parser when present); we build the values ourselves so every
mapping knows the line of each key, duplicate keys are errors rather than silently overwritten,
aliases are refused (bounded time and memory: no billion laughs), only plain scalar types exist,
and dates stay strings. Nothing is ever constructed from a tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

# The C parser is ~4x faster; the pure-Python one behaves the same.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_SCALAR_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null")}
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
MAX_DEPTH = 64


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader with YAML 1.2 core schema resolution (the C parser still does the parsing).

    YAML 1.1 reads `010` as 8, `1:30` as 90, `yes` as true and `2026-11-29` as a date; the 1.2 core
    schema reads 10, the text "1:30", the text "yes" and the text "2026-11-29". Scalars are then
    built by _scalar() below, never by PyYAML's 1.1 constructors.
    """


_TAG = "tag:yaml.org,2002:"
_CORE = [
    (_TAG + "bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    (_TAG + "int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), "-+0123456789"),
    (
        _TAG + "float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        "-+0123456789.",
    ),
    (_TAG + "null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]),
]
_Loader.yaml_implicit_resolvers = {}
for _tag, _pattern, _firsts in _CORE:
    for _first in _firsts:
        _Loader.yaml_implicit_resolvers.setdefault(_first, []).append((_tag, _pattern))
MAX_DIGITS = 400  # longer numbers are refused before Python converts them


def _scalar(tag: str, text: str) -> object:
    """A scalar by the YAML 1.2 core schema; raises ValueError for text its tag cannot hold."""
    if tag == _TAG + "str":
        return text
    if tag == _TAG + "null":
        if text not in ("", "~", "null", "Null", "NULL"):
            raise ValueError(f"{text[:40]!r} is not null")
        return None
    if tag == _TAG + "bool":
        if text.lower() not in ("true", "false"):
            raise ValueError(f"{text[:40]!r} is not true or false")
        return text.lower() == "true"
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} characters; at most {MAX_DIGITS}")
    if tag == _TAG + "int":
        cleaned = text.strip()
        if cleaned.startswith("0x"):
            return int(cleaned[2:], 16)
        if cleaned.startswith("0o"):
            return int(cleaned[2:], 8)
        if not re.fullmatch(r"[-+]?[0-9]+", cleaned, re.ASCII):
            raise ValueError(f"{text[:40]!r} is not an integer")
        return int(cleaned)
    lowered = text.strip().lower()
    if lowered.endswith(".inf"):
        return float("-inf") if lowered.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    if not re.fullmatch(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", lowered, re.ASCII):
        raise ValueError(f"{text[:40]!r} is not a number")
    return float(lowered)


class LocatedDict(dict):
    """A YAML mapping that remembers where it and each of its keys start (1-based lines)."""

    line: int = 0
    key_lines: dict
    texts: dict  # key -> the scalar value as written (for numbers: their precision)


class LocatedList(list):
    line: int = 0
    item_lines: list


@dataclass(frozen=True)
class YamlProblem(Exception):
    line: int
    column: int
    message: str
    fix: str


def parse(data: bytes) -> object:
    """Parse one YAML document into plain data; raises YamlProblem with line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise YamlProblem(
            line, column, f"not UTF-8 (byte 0x{data[error.start]:02x})", "save the file as UTF-8"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    for bad in ("\0",):
        if bad in text:
            at = text.index(bad)
            line = text.count("\n", 0, at) + 1
            raise YamlProblem(
                line, at - (text.rfind("\n", 0, at) + 1) + 1, "a NUL byte (\\0) in the file", "remove the NUL byte"
            )
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "malformed YAML"
        raise YamlProblem(
            mark.line + 1 if mark else 0,
            mark.column + 1 if mark else 0,
            f"malformed YAML: {problem}",
            "fix the YAML syntax at that position",
        ) from None
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        column = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        raise YamlProblem(
            line, column, f"malformed YAML: character #x{error.character:04x} is not allowed", "remove it"
        ) from None
    except yaml.YAMLError as error:
        raise YamlProblem(0, 0, f"malformed YAML: {error}", "fix the YAML syntax") from None
    except RecursionError:
        raise YamlProblem(0, 0, "malformed YAML: nested too deeply", "flatten the structure") from None
    finally:
        loader.dispose()
    if node is None:
        return None
    return _build(node, loader, set(), 0)


def build(node: yaml.Node) -> object:
    """Plain data from an already composed node (e.g. one entry of mkdocs.yml), same rules as parse()."""
    return _build(node, _Loader(""), set(), 0)


def _build(node: yaml.Node, loader: _Loader, seen: set, depth: int) -> object:
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    if id(node) in seen:
        raise YamlProblem(
            line,
            column,
            "YAML aliases (*name) are not allowed in claim files",
            "write the value out instead of referring to an anchor",
        )
    seen.add(id(node))
    if depth > MAX_DEPTH:
        raise YamlProblem(line, column, f"nested deeper than {MAX_DEPTH} levels", "flatten the structure")
    if isinstance(node, yaml.ScalarNode):
        if node.tag not in _SCALAR_TAGS:
            raise YamlProblem(
                line,
                column,
                f"tag {node.tag} is not allowed",
                "remove the tag; claim files hold plain strings and numbers",
            )
        try:
            return _scalar(node.tag, node.value)
        except ValueError as error:
            raise YamlProblem(
                line, column, f"bad scalar: {error}", "quote the value, or write a plain number"
            ) from None
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _SEQ_TAG:
            raise YamlProblem(line, column, f"tag {node.tag} is not allowed", "remove the tag")
        items = LocatedList(_build(item, loader, seen, depth + 1) for item in node.value)
        items.line = line
        items.item_lines = [item.start_mark.line + 1 for item in node.value]
        return items
    if node.tag != _MAP_TAG:
        raise YamlProblem(line, column, f"tag {node.tag} is not allowed", "remove the tag")
    mapping = LocatedDict()
    mapping.line, mapping.key_lines, mapping.texts = line, {}, {}
    for key_node, value_node in node.value:
        key_line = key_node.start_mark.line + 1
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise YamlProblem(
                key_line, key_node.start_mark.column + 1, "merge keys (<<) are not allowed", "write the fields out"
            )
        key = _build(key_node, loader, seen, depth + 1)
        if not isinstance(key, str):
            raise YamlProblem(
                key_line, key_node.start_mark.column + 1, f"keys must be strings, found {key!r}", "quote the key"
            )
        if key in mapping:
            raise YamlProblem(
                key_line,
                key_node.start_mark.column + 1,
                f"duplicate key {key!r} (first at line {mapping.key_lines[key]})",
                "keep one of the two",
            )
        mapping[key] = _build(value_node, loader, seen, depth + 1)
        mapping.key_lines[key] = key_line
        if isinstance(value_node, yaml.ScalarNode):
            mapping.texts[key] = value_node.value
    return mapping
