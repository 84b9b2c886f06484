"""The commands wing's verbs: arguments -> the gate's Report -> accept, diff or show -> printed output."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone

from ..cli import gate_report
from . import accept, diff, difftext, revisions, show


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
        else revisions.Revision("", "", gate_report(args))
    )
    changes = diff.compare(base.report, head.report)
    print((difftext.as_json if args.format == "json" else difftext.as_markdown)(changes, base, head))
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(show.tree(gate_report(args), args.id))
    return 0


def run_measure(args: argparse.Namespace) -> int:
    import sys

    from ..config import read_policy
    from ..records import Policy
    from . import measure

    root = args.root.resolve()
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    echo = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    outcomes = measure.measure(root, policy, args.probes, args.profile, args.testbed, echo=echo)
    print(measure.summary(outcomes))
    return 0 if all(outcome.ok for outcome in outcomes) else 1
