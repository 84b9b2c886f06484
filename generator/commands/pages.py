"""`ledger pages OUT_DIR`: the generated pages as Markdown, for builders without MkDocs plugin events.

The arguments and the gate; the site wing assembles the site (site/assemble.py) and writes it
(site/export.py), beside OUT_DIR and swapped in whole: a figure that cannot be drawn writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from .. import text
from ..gate import check
from ..records import LedgerError
from ..runs import link_problem


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="the docs folder another builder reads")


def run_from_args(args: argparse.Namespace) -> int:
    from ..site import assemble, export

    project = args.project  # composed once, by the entry point
    root = project.root
    out = Path(os.path.abspath(args.out_dir))
    linked = link_problem(root, out, "OUT_DIR")
    if linked:  # a committed link on the way would take every page written wherever it points
        raise LedgerError(linked)
    if root.is_relative_to(out):  # replaced whole, it would take the project with it
        raise LedgerError(f"OUT_DIR {args.out_dir} holds the project; name a folder of its own (e.g. built-docs)")
    report = check(root, project.policy, datetime.now(timezone.utc), every_table=True)  # run pages show them
    docs = root / report.policy.docs_dir
    if out != docs and out.is_relative_to(docs):
        raise LedgerError(
            f"OUT_DIR {args.out_dir} is inside the docs folder, which is copied into it; name a folder beside it"
        )
    site = assemble.assemble(root, report, assemble.Settings(*project.urls))
    if site.problems:  # as the plugin stops the build: nothing is written, OUT_DIR stays as it was
        print("\n".join(site.problems), file=sys.stderr)
        count = len(site.problems)
        print(f"wrote nothing: {count} figure problem{'s' if count != 1 else ''} ({text.summary(report)})")
        return 1
    written = export.write(args.out_dir, docs, site.pages, site.assets() + site.for_machines())
    print(f"wrote {len(written)} files under {args.out_dir} ({text.summary(report)})")
    print(
        "build them with the Markdown extension `generator.site.markdown_ext` and extra_css "
        "assets/ledger/ledger.css, extra_javascript assets/ledger/ledger.js; then `ledger verify-site SITE_DIR`"
    )
    return 0 if report.ok else 1
