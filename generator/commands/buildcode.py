"""Code the build runs: the files a pull request changed and mkdocs.yml at both sides -> what a reviewer
must read as code. Pure.

The site build imports figures/*.py and MkDocs hooks, renders through the theme's overrides, loads
the plugins and Markdown extensions mkdocs.yml names, and ships JavaScript, CSS and HTML from the docs
folder to every reader's browser. Any of these can change what a page shows without touching a
claim, so `ledger diff` lists each one that changed. Python anywhere outside the probes folder is
listed too (a figure or a hook may import it); probes are never run by the build (a change to one
shows as probe-changed).
"""

from __future__ import annotations

from collections.abc import Iterable

import yaml

from ..inputs import mkdocs_yml
from ..inputs.config import PLUGIN
from ..inputs.reads import FIGURES

# Settings of mkdocs.yml that load code or decide what runs in the build and in a reader's browser.
CODE_SETTINGS = ("plugins", "markdown_extensions", "hooks", "theme", "extra_javascript", "extra_css")
SHIPPED = (".js", ".mjs", ".css", ".html", ".htm", ".svg")  # copied from the docs folder into the site as is


def build_code(
    changed: Iterable[str], base_config: str, head_config: str, config_path: str, docs_dir: str, probes_dir: str
) -> list[tuple[str, str]]:
    """(path, why) for every changed file the build executes or ships, and every code setting that changed."""
    base, head = _top(base_config), _top(head_config)
    hooks = set(_strings(head.get("hooks"))) | set(_strings(base.get("hooks")))
    overrides = [d.strip("/") + "/" for d in (_custom_dir(head), _custom_dir(base)) if d]
    found = []
    for path in changed:
        why = ""
        if path in hooks:
            why = "an MkDocs hook: Python the build runs"
        elif path.startswith(f"{FIGURES}/"):
            why = "a figure module: Python the build imports and runs"
        elif any(path.startswith(folder) for folder in overrides):
            why = "a theme override: it renders every page"
        elif path.startswith(docs_dir.rstrip("/") + "/") and path.endswith(SHIPPED):
            why = "shipped to every reader's browser as is"
        elif path.endswith(".py") and not path.startswith(probes_dir.rstrip("/") + "/"):
            why = "Python a figure or a hook may import"
        if why:
            found.append((path, why))
    for key in CODE_SETTINGS:
        if _dump(_without_policy(base.get(key))) != _dump(_without_policy(head.get(key))):
            found.append((f"{config_path}: {key}", "loads code into the build or the reader's browser"))
    return found


def _top(text: str) -> dict[str, yaml.Node]:
    """mkdocs.yml's top-level nodes, composed only (its tags never run)."""
    try:
        return mkdocs_yml.nodes(text) or {}
    except mkdocs_yml.Malformed:
        return {"(unreadable mkdocs.yml)": yaml.ScalarNode("tag:yaml.org,2002:str", text[:200])}


def _dump(node: yaml.Node | None, depth: int = 0) -> object:
    """A node as plain nested tuples (tags kept): equal exactly when the setting is the same."""
    if node is None or depth > 32:
        return None
    if isinstance(node, yaml.ScalarNode):
        return (node.tag, node.value)
    if isinstance(node, yaml.SequenceNode):
        return tuple(_dump(item, depth + 1) for item in node.value)
    if isinstance(node, yaml.MappingNode):
        return tuple((_dump(k, depth + 1), _dump(v, depth + 1)) for k, v in node.value)
    return None


def _without_policy(node: yaml.Node | None) -> yaml.Node | None:
    """The plugins list with the ledger plugin's own options left out: those are policy, shown apart."""
    if not isinstance(node, yaml.SequenceNode):
        return node
    items = []
    for item in node.value:
        if isinstance(item, yaml.MappingNode) and any(
            isinstance(k, yaml.ScalarNode) and k.value == PLUGIN for k, _ in item.value
        ):
            item = yaml.ScalarNode("tag:yaml.org,2002:str", PLUGIN)
        items.append(item)
    return yaml.SequenceNode(node.tag, items)


def _strings(node: yaml.Node | None) -> list[str]:
    if isinstance(node, yaml.SequenceNode):
        return [item.value for item in node.value if isinstance(item, yaml.ScalarNode)]
    if isinstance(node, yaml.ScalarNode):
        return [node.value]
    return []


def _custom_dir(top: dict[str, yaml.Node]) -> str:
    theme = top.get("theme")
    if isinstance(theme, yaml.MappingNode):
        for key, value in theme.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "custom_dir" and isinstance(value, yaml.ScalarNode):
                return value.value
    return ""
