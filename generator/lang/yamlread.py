"""Safe YAML reading that keeps line numbers: bytes -> plain data with located mappings and lists.

PyYAML composes the node tree (its C parser when present); we build the values ourselves so every
mapping knows the line of each key, duplicate keys are errors rather than silently overwritten,
aliases are refused (bounded time and memory: no billion laughs), only plain scalar types exist,
and dates stay strings. Nothing is ever constructed from a tag.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import yaml

# The C parser where PyYAML has it (the faster: check_time.py's parse floor uses it); the pure-Python one behaves the same.
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

    Built from the parser's events as they come, never from a composed node tree, which holds several
    times the memory of the values it composes (benchmarks/check_time.py 33334 measures the peak)."""
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
    data = _build(loader.get_event, loader.get_event(), 0)
    loader.get_event()  # the document's end
    if not loader.check_event(yaml.StreamEndEvent):
        mark = loader.get_event().start_mark
        raise YamlProblem(
            mark.line + 1, mark.column + 1, "malformed YAML: a second document in the file", "keep one document"
        )
    return data


def build(node: yaml.Node) -> object:
    """Plain data from an already composed node (e.g. one entry of mkdocs.yml), same rules as parse()."""
    events = _walked(node, set())
    return _build(events.__next__, next(events), 0)


# The builder reads the parser's events as they come (a composed node is walked into the same events):
# no node tree, no item per event. A scalar's tag is resolved as PyYAML's composer resolves it.
_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_MAP_START, _MAP_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQ_START, _SEQ_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_MERGE = _TAG + "merge"
Next = Callable[[], Any]  # a parser event (ScalarEvent, MappingStartEvent, ...): untyped in the stubs


def _tag_of(event: Any) -> str:
    """A scalar's or collection's tag: as written, else resolved (resolve(), for scalars) or the default (_tag_of)."""
    tag = event.tag
    if tag is not None and tag != "!":
        return tag
    if type(event) is _SCALAR:
        return resolve(event.value, event.implicit)
    return _MAP_TAG if type(event) is _MAP_START else _SEQ_TAG


def _walked(node: yaml.Node, seen: set) -> Iterator[Any]:
    """A composed node's values as the parser's events (tags resolved already); a node met twice is an alias."""
    start, end = node.start_mark, node.end_mark
    if id(node) in seen:
        yield _ALIAS(None, start, end)
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        yield _SCALAR(None, node.tag, (False, False), node.value, start, end)
        return
    mapping = isinstance(node, yaml.MappingNode)
    yield (_MAP_START if mapping else _SEQ_START)(None, node.tag, False, start, end)
    for child in node.value:
        if isinstance(child, tuple):  # a mapping's (key, value)
            yield from _walked(child[0], seen)
            yield from _walked(child[1], seen)
        else:
            yield from _walked(child, seen)
    yield (_MAP_END if mapping else _SEQ_END)(start, end)


def _build(get: Next, event: Any, depth: int) -> object:
    """The value that starts with event, reading the rest of it with get()."""
    kind, mark = type(event), event.start_mark
    line, column = mark.line + 1, mark.column + 1
    if kind is not _SCALAR and kind is not _MAP_START and kind is not _SEQ_START:  # an alias
        raise YamlProblem(
            line,
            column,
            "YAML aliases (*name) are not allowed in claim files",
            "write the value out instead of referring to an anchor",
        )
    if depth > MAX_DEPTH:
        raise YamlProblem(line, column, f"nested deeper than {MAX_DEPTH} levels", "flatten the structure")
    tag = _tag_of(event)
    if kind is _SCALAR:
        if tag not in _SCALAR_TAGS:
            raise YamlProblem(
                line,
                column,
                f"tag {tag} is not allowed",
                "remove the tag; claim files hold plain strings and numbers",
            )
        try:
            return _scalar(tag, event.value or "")
        except ValueError as error:
            raise YamlProblem(
                line, column, f"bad scalar: {error}", "quote the value, or write a plain number"
            ) from None
    if tag != (_SEQ_TAG if kind is _SEQ_START else _MAP_TAG):
        raise YamlProblem(line, column, f"tag {tag} is not allowed", "remove the tag")
    if kind is _SEQ_START:
        found, lines = LocatedList(), []
        while type(child := get()) is not _SEQ_END:
            lines.append(child.start_mark.line + 1)
            found.append(_build(get, child, depth + 1))
        found.line, found.item_lines = line, lines
        return found
    return _mapping(get, line, depth)


def _mapping(get: Next, line: int, depth: int) -> LocatedDict:
    mapping = LocatedDict()
    key_lines: dict[str, int] = {}
    texts: dict[str, str] = {}
    plain = depth < MAX_DEPTH  # an untagged scalar below the depth cap is read here: the commonest item
    resolvers, scalar, end, intern = _RESOLVERS, _SCALAR, _MAP_END, sys.intern
    while type(key_event := get()) is not end:
        key_line = key_event.start_mark.line + 1
        key = _plain_text(key_event) if plain and type(key_event) is scalar else None
        if key is None:  # a tagged or typed key (a number, true, null), or a collection: as _build reads it
            if _tag_of(key_event) == _MERGE:
                column = key_event.start_mark.column + 1
                raise YamlProblem(key_line, column, "merge keys (<<) are not allowed", "write the fields out")
            built = _build(get, key_event, depth + 1)
            if not isinstance(built, str):
                column = key_event.start_mark.column + 1
                raise YamlProblem(key_line, column, f"keys must be strings, found {built!r}", "quote the key")
            key = built
        if key in mapping:
            raise YamlProblem(
                key_line,
                key_event.start_mark.column + 1,
                f"duplicate key {key!r} (first at line {key_lines[key]})",
                "keep one of the two",
            )
        key = intern(key)  # one copy of `id`, `kind`, `value`... for every claim
        value_event = get()
        if plain and type(value_event) is scalar and value_event.tag is None:
            written = value_event.value
            tag = resolve(written, value_event.implicit) if written[:1] in resolvers else _STR
            if tag == _STR:
                mapping[key] = written  # plain text: the commonest value
            else:  # a number, true/false or null: as _build reads it (its tag is one of _SCALAR_TAGS)
                mapping[key] = _typed(tag, value_event)
                texts[key] = written  # as written, its precision (null may be written as nothing)
        else:
            mapping[key] = value = _build(get, value_event, depth + 1)
            if type(value_event) is scalar and not isinstance(value, str):
                texts[key] = value_event.value or ""
        key_lines[key] = key_line
    mapping.line, mapping.key_lines, mapping.texts = line, key_lines, texts or _NO_TEXTS
    return mapping


def _plain_text(event: Any) -> str | None:
    """An untagged scalar event's text when it is text (quoted, or no rule of _CORE takes it); else None."""
    if event.tag is not None:
        return None
    text = event.value
    if text[:1] in _RESOLVERS and resolve(text, event.implicit) != _STR:
        return None
    return text


def _typed(tag: str, event: Any) -> object:
    """A number, true/false or null scalar, as _build reads it."""
    try:
        return _scalar(tag, event.value or "")
    except ValueError as error:
        mark = event.start_mark
        raise YamlProblem(
            mark.line + 1, mark.column + 1, f"bad scalar: {error}", "quote the value, or write a plain number"
        ) from None


_NO_TEXTS: Mapping[str, str] = MappingProxyType({})
