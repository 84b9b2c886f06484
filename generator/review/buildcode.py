"""Code that installs or runs: the files a pull request changed and mkdocs.yml at both sides -> what a
reviewer must read as code. Pure.

The site build imports figures/*.py and MkDocs hooks, renders through the theme's overrides, loads
the plugins and Markdown extensions mkdocs.yml names, and ships JavaScript, CSS and HTML from the docs
folder to every reader's browser. Any of these can change what a page shows without touching a
claim. And before anything runs, other files decide what is installed and executed: requirements and
constraints, pyproject.toml, the Makefile, the pre-commit config, the GitHub workflows and actions,
scripts. `ledger diff` lists each one that changed, and every changed probe (`ledger measure` runs it
on the measuring machine). Python anywhere is listed too (a figure or a hook may import it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

from ..inputs import mkdocs_yml
from ..inputs.config import PLUGIN
from ..inputs.reads import FIGURES

# Settings of mkdocs.yml that load code or decide what runs in the build and in a reader's browser.
CODE_SETTINGS = ("plugins", "markdown_extensions", "hooks", "theme", "extra_javascript", "extra_css")
# Copied from the docs folder into the site as is, and run or rendered by a reader's browser (any case).
SHIPPED = (
    ".js", ".mjs", ".cjs", ".css", ".html", ".htm", ".xhtml", ".shtml", ".svg", ".svgz", ".xml", ".xsl", ".xslt",
    ".wasm",
)  # fmt: skip
INSTALLS = "decides what is installed"
RUNS = "holds commands that run"
# Files that decide what gets installed or executed, wherever they are: (pattern on the path, why).
INSTALLERS = tuple(
    (re.compile(pattern, re.IGNORECASE), why)
    for pattern, why in (
        (r"(^|/)requirements[^/]*\.(txt|in)$|(^|/)requirements/[^/]+\.(txt|in)$", f"{INSTALLS}: what pip installs"),
        (r"(^|/)constraints[^/]*\.txt$", f"{INSTALLS}: the versions pip may install"),
        (r"(^|/)(pyproject\.toml|setup\.cfg|setup\.py|MANIFEST\.in)$", f"{INSTALLS}: the package and its dependencies"),
        (
            r"(^|/)(Pipfile(\.lock)?|poetry\.lock|uv\.lock|pdm\.lock|environment\.ya?ml|package(-lock)?\.json|"
            r"yarn\.lock|\.python-version|\.tool-versions|\.gitmodules)$",
            f"{INSTALLS}: dependencies and their versions",
        ),
        (r"(^|/)(Dockerfile|[^/]*\.dockerfile|docker-compose\.ya?ml)$", f"{INSTALLS} and {RUNS}: a container"),
        (r"(^|/)(GNUmakefile|makefile|Makefile|[^/]*\.mk)$", f"{RUNS}: make's recipes (make test, make site)"),
        (r"(^|/)\.pre-commit-(config|hooks)\.ya?ml$", f"{INSTALLS} and {RUNS}: pre-commit's hooks"),
        (r"^\.github/|(^|/)action\.ya?ml$", f"{RUNS}: a GitHub workflow or action (CI, with the repository's token)"),
        (r"(^|/)(tox\.ini|noxfile\.py|\.envrc|\.gitattributes)$", f"{RUNS}: tox, nox, direnv or git's filters"),
        (r"^(\.ci|scripts|bin)/|\.(sh|bash|zsh|ps1|bat|cmd)$", f"{RUNS}: a script"),
    )
)


def build_code(
    changed: Iterable[str], base_config: str, head_config: str, config_path: str, docs_dir: str, probes_dir: str
) -> list[tuple[str, str]]:
    """(path, why) for every changed file the build executes or ships, and every code setting that changed."""
    base, head = _top(base_config), _top(head_config)
    hooks = set(_strings(head.get("hooks"))) | set(_strings(base.get("hooks")))
    overrides = [d.strip("/") + "/" for d in (_custom_dir(head), _custom_dir(base)) if d]
    docs = docs_dir.rstrip("/") + "/"
    extra = {
        docs + path
        for top in (base, head)
        for key in ("extra_javascript", "extra_css")
        for path in _paths(top.get(key))
    }
    found = []
    for path in changed:
        why = ""
        if path in hooks:
            why = "an MkDocs hook: Python the build runs"
        elif path.startswith(f"{FIGURES}/"):
            why = "a figure module: Python the build imports and runs"
        elif any(path.startswith(folder) for folder in overrides):
            why = "a theme override: it renders every page"
        elif path in extra:
            why = "named in extra_javascript or extra_css: every page loads it in the reader's browser"
        elif path.startswith(docs) and path.lower().endswith(SHIPPED):
            why = "shipped to every reader's browser as is"
        elif path.startswith(probes_dir.rstrip("/") + "/"):
            why = "a probe: `ledger measure` runs it on the measuring machine"
        else:
            why = next((why for pattern, why in INSTALLERS if pattern.search(path)), "")
        if not why and path.endswith(".py"):
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


def _paths(node: yaml.Node | None) -> list[str]:
    """extra_javascript / extra_css entries: a path, or a mapping with `path:` (MkDocs 1.5+)."""
    found = _strings(node)
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                found += [
                    v.value
                    for k, v in item.value
                    if getattr(k, "value", "") == "path" and isinstance(v, yaml.ScalarNode)
                ]
    return [path.lstrip("/") for path in found if "://" not in path]


def _custom_dir(top: dict[str, yaml.Node]) -> str:
    theme = top.get("theme")
    if isinstance(theme, yaml.MappingNode):
        for key, value in theme.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "custom_dir" and isinstance(value, yaml.ScalarNode):
                return value.value
    return ""
