"""Diff stage: two gate Reports (base and head revision) -> a Diff: what a reviewer must look at. Pure.

compare() takes the gate's Report on each revision (revisions.py reads them from git) and returns a
Diff: claims added, removed, renamed and changed, and the flags a reviewer must read first.
difftext.py shows a Diff as Markdown or JSON; commands/diff.py is the verb, `ledger diff`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .. import text
from ..claims import lineage
from ..claims.kinds import KIND
from ..inputs.config import shown_settings, weakened
from ..lang import moves
from ..lang.moves import Judged
from ..lang.relations import SHOWN
from ..lang.values import allowed_text, within
from ..records import Claim, Policy, Report
from ..rules import STALE_RULES
from ..trust.verdicts import commit_text
from ..wording import stated
from . import noise
from .diffseries import NewPoint, new_points
from .noise import defining
from .renames import find_renames, renamed_references

__all__ = ["find_renames"]  # tests and the diff's readers import it from here

# Flag -> title, in the order a reviewer reads them.
FLAGS = {
    "run-rewritten": "run rewritten",  # first: a committed run's bytes changed (the claim column names the run)
    "run-refused": "run refused",  # a run the head adds that the gate refuses: a copy, tampered, redeclared, ...
    "run-unit-changed": "column unit changed",  # a run the head adds declares a column in another unit than before
    "policy-weakened": "policy weakened",  # a gate setting now passes what failed (the claim column names it)
    "kind-downgrade": "kind downgraded",
    "new-borrowed": "new borrowed claim",
    "rests-on-borrowed": "rests on borrowed figures",
    "value-moved": "value moved",
    "unit-changed": "unit changed",  # a value change: the same number in another unit is another quantity
    "tolerance-loosened": "tolerance loosened",
    "evidence-swapped": "evidence swapped",
    "became-stale": "became stale",
    "retired": "retired",
    "un-retired": "un-retired",
}
COLUMNS = ("value", "kind", "status", "testbed", "evidence", "freshness")  # the tables' columns
DETAILS = (
    "statement", "row", "inputs", "source", "checked by", "states", "retired by", "tolerance", "asserts", "note"
)  # fmt: skip
FIELDS = (*COLUMNS, *DETAILS)


@dataclass(frozen=True, slots=True)
class Flag:
    flag: str  # a key of FLAGS
    claim_id: str
    message: str
    judged: Judged | None = None  # the move's judgement (lang/moves.py), where the message words one


@dataclass(frozen=True, slots=True)
class ClaimChange:
    change: str  # added | removed | renamed | changed
    claim_id: str  # the id at head (at base for a removed claim)
    old_id: str = ""  # the id at base; differs from claim_id when renamed
    old: dict[str, str] = field(default_factory=dict)  # shown fields at base; {} when added
    new: dict[str, str] = field(default_factory=dict)  # shown fields at head; {} when removed
    changed_fields: tuple[str, ...] = ()  # the shown fields that differ (of a claim at both revisions)


@dataclass(frozen=True, slots=True)
class Diff:
    flags: tuple[Flag, ...]
    changes: tuple[ClaimChange, ...]
    runs_added: tuple[str, ...]
    runs_removed: tuple[str, ...]
    base_summary: str  # the gate's one-line summary at each revision
    head_summary: str
    policy: tuple[tuple[str, str, str], ...] = ()  # (setting, at base, at head) for each that changed
    within_noise: tuple[Flag, ...] = ()  # values that moved beyond tolerance but within noise (noise.py)
    remeasured: tuple[Flag, ...] = ()  # runs replaced by a run of the same probe, testbed and parameters
    insufficient: tuple[Flag, ...] = ()  # re-measures whose evidence could not see a change of the tolerance
    build_code: tuple[tuple[str, str], ...] = ()  # (changed file or setting, why it is code to read)
    figures: tuple[tuple[str, str, str, str], ...] = ()  # (surface:line, claim, before, after) for each that changed
    points: tuple[NewPoint, ...] = ()  # each point a claim's series gains, judged (diffseries.py)

    def only(self, change: str) -> list[ClaimChange]:
        return [c for c in self.changes if c.change == change]

    @property
    def edited(self) -> list[ClaimChange]:
        """Claims at both revisions whose shown fields differ (renamed ones too)."""
        return [c for c in self.changes if c.change in ("changed", "renamed") and c.changed_fields]


def compare(
    base: Report,
    head: Report,
    base_runs: Mapping[str, Mapping[str, str]] | None = None,
    head_runs: Mapping[str, Mapping[str, str]] | None = None,
    build_code: Iterable[tuple[str, str]] = (),
    figures: Iterable[tuple[str, str, str, str]] = (),
) -> Diff:
    """Every difference a reviewer needs between the ledger at base and at head, flags first.

    base_runs, head_runs: each run folder's files and their git blob ids at each side; a run the base
    holds whose bytes differ at head is flagged (runs are immutable), whatever its history says.
    """
    old_by_id, new_by_id = base.by_id, head.by_id
    renames = find_renames(old_by_id, new_by_id)
    # Base claims keyed by their head id, naming other claims by their head ids too.
    old_as_new = (
        {renames.get(i, i): renamed_references(c, renames) for i, c in old_by_id.items()} if renames else old_by_id
    )
    flags: list[Flag] = []
    quiet: list[Flag] = []
    insufficient: list[Flag] = []
    remeasured: list[Flag] = []
    changes: list[ClaimChange] = []
    verdicts = noise.review(old_as_new, new_by_id, base, head)
    for new_id, new in new_by_id.items():
        old = old_as_new.get(new_id)
        flags += _flags(old, new, base, head, old_as_new, new_by_id)
        moved = verdicts[new_id]
        placed = _placed(old, new, base, head, moved) if old else None
        if placed is not None:
            {"flag": flags, "insufficient": insufficient, "quiet": quiet}[placed[0]].append(placed[1])
        again = _remeasured(old, new, base, head, moved) if old else ""
        if again:
            remeasured.append(Flag("re-measured", new_id, again, moved.judged))
        if old is None:
            changes.append(ClaimChange("added", new_id, new=shown(new, head)))
            continue
        before, after = shown(old, base), shown(new, head)
        differ = tuple(name for name in FIELDS if before[name] != after[name])
        if old.id != new_id or differ:  # only the fields that differ are kept: a review of 100,000 claims holds few
            kept_before, kept_after = {name: before[name] for name in differ}, {name: after[name] for name in differ}
            change = "renamed" if old.id != new_id else "changed"
            changes.append(ClaimChange(change, new_id, old.id, kept_before, kept_after, differ))
    for old_id, old in old_by_id.items():
        if old_id not in new_by_id and old_id not in renames:
            changes.append(ClaimChange("removed", old_id, old_id, old=shown(old, base)))
    bytes_changed = changed_runs(base_runs or {}, head_runs or {})
    for path, message in bytes_changed.items():
        flags.append(Flag("run-rewritten", path, message))
    for path, state in sorted(head.run_states.items()):
        if state.rewritten and path not in bytes_changed:
            flags.append(
                Flag(
                    "run-rewritten",
                    path,
                    f"{', '.join(state.rewritten_files)} differ from {commit_text(state.rewritten)}",
                )
            )
    flags += added_runs(base, head)
    for name, why in weakened(base.policy, head.policy):
        flags.append(Flag("policy-weakened", f"{head.policy.config_path}: {name}", why))
    order = list(FLAGS)
    flags.sort(key=lambda f: order.index(f.flag))  # stable: claims keep their order within a flag
    return Diff(
        tuple(flags),
        tuple(changes),
        tuple(sorted(set(head.runs) - set(base.runs))),
        tuple(sorted(set(base.runs) - set(head.runs))),
        text.summary(base),
        text.summary(head),
        _policy_changes(base.policy, head.policy),
        tuple(quiet),
        tuple(remeasured),
        tuple(insufficient),
        tuple(build_code),
        tuple(figures),
        new_points(base, head, _remeasures(old_as_new, new_by_id, base, head, verdicts)),
    )


RUN_FLAGS = ("run-rewritten", "run-refused", "run-unit-changed")  # flags whose claim column names a run


def added_runs(base: Report, head: Report) -> list[Flag]:
    """What a reviewer must see of each run the head adds: the gate refuses it (its reasons: a copy of another
    run's timed data, columns declared otherwise than its code's earlier runs, ...), or it declares a column in
    another unit than the run of its probe before it (a new probe version may; the claims citing it then read
    another quantity)."""
    flags = []
    for path in sorted(set(head.runs) - set(base.runs)):
        state, run = head.run_state(path), head.runs[path]
        if not state.intact:
            flags.append(Flag("run-refused", path, "; ".join(state.reasons)))
        earlier = [
            other
            for other in head.runs.values()
            if other.probe_name == run.probe_name and other.started and run.started and other.started < run.started
        ]
        before = max(earlier, key=lambda other: (other.started, other.path), default=None)
        if before is None:
            continue
        changed = [
            f"{file} column {column} in {now.unit!r}, where {before.name} declares {was.unit!r}"
            for file, columns in sorted(run.columns.items())
            for column, now in sorted(columns.items())
            if (was := before.columns.get(file, {}).get(column)) is not None and was.unit != now.unit
        ]
        if changed:
            flags.append(Flag("run-unit-changed", path, "; ".join(changed)))
    return flags


def changed_figures(
    base: Sequence[tuple[str, int, str, str]], head: Sequence[tuple[str, int, str, str]]
) -> list[tuple[str, str, str, str]]:
    """('README.md:12', claim, before, after) for each claim's value on a surface whose text changed: the n-th
    marker of a claim in a file at base against its n-th at head (a value `ledger refresh --write` rewrote)."""

    def numbered(figures: Sequence[tuple[str, int, str, str]]) -> dict[tuple[str, str, int], tuple[int, str]]:
        seen: dict[tuple[str, str], int] = {}
        found = {}
        for path, line, claim_id, written in figures:
            n = seen[(path, claim_id)] = seen.get((path, claim_id), -1) + 1
            found[(path, claim_id, n)] = (line, written)
        return found

    before, after = numbered(base), numbered(head)
    return [
        (f"{key[0]}:{after[key][0]}", key[1], before[key][1], after[key][1])
        for key in after
        if key in before and before[key][1] != after[key][1]
    ]


def changed_runs(base: Mapping[str, Mapping[str, str]], head: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Run folder -> what differs, for every run the base holds whose files differ at head (a run removed
    whole is listed as removed, not here)."""
    found = {}
    for path, files in sorted(base.items()):
        now = head.get(path)
        if not now:
            continue
        parts = [f"{name} differs" for name in sorted(files) if name in now and now[name] != files[name]]
        parts += [f"{name} is gone" for name in sorted(set(files) - set(now))]
        parts += [f"{name} was added" for name in sorted(set(now) - set(files))]
        if parts:
            found[path] = "; ".join(parts) + " since the base (runs are immutable)"
    return found


def _remeasures(
    old_by_id: Mapping[str, Claim],
    new_by_id: Mapping[str, Claim],
    base: Report,
    head: Report,
    verdicts: Mapping[str, noise.Noise],
) -> dict[str, Judged]:
    """Claim id -> the judgement of its move, for each claim moved to a re-measure of its run (same probe, testbed,
    defining parameters and row): the new point it cites reads as its move does."""
    found = {}
    for claim_id, moved in verdicts.items():
        old, new = old_by_id.get(claim_id), new_by_id.get(claim_id)
        if moved.judged is not None and old is not None and new is not None and _same_measurement(old, new, base, head):
            found[claim_id] = moved.judged
    return found


def _placed(old: Claim, new: Claim, base: Report, head: Report, moved: noise.Noise) -> tuple[str, Flag] | None:
    """Where a claim's move goes: flagged (its stated value moved beyond tolerance, beyond noise or unknown), its
    own list (insufficient data: the evidence could not have seen a change of the tolerance), listed as within
    noise (moved beyond tolerance, within noise), or nowhere (None)."""
    if old.unit != new.unit:
        return None  # the numbers are in different units: the unit-changed flag says how the quantity moved
    # the base's rule: a looser head policy hides no move
    stated_moved = (
        old.value is not None
        and new.value is not None
        and not within(old.value, new.value, base.verdicts[old.id].tolerance)
    )
    if stated_moved and moved.beyond is not False:
        return "flag", Flag("value-moved", new.id, _moved(old, new, base, head, moved), moved.judged)
    if moved.state == moves.INSUFFICIENT:
        said = f"{stated(base.of(old))} → {stated(head.of(new))}"
        return "insufficient", Flag("insufficient-data", new.id, said, moved.judged)
    if stated_moved and moved.beyond is False:
        return "quiet", Flag("value-moved", new.id, _moved(old, new, base, head, moved), moved.judged)
    return None


def _policy_changes(base: Policy, head: Policy) -> tuple[tuple[str, str, str], ...]:
    """Every gate setting in mkdocs.yml that changed (each row of the options table): a looser policy
    passes what failed before."""
    old, new = shown_settings(base), shown_settings(head)
    return tuple((name, old[name], new[name]) for name in old if old[name] != new[name])


def shown(claim: Claim, report: Report) -> dict[str, str]:
    """A claim's fields as a reviewer reads them, at the revision the report describes (nothing joined or looked
    up for a field the claim lacks: a review of 100,000 claims shows each twice)."""
    evidence, source, kind = claim.evidence, claim.source, claim.kind
    if kind == "measured":
        shown_evidence = evidence.run if evidence else ""
    elif kind == "extrapolated":
        shown_evidence = claim.formula
    else:
        shown_evidence = f"source: {source.title}" if source else ""
    testbed = claim.testbed
    if not testbed and evidence:
        run = report.runs.get(evidence.run)
        testbed = run.testbed if run else ""
    verdict = report.of(claim)
    checks = ""
    if claim.checks:
        results = {result.claim_id: result for result in verdict.checks}
        checks = ", ".join(_check_text(spec, results.get(spec.claim_id)) for spec in claim.checks)
    return {
        "value": stated(verdict) or "—",
        "kind": kind,
        "status": claim.status,
        "testbed": testbed or "—",
        "evidence": shown_evidence or "—",
        "freshness": verdict.fresh.describe(),
        "statement": claim.statement,
        "row": _row(claim) if evidence else "",
        "inputs": ", ".join(f"{name}={target}" for name, target in claim.inputs) if claim.inputs else "",
        "source": " — ".join(
            part for part in (source.title, source.quote, source.url, source.retrieved, source.locator) if part
        )
        if source
        else "",
        "checked by": checks,
        "states": claim.states,
        "retired by": ", ".join(claim.retired_by) if claim.retired_by else "",
        "tolerance": claim.tolerance.text if claim.tolerance else "",
        "asserts": claim.asserts,
        "note": claim.note,
    }


def _check_text(spec, result) -> str:
    """'m (expects > 1; direction only)': the relation as written and the strength the gate gave it."""
    parts = [f"expects {spec.expects}"] if spec.expects else []
    if result is not None and result.strength:
        parts.append(SHOWN[result.strength])
    return f"{spec.claim_id} ({'; '.join(parts)})" if parts else spec.claim_id


def _flags(
    old: Claim | None,
    new: Claim,
    base: Report,
    head: Report,
    old_by_id: dict[str, Claim],
    new_by_id: dict[str, Claim],
) -> list[Flag]:
    """What a reviewer must see about one claim (but its value's move: compare() judges that with
    noise.review); old is None when it is new (ids are head ids)."""
    flags: list[Flag] = []

    def add(flag: str, message: str) -> None:
        flags.append(Flag(flag, new.id, message))

    was_failing = _failing(base, old.id) if old else {}
    failing = _failing(head, new.id)
    new_rules = [rule for rule in failing if rule not in was_failing]
    borrowed_said = False
    if old and _rank(new.kind) > _rank(old.kind):
        borrowed_said = new.kind == "borrowed"
        checks = f"; {_checks(new, head, new_by_id)}" if borrowed_said else ""
        add("kind-downgrade", f"{old.kind} → {new.kind}{checks}")
    if old is None and new.kind == "borrowed":
        borrowed_said = True
        title = f"source: {new.source.title}; " if new.source else ""
        add("new-borrowed", title + _checks(new, head, new_by_id))
    premises = []
    if new.kind != "borrowed":
        before = set(_borrowed_premises(new.id, old_by_id)) if old else set()
        premises = [
            f"now rests on borrowed {target}, {_checks(new_by_id[target], head, new_by_id)}"
            for target in _borrowed_premises(new.id, new_by_id)
            if target not in before
        ]
    if "only-borrowed" in new_rules and not borrowed_said:
        premises += [finding.problem for finding in failing["only-borrowed"]]
    if premises:
        add("rests-on-borrowed", "; ".join(premises))
    if old and old.unit != new.unit:
        add("unit-changed", _unit_change(old, new, base, head))
    if old and old.tolerance != new.tolerance:
        loosened = _loosened(old, new, base, head)
        if loosened:
            add("tolerance-loosened", loosened)
    if old:
        swapped = _swapped(old, new, base, head)
        if swapped:
            add("evidence-swapped", swapped)
    stale = [rule for rule in new_rules if rule in STALE_RULES]
    if stale:
        add("became-stale", "; ".join(f"{f.rule}: {f.problem}" for rule in stale for f in failing[rule]))
    if old and not old.retired and new.retired:
        by = f" by {', '.join(new.retired_by)}" if new.retired_by else ""
        add("retired", f"{old.status} → {new.status}{by}")
    if old and old.retired and not new.retired:
        add("un-retired", f"{old.status} → {new.status}")
    return flags


def _checks(claim: Claim, report: Report, by_id: dict[str, Claim]) -> str:
    """What checks a borrowed claim here, with each check's kind and freshness."""
    if claim.status == "lead":
        return "kept as a lead: shown as unverified, never a premise"
    if not claim.checked_by:
        return "nothing here checks it"
    checks = []
    results = {result.claim_id: result for result in report.of(claim).checks}
    for target in claim.checked_by:
        checker, result = by_id.get(target), results.get(target)
        strength = f", {SHOWN[result.strength]}" if result and result.strength else ""
        checks.append(
            f"{target} ({checker.kind}{strength}, {report.fresh(target).describe()})"
            if checker
            else f"{target} (no such claim)"
        )
    return "checked by " + ", ".join(checks)


def _borrowed_premises(claim_id: str, by_id: dict[str, Claim]) -> list[str]:
    return [target for target in lineage.input_closure(claim_id, by_id) if by_id[target].kind == "borrowed"]


def _unit_change(old: Claim, new: Claim, base: Report, head: Report) -> str:
    """A unit change read as the value change it is: "'ms' → 'µs': the same number is 1000× smaller a
    quantity (stated 2 ms → 2 µs: the quantity ×0.001)", or another dimension named."""
    before, after = base.verdicts[old.id].unit, head.verdicts[new.id].unit
    said = f"{old.unit or 'no unit'!r} → {new.unit or 'no unit'!r}"
    if not (before.known and after.known):
        return f"{said} (a unit the unit table cannot read)"
    if before.dimension != after.dimension:
        return f"{said}: another dimension ({before.describe()} → {after.describe()}), not the same quantity"
    factor = after.scale / before.scale  # one of the new unit, in the old
    if factor == 1:
        return f"{said}: the same scale"
    sized = f"{_times(factor)} larger" if factor > 1 else f"{_times(1 / factor)} smaller"
    words = f"{said}: the same number is a {sized} quantity"
    if old.value is None or new.value is None or old.value == 0:
        return words
    moved = new.value * factor / old.value
    return f"{words} (stated {stated(base.of(old))} → {stated(head.of(new))}: the quantity {_times(moved)})"


def _times(factor: float) -> str:
    return f"{factor:.4g}×"


def _loosened(old: Claim, new: Claim, base: Report, head: Report) -> str:
    """'5% → 50%' when the claim's own tolerance now allows more than it did; '' otherwise."""
    computed = head.verdicts[new.id].value
    at = computed if computed is not None else new.value
    if at is None:
        return ""
    before, after = base.verdicts[old.id].tolerance, head.verdicts[new.id].tolerance
    if after.allowed(at) <= before.allowed(at) * (1 + 1e-9):
        return ""

    def named(claim: Claim, policy: Policy) -> str:
        return claim.tolerance.text if claim.tolerance else f"the default ({policy.default_tolerance.text})"

    return f"{named(old, base.policy)} → {named(new, head.policy)}"


def _moved(old: Claim, new: Claim, base: Report, head: Report, moved: noise.Noise) -> str:
    """'3.6 GB/s → 4.50 GB/s (+25.0%; 5% allowed; beyond noise (Mann–Whitney p = 0.0004; 9 → 9 rounds))'."""
    assert old.value is not None and new.value is not None
    said = f"; {moved.words}" if moved.beyond is not None else ""  # unknown noise: flagged without words
    allowed = allowed_text(base.verdicts[old.id].tolerance)
    return f"{stated(base.of(old))} → {stated(head.of(new))} ({_relative_change(old.value, new.value)}{allowed} allowed{said})"


def _same_measurement(old: Claim, new: Claim, base: Report, head: Report) -> bool:
    """Whether new cites a re-measure of old's run: same probe, testbed, defining parameters and row."""
    if not (old.evidence and new.evidence) or old.evidence.run == new.evidence.run or _row(old) != _row(new):
        return False
    before, after = base.runs.get(old.evidence.run), head.runs.get(new.evidence.run)
    return bool(
        before
        and after
        and (before.probe_name, before.testbed) == (after.probe_name, after.testbed)
        and defining(before.parameters) == defining(after.parameters)
        and old.testbed == new.testbed
    )


def _remeasured(old: Claim, new: Claim, base: Report, head: Report, moved: noise.Noise) -> str:
    """'run A → B; within noise (...)' for a re-measure (listed, not flagged); '' otherwise."""
    if not _same_measurement(old, new, base, head):
        return ""
    assert old.evidence and new.evidence
    name = lambda path: path.rsplit("/", 1)[-1]  # noqa: E731
    return f"run {name(old.evidence.run)} → {name(new.evidence.run)}; {moved.words}"


def _swapped(old: Claim, new: Claim, base: Report, head: Report) -> str:
    parts = []
    if old.evidence and new.evidence and not _same_measurement(old, new, base, head):
        if old.evidence.run != new.evidence.run:
            parts.append(f"run {_run(old.evidence.run, base)} → {_run(new.evidence.run, head)}")
        elif _row(old) != _row(new):
            parts.append(f"row {_row(old)} → {_row(new)}")
    if old.testbed != new.testbed:
        parts.append(f"testbed {old.testbed or '—'} → {new.testbed or '—'}")
    return "; ".join(parts)


def _run(path: str, report: Report) -> str:
    run = report.runs.get(path)
    return f"{path} ({run.testbed or 'no testbed'})" if run else f"{path} (missing)"


def _row(claim: Claim) -> str:
    evidence = claim.evidence
    if not evidence:
        return ""
    where = ", ".join(f"{column}={value}" for column, value in evidence.where)
    return f"{evidence.file}, {where + ', ' if where else ''}column {evidence.column}"


def _relative_change(old: float, new: float) -> str:
    return f"{(new - old) / abs(old) * 100:+.1f}%; " if old else ""


def _failing(report: Report, claim_id: str) -> dict:
    """Rule -> the failing findings under it, for one claim."""
    found: dict[str, list] = {}
    for finding in report.findings_for(claim_id):
        if finding.severity == "fail":
            found.setdefault(finding.rule, []).append(finding)
    return found


def _rank(kind: str) -> int:
    """How far a kind's value is from a run here (kinds.KIND_TABLE): a higher rank is weaker evidence."""
    return KIND[kind].rank if kind in KIND else 0
