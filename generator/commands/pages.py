"""`ledger pages OUT_DIR`: the generated pages as Markdown, for builders without MkDocs plugin events.

The arguments and the gate; the site wing assembles the site (site/assemble.py) and writes it
(site/export.py).
"""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path

from .. import text
from ..gate import check_project
from ..inputs.config import config_file
from ..records import LedgerError
from ..runs import link_problem


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="the docs folder another builder reads")


def run_from_args(args: argparse.Namespace) -> int:
    from ..site import assemble, export

    root = args.root.resolve()
    linked = link_problem(root, Path(os.path.abspath(args.out_dir)), "OUT_DIR")
    if linked:  # a committed link on the way would take every page written wherever it points
        raise LedgerError(linked)
    report = check_project(root, args.config, datetime.now(timezone.utc))
    site = assemble.assemble(root, report, assemble.settings(config_file(root, args.config)))
    written = export.write(args.out_dir, root / report.policy.docs_dir, site.pages, site.assets())
    print(f"wrote {len(written)} files under {args.out_dir} ({text.summary(report)})")
    print(
        "build them with the Markdown extension `generator.site.markdown_ext` and extra_css "
        "assets/ledger/ledger.css, extra_javascript assets/ledger/ledger.js; then `ledger verify-site SITE_DIR`"
    )
    return 0 if report.ok else 1
