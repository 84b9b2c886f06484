"""Records passed between stages: frozen dataclasses, no I/O.

The records a check makes by the hundred thousand (Claim, ClaimVerdict, Finding, Source, ...; and
judging/'s, lang/'s) are attrs frozen classes instead, with the same fields, defaults and slots: attrs
writes each class's __init__ once, binding object.__setattr__ once per record where a frozen dataclass
looks it up for every field (a cold check of 10,002 claims sets about a million: benchmarks/check_time.py
times it). attrs.evolve replaces their fields.

Besides its own, it imports the floor (lang/: units, values, relations, rows) and the tables beside it:
the rules, the run writer's column declarations and a series' points (points.py).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Literal, TypeVar, get_args

import attrs

from .lang.between import Pooled
from .lang.pooling import Shared
from .lang.relations import INCONCLUSIVE, STRENGTHS
from .lang.rows import Table
from .lang.stability import Stability
from .lang.units import Unit, UnitTable
from .lang.values import Tolerance
from .points import Point, Series
from .rules import NOTE_BY_DEFAULT, WARN_BY_DEFAULT
from .runs import Column

Ordered = TypeVar("Ordered", bound=attrs.AttrsInstance)

# The names of claim kinds and statuses, typed: kinds.py holds a row for each (what it means, its fields).
Kind = Literal["measured", "extrapolated", "borrowed"]
Status = Literal["asserted", "lead", "refuted", "superseded", "retracted"]
KINDS: tuple[Kind, ...] = get_args(Kind)
STATUSES: tuple[Status, ...] = get_args(Status)
RETIRED: frozenset[Status] = frozenset({"refuted", "superseded", "retracted"})


def ordered(cls: type[Ordered]) -> type[Ordered]:
    """A frozen attrs record ordered by its fields in order, as attrs' order=True orders it, but comparing one
    tuple read by an attrgetter: attrs' own methods build each side's tuple in a generator, and a sort of
    20,000 findings took 0.92 s that way against 0.17 s by such tuples (timeit, this machine)."""
    fields = operator.attrgetter(*(field.name for field in attrs.fields(cls)))

    def comparing(compare: Callable[[Any, Any], Any]) -> Callable[[Ordered, object], bool]:
        def method(self: Ordered, other: object) -> bool:
            if other.__class__ is not self.__class__:
                return NotImplemented
            return compare(fields(self), fields(other))

        return method

    for name, compare in (("__lt__", operator.lt), ("__le__", operator.le), ("__gt__", operator.gt),
                          ("__ge__", operator.ge)):  # fmt: skip
        setattr(cls, name, comparing(compare))
    return cls


class LedgerError(Exception):
    """A problem the user can fix (bad usage, unreadable config): shown without a traceback."""


@ordered
@attrs.frozen(weakref_slot=False)
class Source:
    path: str  # relative to the repository root, POSIX separators
    line: int  # 1-based; 0 when the problem concerns the whole file
    column: int = 0  # 1-based; 0 when not known

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}" if self.line else self.path
        return f"{text}:{self.column}" if self.column else text


ALL_REPLICATES = 0  # `replicates: all`: every replicate of the cited run up to it


@attrs.frozen(weakref_slot=False)
class Evidence:
    run: str  # measurements/<probe>/<run folder>
    file: str  # a CSV file inside the run
    where: tuple[tuple[str, object], ...]  # column -> value; must select exactly one row
    column: str
    replicates: int = 1  # 1: the cited run alone; N: it and the N - 1 replicates before it; ALL_REPLICATES: all

    @property
    def cites_set(self) -> bool:
        """Its value is pooled over replicate runs (`replicates: N` or `all`), not the cited run's alone."""
        return self.replicates != 1


@attrs.frozen(weakref_slot=False)
class Citation:
    title: str
    quote: str = ""
    url: str = ""
    retrieved: str = ""
    locator: str = ""  # section, line or page within the source


@attrs.frozen(weakref_slot=False)
class CheckSpec:
    """One entry of `checked_by`: the checking claim and the relation it is expected to satisfy."""

    claim_id: str
    expects: str = ""  # "" for the plain form (the same quantity); else the relation as written


@attrs.frozen(weakref_slot=False)
class CheckResult:
    """The gate's verdict on one check of a claim, decided once (checks.py); the claim page reads it."""

    claim_id: str  # the checking claim
    relation: str  # in words: "the same quantity", "greater than 1", ...
    counts: bool  # asserted, and its lineage reaches a fresh measured run
    holds: bool | None  # None: not judged (it does not count, or a value is missing)
    claimed_text: str = ""  # the checked claim's value, in the unit both are shown in (read .claimed)
    found_text: str = ""  # the check's value in that unit, with its spread across rounds, if any (read .found)
    why: str = ""  # why it does not count, or what it was compared with; why it is inconclusive
    strength: str = ""  # agrees | bounded | direction (relations.py), or inconclusive (holds None: the checker's
    # interval neither lies inside the band it is judged with nor outside it); only agrees supports a number
    texts: Callable[[], tuple[str, str]] | None = None  # (claimed, found) made when read: checks.py judges every
    # check of every claim, a page shows few; in place of the two texts above
    value_agrees: bool = False  # a claim that states a bound: its figure agrees with the check on its own (shown)

    @property
    def claimed(self) -> str:
        return self.texts()[0] if self.texts is not None else self.claimed_text

    @property
    def found(self) -> str:
        return self.texts()[1] if self.texts is not None else self.found_text

    @property
    def supports(self) -> bool:
        """It counts, holds and agrees: the only kind of check that makes a claim more than borrowed."""
        return self.counts and self.holds is True and self.strength == STRENGTHS[0]


@attrs.frozen(weakref_slot=False)
class AssertResult:
    """The gate's verdict on a claim's `asserts:`, decided once (asserted.py); the claim page and show read it."""

    relation: str  # as written: "> 1"
    holds: bool | None  # None: not judged (a stale claim, no value)
    on: str  # what it was judged on: "its 99.6% interval 1.1–1.5× (9 rounds)", "its exact value 4×", or why not


@attrs.frozen(weakref_slot=False)
class ClaimInterval:
    """Where a claim's value lies given its noise, decided once (intervals.py); every display reads it."""

    low: float
    high: float
    level: float | None  # coverage of the median (a lower bound through a formula); None: not known
    basis: str  # rounds | min-max (a run without raw rounds) | formula (interval arithmetic) | paired | replicates
    rounds: int = 0  # raw rounds behind it (min-max: the row's `rounds` column; replicates: all runs'; 0: not known)
    samples: tuple[tuple[int, float], ...] = ()  # (round, value) of each raw round: "changed", pairing
    run: str = ""  # the run the raw rounds come from (a paired formula needs one run)
    runs: int = 1  # replicate runs behind it (replicates: the set's; formula: the fewest of its inputs')


@attrs.frozen(weakref_slot=False)
class Prediction:
    """Where the next run's value should land: the between-run prediction interval of a replicate set."""

    low: float
    high: float
    level: float
    runs: int  # the replicate runs it is computed from
    df: int = 0  # the degrees of freedom of its spread (0: runs − 1)
    cells: int = 1  # the set's settings its spread is pooled over (1: its own: lang/pooling.py)


@attrs.frozen(weakref_slot=False)
class Replicas:
    """The replicate set a measured claim rests on, or is judged against (judging/replicates.py): its
    runs up to the cited one (same probe, testbed, parameters, code and environment), pooled."""

    runs: tuple[str, ...]  # run paths in start order, the cited run last
    values: tuple[float, ...]  # each run's value of the claim's cell
    pooled: Pooled  # two runs or more: the pooled value, its confidence interval, the prediction's spread
    cited: bool  # the claim's value is the pooled one (evidence.replicates), not its run's alone
    shared: Shared | None = None  # the variation its cell shares with the set's other cells (lang/pooling.py)


@attrs.frozen(weakref_slot=False)
class Claim:
    id: str
    kind: Kind
    where: Source  # the claim's `- id:` line
    statement: str = ""
    value: float | None = None
    value_text: str = ""  # the value as written, which sets its precision
    unit: str = ""
    testbed: str = ""
    status: Status = "asserted"
    evidence: Evidence | None = None
    formula: str = ""
    inputs: tuple[tuple[str, str], ...] = ()  # formula name -> claim id
    source: Citation | None = None
    checked_by: tuple[str, ...] = ()  # the ids of `checks`, in order
    checks: tuple[CheckSpec, ...] = ()
    retired_by: tuple[str, ...] = ()  # refuted_by / superseded_by
    tolerance: Tolerance | None = None
    note: str = ""
    kept_through: str = ""  # `kept`: the newest run reviewed after its series moved (moved-since-cited) ...
    kept_why: str = ""  # ... and why the page keeps the cited run
    field_lines: tuple[tuple[str, int], ...] = ()  # (field, lines below `- id:`): one tuple per layout
    asserts: str = ""  # the relation the prose relies on, as written ("> 1"); judged on its interval
    states: str = ""  # a borrowed claim's bound as its source states it (">= 10"; `range: [5, 15]` is
    # "between 5 and 15"), in its unit: a plain check holds when the checker's interval lies inside it

    @property
    def retired(self) -> bool:
        return self.status in RETIRED

    def at(self, field_name: str) -> Source:
        """Where a field starts (its own line), or the claim's line if the field is absent."""
        for name, below in self.field_lines:
            if name == field_name:
                return Source(self.where.path, self.where.line + below) if below else self.where
        return self.where


@dataclass(frozen=True, slots=True)
class Run:
    path: str  # measurements/<probe>/<run folder>
    source: Source  # its manifest.json
    probe: str = ""  # probes/<name>.py
    testbed: str = ""
    started: datetime | None = None
    finished: datetime | None = None
    parameters: Mapping[str, object] = field(default_factory=dict, compare=False)
    environment: Mapping[str, object] = field(default_factory=dict, compare=False)
    declared_files: Mapping[str, str] = field(default_factory=dict, compare=False)  # name -> sha256
    actual_files: Mapping[str, str | None] = field(default_factory=dict, compare=False)
    declared_code: Mapping[str, str] = field(default_factory=dict, compare=False)  # path -> sha256
    current_code: Mapping[str, str | None] = field(default_factory=dict, compare=False)
    code_problems: Mapping[str, str] = field(default_factory=dict, compare=False)  # path -> why it is not ours
    tables: Mapping[str, Table] = field(default_factory=dict, compare=False)
    problem: str = ""  # why the manifest could not be used, if it could not
    unlisted: tuple[str, ...] = ()  # files in the folder that the manifest does not list
    blob_ids: Mapping[str, str] = field(default_factory=dict, compare=False)  # file name -> git blob sha1
    manifest_sha256: str = ""  # of manifest.json's bytes, for the published registry of runs
    commit: str = ""  # the repository commit it was measured at ("" not recorded: git absent, or an older run)
    clean: bool | None = None  # whether the working tree had no uncommitted change to tracked files (None: unknown)
    columns: Mapping[str, Mapping[str, Column]] = field(default_factory=dict, compare=False)  # file -> col -> decl.
    columns_sha256: tuple[str, str] = ("", "")  # (found, listed) sha256 of the declarations; equal when intact
    attachments: tuple[str, ...] = ()  # those of declared_files kept as a tool wrote them (its export), not tables
    machine: Mapping[str, object] | None = field(default=None, compare=False)  # machine.FIELDS; None: not recorded

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def probe_name(self) -> str:
        return self.path.split("/")[-2]


@dataclass(frozen=True, slots=True)
class FileChange:
    """A run's data file that is not what its manifest lists (verdicts.py words it); `declared`: the
    manifest's column declarations are not what its columns_sha256 says (name: manifest.json)."""

    name: str
    kind: Literal["missing", "hash", "unlisted", "unreadable", "declared"]
    found: str = ""  # hash, declared: its sha256 now; unreadable: why it cannot be read
    listed: str = ""  # hash, declared: the sha256 the manifest lists


@dataclass(frozen=True, slots=True)
class Redeclared:
    """A column a run declares otherwise than an earlier run of the same probe code (trust/siblings.py)."""

    file: str
    column: str
    earlier: str  # the earlier run's path
    was_unit: str
    was_kind: str
    unit: str
    kind: str


@dataclass(frozen=True, slots=True)
class RunState:
    """The gate's verdict on one run, decided once (integrity.py); every display reads it."""

    manifest_problem: str = ""  # why the manifest could not be used ("" when it could)
    changed_files: tuple[FileChange, ...] = ()
    changed_code: tuple[tuple[str, Literal["changed", "gone"]], ...] = ()  # (code path, changed since the run or gone)
    age_days: int | None = None
    too_old: bool = False
    max_age_days: int = 0
    rewritten: tuple[str, str] | None = None  # (sha, subject) of the commit that first added files now differing
    rewritten_files: tuple[str, ...] = ()  # those files
    untracked_code: tuple[str, ...] = ()  # code files it hashes that exist but git does not track (`git add`)
    copy_of: str = ""  # an earlier run whose timed data its own is byte-identical to (trust/siblings.py)
    copied_files: tuple[str, ...] = ()  # those files
    redeclared: tuple[Redeclared, ...] = ()  # columns it declares otherwise than an earlier run of its code
    reasons: tuple[str, ...] = ()  # why its data cannot be trusted as it stands, in words (verdicts.reasons)
    stability: Stability = Stability()  # its rounds and machine record judged (lang/stability.py); never a failure

    @property
    def intact(self) -> bool:
        """Every data file is what the manifest says and what git first recorded (intact or tampered), a
        measurement of its own (no copy) declared as its probe declares it."""
        return (
            not self.manifest_problem
            and not self.changed_files
            and not self.rewritten
            and not self.untracked_code
            and not self.copy_of
            and not self.redeclared
        )

    @property
    def trusted(self) -> bool:
        """Intact, measured by today's probe code, and young enough for the policy."""
        return self.intact and not self.changed_code and not self.too_old

    @property
    def older_code(self) -> bool:
        """Intact data measured with code that has changed since: history, unless a claim cites it."""
        return self.intact and bool(self.changed_code)

    @property
    def label(self) -> str:
        """One word for badges: intact, tampered (data or manifest), untracked (code not in git), copied (another
        run's timed data), redeclared (columns declared otherwise than its code's earlier runs), probe changed,
        too old."""
        if self.rewritten:
            return "rewritten"
        if self.untracked_code and not self.manifest_problem and not self.changed_files:
            return "untracked"
        if self.copy_of and not self.manifest_problem and not self.changed_files:
            return "copied"
        if self.redeclared and not self.manifest_problem and not self.changed_files:
            return "redeclared"
        if not self.intact:
            return "tampered"
        return "probe changed" if self.changed_code else "too old" if self.too_old else "intact"


@attrs.frozen(weakref_slot=False)
class Freshness:
    """The gate's verdict on one claim: fresh, warning, failing (not stale) or stale, with the rules."""

    label: str  # fresh | warning | failing | stale
    failing: tuple[str, ...] = ()  # rules it fails, in the rule table's order
    warned: tuple[str, ...] = ()  # rules it is warned about

    @property
    def stale(self) -> bool:
        return self.label == "stale"

    @property
    def fails(self) -> bool:
        return bool(self.failing)

    def describe(self) -> str:
        """'fresh', 'stale: drifted, tampered' or 'fails: only-borrowed', then '; warns: too-old'."""
        head = "stale" if self.stale else "fails" if self.failing else "fresh"
        text = head if head == "fresh" else f"{head}: {', '.join(self.failing)}"
        return text + (f"; warns: {', '.join(self.warned)}" if self.warned else "")


FRESH = Freshness("fresh")


@ordered
@attrs.frozen(weakref_slot=False)
class Finding:
    where: Source
    claim_id: str
    rule: str
    problem: str
    fix: str
    detail: str = ""  # a second line: where the computed value came from
    severity: str = "fail"  # "fail" or "warn", from the policy; "note" only in what `ledger check` shows beside them

    def __str__(self) -> str:
        head = f"{self.where}: {self.claim_id + ': ' if self.claim_id else ''}{self.rule}: {self.problem}"
        lines = [head + {"warn": " (warning)", "note": " (note)"}.get(self.severity, "")]
        if self.detail:
            lines.append(f"  {self.detail}")
        lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


def refusal(where: Source, claim_id: str, verb: str, problem: str, fix: str) -> LedgerError:
    """A verb's refusal about one claim (accept, refresh), worded as every finding is: file:line: id: verb: ..."""
    return LedgerError(str(Finding(where, claim_id, verb, problem, fix)))


@attrs.frozen(weakref_slot=False)
class PageRef:
    where: Source
    kind: str  # claim | table | chart | malformed
    name: str
    start: int = 0  # character offsets of the whole {{ ... }} in the page text
    end: int = 0


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """A probe the project declares in mkdocs.yml (`probes:`), run by `ledger measure` in its own process."""

    name: str  # lower_snake_case: its runs go to measurements/<name>/
    command: str  # argv template: {python} {profile} {out} {root} {testbed} {build} {export}; no shell
    code: tuple[str, ...] = ()  # source files the run's code hash covers (a command writing {out})
    env: tuple[tuple[str, str], ...] = ()  # extra environment variables for its process
    build: str = ""  # argv template run before `command`, into {build}; its inputs are `code`
    replicates: int = 1  # runs `ledger measure` makes of it by default, each in a fresh process
    manual: bool = False  # run only when named (`ledger measure NAME`): it reads other probes' runs
    tool: str = ""  # a benchmark tool whose export at {export} becomes the run (tools.TOOLS), "" for none


@dataclass(frozen=True, slots=True)
class Policy:
    """The gate's settings, each parsed into its value. inputs/config.py builds it from its OPTIONS rows,
    which carry the defaults (config.DEFAULTS: the policy of a project that sets nothing)."""

    max_run_age_days: int
    default_tolerance: Tolerance
    check_tolerance: Tolerance  # a same-quantity check, when the checked claim sets no tolerance
    max_check_factor: float  # `within Nx` up to this agrees; wider only bounds the value
    max_tolerance: Tolerance  # relative: a claim's own tolerance above it (of its value) is invalid
    warn: frozenset[str]  # rules reported as warnings instead of failures
    fail: frozenset[str]  # rules that warn by default (rules.WARN_BY_DEFAULT), made failures
    max_claim_file_bytes: int
    max_input_bytes: int  # everything one check reads: claims, manifests, data, pages
    claims_dir: str
    measurements_dir: str
    probes_dir: str
    probes: tuple[ProbeSpec, ...]
    testbeds: tuple[str, ...]  # where the fleet's measure workflow measures, a runner label each
    units: UnitTable  # the built-in units and the project's own (`units:`), built once
    surfaces: tuple[str, ...]  # files outside docs/ read with the prose rules (README.md): prose/surfaces.py
    asserts_level: float  # the least coverage of an interval an `asserts:` relation holds on (asserted.py)
    min_replicates: int  # replicate runs a claim with `asserts:` must rest on (few-replicates)
    retired_runs: tuple[tuple[str, str], ...]  # (run folder, why): published runs deleted on purpose
    max_render_seconds: float  # the whole check's Markdown rendering, every page together

    docs_dir: str = "docs"  # mkdocs.yml's, beside the plugin's options
    problems: tuple[tuple[str, Finding], ...] = ()  # (option, finding): bad settings in mkdocs.yml, each at its line
    config_path: str = "mkdocs.yml"  # the rest of mkdocs.yml, beside the plugin's options:
    markdown_extensions: tuple[tuple[str, str], ...] = ()  # (name, options as JSON) pages render with
    site_texts: tuple[tuple[str, int, int, str], ...] = ()  # (file, line, column, text) on every page: site name, nav
    config_files: tuple[str, ...] = ()  # the configuration and each file it inherits (INHERIT), where it has one

    def severity(self, rule: str) -> str:
        """'fail', 'warn', or for a rule that notes by default (rules.NOTE_BY_DEFAULT) and the policy names in
        neither list, 'note': shown by `ledger check`, never a finding."""
        if rule in NOTE_BY_DEFAULT and rule not in self.warn and rule not in self.fail:
            return "note"
        return "warn" if (rule in self.warn or rule in WARN_BY_DEFAULT) and rule not in self.fail else "fail"


# Why a claim's value was not computed, or was computed but not compared with the stated one ("": compared).
Cause = Literal[
    "",
    "invalid-fields",  # validate found its fields unusable
    "borrowed",  # nothing here computes it
    "no-run",
    "run-unusable",  # the run's manifest could not be read
    "no-file",  # evidence.file is not a file of the run
    "unreadable-file",
    "no-column",
    "no-row",
    "many-rows",
    "not-a-number",
    "unit-mismatch",  # its unit is not the dimension of the unit its run declares for the column
    "untrusted-run",  # computed from a run that is tampered, rewritten, probe-changed or too old
    "missing-input",
    "lead-input",
    "retired-input",
    "stale-input",
    "input-without-value",
    "formula-error",
]
# How the stated value compares with the computed one ("": not compared; cause says why).
Outcome = Literal["", "agrees", "drifted", "unstated", "too-loose"]


@attrs.frozen(weakref_slot=False)
class ClaimVerdict:
    """Everything the gate decided about one claim, in one record (Report.verdicts[id]).

    The evidence stage makes it (judging/evidence.py: the claim, its parsed unit and tolerance, what its
    evidence or formula computes, its interval, checks and `asserts:` verdict); the series stage and the
    freshness verdict complete it (completed(), attrs.evolve). Every display reads it; none re-parses a
    unit or a tolerance, selects a row or reads a finding's words.
    """

    claim: Claim
    unit: Unit  # the claim's unit, read at load with the project's table (unit.known is False: unreadable)
    tolerance: Tolerance  # its own, else the policy's default (precision: half the stated last digit)
    testbed: str = ""  # as stated, else its run's, else its inputs' (grounding.derived_testbed)
    value: float | None = None  # what its evidence or formula computes
    rows: tuple[int, ...] = ()  # rows of its evidence file that `where` selects (one when usable)
    interval: ClaimInterval | None = None  # where the value lies given its noise; interval.basis says from what
    exact: bool = False  # computed from counts (or from exact inputs only): its value is its own interval
    no_rounds: str = ""  # a timed measured claim without raw rounds: why
    noise_unknown: str = ""  # why nothing shows its noise ("it has no interval: ..."); asserted.py reads it
    cause: Cause = ""
    outcome: Outcome = ""
    checks: tuple[CheckResult, ...] = ()  # one per `checked_by` entry judged, each with its strength
    asserted: AssertResult | None = None  # its `asserts:` verdict
    fresh: Freshness = FRESH  # from every finding about it (verdicts.py)
    run_unit: Unit | None = None  # the unit its run declares for the cited column (None: declares none)
    point: Point | None = None  # its cited run's point, as the evidence stage read it (the series starts here)
    replicas: Replicas | None = None  # its run's replicate set up to it, when it has two runs or more
    prediction: Prediction | None = None  # where the next run should land (from replicas); None: one run
    series: Series | None = None  # its value across runs (series/stage.py)

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def one_run(self) -> bool:
        """Its interval comes from one run's rounds (or rests on an input's that does): it does not include
        run-to-run variation. False for an exact value and for a value with no interval."""
        return self.interval is not None and not self.exact and self.interval.runs <= 1

    @property
    def drifted(self) -> bool:
        """Computed from trusted evidence and disagreeing with the stated value (or none is stated)."""
        return self.outcome in ("drifted", "unstated")

    @property
    def support(self) -> str:
        """Its strongest counting check that holds; inconclusive when none holds and one is; '' when none
        is either, or any counting check fails."""
        if any(result.counts and result.holds is False for result in self.checks):
            return ""
        held = {result.strength for result in self.checks if result.counts and result.holds}
        if not held and any(result.counts and result.strength == INCONCLUSIVE for result in self.checks):
            return INCONCLUSIVE
        return next((strength for strength in STRENGTHS if strength in held), "")

    def completed(self, **later: Any) -> ClaimVerdict:
        """attrs.evolve(self, **later), for the stages that complete every verdict (the evidence stage's checks,
        the series): evolve reads the 20 fields one at a time and passes them by keyword, this reads them in one
        call and passes them by position, in about half evolve's time. KeyError: no such field."""
        values = list(_VERDICT_VALUES(self))
        for name, value in later.items():
            values[_VERDICT_INDEX[name]] = value
        return ClaimVerdict(*values)


_VERDICT_FIELDS = tuple(f.name for f in attrs.fields(ClaimVerdict))  # in __init__'s order
_VERDICT_VALUES = operator.attrgetter(*_VERDICT_FIELDS)
_VERDICT_INDEX = {name: i for i, name in enumerate(_VERDICT_FIELDS)}


@dataclass(frozen=True)
class Report:
    claims: tuple[Claim, ...]
    runs: Mapping[str, Run]
    findings: tuple[Finding, ...]
    verdicts: Mapping[str, ClaimVerdict]  # claim id -> everything decided about it (the first claim of an id)
    policy: Policy
    page_refs: tuple[PageRef, ...] = ()
    run_states: Mapping[str, RunState] = field(default_factory=dict)  # run path -> verdict
    history: str = ""  # "checked", or why the runs' git history was not checked
    # page -> the figures its prose shows, each with where it is typed (its text as normalised: "3.71×")
    typed: Mapping[str, tuple[tuple[str, Source], ...]] = field(default_factory=dict)
    causes: Mapping[Finding, Finding] = field(default_factory=dict)  # a finding -> the root it follows from (causes.py)

    @cached_property  # every page's stamp asks whether the gate passes
    def failures(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "fail")

    @cached_property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warn")

    @property
    def ok(self) -> bool:
        return not self.failures

    def claim(self, claim_id: str) -> Claim | None:
        return self.by_id.get(claim_id)

    @cached_property
    def by_id(self) -> dict[str, Claim]:  # the first claim of each id, as the gate judges it (evidence.py)
        return {c.id: c for c in self.claims} | {c.id: c for c in reversed(self.claims)}  # ids in order, first wins

    def findings_for(self, claim_id: str) -> tuple[Finding, ...]:
        return self._findings_by_claim.get(claim_id, ())

    @cached_property
    def _findings_by_claim(self) -> dict[str, tuple[Finding, ...]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.claim_id, []).append(finding)
        return {claim_id: tuple(found) for claim_id, found in grouped.items()}

    def verdict(self, claim_id: str) -> ClaimVerdict | None:
        return self.verdicts.get(claim_id)

    def of(self, claim: Claim) -> ClaimVerdict:
        """The verdict on this claim: its id's, or for a later claim of a duplicated id (invalid), that
        verdict around it (the index lists both)."""
        found = self.verdicts[claim.id]
        return found if found.claim is claim else attrs.evolve(found, claim=claim)

    def support(self, claim_id: str) -> str:
        """The claim's strongest counting check that holds (ClaimVerdict.support); '' for an unknown id."""
        found = self.verdicts.get(claim_id)
        return found.support if found is not None else ""

    def fresh(self, claim_id: str) -> Freshness:
        found = self.verdicts.get(claim_id)  # the claim's verdict: fresh when the gate found nothing
        return found.fresh if found is not None else FRESH

    def run_state(self, run_path: str) -> RunState:
        unknown = "not a run of this ledger"
        return self.run_states.get(run_path) or RunState(manifest_problem=unknown, reasons=(f"manifest: {unknown}",))
