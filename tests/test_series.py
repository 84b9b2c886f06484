"""Every measured claim has a series: its value in every run of the same measurement, in time order,
in segments, with steps; `moved-since-cited` when the series moved after the cited run. Real runs in
temporary folders, the real command line."""

import json
from datetime import timedelta

from helpers import RUN_TIME, run_ledger, write_tree
from helpers_series import LEVEL_A, LEVEL_B, ledger, name, rounds, runs_of

from generator import gate
from generator.inputs.config import read_policy
from generator.lang import stats
from generator.series.changepoint import t_test


def history(root, *args) -> dict:
    result = run_ledger("history", "moe-speedup-b16", "--format", "json", *args, cwd=root)
    assert result.exit_code == 0, result.errors
    return json.loads(result.output)


def test_a_series_is_every_run_of_the_same_measurement_in_time_order_with_intervals(tmp_path):
    later = runs_of(tmp_path, [3.62, 3.58], start=5)
    earlier = runs_of(tmp_path, [3.6, 3.61])
    runs_of(tmp_path, [9.0], start=9, testbed="linux-arm")  # another testbed
    runs_of(tmp_path, [9.0], start=10, parameters={"rounds": 9, "profile": "quick"})  # other defining parameters
    runs_of(tmp_path, [3.6], start=11, parameters={"rounds": 15})  # only how hard it measured differs: a point
    ledger(tmp_path, earlier[0])
    found = history(tmp_path)
    points = [(p["run"], p["value"], p["low"], p["high"], p["basis"]) for p in found["points"]]
    expected = []
    for run, level in zip([*earlier, *later], [3.6, 3.61, 3.62, 3.58], strict=True):
        interval = stats.median_interval(rounds(level))
        expected.append((run, level, interval.low, interval.high, "rounds"))
    assert points[:4] == expected and len(points) == 5
    assert (found["cited"], found["method"], found["steps"], found["moved"]) == (0, "changed", [], None)


def test_a_step_after_the_cited_run_warns_and_names_every_sentence_that_cites_it(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[2])
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    p = t_test(LEVEL_A, LEVEL_B)
    assert result.output.splitlines()[:3] == [
        f"claims/moe.yaml:7: moe-speedup-b16: moved-since-cited: cited run {name(runs[2])} is behind its series: "
        f"its level 3.6× moved to 4.4× (+22.2%) from run {name(runs[8])} on (E-divisive means over 12 runs, "
        f"t-test p = {p:.2g}) (warning)",
        "  cited on docs/index.md:3:16, docs/more.md:3:10, docs/more.md:5:8",
        f"  fix: `ledger refresh --write` moves it to the newest run ({name(runs[-1])}); or keep the cited run and "
        f"say why: `kept: {{through: {runs[-1]}, why: ...}}`",
    ]
    assert "0 failures — 1 warning: 1 moved-since-cited" in result.output


def test_the_policy_can_make_moved_since_cited_fail(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[2], policy="\n      fail: [moved-since-cited]")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert "1 failure: 1 moved-since-cited" in result.output and "(warning)" not in result.output


def test_only_a_rule_that_warns_by_default_can_be_made_to_fail(tmp_path):
    runs = runs_of(tmp_path, [3.6])
    ledger(tmp_path, runs[0], policy="\n      fail: [too-old]")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        "mkdocs.yml:5: invalid: ledger option fail: 'too-old' fails already; rules that warn or note by default: "
        "insufficient-data, moved-since-cited" in result.output
    )


def test_a_step_before_the_cited_run_is_history_not_a_finding(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[9], value="4.4")
    assert "moved-since-cited" not in run_ledger("check", cwd=tmp_path).output
    found = history(tmp_path)
    assert [(s["index"], s["test"]) for s in found["steps"]] == [(8, "t-test")] and found["moved"] is None


def test_a_short_series_compares_the_cited_run_with_the_newest_by_their_rounds(tmp_path):
    runs = runs_of(tmp_path, [3.6, 3.61, 3.59, 4.4])
    ledger(tmp_path, runs[0])
    result = run_ledger("check", cwd=tmp_path)
    p = stats.mann_whitney_p(rounds(3.6), rounds(4.4))
    assert result.output.splitlines()[0] == (
        f"claims/moe.yaml:7: moe-speedup-b16: moved-since-cited: cited run {name(runs[0])} is behind its series: "
        f"the newest run {name(runs[3])} reads 4.4× (+22.2%), against 3.6× (Mann–Whitney U p = {p:.2g}, cited run "
        "against the newest) (warning)"
    )


def test_a_move_within_the_claims_tolerance_is_no_step(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[2], tolerance="30%")
    assert "moved-since-cited" not in run_ledger("check", cwd=tmp_path).output
    assert history(tmp_path)["steps"] == []


def test_an_environment_change_starts_a_segment_is_never_a_step_and_never_hides_a_move(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A) + runs_of(tmp_path, LEVEL_B, start=8, environment={"backend": "gpu"})
    ledger(tmp_path, runs[2])
    output = run_ledger("check", cwd=tmp_path).output
    assert f"the newest run {name(runs[-1])} reads 4.4× (+22.2%), against 3.6×" in output, output
    assert f"; the environment changed from run {name(runs[8])}: backend cpu → gpu) (warning)" in output, output
    found = history(tmp_path)
    assert found["boundaries"] == [{"index": 8, "reason": "environment changed", "changes": ["backend cpu → gpu"]}]
    assert found["steps"] == [] and {p["segment"] for p in found["points"][8:]} == {1}


def test_a_probe_change_starts_a_segment(tmp_path):
    old = runs_of(tmp_path, LEVEL_A)
    write_tree(tmp_path, {"probes/toy.py": "print('toy, faster')\n"})
    new = runs_of(tmp_path, LEVEL_B, start=8)
    ledger(tmp_path, new[0], value="4.4")
    result = run_ledger("history", "moe-speedup-b16", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert f"| 9 | {name(new[0])} | 4.39× | 4.214–4.566× (rounds) | " in result.output
    assert "| cited; probe changed: probes/toy.py |" in result.output
    assert "moved since cited: no" in result.output and len(old) == 8


def test_kept_through_the_newest_run_silences_the_warning_until_a_later_step(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    kept = f"\n                    kept: {{through: {runs[-1]}, why: the page compares with the old setup}}"
    ledger(tmp_path, runs[2], extra=kept)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0 and "moved-since-cited" not in result.output, result.output
    newer = runs_of(tmp_path, [5.2, 5.21, 5.19, 5.2], start=12)
    result = run_ledger("check", cwd=tmp_path)
    assert (
        f"cited run {name(runs[2])}, kept through run {name(runs[-1])}, is behind its series: its level 4.4× moved "
        f"to 5.2× (+18.2%) from run {name(newer[0])} on" in result.output
    )


def test_kept_naming_a_run_outside_the_series_is_invalid(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    other = runs_of(tmp_path, [1.0], start=20, testbed="linux-arm")[0]
    ledger(tmp_path, runs[2], extra=f"\n                    kept: {{through: {other}, why: reviewed}}")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        f"claims/moe.yaml:9: moe-speedup-b16: invalid: kept.through {other} is not a run after the cited one in this "
        "claim's series (same probe, testbed, defining parameters and segment, or a later one after a change of "
        "environment)\n"
        f"  fix: name the newest run you reviewed: `through: {runs[-1]}`"
    ) in result.output


def test_kept_needs_a_run_and_a_reason(tmp_path):
    runs = runs_of(tmp_path, [3.6])
    ledger(tmp_path, runs[0], extra=f"\n                    kept: {{through: {runs[0]}, why: '  '}}")
    result = run_ledger("check", cwd=tmp_path)
    assert (
        "claims/moe.yaml:9: moe-speedup-b16: invalid: `kept.why` must say, in words, why the page keeps the "
        "cited run" in result.output
    )


def test_a_tampered_run_is_no_point_of_a_series(tmp_path):
    runs = runs_of(tmp_path, [3.6, 3.61, 3.59])
    ledger(tmp_path, runs[0])
    (tmp_path / runs[1] / "results.csv").write_text("batch,rounds,speedup\n16,9,9.9\n")
    assert [p["run"] for p in history(tmp_path)["points"]] == [runs[0], runs[2]]


def test_history_changed_lists_the_claims_whose_series_has_a_step(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[2])
    result = run_ledger("history", "--changed", cwd=tmp_path)
    assert result.output.splitlines() == [
        f"moe-speedup-b16: 1 step; the last 3.6× → 4.4× at run {name(runs[8])}; moved since cited",
        "1 of 1 series have a step",
    ]
    assert run_ledger("history", "--changed", "--format", "csv", cwd=tmp_path).output.splitlines() == [
        "claim,steps,moved_since_cited",
        "moe-speedup-b16,1,True",
    ]


def test_history_csv_has_a_row_per_point(tmp_path):
    runs = runs_of(tmp_path, [3.6, 4.4, 4.4])
    ledger(tmp_path, runs[0])
    lines = run_ledger("history", "moe-speedup-b16", "--format", "csv", cwd=tmp_path).output.splitlines()
    assert lines[0] == "index,run,started,value,low,high,basis,segment,notes,added_by,commit,clean"
    assert lines[1].startswith(f"0,{runs[0]},2026-11-29T10:00:00+00:00,3.6,") and ",rounds,0,cited," in lines[1]
    assert len(lines) == 4


def test_history_names_what_has_no_series(tmp_path):
    runs = runs_of(tmp_path, [3.6])
    ledger(tmp_path, runs[0])
    result = run_ledger("history", "nope", cwd=tmp_path)
    assert (result.exit_code, result.errors) == (2, "ledger: history: no claim 'nope'\n")
    result = run_ledger("history", cwd=tmp_path)
    assert result.errors == "ledger: history: name one claim (`ledger history ID`) or pass --changed\n"


def test_a_page_edit_under_serve_renames_the_sentences_the_finding_names(tmp_path):
    runs = runs_of(tmp_path, LEVEL_A + LEVEL_B)
    ledger(tmp_path, runs[2])
    policy = read_policy(tmp_path / "mkdocs.yml")
    report = gate.check(tmp_path, policy, RUN_TIME + timedelta(days=1))
    write_tree(tmp_path, {"docs/more.md": "# More\n\nNothing cites it here.\n"})
    after = gate.check_pages(report, tmp_path)  # what `mkdocs serve` runs after a page edit
    (finding,) = [f for f in after.findings if f.rule == "moved-since-cited"]
    assert finding.detail == "cited on docs/index.md:3:16"


def test_claims_whose_where_values_are_equal_but_select_apart_each_get_their_own_series(tmp_path):
    """`mode: 1` and `mode: true` are equal in Python but select different rows (a number, a word): neither
    claim's series is the other's."""
    from generator.runs import write_run

    write_tree(tmp_path, {"probes/toy.py": "# a toy probe\n"})
    runs = []
    for hour in range(2):
        rows = [{"mode": "1", "speedup": 2.0 + hour / 100}, {"mode": "true", "speedup": 5.0 + hour / 100}]
        when = RUN_TIME + timedelta(hours=hour)
        path = write_run(
            tmp_path,
            "toy",
            "linux-cpu",
            {"results.csv": rows},
            parameters={},
            environment={},
            code=["probes/toy.py"],
            started=when,
            finished=when,
        )
        runs.append(path.relative_to(tmp_path).as_posix())
    evidence = "evidence: {{run: {run}, file: results.csv, where: {{mode: {mode}}}, column: speedup}}"
    claims = "".join(
        f"\n  - id: {claim_id}\n    value: {value}\n    kind: measured\n    testbed: linux-cpu\n    tolerance: 5%\n"
        f"    {evidence.format(run=runs[0], mode=mode)}\n"
        for claim_id, value, mode in (("by-number", 2.0, "1"), ("by-word", 5.0, "true"))
    )
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claims})
    report = gate.check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    for claim_id, level in (("by-number", 2.0), ("by-word", 5.0)):
        line = report.verdicts[claim_id].series
        assert line is not None and [round(p.value, 2) for p in line.points] == [level, level + 0.01], claim_id
