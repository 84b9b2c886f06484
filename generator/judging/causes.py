"""Root causes: every finding -> the finding it follows from, so each cause is shown first with what follows from it. Pure.

One YAML error in a claim file loses every claim the file defines, and each page citing one of them
fails too; one changed probe makes its claims stale, and every claim resting on them (a formula's
input, a borrowed claim's check, a retirement) fails after them. Sorted by file and line, the
consequences can come before their cause. A finding follows from another when:

- it refers to a claim that a broken claim file defines (a page's reference, or a claim naming it as
  an input, check or retirer, reported `invalid`): it follows from that file's finding at or above
  the claim's line;
- it is a consequence rule (CONSEQUENCES: formula-drifted, only-borrowed, contradicted,
  unsupported-refutation) on a claim that names a failing claim: it follows from that claim's own
  cause, climbing the lineage to the first finding that follows from nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..claims.lineage import edges
from ..records import Claim, Finding, PageRef, Source

CONSEQUENCES = frozenset({"formula-drifted", "only-borrowed", "contradicted", "unsupported-refutation"})


def follows(
    findings: Sequence[Finding],
    claims: Iterable[Claim],
    refs: Iterable[PageRef],
    lost: Mapping[str, Source],
) -> dict[Finding, Finding]:
    """Each finding that follows from another -> its root cause (a finding that follows from nothing).

    lost: claim id -> where a claim file that failed to load defines it (its `id:` line)."""
    if not findings:  # a clean ledger, the commonest check: no lineage to walk
        return {}
    failing: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.claim_id and finding.severity == "fail":
            failing.setdefault(finding.claim_id, []).append(finding)
    names: dict[str, list[str]] = {}
    for edge in edges(claims):
        names.setdefault(edge.claim_id, []).append(edge.target_id)
    lost_roots = {claim_id: _file_cause(where, findings) for claim_id, where in lost.items()}
    cited = {ref.where: ref.name for ref in refs if ref.kind == "claim"}

    def upstream(claim_id: str, seen: set[str] | frozenset[str]) -> Finding | None:
        """The finding a consequence on claim_id follows from: its first failing target's own cause (else its
        first finding), skipping the claims in `seen`."""
        for target in names.get(claim_id, ()):
            if target in failing and target not in seen:
                return next((f for f in failing[target] if f.rule not in CONSEQUENCES), failing[target][0])
        return None

    def first_step(finding: Finding) -> Finding | None:
        """A finding's cause where it is not a consequence's climb (None: climb the lineage, or none)."""
        if finding.rule == "unknown-reference" and cited.get(finding.where) in lost_roots:
            return lost_roots[cited[finding.where]] or finding
        if finding.rule == "invalid":
            named = names.get(finding.claim_id, [])
            return next((lost_roots[target] for target in named if lost_roots.get(target)), None) or finding
        if finding.rule not in CONSEQUENCES or finding.severity != "fail":
            return finding
        return None

    def exact(finding: Finding) -> Finding:
        """The climb as a walk that never takes a claim twice (a cycle of claims vouching for each other)."""
        seen: set[str] = set()
        while (cause := first_step(finding)) is None:
            step = upstream(finding.claim_id, seen)
            if step is None:
                return finding
            seen.add(finding.claim_id)
            finding = step
        return cause

    # The climb is a loop, never a recursion: a lineage of thousands of failing claims is one walk each, and
    # each finding's root is found once (a walk stops at a finding whose root is known). A walk that comes
    # back to a claim it took is a cycle: its first finding climbs as `exact` does, and nothing is kept of it.
    known: dict[Finding, Finding] = {}  # roots found on walks without a cycle (a cycle's depend on the walk)
    found = {}
    for finding in findings:
        path: list[Finding] = []
        taken: set[str] = set()
        current, cause = finding, None
        while cause is None:
            cause = known.get(current) or first_step(current)
            if cause is not None:
                break
            step = upstream(current.claim_id, frozenset())
            taken.add(current.claim_id)
            path.append(current)
            if step is None:
                cause = current
            elif step.claim_id in taken:
                path, cause = [], exact(finding)
            else:
                current = step
        known.update(dict.fromkeys(path, cause))
        if cause != finding:
            found[finding] = cause
    return _rooted(found)


def _rooted(found: dict[Finding, Finding]) -> dict[Finding, Finding]:
    """Each finding's cause followed to one that follows from nothing; a finding in a cycle of causes
    (two borrowed claims vouching for each other) is a root itself, so every finding is shown."""
    rooted = {}
    for finding, cause in found.items():
        seen = {finding}
        while cause in found and cause not in seen:
            seen.add(cause)
            cause = found[cause]
        if cause not in seen:
            rooted[finding] = cause
    return rooted


def _file_cause(where: Source, findings: Sequence[Finding]) -> Finding | None:
    """The finding in a broken claim file that lost the claim defined at `where`: the last one at or
    above its line, else the file's first."""
    in_file = [f for f in findings if f.where.path == where.path and f.rule == "invalid"]
    above = [f for f in in_file if f.where.line <= where.line]
    return (above[-1] if above else in_file[0]) if in_file else None


def grouped(findings: Sequence[Finding], causes: Mapping[Finding, Finding]) -> list[tuple[Finding, list[Finding]]]:
    """(cause, what follows from it) in the findings' order, each cause once, every finding once."""
    present = set(findings)
    shown_under = {  # a cause left out, or itself under another: the finding is shown alone
        f: causes[f] for f in findings if causes.get(f) in present and causes[f] not in causes
    }
    following: dict[Finding, list[Finding]] = {}
    for finding, cause in shown_under.items():
        following.setdefault(cause, []).append(finding)
    return [(finding, following.get(finding, [])) for finding in findings if finding not in shown_under]
