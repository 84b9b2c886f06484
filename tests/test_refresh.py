"""`ledger refresh`: claims move to the newest intact run of the same probe, testbed and defining
parameters; value changes marked beyond or within noise; --write edits evidence and values together,
dependents in the same pass, comments kept. `ledger diff` marks value moves on the same terms."""

from datetime import datetime, timedelta, timezone

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


def a_run(root, value, low, high, when=T0, testbed="linux-cpu", parameters=None, rows=None):
    if not (root / "probes/toy.py").exists():
        write_tree(root, {"probes/toy.py": "print('toy')\n"})
    rows = rows or [
        {"size": 1, "gb_per_s": 1.0, "gb_per_s_min": 0.9, "gb_per_s_max": 1.1},
        {"size": 16, "gb_per_s": value, "gb_per_s_min": low, "gb_per_s_max": high},
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
    assert (
        f"| speed | {name(first)} → {name(later)} | 3.6 GB/s → 4.5 GB/s; stated 3.6 → 4.50 | "
        "beyond noise (intervals 3.5–3.7 → 4.4–4.6) |"
    ) in result.output
    assert (
        "| seconds | (formula) | 10 s/GB → 8 s/GB; stated 10 → 8.00 | beyond noise (follows speed) |" in result.output
    )
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
    project(tmp_path)
    a_run(tmp_path, 3.65, 3.3, 3.9, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", cwd=tmp_path)
    # Within tolerance and within noise, the stated value still moves to the new run's (at its precision):
    # the page never shows a stated 3.6 beside a table reading 3.65.
    assert "| 3.6 GB/s → 3.65 GB/s; stated 3.6 → 3.65 | within noise (intervals 3.5–3.7 → 3.3–3.9) |" in result.output
    assert (
        "| seconds | (formula) | 10 s/GB → 9.863 s/GB; stated 10 → 9.86 | within noise (follows speed) |"
        in result.output
    )


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


def test_diff_lists_a_move_within_noise_without_flagging_it_and_flags_one_beyond(tmp_path):
    project(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    a_run(tmp_path, 3.9, 3.4, 4.0, when=T0 + timedelta(hours=1))
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    assert "### Other changes (listed, not flagged)" in result.output
    assert (
        "| moved within noise | `speed` | moved within noise: 3.6 GB/s → 3.90 GB/s (+8.3%; 5% allowed; "
        "within noise (intervals 3.5–3.7 → 3.4–4)); re-measured" in result.output
    )
    assert "| value moved | `speed` |" not in result.output
    # The formula and its inputs are unchanged: its value inherits its input's verdict.
    assert (
        "| moved within noise | `seconds` | moved within noise: 10 s/GB → 9.23 s/GB (-7.7%; ±0.5 allowed; "
        "within noise (follows speed)) | value 10 s/GB → **9.23 s/GB** |"
    ) in result.output
    assert "| value moved |" not in result.output


def test_an_unchanged_value_on_a_newer_run_reads_unchanged(tmp_path):
    project(tmp_path)
    a_run(tmp_path, 3.6, 3.4, 3.8, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", cwd=tmp_path)
    assert "| 3.6 GB/s → 3.6 GB/s; stated 3.6 kept (it reads the new value) | unchanged |" in result.output


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


def test_refresh_write_keeps_a_claim_whose_move_would_contradict_a_borrowed_figure_and_moves_the_rest(tmp_path):
    first = a_run(tmp_path, 3.6, 3.55, 3.65)
    other = other_run(tmp_path, 2.0)
    write_tree(tmp_path, {"claims/toy.yaml": CLAIMS.format(run=first) + OTHER.format(run=other) + BORROWED_CHECK})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    a_run(tmp_path, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1))  # speed would now contradict their-speed
    newer = other_run(tmp_path, 2.2, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 1, result.output + result.errors
    assert f"kept speed on its cited run ({first}): their-speed: contradicted:" in result.output
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
    first = a_run(tmp_path, 3.6, 3.55, 3.65)
    other = other_run(tmp_path, 2.0)
    claims = CLAIMS.format(run=first) + SMALL.format(run=first) + OTHER.format(run=other) + BORROWED_CHECK
    write_tree(tmp_path, {"claims/toy.yaml": claims})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    rows = [
        {"size": 1, "gb_per_s": 1.2, "gb_per_s_min": 1.15, "gb_per_s_max": 1.25},  # small-speed would move alone
        {"size": 16, "gb_per_s": 4.5, "gb_per_s_min": 4.4, "gb_per_s_max": 4.6},  # speed would contradict their-speed
    ]
    a_run(tmp_path, 4.5, 4.4, 4.6, when=T0 + timedelta(hours=1), rows=rows)
    newer = other_run(tmp_path, 2.2, when=T0 + timedelta(hours=1))
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert result.exit_code == 1, result.output + result.errors
    assert f"kept speed on its cited run ({first}): their-speed: contradicted:" in result.output
    assert (
        f"kept small-speed on its cited run ({first}): it cites {first.rsplit('/', 1)[-1]} with speed, which stays "
        "there: claims citing one run move together"
    ) in result.output
    text = (tmp_path / "claims/toy.yaml").read_text()
    assert text.count(first) == 2 and newer in text and other not in text  # the run's two claims stay together
    assert "    value: 1.0\n" in text and "    value: 2.20\n" in text
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
