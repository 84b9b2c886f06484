"""A move judged once: planted A/A pairs and ×1.3 steps read alike in `ledger diff` (its pull-request comment and its
JSON) and `ledger history --changed`, each with its change's interval; refresh's words (exact, changed; another
probe version; never kept on a stale run; a surface's figure listed in the diff); `ledger check` notes insufficient
data, and the policy can make it a warning."""

import json
import math
import random
import re
import subprocess
import sys
from contextlib import contextmanager
from datetime import timedelta

import pytest
from helpers import RUN_TIME, a_run, git, run_ledger, write_tree
from helpers_rounds import noisy, rounds_run

from generator.runs import Column

SETTINGS = 24  # a set's cells: their run-to-run variation pooled (lang/pooling.py)
CV = 0.03  # each cell's run-to-run variation
AA, STEPS = 40, 10


def a_set(root, probe: str, rng: random.Random, start: int, runs: int, scale: float = 1.0) -> list[str]:
    """`runs` runs of one probe an hour apart, each cell's level varying by CV run to run (independently), its
    15 rounds by 1% within the run; scale multiplies every cell (a planted step)."""
    made = []
    for i in range(start, start + runs):
        levels = {b: scale * b * math.exp(rng.gauss(0, CV)) for b in range(1, SETTINGS + 1)}
        rounds = {b: noisy(level, n=15, cv=0.01, seed=rng.randrange(1 << 30)) for b, level in levels.items()}
        made.append(rounds_run(root, rounds, probe=probe, when=RUN_TIME + timedelta(hours=i)))
    return made


def claim(probe: str, run: str) -> str:
    return f"""
  - id: {probe}-b1
    value: 1
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{batch: 1}}, column: speedup, replicates: 3}}
    tolerance: 20%
"""


def test_planted_steps_and_a_a_pairs_read_alike_in_the_diff_its_json_and_history(tmp_path):
    """40 sets of three runs re-measured by a fourth from the same distribution, 10 by a fourth ×1.3: the change's
    99% interval holds 0 in at least 94% of the A/A pairs and excludes it in at least 9 of the 10 steps, and the
    pull-request comment, the diff's JSON and `history --changed` name the same steps with the same interval."""
    rng = random.Random(48)
    probes = [f"aa{n:02d}" for n in range(AA)] + [f"step{n}" for n in range(STEPS)]
    cited = {probe: a_set(tmp_path, probe, rng, 0, 3)[-1] for probe in probes}
    write_tree(tmp_path, {"claims/sets.yaml": "claims:" + "".join(claim(p, run) for p, run in cited.items())})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "three runs a set")
    for probe in probes:
        a_set(tmp_path, probe, rng, 3, 1, scale=1.3 if probe.startswith("step") else 1.0)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "a fourth run each")

    markdown = run_ledger("diff", "HEAD~1", "HEAD", cwd=tmp_path).output
    data = json.loads(run_ledger("diff", "HEAD~1", "HEAD", "--format", "json", cwd=tmp_path).output)
    history = json.loads(run_ledger("history", "--changed", "--format", "json", cwd=tmp_path).output)

    from_json = {entry["claim_id"]: entry for entry in data["series"]}
    assert set(from_json) == {f"{p}-b1" for p in probes}
    from_comment = {}
    for line in markdown.splitlines():
        found = re.match(
            r"\| (.*?) \| `([a-z0-9-]+)` \| .*new point .*?: (\*\*step\*\*|no step|insufficient data)", line
        )
        if found:
            from_comment[found.group(2)] = (found.group(3).strip("*"), line)
    steps_in_history = {entry["claim"]: entry for entry in history}

    held_aa = excluded_steps = 0
    for probe in probes:
        claim_id = f"{probe}-b1"
        entry = from_json[claim_id]
        change = entry["change"]
        holds_zero = change["low"] <= 0 <= change["high"]
        assert change["level"] == 0.99 and change["basis"] == "between-run"
        step = entry["verdict"] == "step"
        assert step == (not holds_zero and abs(change["value"]) > 0.2), entry  # one verdict from one interval
        assert from_comment[claim_id][0] == entry["verdict"], from_comment[claim_id]
        assert (claim_id in steps_in_history) == step, claim_id
        if step:  # history says it with the same interval
            assert steps_in_history[claim_id]["change"] == change
        shown = f"[{_percent(change['low'])}, {_percent(change['high'])}]"
        assert shown.replace("[", "\\[").replace("]", "\\]") in from_comment[claim_id][1], (
            shown,
            from_comment[claim_id],
        )
        if probe.startswith("aa"):
            held_aa += holds_zero
        else:
            excluded_steps += not holds_zero
    assert held_aa >= math.ceil(0.94 * AA), held_aa
    assert excluded_steps >= 9, excluded_steps


def _percent(share: float) -> str:
    """The interval's ends as the words write them (wording.percent_text, without its %)."""
    value = 100 * share
    digits = 2 if abs(value) < 1 else 1 if abs(value) < 100 else 0
    return f"{value:+.{digits}f}".replace("-", "−")


# -- refresh's words ---------------------------------------------------------------------------------------


EXACT = """
claims:
  - id: layers
    value: 40
    unit: ""
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{model: m}}, column: layers}}
"""


def test_an_exact_value_that_changed_reads_exact_changed(tmp_path):
    """A count with no sign of timing, declared exact: its move is a change, never 'noise unknown'."""
    columns = {"model": Column("", "exact"), "layers": Column("", "exact")}
    first = a_run(tmp_path, [{"model": "m", "layers": 40}], columns=columns)
    write_tree(tmp_path, {"claims/a.yaml": EXACT.format(run=first)})
    a_run(tmp_path, [{"model": "m", "layers": 48}], columns=columns, when=RUN_TIME + timedelta(hours=1))
    result = run_ledger("refresh", cwd=tmp_path)
    row = next(line for line in result.output.splitlines() if line.startswith("| layers |"))
    assert row.endswith("| 40 | 48 | 40 → 48.0 | exact, changed |"), row
    assert "noise unknown" not in result.output
    assert "1 claim(s) move to newer runs (1 exact, changed)" in result.output


def sets(root, probe_text: str, start: int, runs: int, levels=(1.0, 1.02, 0.98)) -> list[str]:
    """Runs of the toy probe with the probe file holding `probe_text` (its code hash: the probe's version)."""
    write_tree(root, {"probes/toy.py": probe_text})
    return [
        rounds_run(
            root,
            {b: noisy(level * b, n=9, cv=0.02, seed=10 * i + b) for b in (1, 16)},
            when=RUN_TIME + timedelta(hours=i),
        )  # fmt: skip
        for i, level in zip(range(start, start + runs), levels, strict=False)
    ]


SET_CLAIM = """
claims:
  - id: s16
    value: {value}
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{batch: 16}}, column: speedup, replicates: 3}}
    tolerance: 5%{extra}
"""


def test_a_run_of_another_probe_version_is_never_judged_against_the_old_versions_runs(tmp_path):
    """The cited run has two replicates before it, of the first version of its probe; the newest run is of the
    second: refresh moves the claim to it and says it is another measurement, never within noise of the first's."""
    old = sets(tmp_path, "print('version 1')\n", 0, 3)
    write_tree(
        tmp_path, {"claims/a.yaml": SET_CLAIM.format(value="16", run=old[-1], extra="").replace(", replicates: 3", "")}
    )
    (new,) = sets(tmp_path, "print('version 2')\n", 3, 1)
    result = run_ledger("refresh", cwd=tmp_path)
    row = next((line for line in result.output.splitlines() if line.startswith("| s16 |")), "")
    assert "another probe version (probes/toy.py changed): not judged against the cited runs |" in row, result.output
    assert "within noise" not in result.output and "beyond noise" not in result.output


def test_refresh_never_keeps_a_claim_on_a_run_that_is_already_stale(tmp_path):
    """The cited run's probe changed (probe-changed: stale). The newest run, of the new version, makes the claim's
    `asserts:` fail on its wider interval; keeping the claim on its stale run is no safer, so refresh moves it and
    says what now fails, where it would keep a claim whose run is still good."""
    (first,) = sets(tmp_path, "print('version 1')\n", 0, 1)
    write_tree(tmp_path, {"claims/a.yaml": SET_CLAIM.format(value="16", run=first, extra='\n    asserts: "> 15.5"')
                          .replace(", replicates: 3", "")})  # fmt: skip
    write_tree(tmp_path, {"probes/toy.py": "print('version 2')\n"})
    wide = {b: noisy(b, n=9, cv=0.25, seed=b) for b in (1, 16)}  # rounds too spread for `> 15.5` to hold
    later = rounds_run(tmp_path, wide, when=RUN_TIME + timedelta(hours=1))
    assert "probe-changed" in run_ledger("check", cwd=tmp_path).output
    result = run_ledger("refresh", "--write", cwd=tmp_path)
    assert f"moved s16 off its stale run ({first}: probe changed), though the gate fails on it now: " in result.output
    assert "s16: not-significant" in result.output and "kept s16" not in result.output
    assert later in (tmp_path / "claims/a.yaml").read_text()


README = "# Hash rates\n\nSpeedup at 16: <!-- ledger: s16 -->{value}<!-- /ledger -->.\n"
CONFIG = "site_name: t\nplugins:\n  - ledger:\n      surfaces: [README.md]\n"


def test_a_readme_figure_a_refresh_changes_is_listed_in_the_diff(tmp_path):
    (first,) = sets(tmp_path, "print('toy')\n", 0, 1)
    write_tree(tmp_path, {"claims/a.yaml": SET_CLAIM.format(value="16", run=first, extra="").replace(", replicates: 3", ""),
                          "mkdocs.yml": CONFIG, "README.md": README.format(value="16")})  # fmt: skip
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0  # the README follows the stated value
    before = re.search(r"-->(.*?)<!--", (tmp_path / "README.md").read_text()).group(1)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    sets(tmp_path, "print('toy')\n", 1, 1, levels=(1.5,))
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    after = re.search(r"-->(.*?)<!--", (tmp_path / "README.md").read_text()).group(1)
    assert before != after
    result = run_ledger("diff", "HEAD", cwd=tmp_path)
    assert "### Figures on surfaces (README.md, …: the values between their markers)" in result.output
    assert f"- `README.md:3` `s16`: {before} → **{after}**" in result.output, result.output
    data = json.loads(run_ledger("diff", "HEAD", "--format", "json", cwd=tmp_path).output)
    assert data["surface_figures"] == [{"where": "README.md:3", "claim": "s16", "old": before, "new": after}]


# -- check notes insufficient data --------------------------------------------------------------------------


def test_check_notes_insufficient_data_and_the_policy_can_make_it_a_warning(tmp_path):
    """A claim on one run of 5 rounds a side (min–max: 93.8%), re-measured by a run that could not have shown a
    change of its 5% tolerance: `ledger check` passes and notes it with the change it could see; `warn:
    [insufficient-data]` makes it a warning, `fail:` a failure."""

    def rows(value: float, low: float, high: float) -> list[dict]:
        return [{"batch": 16, "speedup": value, "speedup_min": low, "speedup_max": high, "rounds": 5}]

    first = a_run(tmp_path, rows(3.6, 3.3, 3.9))
    a_run(tmp_path, rows(3.65, 3.35, 3.95), when=RUN_TIME + timedelta(hours=1))
    write_tree(tmp_path, {"claims/a.yaml": f"""
        claims:
          - id: s16
            value: 3.6
            unit: "×"
            kind: measured
            testbed: linux-cpu
            evidence: {{run: {first}, file: results.csv, where: {{batch: 16}}, column: speedup}}
            tolerance: 5%
        """})  # fmt: skip
    noted = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert noted.exit_code == 0, noted.output
    assert "claims/a.yaml:7: s16: insufficient-data: re-measured by run 2026-11-29T11-00-00Z-linux-cpu, judged " in (
        noted.output
    )
    assert "insufficient data: +1.4% [−14.1, +19.7] (87.5%, intervals); only a change over " in noted.output
    assert "(note)" in noted.output and " — 0 failures — 1 note: 1 insufficient-data" in noted.output
    data = json.loads(run_ledger("check", "--no-cache", "--format", "json", cwd=tmp_path).output)
    assert [n["rule"] for n in data["notes"]] == ["insufficient-data"] and data["ok"]
    for option, severity, code in (("warn", "(warning)", 0), ("fail", "", 1)):
        write_tree(
            tmp_path, {"mkdocs.yml": f"site_name: t\nplugins:\n  - ledger:\n      {option}: [insufficient-data]\n"}
        )
        result = run_ledger("check", "--no-cache", cwd=tmp_path)
        assert result.exit_code == code, result.output
        line = next(line for line in result.output.splitlines() if "insufficient-data:" in line)
        assert line.endswith(severity) if severity else not line.endswith(")"), line


# -- a new user on a loaded machine -------------------------------------------------------------------------


@contextmanager
def two_cpu_bound_processes():
    """Two processes spinning on the CPU while the block runs (a loaded two-core machine), ended by their ids."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@pytest.mark.slow
def test_runs_made_under_load_give_insufficient_data_with_what_they_could_see_not_within_noise(tmp_path):
    """In a fresh `ledger init` project, three replicate runs of its probe made while two CPU-bound processes run,
    the claims cited on the newest, then one more run so made: refresh judges it against the set and says
    insufficient data with the smallest change it could see (the claims allow 5%), never within noise, and names
    the load (the runs' stability verdicts) as its cause. Where the last run lands far away (the machine busier
    still, as under a loaded test suite), "beyond noise" with an interval that excludes no change is as true."""
    root = tmp_path / "hashes"
    assert run_ledger("init", str(root), cwd=tmp_path, timeout=600).exit_code == 0
    claims = root / "claims/hashing.yaml"
    with two_cpu_bound_processes():
        made = run_ledger("measure", "hashing", "--profile", "quick", "--replicates", "3", cwd=root, timeout=600)
        assert made.exit_code == 0, made.output + made.errors
        runs = sorted(str(p.relative_to(root)) for p in (root / "measurements/hashing").iterdir())
        cited = re.search(r"run: (\S+)", claims.read_text()).group(1)
        claims.write_text(claims.read_text().replace(cited, runs[-1]))
        for claim_id in ("sha256-1mib-throughput", "blake2b-1mib-throughput"):
            run_ledger("accept", claim_id, cwd=root)  # the run's value, unless it agrees already
        again = run_ledger("measure", "hashing", "--profile", "quick", cwd=root, timeout=600)
        assert again.exit_code == 0, again.output + again.errors
    result = run_ledger("refresh", cwd=root)
    rows = [line for line in result.output.splitlines() if line.startswith(("| sha256-1mib", "| blake2b-1mib"))]
    assert len(rows) == 2, result.output
    for row in rows:
        assert "within noise" not in row and "(99%, between-run: 3 runs → 1, from their pooled " in row, row
        beyond = re.search(r"\| beyond noise: [−+]?\d+(\.\d+)?% \[([−+]?\d+(\.\d+)?), ([−+]?\d+(\.\d+)?)\]", row)
        if beyond:  # the last run landed far enough away (a heavier load then) that the set could see it
            low, high = (float(beyond.group(i).replace("−", "-")) for i in (2, 4))
            assert low > 0 or high < 0, row  # its interval excludes no change
            continue
        assert "| insufficient data: " in row, row
        assert re.search(r"; only a change over \d+(\.\d+)?% could be seen, 5\.0% allowed: ", row), row
        # the runs' stability verdicts (the machine record `ledger measure` writes) name the load as the cause
        assert re.search(r"measured under load: changes under \d+(\.\d+)?% cannot be seen here", row), row
