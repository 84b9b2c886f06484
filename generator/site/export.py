"""The generated pages written as Markdown files, for builders without MkDocs plugin events (`ledger pages`).

Writes the claims index, the claims that fell, the runs index, the gate's report and a page per
claim and run into a folder (the docs folder the other builder reads), with the ledger's assets and
chart images under assets/ledger/: the site assemble() makes, as files, written beside the folder and
swapped in whole (staged.py). The pages' HTML is written
as raw HTML blocks, with braces as entities, so Markdown never reads claim text. When the folder is
not the docs folder, the hand-written pages are copied into it first. References in the hand-written
pages are rendered by the Markdown extension (markdown_ext.py); `ledger verify-site` checks the
built site.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from ..records import LedgerError
from ..runs import link_problem
from . import staged
from .render import Asset, Generated

HEADER = "<!-- written by `ledger pages`: do not edit, it is written again on every run -->\n\n"
_SLOT = re.compile(r"LEDGERSLOT(\d+)X")
_BLOCK = ("<div", "<figure", "<table")
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.DOTALL)


def write(out: Path, docs: Path, generated: Iterable[Generated], assets: Iterable[Asset]) -> list[Path]:
    """The generated pages and the assets (assemble.Site's) under out, the hand-written pages of docs
    copied first when out is another folder; returns the files written. Written into a folder beside out
    (what out holds copied first) and swapped in whole when every file is, so a failure leaves out as it
    was. Nothing is written or copied through a link: a link on the way to a file written, or in docs
    when it is copied, is refused."""
    generated, assets = list(generated), list(assets)
    targets = [out / page.src for page in generated] + [out / asset.path for asset in assets]
    linked = next(filter(None, (link_problem(out, target, str(out)) for target in targets)), "")
    another = out.resolve() != docs.resolve()
    if another and docs.is_dir():
        linked = linked or _linked_inside(docs)
    if linked:
        raise LedgerError(linked)
    new = staged.beside(out)
    try:
        _write_into(new, out, docs if another and docs.is_dir() else None, generated, assets)
        new.swap()
    except BaseException:
        new.abandon()
        raise
    return [out / page.src for page in generated] + [out / asset.path for asset in assets]


def _write_into(
    new: staged.Staged, out: Path, docs: Path | None, generated: list[Generated], assets: list[Asset]
) -> None:
    """Everything write() puts under out, written under the new folder beside it."""
    folder = new.begin()
    if out.is_dir():
        shutil.copytree(out, folder, symlinks=True, dirs_exist_ok=True)  # what was there stays, links as links
    if docs is not None:
        shutil.copytree(docs, folder, dirs_exist_ok=True)
    for page in generated:
        target = folder / page.src
        if target.exists() and not target.read_text(encoding="utf-8", errors="replace").startswith(HEADER):
            raise LedgerError(
                f"{out / page.src} is in the way of a generated page and was not written by `ledger pages`"
            )
        body = _filled(page.markdown, page.slots.fragments)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(HEADER + body, encoding="utf-8")
    for asset in assets:
        target = folder / asset.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if asset.source is not None:
            shutil.copyfile(asset.source, target)
        else:
            target.write_text(asset.content, encoding="utf-8")


def _linked_inside(docs: Path) -> str:
    """Why docs cannot be copied as it is: a link inside it (its target would be copied as a file)."""
    for folder, names, files in os.walk(docs):
        for name in sorted([*names, *files]):
            problem = link_problem(docs, Path(folder) / name, str(docs))
            if problem:
                return problem
    return ""


def _filled(markdown: str, fragments: list[str]) -> str:
    return _SLOT.sub(lambda m: _block(inert(fragments[int(m.group(1))])), markdown)


def _block(fragment: str) -> str:
    """A fragment as a raw HTML block, shaped as the plugin's slots leave it (a block, or a paragraph)."""
    return fragment if fragment.lstrip().startswith(_BLOCK) else f"<p>{fragment}</p>"


def inert(fragment: str) -> str:
    """HTML whose braces are entities (scripts aside), so no builder can read it as a reference."""
    parts = _SCRIPT.split(fragment)
    return "".join(
        part if index % 2 else part.replace("{", "&#123;").replace("}", "&#125;") for index, part in enumerate(parts)
    )
