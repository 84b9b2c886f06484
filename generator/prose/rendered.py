"""Rendered text: a page's Markdown -> its HTML (Python-Markdown, the project's extensions) -> the
text a reader sees.

visible() reads HTML as a reader does (reader.py): entities decoded, inline markup joined (3.<em>7</em>×
reads 3.7×), blocks apart, the attributes a reader is shown (title, alt, aria-label, placeholder, a
text field's value), the documents embedded in attributes, the strings of scripts and styles (which
can write text into the page), and typeset math read too; code, pre, comments and an author's <span
class="ledger-label"> are not prose. The site build passes skip_ledger=True for final pages, whose
ledger-* elements are the ledger's own output.

render() loads Python-Markdown and the declared extensions on first use, so `ledger check` on a
ledger without pages never imports them. Only Python-Markdown's own extensions and pymdownx's are
loaded (names from mkdocs.yml are never imported otherwise); options that name Python objects are
dropped, snippets read only under the project, and nothing is downloaded. A page that takes longer
than its budget to render raises RenderTimeout (where a timer can interrupt it: the main thread).
"""

from __future__ import annotations

import json
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import reader

# MkDocs always adds these to the project's own list.
MKDOCS_BUILTINS = ("toc", "tables", "fenced_code")
_BUILTIN_NAMES = {
    "abbr", "admonition", "attr_list", "def_list", "fenced_code", "footnotes", "md_in_html", "meta", "nl2br",
    "sane_lists", "smarty", "tables", "toc", "wikilinks", "codehilite", "legacy_attrs", "legacy_em", "extra",
}  # fmt: skip
LABEL = reader.LABEL


class RenderTimeout(Exception):
    """Rendering a page took longer than its budget."""


def visible(html: str, skip_ledger: bool = False) -> str:
    """The text of an HTML page or fragment as a reader sees it (reader.py reads it)."""
    return reader.visible(html, skip_ledger)


# -- Markdown ---------------------------------------------------------------------------------------


def extension_list(declared: tuple[tuple[str, str], ...], root: Path) -> tuple[list[str], dict[str, dict]]:
    """(names, configs) for Python-Markdown: MkDocs' built-ins, then the declared ones it is safe to load."""
    names = list(MKDOCS_BUILTINS)
    configs: dict[str, dict] = {}
    for name, options in declared:
        if not loadable(name):
            continue
        config = json.loads(options) if options else {}
        if name.rsplit(".", 1)[-1] == "snippets" and name.startswith("pymdownx"):
            config = _contained_snippets(config, root)
        if name not in names:
            names.append(name)
        if config:
            configs[name] = config
    return names, configs


def loadable(name: str) -> bool:
    """Python-Markdown's own extensions and pymdownx's: installed code, never the project's."""
    return (
        name in _BUILTIN_NAMES
        or re.fullmatch(r"markdown\.extensions\.[a-z_]+", name) is not None
        or re.fullmatch(r"pymdownx\.[a-z_]+", name) is not None
    )


def _contained_snippets(config: dict, root: Path) -> dict:
    """Snippets under the project only, never downloaded (MkDocs runs from the project's folder)."""
    bases = config.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else ["."]
    return {
        **config,
        "base_path": [str(root / str(base)) for base in bases],
        "restrict_base_path": True,
        "url_download": False,
        "check_paths": False,
    }


_MARKDOWN: dict[str, object] = {}  # one Markdown per extension set, reset between pages


def render(text: str, names: list[str], configs: dict[str, dict]) -> str:
    """A page's Markdown as Python-Markdown renders it with these extensions (those that load here)."""
    import markdown

    key = json.dumps([names, configs], sort_keys=True, default=str)
    md = _MARKDOWN.pop(key, None)
    if md is None:
        loaded = []
        for name in names:
            try:
                markdown.Markdown(extensions=[name], extension_configs={name: configs.get(name, {})})
                loaded.append(name)
            except Exception:  # not installed here, or options it refuses: the site build says so
                continue
        md = markdown.Markdown(extensions=loaded, extension_configs={k: v for k, v in configs.items() if k in loaded})
    assert isinstance(md, markdown.Markdown)
    html = md.reset().convert(text)
    _MARKDOWN[key] = md  # kept only after a conversion that finished (a timeout may leave it half-way)
    return html


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise RenderTimeout in the block after `seconds` (on the main thread; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise RenderTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
