"""Code that installs or runs: the files a pull request changed and the configuration at both sides, as MkDocs
composes it -> what a reviewer must read as code. Pure.

The site build imports figures/*.py and MkDocs hooks, renders through the theme's overrides, loads
the plugins and Markdown extensions the configuration names, writes its settings into every page (MkDocs'
templates do not escape them), and ships JavaScript, CSS and HTML from the docs folder to every reader's
browser. Any of these can change what a page shows without touching a claim. And before anything runs,
other files decide what is installed and executed: requirements and constraints, pyproject.toml, the
Makefile, the pre-commit config, the GitHub workflows and actions, scripts, and the task runners and CI
files of any other service. So every changed file is code to read unless it is on the list of inert
files (INERT: claims, runs, Markdown and other prose, raster images, licences; guide/review.md keeps the
list), and every setting of the configuration that changed is, unless it is on INERT_SETTINGS. The
configuration is read as MkDocs reads it, with every file it inherits (INHERIT), so a setting moved into an
inherited file is reviewed as one in mkdocs.yml; the ledger plugin's own options are the policy, shown apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

import yaml

from ..inputs import reads
from ..inputs.config import PLUGIN
from ..inputs.load import PAGE_SUFFIXES
from ..inputs.mkdocs_yml import Composed
from ..inputs.reads import FIGURES
from ..records import Policy

# Settings that load code or decide what runs in the build and in a reader's browser: listed first.
CODE_SETTINGS = ("plugins", "markdown_extensions", "hooks", "theme", "extra_javascript", "extra_css")
LOADS_CODE = "loads code into the build or the reader's browser"
# Every other setting MkDocs reads reaches a page (unescaped) or decides what the build reads and writes,
# except these (MkDocs validates a URL; the rest only serve, deploy or log).
INERT_SETTINGS = (
    "site_url", "use_directory_urls", "dev_addr", "watch", "strict", "validation", "remote_branch", "remote_name",
    "exclude_docs", "not_in_nav", "draft_docs",
)  # fmt: skip
A_SETTING = "MkDocs writes it into every page as HTML, or it decides what the build reads and writes"
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
# Files no tool that installs, builds or runs reads as instructions (guide/review.md#inert-files lists them):
# (how a path is matched: by its "suffix" in any case, or its file "name" with any extension, or "exact"ly
# its file name; the names; what they are). Every other changed file is code to read.
INERT = (
    ("suffix", (".md", ".markdown", ".mdown", ".mkdn", ".mkd", ".rst", ".adoc"), "prose"),
    ("suffix", (".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico"), "raster images"),
    ("name", ("LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS"), "licences and notices"),
    ("exact", (".gitignore", ".editorconfig", ".mailmap"), "git's ignore list and mailmap, an editor's settings"),
)
NOT_INERT = "not on the list of inert files (guide/review.md#inert-files): whatever reads it may run it"


def build_code(
    changed: Iterable[str], base: Composed, head: Composed, config_path: str, policy: Policy
) -> list[tuple[str, str]]:
    """(path, why) for every changed file that is not inert, and every setting of the composed configuration
    that changed and is not inert (policy: the head's, for its folders and surfaces)."""
    hooks = set(_strings(head.top.get("hooks"))) | set(_strings(base.top.get("hooks")))
    overrides = [d.strip("/") + "/" for d in (_custom_dir(head.top), _custom_dir(base.top)) if d]
    docs = policy.docs_dir.rstrip("/") + "/"
    extra = {
        docs + path
        for side in (base, head)
        for key in ("extra_javascript", "extra_css")
        for path in _paths(side.top.get(key))
    }
    config_folder = PurePosixPath(config_path).parent
    configuration = {(config_folder / name).as_posix() for side in (base, head) for name in side.files}
    kept = tuple(folder.rstrip("/") + "/" for folder in reads.as_data(policy))
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
        elif path.startswith(policy.probes_dir.rstrip("/") + "/"):
            why = "a probe: `ledger measure` runs it on the measuring machine"
        else:
            why = next((why for pattern, why in INSTALLERS if pattern.search(path)), "")
        if not why and path.endswith(".py"):
            why = "Python a figure or a hook may import"
        if not why and not _inert(path, kept, docs, policy.surfaces, configuration):
            why = NOT_INERT
        if why:
            found.append((path, why))
    return found + _settings(base.top, head.top, config_path)


def _inert(path: str, kept: tuple[str, ...], docs: str, surfaces: Iterable[str], configuration: set[str]) -> bool:
    """Claims and runs (the gate reads them as data), the docs' Markdown and the surfaces (the gate reads their
    prose), the configuration's files (their settings are compared one by one) and the INERT files."""
    if path.startswith(kept) or path in configuration or path in surfaces:
        return True
    if path.startswith(docs) and path.lower().endswith(PAGE_SUFFIXES):
        return True
    name = PurePosixPath(path).name
    for match, names, _ in INERT:
        if match == "suffix" and name.lower().endswith(names):
            return True
        if match == "name" and name.split(".", 1)[0].split("-", 1)[0].upper() in names:
            return True
        if match == "exact" and name in names:
            return True
    return False


def _settings(base: dict[str, yaml.Node], head: dict[str, yaml.Node], config_path: str) -> list[tuple[str, str]]:
    """Each setting of the composed configuration that differs, code settings first; where head inherits it,
    the file it comes from."""
    names = [*CODE_SETTINGS, *sorted((base.keys() | head.keys()) - set(CODE_SETTINGS) - set(INERT_SETTINGS))]
    found = []
    for key in names:
        if _dump(_without_policy(base.get(key))) == _dump(_without_policy(head.get(key))):
            continue
        node = head.get(key) or base.get(key)
        file = node.start_mark.name if node is not None and node.start_mark is not None else ""
        inherited = f" (from {file})" if file and file != PurePosixPath(config_path).name else ""
        found.append((f"{config_path}: {key}{inherited}", LOADS_CODE if key in CODE_SETTINGS else A_SETTING))
    return found


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
