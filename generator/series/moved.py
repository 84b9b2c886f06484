"""moved-since-cited: claims + their Series + the pages' claim references -> findings. Pure.

A measured claim's series moved since the run it cites when a step beyond noise and beyond its
tolerance lies after that run, in its segment, and the newest level still differs from the cited one, or
when the newest run after a change of environment differs from it (series/stage.py decides it once; the
finding says both the move and the change). The finding names every page sentence that cites the claim, and the
two ways out: `ledger refresh --write` to the newer run, or `kept:` (the newest run reviewed, and
why the page keeps the cited run), after which only a step at a later run fires again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..lang import moves
from ..lang.values import format_pair
from ..points import DETECTOR, PREDICTED, Series
from ..records import Claim, ClaimVerdict, Finding, PageRef, Policy
from ..wording import judged_text

RULE = "moved-since-cited"
INSUFFICIENT = "insufficient-data"


def findings(verdicts: Mapping[str, ClaimVerdict], refs: Iterable[PageRef], policy: Policy) -> list[Finding]:
    """A finding per claim whose series moved since its cited (or kept) run, naming the page references to it."""
    cited_on: dict[str, list[PageRef]] = {}
    for ref in refs:
        if ref.kind == "claim":
            cited_on.setdefault(ref.name, []).append(ref)
    return [
        _moved(verdict, line, cited_on.get(verdict.id, []), policy)
        for verdict, line in _judged(verdicts)
        if line.moved is not None
    ]


def insufficient(verdicts: Mapping[str, ClaimVerdict], policy: Policy) -> list[Finding]:
    """insufficient-data for each claim whose newest run, judged against its cited set or run, could not have shown a
    change of its tolerance and did not move: with the policy's severity, 'note' by default (`ledger check` shows
    notes beside its findings; the gate keeps only a warning or a failure among them)."""
    severity = policy.severity(INSUFFICIENT)
    return [
        _insufficient(verdict, line, severity)
        for verdict, line in _judged(verdicts)
        if line.moved is None and line.judged is not None and line.judged.state == moves.INSUFFICIENT
    ]


def _insufficient(verdict: ClaimVerdict, line: Series, severity: str) -> Finding:
    claim, judged = verdict.claim, line.judged
    assert judged is not None and claim.evidence is not None
    newest = _name(line.points[line.judged_at].run)
    against = "its cited set" if verdict.replicas is not None and line.kept < 0 else "its cited run"
    against = "its kept run" if line.kept >= 0 else against
    problem = f"re-measured by run {newest}, judged against {against}: {judged_text(judged)}"
    probe = claim.evidence.run.split("/")[1] if claim.evidence.run.count("/") == 2 else "PROBE"
    count = judged.needed or 3
    fixes = {
        moves.FEW_REPLICATES: f"measure {count} replicates (`ledger measure {probe} --replicates {count}`) and cite them "
        f"(`replicates: {count}`)",
        moves.ONE_RUN: f"measure replicates (`ledger measure {probe} --replicates 3`) and cite them (`replicates: 3`)",
        moves.WANDERING: f"measure it again (`ledger measure {probe}`), or on a quieter machine",
    }
    fix = fixes.get(judged.cause, "measure on a quieter machine") + "; or state a tolerance the prose can live with"
    return Finding(claim.at("evidence"), claim.id, INSUFFICIENT, problem, fix, severity=severity)


def stray_kept(verdicts: Mapping[str, ClaimVerdict]) -> list[Finding]:
    """`invalid` for a `kept` that names no run after the cited one in the claim's series."""
    return [
        _stray_kept(verdict.claim, line)
        for verdict, line in _judged(verdicts)
        if verdict.claim.kept_through and line.kept < 0
    ]


def _judged(verdicts: Mapping[str, ClaimVerdict]) -> list[tuple[ClaimVerdict, Series]]:
    """Each claim (the first of an id) with its series, where its cited run is a point of it."""
    return [
        (verdict, verdict.series)
        for verdict in verdicts.values()
        if verdict.series is not None and verdict.series.cited >= 0
    ]


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _set(verdict: ClaimVerdict) -> tuple[str, ...]:
    return verdict.replicas.runs if verdict.replicas is not None else ()


def _moved(verdict: ClaimVerdict, line: Series, refs: list[PageRef], policy: Policy) -> Finding:
    claim, moved = verdict.claim, line.moved
    assert moved is not None
    points = line.points
    cited, newest = points[line.cited], points[line.reach(line.cited)[-1]]
    before, after = format_pair(moved.before, moved.after, verdict.unit)
    change = f" ({(moved.after - moved.before) / abs(moved.before):+.1%})" if moved.before else ""
    p = f" p = {moved.p:.2g}" if moved.p is not None else ""
    reference = max(line.cited, line.kept)
    changed = line.changes_after(reference, moved.index)  # a change of environment explains the move; it stays one
    if changed:
        how = f"{moved.test}{p}, {'kept' if line.kept >= 0 else 'cited'} run against the newest"
        level = f"the newest run {_name(newest.run)} reads {after}{change}, against {before}"
        said = "; ".join(f"from run {_name(points[b.index].run)}: {', '.join(b.changes)}" for b in changed)
        how += f"; the environment changed {said}"
    elif line.method == DETECTOR:
        how = f"E-divisive means over {len(line.segment(line.cited))} runs, {moved.test}{p}"
        level = f"its level {before} moved to {after}{change} from run {_name(points[moved.index].run)} on"
    elif line.method == PREDICTED:
        how = f"outside the {moved.test} of the cited run's {len(_set(verdict))} replicate runs"
        level = f"the newest run {_name(newest.run)} reads {after}{change}, against their pooled {before}"
    else:
        how = f"{moved.test}{p}, {'kept' if line.kept >= 0 else 'cited'} run against the newest"
        level = f"the newest run {_name(newest.run)} reads {after}{change}, against {before}"
    reviewed = f", kept through run {_name(points[line.kept].run)}," if line.kept >= 0 else ""
    problem = f"cited run {_name(cited.run)}{reviewed} is behind its series: {level} ({how})"
    sentences = ", ".join(str(ref.where) for ref in refs)
    detail = f"cited on {sentences}" if refs else "no page cites it"
    fix = (
        f"`ledger refresh --write` moves it to the newest run ({_name(newest.run)}); or keep the cited run and say "
        f"why: `kept: {{through: {newest.run}, why: ...}}`"
    )
    return Finding(claim.at("evidence"), claim.id, RULE, problem, fix, detail, policy.severity(RULE))


def _stray_kept(claim: Claim, line: Series) -> Finding:
    later = [line.points[i].run for i in line.reach(line.cited) if i > line.cited]
    fix = f"name the newest run you reviewed: `through: {later[-1]}`" if later else "remove `kept` (no run is newer)"
    return Finding(
        claim.at("kept"),
        claim.id,
        "invalid",
        f"kept.through {claim.kept_through} is not a run after the cited one in this claim's series "
        "(same probe, testbed, defining parameters and segment, or a later one after a change of environment)",
        fix,
    )
