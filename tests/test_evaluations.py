"""One evaluation per claim (Report.evaluations) and typed run states: decided once, read by every verb."""

import ast
from datetime import timedelta

from helpers import REPO, RUN, RUN_TIME, a_run, run_ledger, write_tree

from generator.gate import check_project

DECIDERS = {"generator/evidence.py", "generator/values.py"}  # the evidence stage, and values (which defines them)


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
        claim_id: (e.value, e.rows, e.cause, e.outcome, e.tolerance.text) for claim_id, e in report.evaluations.items()
    }
    assert seen == {
        "agrees": (3.6, (1,), "", "agrees", "precision"),
        "drifts": (1.0, (0,), "", "drifted", "5%"),
        "no-row": (None, (), "no-row", "", "precision"),
        "doubled": (None, (), "stale-input", "", "precision"),
        "quoted": (None, (), "borrowed", "", "precision"),
    }
    assert report.evaluations["agrees"].tolerance.absolute == 0.05  # the stated value's precision
    assert report.evaluations["drifts"].drifted and not report.evaluations["agrees"].drifted


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
