"""Safe YAML reading that keeps line numbers: bytes -> plain data with located mappings and lists.

PyYAML composes the node tree (its C parser when present); we build the values ourselves so every
mapping knows the line of each key, duplicate keys are errors rather than silently overwritten,
aliases are refused (bounded time and memory: no billion laughs), only plain scalar types exist,
and dates stay strings. Nothing is ever constructed from a tag.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
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
# The one number grammar: a YAML 1.2 decimal number, as claim values are written; values.py reads CSV
# cells, tolerances and precision with it, relations.py the bounds of `asserts` and `checked_by`.
UNSIGNED = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
NUMBER = rf"[-+]?{UNSIGNED}"
_NUMBER = re.compile(NUMBER, re.ASCII)
_CORE = [
    (_TAG + "bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    (_TAG + "int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), "-+0123456789"),
    (
        _TAG + "float",
        re.compile(rf"^(?:{NUMBER}|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        "-+0123456789.",
    ),
    (_TAG + "null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]),
]
_Loader.yaml_implicit_resolvers = {}
for _tag, _pattern, _firsts in _CORE:
    for _first in _firsts:
        _Loader.yaml_implicit_resolvers.setdefault(_first, []).append((_tag, _pattern))
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = _Loader.yaml_implicit_resolvers
_STR = _TAG + "str"
_TEXT = ("scalar", _STR)  # an item's (kind, tag) when it is plain text


def resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """A scalar event's tag as PyYAML's resolver gives it with the rules above (the composer's call,
    without its method lookups: a claim file has a scalar per field)."""
    if implicit[0]:
        for tag, pattern in _RESOLVERS.get(value[:1], ()):
            if pattern.match(value):
                return tag
    return _STR


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
    if not _NUMBER.fullmatch(lowered):
        raise ValueError(f"{text[:40]!r} is not a number")
    return float(lowered)


class LocatedDict(dict):
    """A YAML mapping that remembers where it and each of its keys start (1-based lines)."""

    __slots__ = ("line", "key_lines", "texts")  # one claim file may hold 100,000 of these
    line: int
    key_lines: dict
    texts: Mapping[str, str]  # key -> a number, true/false or null as written (its precision); not text


class LocatedList(list):
    __slots__ = ("line", "item_lines")
    line: int
    item_lines: list


@dataclass(frozen=True)
class YamlProblem(Exception):
    line: int
    column: int
    message: str
    fix: str


def parse(data: bytes) -> object:
    """Parse one YAML document into plain data; raises YamlProblem with line and column.

    Built from the parser's events as they come, never from a composed node tree: a 15.7 MB claim
    file's tree alone takes ~700 MB, its values ~150 MB (benchmarks/check_time.py --claims 100002)."""
    text = _text(data)
    loader = _Loader(text)
    try:
        return _document(loader)
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
    finally:
        loader.dispose()


def _text(data: bytes) -> str:
    """The file as text: UTF-8, without a byte-order mark, with no NUL."""
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
    if "\0" in text:
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        raise YamlProblem(
            line, at - (text.rfind("\n", 0, at) + 1) + 1, "a NUL byte (\\0) in the file", "remove the NUL byte"
        )
    return text


def _document(loader: _Loader) -> object:
    """The stream's one document (None when empty); a second document is an error, as PyYAML's."""
    loader.get_event()  # the stream's start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    loader.get_event()  # the document's start
    items = _parsed(loader)
    data = _build(items, next(items), 0)
    loader.get_event()  # the document's end
    if not loader.check_event(yaml.StreamEndEvent):
        mark = loader.get_event().start_mark
        raise YamlProblem(
            mark.line + 1, mark.column + 1, "malformed YAML: a second document in the file", "keep one document"
        )
    return data


def build(node: yaml.Node) -> object:
    """Plain data from an already composed node (e.g. one entry of mkdocs.yml), same rules as parse()."""
    items = _walked(node, set())
    return _build(items, next(items), 0)


# What the builder reads, from the parser's events or a composed node alike:
# (kind, tag, scalar text, line, column); a collection's items end with an END item.
Item = tuple[str, str, "str | None", int, int]
SCALAR, SEQUENCE, MAPPING, END, ALIAS = "scalar", "sequence", "mapping", "end", "alias"
_STARTS = {yaml.SequenceStartEvent: (SEQUENCE, _SEQ_TAG), yaml.MappingStartEvent: (MAPPING, _MAP_TAG)}
_ENDS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _parsed(loader: _Loader) -> Iterator[Item]:
    """The document's values as items, each tag resolved as PyYAML's composer resolves it."""
    get_event, scalar = loader.get_event, yaml.ScalarEvent
    while True:
        event = get_event()
        mark, kind = event.start_mark, type(event)
        if kind is scalar:
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(event.value, event.implicit)
            yield SCALAR, tag, event.value, mark.line + 1, mark.column + 1
        elif kind in _STARTS:
            collection, default = _STARTS[kind]
            tag = default if event.tag is None or event.tag == "!" else event.tag
            yield collection, tag, None, mark.line + 1, mark.column + 1
        elif kind in _ENDS:
            yield END, "", None, mark.line + 1, mark.column + 1
        else:  # an alias: the parser emits nothing else inside a document
            yield ALIAS, "", None, mark.line + 1, mark.column + 1


def _walked(node: yaml.Node, seen: set) -> Iterator[Item]:
    """A composed node's values as items; a node met twice is an alias."""
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    if id(node) in seen:
        yield ALIAS, "", None, line, column
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        yield SCALAR, node.tag, node.value, line, column
        return
    yield (SEQUENCE if isinstance(node, yaml.SequenceNode) else MAPPING), node.tag, None, line, column
    for child in node.value:
        if isinstance(child, tuple):  # a mapping's (key, value)
            yield from _walked(child[0], seen)
            yield from _walked(child[1], seen)
        else:
            yield from _walked(child, seen)
    yield END, "", None, line, column


def _build(items: Iterator[Item], item: Item, depth: int) -> object:
    """The value that starts with item, reading the rest of it from items."""
    kind, tag, value, line, column = item
    if kind == ALIAS:
        raise YamlProblem(
            line,
            column,
            "YAML aliases (*name) are not allowed in claim files",
            "write the value out instead of referring to an anchor",
        )
    if depth > MAX_DEPTH:
        raise YamlProblem(line, column, f"nested deeper than {MAX_DEPTH} levels", "flatten the structure")
    if kind == SCALAR:
        if tag not in _SCALAR_TAGS:
            raise YamlProblem(
                line,
                column,
                f"tag {tag} is not allowed",
                "remove the tag; claim files hold plain strings and numbers",
            )
        try:
            return _scalar(tag, value or "")
        except ValueError as error:
            raise YamlProblem(
                line, column, f"bad scalar: {error}", "quote the value, or write a plain number"
            ) from None
    if tag != (_SEQ_TAG if kind == SEQUENCE else _MAP_TAG):
        raise YamlProblem(line, column, f"tag {tag} is not allowed", "remove the tag")
    if kind == SEQUENCE:
        found, lines = LocatedList(), []
        while (child := next(items))[0] != END:
            lines.append(child[3])
            found.append(_build(items, child, depth + 1))
        found.line, found.item_lines = line, lines
        return found
    return _mapping(items, line, depth)


def _mapping(items: Iterator[Item], line: int, depth: int) -> LocatedDict:
    mapping = LocatedDict()
    key_lines: dict[str, int] = {}
    texts: dict[str, str] = {}
    plain = depth < MAX_DEPTH  # a text scalar below the depth cap is built here: the commonest item
    while (key_item := next(items))[0] != END:
        key_line, key_column = key_item[3], key_item[4]
        if key_item[1] == "tag:yaml.org,2002:merge":
            raise YamlProblem(key_line, key_column, "merge keys (<<) are not allowed", "write the fields out")
        key = (key_item[2] or "") if plain and key_item[:2] == _TEXT else _build(items, key_item, depth + 1)
        if not isinstance(key, str):
            raise YamlProblem(key_line, key_column, f"keys must be strings, found {key!r}", "quote the key")
        if key in mapping:
            raise YamlProblem(
                key_line,
                key_column,
                f"duplicate key {key!r} (first at line {key_lines[key]})",
                "keep one of the two",
            )
        key = sys.intern(key)  # one copy of `id`, `kind`, `value`... for every claim
        value_item = next(items)
        if plain and value_item[:2] == _TEXT:
            mapping[key] = value_item[2] or ""
        else:
            mapping[key] = value = _build(items, value_item, depth + 1)
            if value_item[0] == SCALAR and not isinstance(value, str):
                texts[key] = value_item[2] or ""  # null may be written as nothing
        key_lines[key] = key_line
    mapping.line, mapping.key_lines, mapping.texts = line, key_lines, texts or _NO_TEXTS
    return mapping


_NO_TEXTS: Mapping[str, str] = MappingProxyType({})
