"""One verdict per claim (Report.verdicts) and typed run states: decided once, read by every verb."""

import ast
from datetime import datetime, timedelta, timezone

import pytest
from helpers import REPO, RUN, RUN_TIME, a_run, run_ledger, write_tree

from generator.gate import check_project
from generator.inputs.config import DEFAULTS
from generator.lang.rows import Table
from generator.records import FileChange, Run, Source
from generator.trust import verdicts

DECIDERS = {
    "generator/judging/evidence.py",
    "generator/judging/intervals.py",
    "generator/wording.py",
}  # the evidence stage (intervals.read_cell: the cited run's cell and its replicates'), and wording (which defines
# tolerance_for and restates a value with it)


def _calls(names: set[str]) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted((REPO / "generator").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in names:
                    found.append((path.relative_to(REPO).as_posix(), node.lineno, name))
    return found


def test_only_the_evidence_stage_selects_a_row_or_works_out_a_tolerance():
    assert [call for call in _calls({"select_row", "tolerance_for"}) if call[0] not in DECIDERS] == []


def _reads_words(node: ast.AST) -> bool:
    """A comparison against a verdict's wording ('"stale" not in f.problem', 'what == "is missing"'),
    or a commit cut out of a sentence ('state.rewritten_commit.split()[1]')."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        words = [s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
        problem = any(isinstance(s, ast.Attribute) and s.attr in ("problem", "reasons") for s in sides)
        return bool(words) and (problem or any(w in ("is missing", "no longer exists") for w in words))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
        func = node.value.func
        return isinstance(func, ast.Attribute) and func.attr == "split" and "commit" in ast.unparse(func.value)
    return False


def test_no_verb_or_page_reads_a_verdict_from_its_wording():
    found = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "generator").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _reads_words(node)
    ]
    assert found == []  # measure.py reads the option a policy problem is about, not its words


CLAIMS = """
claims:
  - id: agrees
    kind: measured
    value: 3.6
    unit: "×"
    evidence: {run: RUN, file: results.csv, where: {batch: 16}, column: speedup}
  - id: drifts
    kind: measured
    value: 1.5
    tolerance: 5%
    evidence: {run: RUN, file: results.csv, where: {batch: 1}, column: speedup}
  - id: no-row
    kind: measured
    value: 2
    evidence: {run: RUN, file: results.csv, where: {batch: 4}, column: speedup}
  - id: doubled
    kind: extrapolated
    formula: 2 * s
    inputs: {s: no-row}
    value: 4
  - id: quoted
    kind: borrowed
    value: 9
    source: {title: a write-up}
""".replace("RUN", RUN)


def test_each_claim_has_the_evaluation_the_evidence_stage_decided(tmp_path):
    a_run(tmp_path, [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.6}])
    write_tree(tmp_path, {"claims/c.yaml": CLAIMS})
    report = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    seen = {
        claim_id: (e.value, e.rows, e.cause, e.outcome, e.tolerance.text) for claim_id, e in report.verdicts.items()
    }
    assert seen == {
        "agrees": (3.6, (1,), "", "agrees", "precision"),
        "drifts": (1.0, (0,), "", "drifted", "5%"),
        "no-row": (None, (), "no-row", "", "precision"),
        "doubled": (None, (), "stale-input", "", "precision"),
        "quoted": (None, (), "borrowed", "", "precision"),
    }
    assert report.verdicts["agrees"].tolerance.absolute == 0.05  # the stated value's precision
    assert report.verdicts["drifts"].drifted and not report.verdicts["agrees"].drifted


def test_accept_takes_a_drift_whose_words_say_stale(tmp_path):
    """A drift is read from the evaluation, not from its message: a unit whose name holds 'stale'
    made accept refuse it as stale evidence when it matched on the finding's words."""
    a_run(tmp_path, [{"batch": 1, "draws": 4}])
    policy = "site_name: t\nplugins:\n  - ledger:\n      units:\n        stalemates: {dimension: stalemates}\n"
    claims = f"""
    claims:
      - id: draws
        kind: measured
        value: 3
        unit: stalemates
        evidence: {{run: {RUN}, file: results.csv, where: {{batch: 1}}, column: draws}}
    """
    write_tree(tmp_path, {"mkdocs.yml": policy, "claims/c.yaml": claims})
    checked = run_ledger("check", cwd=tmp_path)
    assert "drifted: stated 3 stalemates, evidence computes 4 stalemates" in checked.output
    result = run_ledger("accept", "draws", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "draws: value 3 -> 4.00 (computed 4.0)" in result.output  # at least 3 digits, as accept writes
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def _run(**fields) -> Run:
    table = Table(("a",), (("1",),))
    base = {
        "declared_files": {"results.csv": "d" * 64},
        "actual_files": {"results.csv": "d" * 64},
        "tables": {"results.csv": table},
    }
    return Run(RUN, Source(RUN + "/manifest.json", 0), probe="probes/toy.py", testbed="linux-cpu", **(base | fields))


@pytest.mark.parametrize(
    "fields, changed",
    [
        ({}, ()),
        ({"actual_files": {"results.csv": None}}, (FileChange("results.csv", "missing"),)),
        ({"actual_files": {"results.csv": "e" * 64}}, (FileChange("results.csv", "hash", "e" * 64, "d" * 64),)),
        ({"unlisted": ("extra.csv",)}, (FileChange("extra.csv", "unlisted"),)),
        (
            {"actual_files": {"results.csv": None}, "tables": {"results.csv": Table((), (), "is a link")}},
            (FileChange("results.csv", "unreadable", "is a link"),),
        ),
    ],
)
def test_a_run_state_names_each_changed_file_by_kind(fields, changed):
    state = verdicts.run_state(_run(**fields), DEFAULTS, datetime.now(timezone.utc))
    assert state.changed_files == changed


def test_a_rewritten_run_holds_the_commit_and_its_subject_apart():
    rewrite = (("1a2b3c4d5e6f", "measure toy, then more"), ("results.csv",))
    state = verdicts.run_state(_run(), DEFAULTS, datetime.now(timezone.utc), rewrite)
    assert (state.rewritten, state.rewritten_files) == rewrite
    [(rule, problem, fix)] = verdicts.run_findings(_run(), state, DEFAULTS, "rerun it", data_only=True)
    assert rule == "rewritten" and "differ from commit 1a2b3c4d5e6f (measure toy, then more)" in problem
    assert fix == f"restore them (`git checkout 1a2b3c4d5e6f -- {RUN}`), or rerun it"


def test_a_cited_and_an_uncited_run_read_alike_when_tampered(tmp_path):
    cited = a_run(tmp_path, [{"batch": 1, "speedup": 1.0}])
    other = a_run(tmp_path, [{"batch": 1, "speedup": 1.0}], when=RUN_TIME + timedelta(hours=1))
    claims = f"claims:\n  - id: s\n    kind: measured\n    value: 1\n    evidence: {{run: {cited}, file: results.csv, where: {{batch: 1}}, column: speedup}}\n"
    write_tree(tmp_path, {"claims/c.yaml": claims})
    for run in (cited, other):
        with open(tmp_path / run / "results.csv", "a", encoding="utf-8") as data:
            data.write("2,2.0\n")
    output = run_ledger("check", cwd=tmp_path).output
    for run in (cited, other):
        assert f"tampered: {run}/results.csv has sha256 " in output
        assert f"  fix: restore it (`git checkout -- {run}/results.csv`) or " in output
