"""mkdocs.yml, its one reader: the file and the files it inherits -> its top-level nodes, as MkDocs composes them
-> what the ledger reads besides the plugin's options.

Every reader of mkdocs.yml goes through composed() (nodes() reads one text alone: `ledger init --adopt`
edits the file itself), once per verb (project.py: the entry point composes it and hands the Project down;
the plugin once per build; each revision `ledger diff` reads once): the policy (config.py), whether a
folder holds a ledger (project.py), the site's URL settings (the site assembly, verify-site), the Markdown
extensions pages are rendered with (for the prose scan, rendered.py), the texts MkDocs shows on every page
(site name, description, author, copyright, navigation titles, theme and extra strings, each with its
file, line and column) and the build settings a review compares (review/buildcode.py). As MkDocs does
(mkdocs/utils/yaml.py), a file's `INHERIT: PATH` (relative to that file) names a parent, read first and
merged under it: a mapping merged key by key, any other value replaced. Every node keeps the file it came from (its mark's name, relative to mkdocs.yml's
folder). Composed only: the files' tags never run.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from .bounded import Unreadable, read_capped

MAX_CONFIG_BYTES = 1 << 20
MAX_INHERITED = 16  # files one configuration inherits, one from the next (MkDocs sets no limit; a loop has none)
INHERIT = "INHERIT"

# What MkDocs shows on every page from mkdocs.yml: scanned for typed figures like page prose.
SITE_TEXT_KEYS = ("site_name", "site_description", "site_author", "copyright", "nav", "theme", "extra")


class Malformed(ValueError):
    """mkdocs.yml cannot be read: not a regular file, too big, malformed YAML or nested too deeply."""


def text_of(config_file: Path) -> str:
    """The file's text, capped (a FIFO or a huge file is refused, never read). Raises Malformed."""
    try:
        return read_capped(config_file, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except Unreadable as problem:
        raise Malformed(str(problem)) from None


def nodes(text: str, name: str = "mkdocs.yml") -> dict[str, yaml.Node] | None:
    """One file's top-level nodes by key, composed only, each marked with `name`; None when the top is not
    a mapping. Raises Malformed."""
    node = _document(text, name)
    if not isinstance(node, yaml.MappingNode):
        return None
    return {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def _document(text: str, name: str) -> yaml.Node | None:
    try:  # the reader refuses a control character as it is made
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as error:
        raise Malformed(f"malformed YAML: {error}") from None
    loader.name = name  # every mark (a node's file, line and column) names the file it is in
    try:
        return loader.get_single_node()
    except yaml.YAMLError as error:
        raise Malformed(f"malformed YAML: {error}") from None
    except RecursionError:
        raise Malformed("nested too deeply to read; flatten it") from None
    finally:
        loader.dispose()


@dataclass(frozen=True, slots=True)
class Composed:
    """A configuration as MkDocs composes it: the top-level nodes, and the files read, the config first."""

    top: dict[str, yaml.Node]
    files: tuple[str, ...]  # relative to the config's folder, as its marks name them: ("mkdocs.yml", "base.yml")
    texts: tuple[str, ...]  # each file's text, in the same order


def composed(config_file: Path) -> Composed | None:
    """The configuration with every file it inherits merged in, as MkDocs merges them (None when its top is
    not a mapping). Raises Malformed: a file that cannot be read, a loop of INHERITs, too many of them."""
    folder = config_file.parent
    files: list[str] = []
    texts: list[str] = []
    chain: list[dict[str, yaml.Node]] = []
    path, named_at = config_file, ""
    while True:
        name = Path(os.path.relpath(path, folder)).as_posix()
        if name in files:
            raise Malformed(f"INHERIT loops: {' -> '.join([*files, name])}")
        if len(files) > MAX_INHERITED:
            raise Malformed(f"INHERIT chains more than {MAX_INHERITED} files: {' -> '.join(files)}")
        try:
            text = text_of(path)
            top = nodes(text, name)
        except Malformed as problem:  # the config's own named by the caller; an inherited one by its INHERIT
            if not files:
                raise
            raise Malformed(f"{named_at}: INHERIT {name}: {problem}") from None
        if top is None:
            if not files:
                return None
            raise Malformed(f"{named_at}: INHERIT {name}: expected a mapping at the top level")
        files.append(name)
        texts.append(text)
        parent = top.pop(INHERIT, None)
        chain.append(top)
        if parent is None:
            break
        named_at = f"{name}:{parent.start_mark.line + 1}"
        if not isinstance(parent, yaml.ScalarNode):
            raise Malformed(f"{named_at}: INHERIT must name a file (a path relative to {name})")
        path = Path(os.path.normpath(path.parent / parent.value))
    merged: dict[str, yaml.Node] = {}
    for top in reversed(chain):  # the furthest parent first, each child merged over it
        merged = _merged(merged, top)
    return Composed(merged, tuple(files), tuple(texts))


def _merged(parent: dict[str, yaml.Node], child: dict[str, yaml.Node]) -> dict[str, yaml.Node]:
    """mergedeep's REPLACE strategy, which MkDocs uses: a mapping in both merged key by key, else the child's."""
    found = dict(parent)
    for key, node in child.items():
        under = found.get(key)
        if isinstance(under, yaml.MappingNode) and isinstance(node, yaml.MappingNode):
            inner = _merged(_keyed(under), _keyed(node))
            node = yaml.MappingNode(node.tag, list(_unkeyed(inner, under, node)), node.start_mark, node.end_mark)
        found[key] = node
    return found


def _keyed(node: yaml.MappingNode) -> dict[str, yaml.Node]:
    return {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def _unkeyed(inner: dict[str, yaml.Node], *sides: yaml.MappingNode):
    """(key node, value node) pairs for a merged mapping, each key node from the side that gave its value."""
    keys = {key.value: key for side in sides for key, _ in side.value if isinstance(key, yaml.ScalarNode)}
    return ((keys[name], value) for name, value in inner.items())


def site_settings(found: Composed | None, name: str) -> dict:
    """config_path, config_files, markdown_extensions and site_texts from a composed configuration (the
    plugin, which gets its options from MkDocs, reads the rest here; None: unreadable, config_path alone)."""
    if found is None:
        return {"config_path": name}
    texts: list[tuple[str, int, int, str]] = []
    for key in SITE_TEXT_KEYS:
        if key in found.top:
            _texts(found.top[key], texts, titles_only=key == "nav")
    folder = Path(name).parent
    return {
        "config_path": name,
        "config_files": tuple((folder / file).as_posix() for file in found.files),
        "markdown_extensions": _extensions(found.top.get("markdown_extensions")),
        "site_texts": tuple(texts),
    }


def urls(top: dict) -> tuple[bool, str]:
    """(use_directory_urls, the path of site_url ending in /) from the top-level nodes (MkDocs' defaults: True, /)."""
    scalars = {key: value.value for key, value in top.items() if isinstance(value, yaml.ScalarNode)}
    directory_urls = str(scalars.get("use_directory_urls", "true")).lower() not in ("false", "no", "off")
    path = urlsplit(str(scalars.get("site_url") or "/")).path or "/"
    return directory_urls, path if path.endswith("/") else path + "/"


def _texts(node: yaml.Node, found: list, titles_only: bool, depth: int = 0) -> None:
    """Every text scalar under node (for nav, only the titles: mapping keys), with its line and column."""
    if depth > 32:
        return
    if isinstance(node, yaml.ScalarNode):
        if not titles_only and node.tag == "tag:yaml.org,2002:str" and node.value:
            quoted = 1 if node.style in ("'", '"') else 0
            found.append((node.start_mark.name, node.start_mark.line + 1, node.start_mark.column + quoted, node.value))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _texts(item, found, titles_only, depth + 1)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if titles_only:
                _texts(key, found, False, depth + 1)
            _texts(value, found, titles_only, depth + 1)


def _extensions(node: yaml.Node | None) -> tuple[tuple[str, str], ...]:
    """markdown_extensions as (name, options as JSON); options that name Python objects are dropped."""
    entries: list[tuple[yaml.Node, yaml.Node | None]] = []
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                entries.append((item, None))
            elif isinstance(item, yaml.MappingNode):
                entries += item.value
    elif isinstance(node, yaml.MappingNode):
        entries = list(node.value)
    found = []
    for key, value in entries:
        if not isinstance(key, yaml.ScalarNode):
            continue
        options = _plain(value) if value is not None else None
        found.append((key.value, json.dumps(options if isinstance(options, dict) else {}, sort_keys=True)))
    return tuple(found)


def _plain(node: yaml.Node, depth: int = 0) -> object:
    """A node's value built from YAML's own scalar types only; anything tagged otherwise is None."""
    if depth > 32:
        return None
    if isinstance(node, yaml.MappingNode):
        built = {}
        for key, value in node.value:
            plain = _plain(value, depth + 1)
            if isinstance(key, yaml.ScalarNode) and plain is not None:
                built[key.value] = plain
        return built
    if isinstance(node, yaml.SequenceNode):
        return [item for item in (_plain(v, depth + 1) for v in node.value) if item is not None]
    if isinstance(node, yaml.ScalarNode) and node.tag.startswith("tag:yaml.org,2002:"):
        try:
            return yaml.constructor.SafeConstructor().construct_object(node)
        except (yaml.YAMLError, ValueError):
            return None
    return None
