"""`ledger pages OUT_DIR`: the generated pages as Markdown, for builders without MkDocs plugin events.

Writes the claims index, the claims that fell, the runs index, the gate's report and a page per
claim and run into OUT_DIR (the docs folder the other builder reads), with the ledger's assets and
chart images under assets/ledger/. The pages' HTML is written as raw HTML blocks, with braces as
entities, so Markdown never reads claim text. When OUT_DIR is not the docs folder, the hand-written
pages are copied into it first. References in the hand-written pages are rendered by the Markdown
extension (generator.site.markdown_ext); `ledger verify-site` checks the built site.
"""

from __future__ import annotations

import argparse
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

from .. import text
from ..config import config_file
from ..gate import check_project
from ..records import LedgerError, Report

HEADER = "<!-- written by `ledger pages`: do not edit, it is written again on every run -->\n\n"
_SLOT = re.compile(r"LEDGERSLOT(\d+)X")
_BLOCK = ("<div", "<figure", "<table")


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="the docs folder another builder reads")


def run_from_args(args: argparse.Namespace) -> int:
    from ..site.markdown_ext import site_settings

    root = args.root.resolve()
    report = check_project(root, args.config, datetime.now(timezone.utc))
    directory_urls, _ = site_settings(config_file(root, args.config))
    written = write(root, report, args.out_dir, directory_urls)
    print(f"wrote {len(written)} files under {args.out_dir} ({text.summary(report)})")
    print(
        "build them with the Markdown extension `generator.site.markdown_ext` and extra_css "
        "assets/ledger/ledger.css, extra_javascript assets/ledger/ledger.js; then `ledger verify-site SITE_DIR`"
    )
    return 0 if report.ok else 1


def write(root: Path, report: Report, out: Path, directory_urls: bool) -> list[Path]:
    """Every generated page and asset under out; returns the files written."""
    from ..site import pages

    docs = root / report.policy.docs_dir
    if out.resolve() != docs.resolve() and docs.is_dir():
        shutil.copytree(docs, out, dirs_exist_ok=True)
    written = []
    for page in pages.generate(report, pages.read_sources(root, report), directory_urls):
        target = out / page.src
        if target.exists() and not target.read_text(encoding="utf-8", errors="replace").startswith(HEADER):
            raise LedgerError(f"{target} is in the way of a generated page and was not written by `ledger pages`")
        body = _filled(page.markdown, page.slots.fragments)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(HEADER + body, encoding="utf-8")
        written.append(target)
    return written + assets(root, report, out)


def _filled(markdown: str, fragments: list[str]) -> str:
    from ..site.markdown_ext import inert

    return _SLOT.sub(lambda m: _block(inert(fragments[int(m.group(1))])), markdown)


def _block(fragment: str) -> str:
    """A fragment as a raw HTML block, shaped as the plugin's slots leave it (a block, or a paragraph)."""
    return fragment if fragment.lstrip().startswith(_BLOCK) else f"<p>{fragment}</p>"


def assets(root: Path, report: Report, out: Path) -> list[Path]:
    """ledger.css, ledger.js, charts.js, the registry of runs, and for charts the Vega bundle and each chart's SVG."""
    from ..site import charts, figure_api, markdown_ext, render, stamp, timeline
    from ..site.render import ASSET_FILES as ASSETS
    from ..site.render import CACHE

    folder = out / render.ASSETS
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(ASSETS.iterdir()):
        if path.suffix in (".css", ".js"):
            shutil.copyfile(path, folder / path.name)
            written.append(folder / path.name)
    (out / stamp.REGISTRY).write_text(stamp.registry_json(report), encoding="utf-8")
    written.append(out / stamp.REGISTRY)
    drawn = markdown_ext.draw_figures(root, report)
    specs = {d.figure.id: d.result for d in drawn.values() if d.figure.kind == "chart" and not d.error}
    for figure_id, spec in specs.items():
        target = folder / figure_api.svg_name(figure_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(charts.svg(spec, root / CACHE), encoding="utf-8")
        written.append(target)
    if specs or timeline.any_timeline(report):
        (folder / "vega.js").write_text(charts.bundle(root / CACHE), encoding="utf-8")
        written.append(folder / "vega.js")
    return written
