"""`ledger refresh`: claims move to the newest intact run of the same probe, testbed and defining
parameters; value changes marked beyond or within noise; --write edits evidence and values together,
dependents in the same pass, comments kept. `ledger diff` marks value moves on the same terms."""

import json
from datetime import datetime, timedelta, timezone

import pytest
from helpers import git, run_ledger, write_tree

from generator.runs import write_run

T0 = datetime(2026, 11, 29, 10, 0, 0, tzinfo=timezone.utc)
DEFAULT = {"profile": "default", "sizes": [1, 16], "rounds": 7}

CLAIMS = """
claims:
  # the headline, kept in place with its comments
  - id: speed
    statement: Throughput at size 16
    value: 3.6   # from the first run
    unit: GB/s
    kind: measured
    testbed: linux-cpu
    evidence:
      run: {run}   # the run it cites
      file: results.csv
      where: {{size: 16}}
      column: gb_per_s
    tolerance: 5%

  - id: seconds
    kind: extrapolated
    formula: 36 / s
    inputs: {{s: speed}}
    value: 10
    unit: s/GB
"""


def a_run(root, value, low, high, when=T0, testbed="linux-cpu", parameters=None, rows=None, rounds=None):
    """A run whose size-16 row reads value with its min–max; rounds: the row's round count (its range's level)."""
    if not (root / "probes/toy.py").exists():
        write_tree(root, {"probes/toy.py": "print('toy')\n"})
    counted = {"rounds": rounds} if rounds else {}
    rows = rows or [
        {"size": 1, "gb_per_s": 1.0, "gb_per_s_min": 0.9, "gb_per_s_max": 1.1, **counted},
        {"size": 16, "gb_per_s": value, "gb_per_s_min": low, "gb_per_s_max": high, **counted},
    ]
    path = write_run(
        root, "toy", testbed, {"results.csv": rows}, parameters=parameters or DEFAULT, environment={},
        code=["probes/toy.py"], started=when, finished=when,
    )  # fmt: skip
    return path.relative_to(root).as_posix()


def project(root):
    first = a_run(root, 3.6, 3.5, 3.7)
    write_tree(root, {"claims/toy.yaml": CLAIMS.format(run=first)})
    return first


def test_refresh_shows_a_move_beyond_noise_and_writes_nothing_without_write(tmp_path):
    first = project(tmp_path)
    later = a_run(tmp_path, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1), parameters={**DEFAULT, "rounds": 15})
    before = (tmp_path / "claims/toy.yaml").read_text()
    result = run_ledger("refresh", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    name = lambda path: path.rsplit("/", 1)[1]  # noqa: E731
    assert "| claim | run | before | after | stated | verdict |" in result.output
    assert (
        f"| speed | {name(first)} → {name(later)} | 3.6 GB/s | 4.5 GB/s | 3.6 → 4.50 | "
        "beyond noise: +25.0% [+18.9, +31.4] (intervals) |"
    ) in result.output
    assert "| seconds | (formula) | 10 s/GB | 8 s/GB | 10 → 8.00 | beyond noise (follows speed) |" in result.output
    assert "1 claim(s) move to newer runs (1 beyond noise); 1 dependent(s) recomputed" in result.output
    assert (tmp_path / "claims/toy.yaml").read_text() == before


def test_refresh_write_moves_evidence_and_values_with_dependents_in_one_pass_keeping_comments(tmp_path):
    first = project(tmp_path)
    later = a_run(tmp_path, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 0, result.output + result.errors
    text = (tmp_path / "claims/toy.yaml").read_text()
    assert text == CLAIMS.format(run=later).lstrip("\n").replace("value: 3.6 ", "value: 4.50 ").replace(
        "value: 10\n", "value: 8.00\n"
    )
    assert first not in text
    assert "ledger check: 2 claims" in result.output and "0 failures" in result.output
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_refresh_marks_a_move_within_noise_and_moves_the_stated_value_with_its_run(tmp_path):
    """Ranges of 9 rounds each (99.6% of the median): a change of 5% would show, and none does."""
    first = a_run(tmp_path, 3.6, 3.55, 3.65, rounds=9)
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first)})
    a_run(tmp_path, 3.62, 3.58, 3.66, when=T0 + timedelta(hours=1), rounds=9)
    result = run_ledger("refresh", cwd=tmp_path)
    # Within tolerance and within noise, the stated value still moves to the new run's (at its precision):
    # the page never shows a stated 3.6 beside a table reading 3.62.
    assert (
        "| 3.6 GB/s | 3.62 GB/s | 3.6 → 3.62 | within noise: +0.56% [−1.9, +3.1] (99.2%, intervals); a change of "
        "3.7% or more would be seen |"
    ) in result.output
    assert "| seconds | (formula) | 10 s/GB | 9.945 s/GB | 10 → 9.94 | within noise (follows speed) |" in result.output


def test_a_move_the_evidence_could_not_have_seen_is_insufficient_data_with_what_it_could_see(tmp_path):
    """Ranges of 5 rounds (93.8% each): the change interval is too wide for the 5% tolerance; refresh says so, not
    within noise, names the cause and what would settle it, and the dependent follows."""
    first = a_run(tmp_path, 3.6, 3.3, 3.9, rounds=5)
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first)})
    a_run(tmp_path, 3.65, 3.3, 3.9, when=T0 + timedelta(hours=1), rounds=5)
    result = run_ledger("refresh", cwd=tmp_path)
    row = next(line for line in result.output.splitlines() if line.startswith("| speed |"))
    assert (
        "| insufficient data: +1.4% [−15.4, +18.2] (87.5%, intervals); only a change over 30.8% could be seen, 5.0% "
        "allowed: one run a side, judged on their intervals alone: measure replicate runs" in row
    ), row
    assert "within noise" not in result.output
    assert "| seconds | (formula) |" in result.output and "| insufficient data (follows speed) |" in result.output
    assert "1 claim(s) move to newer runs (1 insufficient data)" in result.output


def test_a_quick_run_never_replaces_a_full_one_and_is_listed_with_what_differs(tmp_path):
    project(tmp_path)
    quick = a_run(
        tmp_path,
        9.0,
        8.0,
        10.0,
        when=T0 + timedelta(hours=1),
        parameters={"profile": "quick", "sizes": [1], "rounds": 2},
    )
    result = run_ledger("refresh", cwd=tmp_path)
    assert f"skipped for speed: {quick}: parameters differ: profile quick ≠ default; sizes [1] ≠ [1, 16]" in (
        result.output
    )
    assert "no claim has a newer intact run" in result.output


def test_refresh_passes_over_a_tampered_run_another_testbed_and_a_run_without_the_row(tmp_path):
    project(tmp_path)
    other = a_run(tmp_path, 9.0, 8.0, 10.0, when=T0 + timedelta(hours=3), testbed="apple-m1")
    rowless = a_run(tmp_path, 0, 0, 0, when=T0 + timedelta(hours=2), rows=[{"size": 1, "gb_per_s": 1.0}])
    tampered = a_run(tmp_path, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1))
    data = tmp_path / tampered / "results.csv"
    data.write_text(data.read_text().replace("4.5", "4.6"))
    result = run_ledger("refresh", cwd=tmp_path)
    assert other not in result.output
    assert f"skipped for speed: {rowless}: 0 rows match where {{'size': 16}}" in result.output
    assert f"skipped for speed: {tampered}: not intact: results.csv has sha256" in result.output
    assert "no claim has a newer intact run" in result.output


def commit(root, message="base"):
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def test_diff_lists_a_re_measure_within_noise_with_its_interval_without_flagging_it(tmp_path):
    """Ranges of 9 rounds: the re-measure could have seen a change of its 5% tolerance, and sees none. (A stated
    value that moved beyond its tolerance while the change's interval holds 0 is never within noise: the evidence
    could not have seen that tolerance, so it is insufficient data: the test below.)"""
    first = a_run(tmp_path, 3.6, 3.55, 3.65, rounds=9)
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first)})
    git(tmp_path, "init", "-q")
    commit(tmp_path)
    later = a_run(tmp_path, 3.62, 3.58, 3.66, when=T0 + timedelta(hours=1), rounds=9)
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    row = next(line for line in result.output.splitlines() if line.startswith("| re-measured | `speed` |"))
    assert (
        f"re-measured (same probe, testbed and defining parameters): run {first.rsplit('/', 1)[1]} → "
        f"{later.rsplit('/', 1)[1]}; within noise: +0.56% \\[−1.9, +3.1\\] (99.2%, intervals); a change of 3.7% or "
        "more would be seen"
    ) in row, row
    assert "| value moved |" not in result.output and "Insufficient data" not in result.output


def test_diff_lists_insufficient_data_under_its_own_heading_above_the_listed_changes(tmp_path):
    """A re-measure whose ranges (5 rounds) could not have seen a change of its tolerance: the pull-request comment
    lists it in its own compact table above "listed, not flagged", never as within noise, and the JSON says why."""
    first = a_run(tmp_path, 3.6, 3.3, 3.9, rounds=5)
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first)})
    git(tmp_path, "init", "-q")
    commit(tmp_path)
    a_run(tmp_path, 3.9, 3.5, 4.1, when=T0 + timedelta(hours=1), rounds=5)
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    text = result.output
    heading = "### Insufficient data (the evidence could not have seen a change of the tolerance)"
    assert heading in text and text.index(heading) < text.index("### Other changes (listed, not flagged)")
    assert "| claim | stated | change [interval] | could see | allowed | why, and what would settle it |" in text
    assert (
        "| `speed` | 3.6 GB/s → 3.90 GB/s | +8.3% \\[−10.3, +24.2\\] (87.5%, intervals) | 31.7% | 5.0% | one run a "
        "side, judged on their intervals alone" in text
    ), text
    assert "| `seconds` | 10 s/GB → 9.23 s/GB | — | — | — | follows its inputs |" in text
    assert "moved within noise" not in text and "| value moved | `speed` |" not in text
    data = json.loads(run_ledger("diff", "HEAD", "--format", "json", cwd=tmp_path).output)
    [found] = [entry for entry in data["insufficient"] if entry["claim"] == "speed"]
    assert found["state"] == "insufficient" and found["cause"] == "one-run"
    assert found["change"]["level"] == pytest.approx(0.875) and found["change"]["low"] < 0 < found["change"]["high"]


def test_an_unchanged_value_on_a_newer_run_reads_unchanged(tmp_path):
    project(tmp_path)
    a_run(tmp_path, 3.6, 3.4, 3.8, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", cwd=tmp_path)
    assert "| 3.6 GB/s | 3.6 GB/s | 3.6 kept | unchanged |" in result.output


def test_refresh_reads_cells_as_the_gate_does_so_3_7_is_not_37(tmp_path):
    first = project(tmp_path)
    rows = [{"size": 1, "gb_per_s": 1.0}, {"size": 16, "gb_per_s": "3_7"}]  # float() reads 37.0
    later = a_run(tmp_path, 0, 0, 0, when=T0 + timedelta(hours=1), rows=rows)
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 0, result.output + result.errors
    assert (
        f"skipped for speed: {later}: 1 rows match where {{'size': 16}}, or the cell is not a number" in result.output
    )
    assert "no claim has a newer intact run" in result.output
    assert first in (tmp_path / "claims/toy.yaml").read_text()
    assert "37" not in (tmp_path / "claims/toy.yaml").read_text()


ASSERTING = CLAIMS.replace("    tolerance: 5%\n", '    tolerance: 5%\n    asserts: "> 3.5"\n', 1)
BORROWED_CHECK = """
  - id: their-speed
    kind: borrowed
    value: 3.6
    unit: GB/s
    testbed: linux-cpu
    source: {title: another write-up}
    checked_by: [speed]
"""


def counted(value, low, high):
    """The rows of a_run with `rounds`, so the min–max range has a known coverage (7 rounds: 98.4%), as an
    `asserts:` needs (asserts_level)."""
    return [
        {"size": 1, "rounds": 7, "gb_per_s": 1.0, "gb_per_s_min": 0.9, "gb_per_s_max": 1.1},
        {"size": 16, "rounds": 7, "gb_per_s": value, "gb_per_s_min": low, "gb_per_s_max": high},
    ]


def test_refresh_write_keeps_a_claim_whose_asserts_the_new_run_no_longer_supports_and_exits_1(tmp_path):
    first = a_run(tmp_path, 3.6, 3.55, 3.65, rows=counted(3.6, 3.55, 3.65))
    write_tree(tmp_path, {"claims/toy.yaml": ASSERTING.format(run=first)})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    later = T0 + timedelta(hours=1)
    a_run(tmp_path, 3.62, 3.2, 4.0, when=later, rows=counted(3.62, 3.2, 4.0))  # a loaded machine: a wide interval
    before = (tmp_path / "claims/toy.yaml").read_bytes()
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"kept speed on its cited run ({first}): speed: not-significant:" in result.output
    assert "1 claim(s) not moved: on the newer run the gate would fail (above); the rest moved" in result.output
    assert "wrote nothing" in result.output
    assert (tmp_path / "claims/toy.yaml").read_bytes() == before  # the claim stays on its run, untouched
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # refresh left the gate passing


def other_run(root, value, when=T0):
    """A run of a second probe, 'other', so that one claim can move while another is kept."""
    write_tree(root, {"probes/other.py": "print('other')\n"})
    rows = [{"size": 16, "gb_per_s": value, "gb_per_s_min": value - 0.05, "gb_per_s_max": value + 0.05}]
    path = write_run(
        root, "other", "linux-cpu", {"results.csv": rows}, parameters=DEFAULT, environment={},
        code=["probes/other.py"], started=when, finished=when,
    )  # fmt: skip
    return path.relative_to(root).as_posix()


OTHER = """
  - id: other-speed
    value: 2.0
    unit: GB/s
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{size: 16}}, column: gb_per_s}}
    tolerance: 5%
"""


def refreshed_beside_a_contradiction(root, also: str = "", rows=None):
    """`refresh --write` where speed's newer run would contradict their-speed (kept) and other-speed's would
    move it; `also`: more claims on speed's first run; rows: that newer run's. (first, other, newer, result)"""
    first = a_run(root, 3.6, 3.55, 3.65)
    other = other_run(root, 2.0)
    claims = CLAIMS.format(run=first) + also.format(run=first) + OTHER.format(run=other) + BORROWED_CHECK
    write_tree(root, {"claims/toy.yaml": claims})
    assert run_ledger("check", cwd=root).exit_code == 0
    a_run(root, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1), rows=rows)  # speed would now contradict their-speed
    newer = other_run(root, 2.2, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", "--write", cwd=root)
    assert result.exit_code == 1, result.output + result.errors
    assert f"kept speed on its cited run ({first}): their-speed: contradicted:" in result.output
    return first, other, newer, result


def test_refresh_write_keeps_a_claim_whose_move_would_contradict_a_borrowed_figure_and_moves_the_rest(tmp_path):
    first, other, newer, _ = refreshed_beside_a_contradiction(tmp_path)
    text = (tmp_path / "claims/toy.yaml").read_text()
    assert first in text and newer in text and other not in text  # speed kept, other-speed moved
    assert "    value: 2.20\n" in text and "    value: 3.6   # from the first run" in text
    assert run_ledger("check", cwd=tmp_path).exit_code == 0  # nothing failing by refresh's doing


SMALL = """
  - id: small-speed
    value: 1.0
    unit: GB/s
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{size: 1}}, column: gb_per_s}}
    tolerance: 5%
"""


def test_refresh_write_keeps_every_claim_citing_the_run_of_one_it_keeps_and_says_which(tmp_path):
    rows = [
        {"size": 1, "gb_per_s": 1.2, "gb_per_s_min": 1.15, "gb_per_s_max": 1.25},  # small-speed would move alone
        {"size": 16, "gb_per_s": 4.5, "gb_per_s_min": 4.4, "gb_per_s_max": 4.6},  # speed would contradict their-speed
    ]
    first, other, newer, result = refreshed_beside_a_contradiction(tmp_path, SMALL, rows)
    assert (
        f"kept small-speed on its cited run ({first}): it cites {first.rsplit('/', 1)[-1]} with speed, which stays "
        "there: claims citing one run move together"
    ) in result.output
    text = (tmp_path / "claims/toy.yaml").read_text()
    assert text.count(first) == 2 and newer in text and other not in text  # the run's two claims stay together
    assert "    value: 1.0\n" in text and "    value: 2.20\n" in text
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_a_long_parameter_is_shown_where_it_differs_and_one_reason_is_said_once_for_every_claim(tmp_path):
    """A list of sizes that differs only in its last value says what it adds and drops (a cut at 40 characters
    hid it); three claims passed over a run for one reason get one line naming them."""
    long = [2**k for k in range(14)]
    first = a_run(tmp_path, 3.6, 3.5, 3.7, parameters={**DEFAULT, "sizes": long})
    more = "".join(
        CLAIMS.split("\n  - id: seconds")[0].split("claims:")[1].replace("id: speed", f"id: speed{n}") for n in (2, 3)
    )
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first) + more.format(run=first)})
    later = a_run(
        tmp_path, 3.7, 3.6, 3.8, when=T0 + timedelta(hours=1), parameters={**DEFAULT, "sizes": [*long[:-1], 10**4]}
    )
    result = run_ledger("refresh", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert (
        f"skipped for speed, speed2, speed3: {later}: parameters differ: sizes adds 10000 and drops 8192 "
        "(of 14 values before, 14 now)" in result.output
    ), result.output
    assert result.output.count("skipped for") == 1
