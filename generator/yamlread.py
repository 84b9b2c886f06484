"""Safe YAML reading that keeps line numbers: bytes -> plain data with located mappings and lists.

PyYAML composes the node tree (its C parser when present); we build the values ourselves so every
mapping knows the line of each key, duplicate keys are errors rather than silently overwritten,
aliases are refused (bounded time and memory: no billion laughs), only plain scalar types exist,
and dates stay strings. Nothing is ever constructed from a tag.
"""

from __future__ import annotations

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
    """Safe loader without the timestamp resolver, so `retrieved: 2026-11-29` stays a string."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


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
    except yaml.YAMLError as error:
        raise YamlProblem(0, 0, f"malformed YAML: {error}", "fix the YAML syntax") from None
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
            return loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError) as error:
            raise YamlProblem(line, column, f"bad scalar: {error}", "quote the value") from None
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
