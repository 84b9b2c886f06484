"""The commands wing's verbs: arguments -> the gate's Report -> accept, diff or show -> printed output."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone

from .. import text
from ..cli import gate_report
from . import accept, buildcode, diff, difftext, revisions, show


def run_accept(args: argparse.Namespace) -> int:
    report = gate_report(args)
    changes = accept.plan(report, args.ids)
    if not args.dry_run:
        accept.apply(args.root.resolve(), changes, report.by_id)
    for change in changes:
        print(("would change " if args.dry_run else "") + str(change))
    return 0


def run_diff(args: argparse.Namespace) -> int:
    root, now = args.root.resolve(), datetime.now(timezone.utc)
    config = revisions.config_path(root, args.config)
    base = revisions.at_revision(root, args.base, config, now)
    head = (
        revisions.at_revision(root, args.head, config, now)
        if args.head
        else revisions.working_tree(root, gate_report(args), root / config)
    )
    policy = head.report.policy
    changed = revisions.changed_files(root, base.commit, head.commit)
    code = buildcode.build_code(changed, base.config, head.config, config, policy.docs_dir, policy.probes_dir)
    changes = diff.compare(base.report, head.report, base.run_blobs, head.run_blobs, code)
    print((difftext.as_json if args.format == "json" else difftext.as_markdown)(changes, base, head))
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(show.tree(gate_report(args), args.id))
    return 0


def run_measure(args: argparse.Namespace) -> int:
    from ..config import read_policy
    from ..records import Policy
    from . import measure

    root = args.root.resolve()
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    if args.matrix is not None:
        print(json.dumps(measure.matrix(policy.testbeds, args.matrix)))
        return 0
    echo = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    outcomes = measure.measure(root, policy, args.probes, args.profile, args.testbed, echo=echo)
    print(measure.summary(outcomes))
    return 0 if all(outcome.ok for outcome in outcomes) else 1


def run_pages(args: argparse.Namespace) -> int:
    from . import pages

    report = gate_report(args)
    root = args.root.resolve()
    from ..site.markdown_ext import site_settings

    directory_urls, _ = site_settings(args.config or root / "mkdocs.yml")
    written = pages.write(root, report, args.out_dir, directory_urls)
    print(f"wrote {len(written)} files under {args.out_dir} ({text.summary(report)})")
    print(
        "build them with the Markdown extension `generator.site.markdown_ext` and extra_css "
        "assets/ledger/ledger.css, extra_javascript assets/ledger/ledger.js; then `ledger verify-site SITE_DIR`"
    )
    return 0 if report.ok else 1


def run_verify_site(args: argparse.Namespace) -> int:
    from ..cli import find_ledger
    from ..digest import registry as run_registry
    from . import registry, verify_site

    if not args.site_dir.is_dir():
        print(f"ledger verify-site: {args.site_dir} is not a folder", file=sys.stderr)
        return 2
    find_ledger(args)
    report = gate_report(args)
    checked, problems = verify_site.verify(args.site_dir, report)
    lines = [str(problem) for problem in problems]
    if args.against:
        try:
            before, note = registry.published(args.against)
        except registry.Unavailable as error:
            before, note = None, ""
            lines.append(f"--against {args.against}: the published registry cannot be read: {error}")
        if note:
            print(f"note: {note}")
        if before is not None:
            rewritten, notes = registry.differences(before, run_registry(report))
            lines += [f"{line} (a published run was rewritten)" for line in rewritten]
            for line in notes:
                print(f"note: {line}")
    for line in lines:
        print(line)
    if lines:
        pages = {problem.page for problem in problems}
        print(f"{len(lines)} problem{'s' if len(lines) != 1 else ''} ({len(pages)} of {checked} pages)")
        return 1
    print(
        f"{checked} pages verified: every one rendered by the ledger from this ledger's report, with the gate passing"
    )
    return 0
