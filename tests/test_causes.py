"""Root causes first: a finding that follows from another (a claim a broken file defined, a claim resting on a
failing one) is shown under its cause, the cause first, however the files sort."""

import json

import pytest
from helpers import MEASURED, RUN, SPEEDUP_KINDS, SPEEDUP_ROWS, a_run, run_ledger, write_tree

from generator.judging import causes
from generator.records import Claim, Finding, PageRef, Source


def finding(path: str, line: int, rule: str, claim_id: str = "", severity: str = "fail") -> Finding:
    return Finding(Source(path, line), claim_id, rule, "p", "f", severity=severity)


def claim(claim_id: str, **links) -> Claim:
    return Claim(id=claim_id, kind="extrapolated", where=Source("claims/x.yaml", 1), **links)


BROKEN = finding("claims/b.yaml", 9, "invalid")
PAGE_REF = finding("docs/a.md", 3, "unknown-reference")
PROBE = finding("claims/m.yaml", 4, "probe-changed", "m")
FORMULA = finding("claims/a.yaml", 2, "formula-drifted", "f")
CHAIN = finding("claims/a.yaml", 8, "formula-drifted", "g")
BORROWED = finding("claims/a.yaml", 5, "only-borrowed", "b")
OWN = finding("claims/a.yaml", 6, "drifted", "f")
WARNED = finding("claims/m.yaml", 4, "too-old", "m", severity="warn")
REFS = [PageRef(Source("docs/a.md", 3), "claim", "lost-one")]
CLAIMS = [
    claim("m"),
    claim("f", inputs=(("x", "m"),)),
    claim("g", inputs=(("y", "f"),)),
    claim("b", checked_by=("m",)),
]


@pytest.mark.parametrize(
    ("findings", "lost", "expected"),
    [
        ([PAGE_REF, BROKEN], {"lost-one": Source("claims/b.yaml", 12)}, {PAGE_REF: BROKEN}),
        ([PAGE_REF, BROKEN], {}, {}),  # the id is not one the broken file defined
        ([BORROWED, FORMULA, PROBE], {}, {BORROWED: PROBE, FORMULA: PROBE}),
        ([FORMULA, CHAIN, PROBE], {}, {FORMULA: PROBE, CHAIN: PROBE}),  # climbs the lineage to the root
        ([FORMULA, OWN], {}, {}),  # f's own drift is a root, its formula drift follows from nothing failing above
        ([BORROWED, WARNED], {}, {}),  # a warning causes nothing
    ],
)
def test_a_finding_follows_from_the_root_it_rests_on(findings, lost, expected):
    assert causes.follows(sorted(findings), CLAIMS, REFS, lost) == expected


def test_grouped_puts_each_cause_first_with_what_follows_and_every_finding_once():
    found = sorted([BORROWED, FORMULA, PROBE, OWN])
    follows = causes.follows(found, CLAIMS, REFS, {})
    assert causes.grouped(found, follows) == [(OWN, []), (PROBE, [FORMULA, BORROWED])]
    assert sorted(f for cause, rest in causes.grouped(found, follows) for f in (cause, *rest)) == found


def test_two_claims_that_follow_from_each_other_are_both_roots():
    one, other = finding("claims/a.yaml", 2, "only-borrowed", "x"), finding("claims/a.yaml", 9, "only-borrowed", "y")
    linked = [claim("x", checked_by=("y",)), claim("y", checked_by=("x",))]
    follows = causes.follows([one, other], linked, [], {})
    assert follows == {}
    assert causes.grouped([one, other], follows) == [(one, []), (other, [])]


def test_a_consequence_whose_cause_is_not_shown_is_shown_alone():
    assert causes.grouped([BORROWED], {BORROWED: PROBE}) == [(BORROWED, [])]


PAGES = {
    "docs/index.md": '# R\n\n{{ claim("moe-speedup-b16") }} and {{ claim("moe-speedup-doubled") }}.\n',
    "docs/more.md": '# More\n\n{{ claim("moe-speedup-b16") }}\n',
}


def test_one_yaml_error_is_shown_first_with_the_findings_that_follow_from_it(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    broken = MEASURED.replace("      file: results.csv", "    file: results.csv") + (
        "\n  - id: moe-speedup-doubled\n    kind: extrapolated\n    formula: 2 * s\n    inputs: {s: moe-speedup-b16}\n"
    )
    # the broken file sorts after the pages that cite it (zz/ after docs/)
    mkdocs = "site_name: t\nplugins:\n  - ledger:\n      claims_dir: zz\n"
    write_tree(tmp_path, {"zz/moe.yaml": broken, "mkdocs.yml": mkdocs, **PAGES})
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    lines = checked.output.splitlines()
    assert lines[0].startswith("zz/moe.yaml:11:12: invalid: malformed YAML")
    assert lines[2] == "  … and 3 findings that follow from it:"
    assert lines[3:9:2] == [
        "docs/index.md:3:1: unknown-reference: page refers to unknown claim 'moe-speedup-b16'",
        "docs/index.md:3:36: unknown-reference: page refers to unknown claim 'moe-speedup-doubled'",
        "docs/more.md:3:1: unknown-reference: page refers to unknown claim 'moe-speedup-b16'",
    ]  # each in full, with its fix line
    assert lines[-1].startswith("0 claims — 4 failures: 1 invalid, 3 unknown-reference")
    found = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)["findings"]
    cause = {"path": "zz/moe.yaml", "line": 11, "column": 12, "rule": "invalid"}
    assert [f["follows_from"] for f in found] == [cause, cause, cause, None]  # sorted by file: docs/ before zz/


def test_a_changed_probe_comes_before_the_borrowed_and_formula_claims_that_rest_on_it(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    borrowed = (
        "claims:\n  - id: a-borrowed\n    kind: borrowed\n    value: 3.59\n    unit: \"×\"\n    testbed: apple-m1-max\n"
        "    source: {title: x}\n    checked_by: [moe-speedup-b16]\n"
        "  - id: a-formula\n    kind: extrapolated\n    formula: 2 * s\n    inputs: {s: moe-speedup-b16}\n"
        "    value: 7.2\n    unit: \"×\"\n    testbed: linux-cpu\n"
    )  # fmt: skip
    write_tree(tmp_path, {"claims/a.yaml": borrowed, "claims/moe.yaml": MEASURED})
    (tmp_path / "probes/toy.py").write_text("print('changed')\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    lines = checked.output.splitlines()
    assert lines[0] == (
        f"claims/moe.yaml:8: moe-speedup-b16: probe-changed: probes/toy.py changed since the run "
        f"(run {RUN.rsplit('/', 1)[1]})"
    )
    assert lines[2] == "  … and 2 findings that follow from it:"
    assert lines[3].startswith("claims/a.yaml:2: a-borrowed: only-borrowed: ")
    assert lines[4] == "  fix: re-measure moe-speedup-b16: `ledger measure toy`, then `ledger refresh --write`"
    assert lines[5].startswith("claims/a.yaml:12: a-formula: formula-drifted: input moe-speedup-b16 is stale")
    assert lines[7].startswith("3 claims")


def test_a_chain_of_five_thousand_failing_claims_is_reported_each_with_its_cause(tmp_path):
    """The grouping climbs a lineage in a loop: 5,000 claims, each resting on the one before, under Python's
    default recursion limit (the command line sets none)."""
    chain = "".join(
        f"  - id: c-{i}\n    kind: extrapolated\n    formula: a\n"
        f"    inputs: {{a: {'moe-speedup-b16' if i == 1 else f'c-{i - 1}'}}}\n    value: {3.5 if i == 1 else 3.6}\n"
        for i in range(1, 5001)
    )
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + chain})
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1, checked.errors
    lines = checked.output.splitlines()
    assert lines[0] == "claims/moe.yaml:18: c-1: formula-drifted: stated 3.5, formula gives 3.6 (±0.05 allowed)"
    assert lines[3] == "  … and 4999 findings that follow from it:"
    assert lines[4] == "claims/moe.yaml:22: c-2: formula-drifted: input c-1 is stale (formula-drifted)"
    assert lines[-1].startswith("5001 claims (1 measured, 5000 extrapolated; 5001 asserted) — 5000 failures")
    found = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)["findings"]
    cause = {"path": "claims/moe.yaml", "line": 18, "column": 0, "rule": "formula-drifted"}
    assert len(found) == 5000 and [f["follows_from"] for f in found] == [None] + [cause] * 4999
