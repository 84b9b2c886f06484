"""mkdocs.yml, its one reader: the file -> its top-level nodes -> what the ledger reads besides the plugin's options.

Every reader of mkdocs.yml goes through read() (or nodes() for a revision's text): the policy
(config.py), whether a folder holds a ledger (project.py), the site's URL settings (the site
assembly), the Markdown extensions pages are rendered with (for the prose scan, rendered.py), the
texts MkDocs shows on every page (site name, description, author, copyright, navigation titles,
theme and extra strings, each with its line and column) and the build settings a review compares
(review/buildcode.py). Composed only: mkdocs.yml's tags never run.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from .bounded import Unreadable, read_capped

MAX_CONFIG_BYTES = 1 << 20

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


def nodes(text: str) -> dict[str, yaml.Node] | None:
    """The top-level nodes by key, composed only; None when the top is not a mapping. Raises Malformed."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise Malformed(f"malformed YAML: {error}") from None
    except RecursionError:
        raise Malformed("nested too deeply to read; flatten it") from None
    if not isinstance(node, yaml.MappingNode):
        return None
    return {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def read(config_file: Path) -> dict[str, yaml.Node] | None:
    """mkdocs.yml's top-level nodes (None when the top is not a mapping). Raises Malformed."""
    return nodes(text_of(config_file))


def read_site(config_file: Path, text: str | None = None) -> dict:
    """The Policy fields read from the rest of mkdocs.yml (for the plugin, which gets options from MkDocs);
    text: the file's text, when the caller has read it already."""
    try:
        top = nodes(text_of(config_file) if text is None else text) or {}
    except Malformed:
        return {"config_path": config_file.name}
    return site_settings(top, config_file.name)


def site_settings(top: dict, name: str) -> dict:
    """config_path, markdown_extensions and site_texts from mkdocs.yml's top-level nodes."""
    texts: list[tuple[int, int, str]] = []
    for key in SITE_TEXT_KEYS:
        if key in top:
            _texts(top[key], texts, titles_only=key == "nav")
    return {
        "config_path": name,
        "markdown_extensions": _extensions(top.get("markdown_extensions")),
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
            found.append((node.start_mark.line + 1, node.start_mark.column + quoted, node.value))
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
