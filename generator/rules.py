"""The gate's rules, one row each: the gate page, the `warn:` option, the summary and the docs read this table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    meaning: str  # one line, for the gate page and the docs
    stale: bool  # a claim failing it makes every claim that rests on it stale too
    can_warn: bool = True  # whether policy may turn it into a warning (`warn: [...]`)
    warns: bool = False  # a warning by default; policy may make it fail (`fail: [...]`)
    integrity: bool = False  # it guards the evidence's bytes or where they come from: never a warning
    notes: bool = False  # a note by default (shown by `ledger check`, never a finding): `warn:`/`fail:` make it one

    def __post_init__(self) -> None:
        if self.integrity and self.can_warn:
            raise ValueError(f"rule {self.name}: a rule that guards integrity cannot warn")


RULE_TABLE = (
    Rule(
        "invalid",
        "bad YAML, unknown or missing fields, wrong types, duplicate ids, references to "
        "claims, runs, files or columns that do not exist, formula cycles",
        stale=True,
        can_warn=False,
        integrity=True,
    ),
    Rule("tampered", "a data file's hash differs from its run's manifest", stale=True, can_warn=False, integrity=True),
    Rule(
        "probe-changed",
        "the probe's code differs from the code its run's manifest hashed",
        stale=True,
        can_warn=False,
        integrity=True,
    ),
    Rule("drifted", "the stated value differs from what its evidence computes beyond tolerance", stale=True),
    Rule(
        "unit-mismatch",
        "a measured claim's unit is not the dimension of the unit its run declares for the cited column "
        "(a scale is converted: µs against a column in ms compares the value in µs)",
        stale=True,
    ),
    Rule(
        "unit-undeclared",
        "a measured claim cites a column whose run declares no unit for it (a run written before declarations): "
        "its unit is taken as stated",
        stale=False,
        warns=True,
    ),
    Rule(
        "formula-drifted",
        "an extrapolated claim's value differs from its formula's result, or an input is stale",
        stale=True,
    ),
    Rule("too-old", "a cited run is older than the policy's max_run_age_days", stale=True),
    Rule(
        "only-borrowed",
        "an asserted claim rests only on borrowed claims and no check here agrees with its value "
        "(a bounded or direction-only check is shown, never support), or it rests on a lead",
        stale=False,
    ),
    Rule(
        "contradicted",
        "a check does not hold: the checking claim's value does not satisfy the relation (or, in the "
        "plain form, does not match within the check tolerance)",
        stale=True,
    ),
    Rule(
        "not-significant",
        "a claim's `asserts:` (what the prose relies on: `> 1`, `between 0.9 and 1.1`) does not hold on its "
        "whole interval, only perhaps on its median; an exact value is judged on itself, and a timed value "
        "with no interval holds nothing",
        stale=False,
    ),
    Rule(
        "undeclared-kind",
        "a claim's value reads as exact (no raw rounds, no min–max columns, no `rounds` in its row) only because "
        "its run declares no kind for the column: a timed column whose rounds were left out would read so too; "
        "warns by default, and a ledger whose runs declare their columns makes it fail (`fail: [undeclared-kind]`)",
        stale=False,
        warns=True,
    ),
    Rule(
        "few-replicates",
        "a claim with `asserts:` rests on fewer replicate runs than the policy's `min_replicates`, or a page whose "
        "front matter asks for replicates (`ledger: {replicates: 3}`) cites a measured or extrapolated claim that "
        "rests on fewer (an exact value needs none)",
        stale=False,
    ),
    Rule(
        "unsupported-refutation",
        "a retired claim's refuted_by / superseded_by does not reach a fresh measured run through "
        "asserted claims that are not leads (borrowed claims refuting each other)",
        stale=False,
    ),
    Rule(
        "unused-input",
        "a formula's input claim (under every name it is bound to) that no perturbation (x0.5, x2) moves the "
        "result of beyond the loosest tolerance judging it (the checks it could agree in, else its own): "
        "cancelled, flattened, clamped or too weak, it grounds nothing",
        stale=False,
    ),
    Rule(
        "fragile-formula",
        "a formula that cannot be evaluated (a division by zero, an overflow, a value that is not real) when one "
        "of its inputs is multiplied by 0.5 or 2: it says nothing about values near its inputs'",
        stale=False,
    ),
    Rule(
        "rewritten",
        "a committed run's file differs from the commit that first added it (runs are immutable)",
        stale=True,
        can_warn=False,
        integrity=True,
    ),
    Rule(
        "moved-since-cited",
        "a measured claim's series (its value in every run of the same measurement) has a step beyond noise and "
        "its tolerance after the run it cites; the finding names every page sentence that cites it",
        stale=False,
        warns=True,
    ),
    Rule(
        "insufficient-data",
        "a re-measured claim's newest run could not have shown a change of its tolerance (the smallest change the "
        "evidence detects is larger): neither within noise nor a step; a note by default, never a failure, "
        "`warn: [insufficient-data]` makes it a warning",
        stale=False,
        notes=True,
    ),
    Rule(
        "orphaned-run",
        "a run no claim cites whose probe code no longer exists (renamed, moved or deleted): nothing here can measure "
        "it again; a warning by default",
        stale=False,
        warns=True,
    ),
    Rule(
        "unverified-history",
        "`ledger check --require-history` cannot read the runs' git history (a shallow clone, no git), so a "
        "rewritten run would pass",
        stale=False,
        can_warn=False,
        integrity=True,
    ),
    Rule("unknown-reference", "a page refers to a claim, table or chart that does not exist", stale=False),
    Rule(
        "unsupported-word",
        "a word of the word table (faster, no gain, barely moves, ...) in a sentence that holds exactly one claim "
        "reference, with no other figure between them, speaks of a ratio claim (×) that asserts no relation the "
        "word implies (`asserts:`, which not-significant holds at its interval)",
        stale=False,
    ),
    Rule(
        "lead-premise",
        "a page whose front matter forbids leads (`ledger: {leads: forbid}`) cites a lead",
        stale=False,
    ),
    Rule(
        "surface-drifted",
        "the text between a surface's markers (<!-- ledger: ID -->…<!-- /ledger --> in README.md, …) is not "
        "the value the claim states, or the claim fails the gate, is a lead or is retired",
        stale=False,
    ),
    Rule(
        "figure-literal",
        "a figure (a table or a chart) shows a number that comes from no run and no claim: typed into its "
        "caption (its docstring: `ledger check`), or a table cell or chart value that no run or claim it read "
        "holds (where it is drawn: the build, `ledger pages`); never a warning, as verify-site refuses it in "
        "every mode",
        stale=False,
        can_warn=False,
    ),
    Rule(
        "unbound-number",
        "a figure with a unit of the unit table, a magnitude, a currency sign, ×, or % (digits or words) is typed "
        "into a page outside a claim reference "
        '(mark a label with <span class="ledger-label">…</span>)',
        stale=False,
    ),
)

RULES = tuple(rule.name for rule in RULE_TABLE)
STALE_RULES = frozenset(rule.name for rule in RULE_TABLE if rule.stale)
WARNABLE = tuple(rule.name for rule in RULE_TABLE if rule.can_warn)
INTEGRITY = tuple(rule.name for rule in RULE_TABLE if rule.integrity)  # no policy makes these warnings
WARN_BY_DEFAULT = frozenset(rule.name for rule in RULE_TABLE if rule.warns)
NOTE_BY_DEFAULT = frozenset(rule.name for rule in RULE_TABLE if rule.notes)  # shown, never findings, unless policy says
PAGE_RULES = ("unknown-reference", "unbound-number", "lead-premise")  # decided from pages alone (check_pages)
