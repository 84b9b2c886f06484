"""yamlread: claim files built from the parser's events (never a node tree), with lines, and refusals."""

import pytest
import yaml

from generator.lang import yamlread
from generator.lang.yamlread import LocatedDict, YamlProblem


def test_mappings_and_lists_know_their_lines_and_numbers_keep_their_text():
    data = yamlread.parse(b"claims:\n  - id: a\n    value: 1.50\n    unit: x\n  - {id: b, value: 2}\n")
    assert isinstance(data, LocatedDict) and data.key_lines == {"claims": 1}
    first, second = data["claims"]
    assert data["claims"].item_lines == [2, 5]
    assert first == {"id": "a", "value": 1.5, "unit": "x"} and first.key_lines == {"id": 2, "value": 3, "unit": 4}
    assert dict(first.texts) == {"value": "1.50"}  # a text is kept only where it is not the value itself
    assert second.line == 5 and second.key_lines == {"id": 5, "value": 5} and dict(second.texts) == {"value": "2"}


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("a: &x [1]\nb: *x\n", 2, 4, "YAML aliases (*name) are not allowed"),  # at the alias, not the anchor
        ("a: *nowhere\n", 1, 4, "YAML aliases (*name) are not allowed"),
        ("a: 1\n---\nb: 2\n", 2, 1, "malformed YAML: a second document in the file"),
        ("a: 1\na: 2\n", 2, 1, "duplicate key 'a' (first at line 1)"),
        ("? [1]\n: x\n", 1, 3, "keys must be strings"),
        ("a: !!python/name:os.system x\n", 1, 4, "tag tag:yaml.org,2002:python/name:os.system is not allowed"),
        ("a: !!merge x\n", 1, 4, "tag tag:yaml.org,2002:merge is not allowed"),
        ("!!merge a: x\n", 1, 1, "merge keys (<<) are not allowed"),
        ("a: [unclosed\n", 2, 1, "malformed YAML"),
        ("a: " + "[" * 70 + "]" * 70 + "\n", 1, 68, "nested deeper than 64 levels"),
        ("a: !!int 1.5\n", 1, 4, "bad scalar: '1.5' is not an integer"),
    ],
)
def test_refusals_name_their_line_and_column(text, line, column, message):
    with pytest.raises(YamlProblem) as raised:
        yamlread.parse(text.encode())
    assert (raised.value.line, raised.value.column) == (line, column)
    assert raised.value.message.startswith(message)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_an_empty_document_is_none(text):
    assert yamlread.parse(text.encode()) is None


def test_a_composed_node_builds_the_same_data_as_the_text():
    text = "a: [1, 0.50, x]\nb: {c: ~, d: true}\n"
    built = yamlread.build(yaml.compose(text, Loader=yaml.SafeLoader))
    assert built == yamlread.parse(text.encode()) == {"a": [1, 0.5, "x"], "b": {"c": None, "d": True}}
    assert built.key_lines == {"a": 1, "b": 2} and built["b"].key_lines == {"c": 2, "d": 2}


def test_a_composed_node_met_twice_is_an_alias():
    with pytest.raises(YamlProblem, match="aliases"):
        yamlread.build(yaml.compose("a: &x [1]\nb: *x\n", Loader=yaml.SafeLoader))


def test_yaml_1_2_core_schema():
    data = yamlread.parse(b"a: 010\nb: 1:30\nc: yes\nd: 2026-11-29\ne: 0x1f\nf: .inf\n")
    assert data == {"a": 10, "b": "1:30", "c": "yes", "d": "2026-11-29", "e": 31, "f": float("inf")}
