"""`ledger refresh [--write]`: after a re-run, move measured claims to the newest intact run of the
same probe, testbed and defining parameters; show each value change beyond or within noise.

A run may replace a claim's run when it is newer, intact, measured by today's probe code, on the
claim's testbed, and its parameters match except those that say how hard it measured (NOT_DEFINING:
rounds, warm-up, sample length, stopping rule), and its row and column still exist. A quick-profile
run never replaces a full one (the profile and shapes differ); every newer run passed over is listed
with the parameters that differ. Each move is judged with the gate's statistics (review/noise.py: a rank
test on raw rounds, else disjoint intervals, and beyond the claim's tolerance); a dependent inherits
its moved inputs' verdict.

--write edits each claim in place: the path text on its `run:` line and its value, moved to the new
run's (rounded to the stated precision, as `ledger accept` does), then the extrapolated claims that
rest on them, inputs first, in the same pass; comments and layout are kept. Stated values always
move with their evidence, so a page never shows a stated value, the run's table beside it and the
dependents computed from the run disagreeing (guide/cli.md); a move the gate would fail on keeps its
claim, and every claim citing the same run, where they are (with_their_runs).
"""

from __future__ import annotations

import argparse
import graphlib
import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import attrs

from .. import text
from ..claims import grounding, lineage
from ..gate import check
from ..inputs import load
from ..judging import intervals, replicates
from ..judging.intervals import read_cell
from ..lang import between, formula, yamlread
from ..lang.moves import BEYOND, EXACT_CHANGED, INSUFFICIENT, TOLERANCE, UNCHANGED, UNKNOWN, WITHIN
from ..lang.values import format_pair, format_value
from ..prose import surfaces
from ..records import Claim, ClaimInterval, ClaimVerdict, Policy, Report, Run, Source, refusal
from ..review import noise
from ..review.noise import differences
from ..wording import STATE_WORDS, rounded
from . import accept


@dataclass(frozen=True, slots=True)
class Move:
    claim_id: str
    old_run: str  # "" for an extrapolated claim that follows its inputs
    new_run: str
    old_value: float  # what the old evidence (or formula) computes
    new_value: float
    stated: str  # the value as stated now
    new_stated: str  # "" when the stated value stays (still within tolerance)
    noise: str  # the verdict in words, with the change and its interval (review/noise.py, lang/moves.py)
    state: str = ""  # lang/moves.py's state ("" where not judged as a re-measure: another machine or probe)
    replicates: int = 0  # a claim on one run moved onto the replicate set just measured: `replicates:` to write


@dataclass(frozen=True, slots=True)
class Skipped:
    claim_id: str
    run: str
    why: str


@dataclass(frozen=True, slots=True)
class Plan:
    moves: tuple[Move, ...]
    skipped: tuple[Skipped, ...]


def plan(report: Report, held: Collection[str] = ()) -> Plan:
    """Every move refresh would make, the dependents that follow, and the newer runs passed over.

    The report should hold every run's raw rounds (gate.check with every_run_rounds), so a newer
    run's interval can be judged against the cited one's. held: measured claims kept on their cited
    run (a move the gate would fail on)."""
    moves: list[Move] = []
    skipped: list[Skipped] = []
    moved: dict[str, tuple[float, noise.Noise]] = {}  # claim id -> what its new evidence computes, verdict
    index = intervals.RowIndex()
    sets = replicates.Sets(report.runs)
    for claim in report.claims:
        if claim.kind != "measured" or claim.evidence is None or claim.retired or claim.id in held:
            continue
        found = _newest(claim, report, skipped, index, sets)
        if found is None:
            continue
        current = report.runs[claim.evidence.run]
        cited = report.verdicts[claim.id]  # what the gate decided on the cited run (or set)
        old_value = cited.value if cited.value is not None else claim.value if claim.value is not None else math.nan
        verdict = _judged(report, cited, found, old_value)
        new_stated = _restated(claim, found.value, report)
        moves.append(
            Move(
                claim.id,
                current.path,
                found.run.path,
                old_value,
                found.value,
                _stated(claim),
                new_stated,
                verdict.words,
                verdict.state,
                found.offered,
            )
        )
        moved[claim.id] = (found.value, verdict)  # formulas read evidence values, as the gate does
    moves += _dependents(report, moved)
    return Plan(tuple(moves), tuple(skipped))


@dataclass(frozen=True, slots=True)
class Newer:
    """The run a claim would move to: its value there (pooled over its replicates for a claim citing a set)."""

    run: Run
    value: float
    interval: ClaimInterval | None
    fresh: tuple[replicates.Member, ...]  # the runs of it the cited set does not hold, each with its cell
    exact: bool = False  # its cell is exact (no noise: a move is a change)
    pooled: between.Pooled | None = None  # the new set pooled, when the claim cites a set
    offered: int = 0  # a claim on one run: the replicates newer than its run, pooled (`ledger measure --replicates`)


def _judged(report: Report, cited: ClaimVerdict, found: Newer, old_value: float) -> noise.Noise:
    """Against the cited set when it has one (two runs or more), else the two runs' rounds or intervals
    (review/noise.py); a run of another probe version than the cited one's is another measurement, never judged
    against its runs."""
    replicas = cited.replicas
    allowed = cited.tolerance.allowed(replicas.pooled.value if replicas is not None else old_value)  # of its reference
    assert cited.claim.evidence is not None
    current = report.runs[cited.claim.evidence.run]
    if dict(current.declared_code) != dict(found.run.declared_code):
        return noise.another_probe(current, found.run)
    judged_runs = [*(replicas.runs if replicas is not None else (current.path,)), found.run.path]
    judged_runs += [member.run.path for member in found.fresh]
    loaded = replicates.loaded(judged_runs, report.run_states)  # a run's stability verdict: noise at its source
    if replicas is None or not found.fresh:
        exact = cited.exact and found.exact
        return noise.verdict_of(old_value, cited.interval, found.value, found.interval, allowed, exact, loaded)
    values = [member.value for member in found.fresh if member.value is not None]
    own = replicates.run_value(found.fresh[0]) if len(found.fresh) == 1 else None
    whole = found.pooled if found.pooled is not None and len(found.fresh) == found.pooled.runs > 1 else None
    return noise.against_set(replicas, values, allowed, own, whole, loaded)


def _newest(
    claim: Claim, report: Report, skipped: list[Skipped], index: intervals.RowIndex, sets: replicates.Sets
) -> Newer | None:
    evidence = claim.evidence
    assert evidence is not None
    current = report.runs.get(evidence.run)
    if current is None or current.problem or current.started is None:
        return None
    testbed = claim.testbed or current.testbed
    newer = [
        run
        for run in report.runs.values()
        if run.probe_name == current.probe_name
        and run.testbed == testbed
        and run.started is not None
        and run.started > current.started
    ]
    for run in sorted(newer, key=lambda r: (r.started, r.path), reverse=True):
        state = report.run_state(run.path)
        why = ""
        if not state.trusted:
            why = "not intact: " + "; ".join(state.reasons)
        elif differences(current, run):
            why = "parameters differ: " + "; ".join(differences(current, run))
        elif replicates.machine_changes(current, run):
            why = (
                f"another machine ({'; '.join(replicates.machine_changes(current, run))}): a run on other hardware "
                "never re-measures a claim; give that machine's runs their own testbed name (`ledger measure --testbed`)"
            )
        else:
            found = _value_in(run, claim, report, index, sets)
            if isinstance(found, Newer):
                return found
            why = found
        skipped.append(Skipped(claim.id, run.path, why))
    return None


def _value_in(run: Run, claim: Claim, report: Report, index: intervals.RowIndex, sets: replicates.Sets) -> Newer | str:
    """The claim's value in a newer run (pooled over its replicates when the claim cites a set), or why not."""
    evidence = claim.evidence
    assert evidence is not None
    member = replicates.read_member(run, evidence, index)
    if member.problem or member.value is None:
        table = run.tables.get(evidence.file)
        cell = read_cell(table, evidence)  # the row and cell as the evidence stage reads the cited run's
        if cell.cause in ("unreadable-file", "no-column"):
            return f"no {evidence.file} with columns {', '.join([evidence.column, *(c for c, _ in evidence.where)])}"
        if cell.value is None:
            return f"{len(cell.rows)} rows match where {dict(evidence.where)}, or the cell is not a number"
        return member.problem.removeprefix("replicate ")
    cited = report.verdicts[claim.id].replicas
    held = set(cited.runs) if cited is not None else {evidence.run}
    exact = member.found is not None and member.found.exact
    if not evidence.cites_set:
        current = report.runs[evidence.run]
        since = current.started
        made = [m for m in sets.upto(run) if since is not None and m.started is not None and m.started > since]
        if len(made) >= 2:  # a set measured since (`ledger measure --replicates N`): offer it, pooled
            offered = _value_in(
                run, attrs.evolve(claim, evidence=attrs.evolve(evidence, replicates=len(made))), report, index, sets
            )
            if isinstance(offered, Newer):
                return replace(offered, offered=len(made))
        interval = member.found.interval if member.found is not None else None
        return Newer(run, member.value, interval, (member,) if run.path not in held else (), exact)
    members = sets.upto(run)
    short = replicates.shortfall(members, evidence.replicates)
    if short:
        return short.replace(f"but {run.path} has", f"but {run.name} has")
    chosen = replicates.window(members, evidence.replicates)
    read = [*(replicates.read_member(m, evidence, index) for m in chosen[:-1]), member]
    good = replicates.usable(read, report.run_states)
    shared = replicates.Pools(index).shared([m.run for m in good], evidence) if len(good) > 1 else None
    pooled = replicates.pool_members(good, shared)  # as the gate pools a set: the spread shared where it is
    if pooled is None:
        return "its replicates' cells cannot be read"
    fresh = tuple(m for m in good if m.run.path not in held)
    return Newer(run, pooled.value, replicates.confidence(pooled, good), fresh, exact, pooled)


def _dependents(report: Report, moved: dict[str, tuple[float, noise.Noise]]) -> list[Move]:
    """Extrapolated claims resting on moved ones, recomputed inputs first from what the new evidence
    computes (as the gate evaluates formulas), each restated when its rounded value changes; each
    inherits its moved inputs' noise verdict."""
    values = {c.id: c.value for c in report.claims if c.value is not None}
    values.update({v.id: v.value for v in report.verdicts.values() if v.value is not None})
    values.update({claim_id: value for claim_id, (value, _) in moved.items()})
    verdicts = {claim_id: verdict for claim_id, (_, verdict) in moved.items()}
    order = graphlib.TopologicalSorter({c.id: {t for _, t in c.inputs} for c in report.claims if c.inputs})
    try:
        ids = list(order.static_order())
    except graphlib.CycleError:
        return []  # the gate reports the cycle
    found = []
    for claim_id in ids:
        claim = report.claim(claim_id)
        if (
            claim is None
            or claim.kind != "extrapolated"
            or not claim.formula
            or claim.retired
            or claim_id not in report.verdicts
        ):
            continue
        if not any(target in verdicts for _, target in claim.inputs):
            continue
        inputs = {name: values.get(target) for name, target in claim.inputs}
        bound = {name: report.verdicts[target].unit for name, target in claim.inputs if target in report.verdicts}
        scaled = grounding.scales(claim, report.verdicts[claim_id].unit, bound)  # the result in the claim's unit
        if any(v is None for v in inputs.values()) or scaled is None:
            continue
        try:
            value = formula.evaluate(claim.formula, {k: float(v) for k, v in inputs.items() if v is not None}, scaled)
        except formula.FormulaError:
            continue
        values[claim_id] = value
        verdicts[claim_id] = noise.inherited(verdicts, [target for _, target in claim.inputs])
        new_stated = _restated(claim, value, report)
        if not new_stated:
            continue  # its stated value already reads the new value at its precision
        computed = report.verdicts[claim_id].value
        old = computed if computed is not None else claim.value if claim.value is not None else math.nan
        verdict = verdicts[claim_id]
        found.append(Move(claim_id, "", "", old, value, _stated(claim), new_stated, verdict.words, verdict.state))
    return found


def _restated(claim: Claim, value: float, report: Report) -> str:
    """The new value text at the stated precision, or '' when the stated value already reads it."""
    text = rounded(claim, value, report.policy)
    return "" if claim.value is not None and float(text) == claim.value else text


def _stated(claim: Claim) -> str:
    return claim.value_text or (format_value(claim.value) if claim.value is not None else "(none)")


# -- showing and writing ---------------------------------------------------------------------------


CLAIMS_NAMED = 8  # a skip reason shared by many claims names this many of them


def _skipped_lines(skipped: tuple[Skipped, ...]) -> list[str]:
    """One line per run passed over and why, naming every claim it was passed over for (in order)."""
    claims: dict[tuple[str, str], list[str]] = {}
    for skip in skipped:
        claims.setdefault((skip.run, skip.why), []).append(skip.claim_id)
    lines = []
    for (run, why), ids in claims.items():
        named = ", ".join(ids[:CLAIMS_NAMED]) + (f", … ({len(ids)} claims)" if len(ids) > CLAIMS_NAMED else "")
        lines.append(f"skipped for {named}: {run}: {why}")
    return lines


def as_text(result: Plan, report: Report) -> str:
    """The value changes as a compact table (claim, run, before, after, change and its interval, verdict), then
    the runs passed over, then one summary line."""
    lines = []
    if result.moves:
        lines.append("| claim | run | before | after | stated | verdict |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for move in result.moves:
            verdict = report.verdict(move.claim_id)
            unit = verdict.unit if verdict else None
            run = f"{_name(move.old_run)} → {_name(move.new_run)}" if move.new_run else "(formula)"
            run += f" (set of {move.replicates}: `replicates: {move.replicates}`)" if move.replicates else ""
            old, new = format_pair(move.old_value, move.new_value, unit)
            restated = f"{move.stated} → {move.new_stated}" if move.new_stated else f"{move.stated} kept"
            lines.append(f"| {move.claim_id} | {run} | {old} | {new} | {restated} | {move.noise} |")
    lines += _skipped_lines(result.skipped)
    moved = [m for m in result.moves if m.new_run]
    if not moved:
        lines.append("no claim has a newer intact run with the same probe, testbed and parameters")
    else:
        counts = Counter(m.state for m in moved)
        said = (
            ", ".join(f"{counts[state]} {STATE_WORDS[state]}" for state in STATE_ORDER if counts[state])
            or "none judged"
        )
        lines.append(
            f"{len(moved)} claim(s) move to newer runs ({said}); {len(result.moves) - len(moved)} dependent(s) recomputed"
        )
    return "\n".join(lines)


STATE_ORDER = (BEYOND, EXACT_CHANGED, INSUFFICIENT, WITHIN, TOLERANCE, UNCHANGED, UNKNOWN)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def apply(root: Path, result: Plan, report: Report) -> list[str]:
    """Edit the claim files in place (run paths, then values); returns the files written."""
    by_path: dict[str, list[Move]] = {}
    for move in result.moves:
        claim = report.claim(move.claim_id)
        assert claim is not None
        by_path.setdefault(claim.where.path, []).append(move)
    for path, moves in by_path.items():
        file = root / path
        lines = file.read_bytes().decode("utf-8").splitlines(keepends=True)
        changes = []
        for move in moves:
            claim = report.by_id[move.claim_id]
            if move.new_run:
                _move_run(lines, claim, move, path)
            if move.new_stated:
                line = claim.at("value").line  # the claim's line when it has no `value:` line
                changes.append(accept.Change(claim.id, path, line, claim.value_text, move.new_stated, move.new_value))
        _verify_runs("".join(lines), path, moves)
        accept.write(file, path, lines, changes, report.by_id)
    return sorted(by_path)


def _move_run(lines: list[str], claim: Claim, move: Move, path: str) -> None:
    """Rewrite only the old path's text, on the first line at or after `evidence:` that holds it (and, for a
    set offered, `replicates: N` after it: in the flow mapping, or on a line of its own below `run:`)."""
    start = claim.at("evidence").line - 1
    for index in range(start, min(len(lines), start + 12)):
        if move.old_run in lines[index]:
            new = move.new_run
            line = lines[index]
            if move.replicates and line.lstrip().startswith("run:"):
                indent = line[: len(line) - len(line.lstrip())]
                ending = "\r\n" if line.endswith("\r\n") else "\n"
                lines.insert(index + 1, f"{indent}replicates: {move.replicates}{ending}")
            elif move.replicates:
                new = f"{move.new_run}, replicates: {move.replicates}"
            lines[index] = line.replace(move.old_run, new, 1)
            return
    problem = "evidence.run is not written as plain text"
    raise refusal(Source(path, start + 1), claim.id, "refresh", problem, f"set it to {move.new_run} by hand")


def _verify_runs(content: str, path: str, moves: list[Move]) -> None:
    data = yamlread.parse(content.encode("utf-8"))
    assert isinstance(data, dict)
    runs = {
        item.get("id"): (item.get("evidence") or {}).get("run")
        for item in data["claims"]
        if isinstance(item, dict) and isinstance(item.get("evidence"), dict)
    }
    for move in moves:
        if move.new_run and runs.get(move.claim_id) != move.new_run:
            problem = f"the edit did not read back as {move.new_run}; file unchanged"
            raise refusal(Source(path, 0), move.claim_id, "refresh", problem, f"set it to {move.new_run} by hand")


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--write", action="store_true", help="apply the moves: evidence and values, dependents too")


# -- writing what holds: a move the gate would then fail on is kept on its cited run ----------------


def write_what_holds(
    args: argparse.Namespace, root: Path, report: Report, result: Plan
) -> tuple[Plan, Report, dict[str, str], dict[str, str]]:
    """Write the moves, check the gate, and undo every move that a new failure follows from (the moved
    claim's own, a dependent's, or a claim it checks: an `asserts:` the new run's interval no longer
    supports, a borrowed figure it now contradicts), keeping that claim on its cited run; again until
    the gate fails on nothing refresh did. A claim whose cited run is already stale (probe changed,
    tampered, rewritten, too old) is never kept on it: keeping it there is no safer, so it moves and its new
    failure is said. Returns the plan written, the gate after it and, per claim kept, the finding that kept it,
    and per claim moved off a stale run, the finding it now has."""
    failing_before = {(f.claim_id, f.rule) for f in report.failures}
    surfaces_now = list(_surface_texts(root, report.policy))
    originals = {path: (root / path).read_bytes() for path in [*_claim_files(result, report), *surfaces_now]}
    held: dict[str, str] = {}
    while True:
        if result.moves:
            apply(root, result, report)
        after = check(args.project.root, args.project.policy, datetime.now(timezone.utc))
        planned = surface_plan(root, after)  # as the site displays the values moved, with their new intervals
        if planned:
            write_surfaces(root, planned)
            after = check(args.project.root, args.project.policy, datetime.now(timezone.utc))
        moved = {move.claim_id for move in result.moves if move.new_run}
        caused = _caused_by(after, moved, failing_before)
        stale = {claim_id: why for claim_id, why in caused.items() if not _on_trusted_run(report, claim_id)}
        if len(stale) == len(caused):
            return result, after, held, stale
        for path, content in originals.items():  # undo every move, then write the ones still held good
            accept.replace_file(root / path, content)
        kept = {claim_id: why for claim_id, why in caused.items() if claim_id not in stale}
        held.update(with_their_runs(kept, report, result))
        result = plan(report, held)


def with_their_runs(caused: dict[str, str], report: Report, result: Plan) -> dict[str, str]:
    """The claims to keep on their cited runs: those a new failure follows from, and every other claim the
    plan moves off a run one of them cites (claims that cite one run move together or stay together, so a
    page never shows a figure of one run beside prose of another), each with why it stays."""
    runs: dict[str, str] = {}  # a run a kept claim cites -> that claim
    for claim_id in caused:
        claim = report.by_id.get(claim_id)
        if claim is not None and claim.evidence is not None:
            runs.setdefault(claim.evidence.run, claim_id)
    found = dict(caused)
    for move in result.moves:
        first = runs.get(move.old_run) if move.new_run else None
        if first is not None and move.claim_id not in found:
            found[move.claim_id] = (
                f"it cites {_name(move.old_run)} with {first}, which stays there: claims citing one run move together"
            )
    return found


def _on_trusted_run(report: Report, claim_id: str) -> bool:
    """Whether a measured claim's cited run can still be trusted (intact, its code unchanged, not too old)."""
    claim = report.claim(claim_id)
    return claim is not None and claim.evidence is not None and report.run_state(claim.evidence.run).trusted


def _caused_by(after: Report, moved: set[str], failing_before: set[tuple[str, str]]) -> dict[str, str]:
    """Moved claim id -> the first new failure that follows from its move (on it, or on a claim resting on it)."""
    found: dict[str, str] = {}
    for finding in after.failures:
        if not finding.claim_id or (finding.claim_id, finding.rule) in failing_before:
            continue
        reached = {finding.claim_id} | lineage.upstream_closure(finding.claim_id, after.by_id)
        for claim_id in sorted(reached & moved):
            found.setdefault(claim_id, f"{finding.claim_id}: {finding.rule}: {finding.problem}")
    return found


def _claim_files(result: Plan, report: Report) -> list[str]:
    """The claim files a plan's moves edit."""
    return sorted({report.by_id[move.claim_id].where.path for move in result.moves if move.claim_id in report.by_id})


# -- surfaces: the claims' values standing between markers in README.md and other files ------------


def surface_plan(root: Path, report: Report, result: Plan | None = None) -> list[tuple[str, str, list]]:
    """(surface, its new text, the rewrites) for each surface whose markers' text is not its claim's value
    as the site displays it, with the values the plan's moves state (prose/surfaces.py)."""
    unsure = {f.claim_id for f in report.findings if f.rule == "unit-mismatch"}  # "did you mean …?": asked first
    claims = {claim_id: verdict for claim_id, verdict in report.verdicts.items() if claim_id not in unsure}
    for move in result.moves if result else ():
        if move.new_stated and move.claim_id in claims:
            verdict = claims[move.claim_id]
            restated = attrs.evolve(verdict.claim, value=float(move.new_stated), value_text=move.new_stated)
            claims[move.claim_id] = attrs.evolve(verdict, claim=restated)
    found = []
    for path, before in _surface_texts(root, report.policy).items():
        after, changes = surfaces.rewrite(before, path, claims)
        if changes:
            found.append((path, after, changes))
    return found


def _surface_texts(root: Path, policy: Policy) -> dict[str, str]:
    """Each surface's text (the gate lists the ones it cannot read)."""
    return load.surfaces(root, policy.surfaces, policy.docs_dir, config=policy.config_path)[0]


def write_surfaces(root: Path, planned: list[tuple[str, str, list]]) -> list[str]:
    """Rewrite the text between each surface's markers (every other byte kept); a linked file is refused."""
    for path, _, changes in planned:
        if (root / path).is_symlink():
            problem = f"{path} is a link: refresh writes no file through one"
            raise refusal(changes[0].where, changes[0].claim_id, "refresh", problem, "rewrite the text by hand")
    for path, after, _ in planned:
        before = (root / path).read_bytes().decode("utf-8", errors="replace")
        if after != before:
            accept.replace_file(root / path, after.encode("utf-8"))
    return [path for path, _, _ in planned]


def run_from_args(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    report = check(args.project.root, args.project.policy, datetime.now(timezone.utc), every_run_rounds=True)
    result = plan(report)
    print(as_text(result, report))
    planned = surface_plan(root, report, result)  # the surfaces follow the values the moves state
    for _, _, changes in planned:
        print("\n".join(f"{change}" for change in changes))
    if args.write and (result.moves or planned):
        surfaces_before = [path for path, _, _ in planned]
        result, after, held, stale = write_what_holds(args, root, report, result)
        rewritten = [path for path in surfaces_before if path not in {p for p, _, _ in surface_plan(root, after)}]
        written = list(dict.fromkeys([*_claim_files(result, report), *rewritten]))  # claim files, then surfaces
        print(f"wrote {', '.join(written) or 'nothing'}")
        for claim_id, why in held.items():
            claim = report.claim(claim_id)
            print(f"kept {claim_id} on its cited run ({claim.evidence.run if claim and claim.evidence else ''}): {why}")
        for claim_id, why in stale.items():
            claim = report.claim(claim_id)
            run = claim.evidence.run if claim and claim.evidence else ""
            label = report.run_state(run).label if run else ""
            print(f"moved {claim_id} off its stale run ({run}: {label}), though the gate fails on it now: {why}")
        print(f"ledger check: {text.summary(after)}")
        if held:
            print(f"{len(held)} claim(s) not moved: on the newer run the gate would fail (above); the rest moved")
        return 0 if after.ok and not held else 1
    if result.moves or planned:
        print("run `ledger refresh --write` to apply it")
    return 0
