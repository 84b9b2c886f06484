"""The comparison of two reports, behind `ledger diff`, `refresh` and `history`.

The entry point of `ledger diff` is compare_revisions(): the gate on a base revision and on a head (a
revision or the working tree) -> a Review, which difftext.py writes as Markdown or JSON. Below it:
revisions.py (a git revision -> its Report), buildcode.py (the code a change touches), compare.py (two
Reports -> a Diff), renames.py, diffseries.py; refresh judges a move with noise.py, history reads a
claim's stated values across commits with claimlog.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..gate import check
from ..inputs.project import Project
from ..judging.alike import Judged
from . import buildcode, compare, revisions
from .compare import Diff
from .revisions import Revision


@dataclass(frozen=True, slots=True)
class Review:
    """What a reviewer must look at, and the two revisions it compares."""

    diff: Diff
    base: Revision
    head: Revision


def compare_revisions(project: Project, base: str, head: str | None, now: datetime) -> Review:
    """The base revision against the head (the working tree, checked as `ledger check` does, where head
    is None), each side's gate run at `now`. The working tree's configuration is the project's, read
    already; each revision's is read once, from that revision. A run alike at both is read once, and a claim
    whose verdict's inputs are alike at both is judged once (the head's verdict taken at the base: judging/alike.py)."""
    root = project.root
    config_name = revisions.config_path(root, project.config_file)
    judged = Judged()
    if head:
        head_side = revisions.at_revision(root, head, config_name, now, shared=judged)
    else:
        report = check(root, project.policy, now, shared=judged)
        head_side = revisions.working_tree(root, report, revisions.configuration(project.composed))
    base_side = revisions.at_revision(root, base, config_name, now, other=head_side, shared=judged)
    del judged  # the head's verdicts as its evidence stage made them, before checks completed them: let go
    policy = head_side.report.policy
    changed = revisions.changed_files(root, base_side.commit, head_side.commit)
    code = buildcode.build_code(changed, base_side.config, head_side.config, config_name, policy)
    changes = compare.compare(
        base_side.report,
        head_side.report,
        base_side.run_blobs,
        head_side.run_blobs,
        code,
        compare.changed_figures(base_side.figures, head_side.figures),
    )
    return Review(changes, base_side, head_side)
