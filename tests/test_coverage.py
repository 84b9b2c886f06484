"""`ledger coverage` and benchmarks/coverage.py (its thin caller) on synthetic replicate runs: leave one run out,
count how often each kind of interval covers it, write a run of its own and claims on it that pass the gate."""

import csv
import io
import json
import math
import random
import shutil
import subprocess
import sys
from datetime import timedelta

from helpers import REPO, RUN_TIME, run_ledger
from helpers_rounds import noisy, rounds_run

SCRIPT = REPO / "benchmarks/coverage.py"
CODE = (  # what its runs hash
    "benchmarks/coverage.py",
    "generator/commands/coverage.py",
    "generator/judging/reruns.py",
    "generator/lang/between.py",
    "generator/lang/pooling.py",
)


def replicates(root, levels: list[float], cv: float = 0.01) -> list[str]:
    """One run per level, an hour apart, three settings each: 15 rounds at cv around level × setting."""
    return [
        rounds_run(
            root,
            {b: noisy(level * b, n=15, cv=cv, seed=10 * i + b) for b in (1, 2, 4)},
            when=RUN_TIME + timedelta(hours=i),
        )
        for i, level in enumerate(levels)
    ]


CONFIG = """site_name: t
plugins:
  - ledger:
      probes:
        - name: coverage
          command: "{python} benchmarks/coverage.py toy --claims"
          code: [benchmarks/coverage.py, generator/commands/coverage.py, generator/judging/reruns.py,
                 generator/lang/between.py, generator/lang/pooling.py]
          manual: true
"""


def coverage(root, *args: str) -> subprocess.CompletedProcess:
    """The script as this repository declares it, copied into the project (its runs hash it)."""
    for path in CODE:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / path, root / path)
    (root / "mkdocs.yml").write_text(CONFIG)
    command = [sys.executable, str(SCRIPT), "toy", "--root", str(root), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def summary_rows(root, run: str) -> dict[str, dict[str, str]]:
    text = (root / run / "summary.csv").read_text(encoding="utf-8")
    return {row["column"]: row for row in csv.DictReader(io.StringIO(text))}


def test_runs_that_vary_more_than_their_rounds_say_are_covered_by_the_prediction_not_the_rounds(tmp_path):
    """Five runs whose levels spread 10% while each run's rounds spread 1%: a run's own interval seldom holds
    another run's value; the prediction interval from the other four holds every left-out run."""
    replicates(tmp_path, [1.0, 1.12, 0.9, 1.05, 0.95])
    done = coverage(tmp_path, "--claims")
    assert done.returncode == 0, done.stderr
    run, claims = done.stdout.splitlines()[-2:]
    assert run.startswith("measurements/coverage/") and run.endswith("-linux-cpu")
    assert claims == "claims/coverage.yaml"
    row = summary_rows(tmp_path, run)["speedup"]
    assert (row["settings"], row["runs"]) == ("3", "5")
    assert float(row["within_coverage"]) < 50 < 99 <= float(row["within_level"])
    assert float(row["prediction_coverage"]) == 100 and float(row["prediction_level"]) == 99
    assert float(row["cell_prediction_coverage"]) == 100
    assert float(row["within_half_width"]) < float(row["confidence_half_width"]) < float(row["prediction_half_width"])
    assert 5 < float(row["run_to_run_cv"]) < 15
    assert float(row["detectable_5"]) < float(row["detectable_3"])
    manifest = json.loads((tmp_path / run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "benchmarks/coverage.py" and sorted(manifest["probe"]["code"]) == sorted(CODE)
    assert [len(runs) for runs in manifest["parameters"]["replicate_runs"].values()] == [5]
    assert manifest["columns"]["summary.csv"]["prediction_coverage"] == {"unit": "%", "kind": "exact"}
    checked = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith(
        "30 claims (28 measured, 2 extrapolated; 30 asserted) — 0 failures — run history"
    ), checked.output


def test_ledger_measure_runs_it_only_when_named(tmp_path):
    replicates(tmp_path, [1.0, 1.02, 0.98, 1.01, 0.99])
    coverage(tmp_path, "--dry-run")  # the project as declared
    unnamed = run_ledger("measure", cwd=tmp_path)
    assert unnamed.exit_code == 2
    assert "every probe mkdocs.yml declares runs only when named (`manual: true`): coverage" in unnamed.errors
    result = run_ledger("measure", "coverage", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "1 run written by 1 probe(s)" in result.output
    assert (tmp_path / "claims/coverage.yaml").exists()
    checked = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output


def test_quiet_runs_are_covered_by_both_kinds_of_interval(tmp_path):
    """Five runs at one level, rounds at 1%: what one run says holds for the next, and the prediction too."""
    replicates(tmp_path, [1.0] * 5)
    done = coverage(tmp_path)
    assert done.returncode == 0, done.stderr
    row = summary_rows(tmp_path, done.stdout.splitlines()[-1])["all"]
    assert float(row["within_coverage"]) >= 90 and float(row["prediction_coverage"]) >= 90


def test_fewer_replicates_than_it_needs_say_how_to_make_them(tmp_path):
    replicates(tmp_path, [1.0] * 3)
    done = coverage(tmp_path)
    assert done.returncode == 1
    assert (
        "coverage: no replicate set of toy has 5 runs (the largest has 3); measure it: `ledger measure toy --replicates 5`"
        in done.stderr
    )
    assert not (tmp_path / "measurements/coverage").exists()


def test_it_reads_the_newest_set_of_the_testbed_named_and_never_mixes_cpu_models(tmp_path):
    """Five runs on one CPU model, then five on another under the same testbed name, and five on a testbed of
    their own: the coverage run reads the newest set of the testbed named, and a set holds one CPU model."""

    def five(start: int, testbed: str, cpu: str) -> list[str]:
        return [
            rounds_run(
                tmp_path,
                {b: noisy(b * (1 + 0.01 * i), n=15, cv=0.01, seed=100 * start + 10 * i + b) for b in (1, 2, 4)},
                when=RUN_TIME + timedelta(hours=start + i),
                testbed=testbed,
                environment={"backend": "cpu", "cpu_model": cpu},
            )
            for i in range(5)
        ]

    xeon = five(0, "linux-cpu", "Intel(R) Xeon(R)")
    epyc = five(5, "linux-cpu", "AMD EPYC")
    named = five(10, "linux-cpu-amd-epyc", "AMD EPYC")
    for testbed, expected in (("linux-cpu", epyc), ("linux-cpu-amd-epyc", named)):
        done = coverage(tmp_path, "--testbed", testbed)
        assert done.returncode == 0, done.stderr
        run = done.stdout.splitlines()[-1]
        assert run.endswith(f"-{testbed}")
        manifest = json.loads((tmp_path / run / "manifest.json").read_text())
        assert manifest["parameters"]["replicate_runs"] == {"toy": expected}
    assert not set(xeon) & {r for p in manifest["parameters"]["replicate_runs"].values() for r in p}


def many(root, cv: float, settings: int = 24, runs: int = 5, wandering: int | None = None) -> list[str]:
    """`runs` runs an hour apart of `settings` settings whose values vary run to run by cv (lognormal) while each
    run's 15 rounds vary by 1%; the setting `wandering` (if any) varies ten times as much."""
    rng = random.Random(48)
    made = []
    for i in range(runs):
        levels = {b: math.exp(rng.gauss(0, (10 if b == wandering else 1) * cv)) * b for b in range(1, settings + 1)}
        settings_rounds = {b: noisy(level, n=15, cv=0.01, seed=1000 * i + b) for b, level in levels.items()}
        made.append(rounds_run(root, settings_rounds, when=RUN_TIME + timedelta(hours=i)))
    return made


def test_ledger_coverage_prints_each_method_per_column_and_writes_nothing(tmp_path):
    """Settings that vary alike from run to run: the gate's pooled prediction holds left-out runs near its level and
    detects a change under six times their variation with 3 replicates, where one setting's runs alone detect
    only one many times wider."""
    many(tmp_path, cv=0.04)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - ledger\n")
    result = run_ledger("coverage", "toy", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    table = [[cell.strip() for cell in line.split("|")[1:-1]] for line in result.output.splitlines()]
    lines = {(row[0], row[1], row[2], row[4]): row for row in table if len(row) == 10}
    for method in ("within-run", "one setting's runs", "pooled (the gate's)"):
        assert ("toy", "speedup", "24 × 5", method) in lines, result.output
    cells = lambda method: lines[("toy", "speedup", "24 × 5", method)][5:10]  # noqa: E731
    stated, covers, _, pooled_3, _ = cells("pooled (the gate's)")
    assert stated == "99.0%" and float(covers.rstrip("%")) >= 94, result.output
    assert float(pooled_3.rstrip("%")) <= 6 * 4.0 < float(cells("one setting's runs")[3].rstrip("%")), result.output
    assert not (tmp_path / "measurements/coverage").exists()


def test_the_coverage_run_says_how_many_settings_each_one_is_pooled_with(tmp_path):
    many(tmp_path, cv=0.04, wandering=7)
    done = coverage(tmp_path)
    assert done.returncode == 0, done.stderr
    run = done.stdout.splitlines()[-1]
    rows = list(csv.DictReader(io.StringIO((tmp_path / run / "results.csv").read_text(encoding="utf-8"))))
    pooled = {row["setting"]: float(row["pooled_cells"]) for row in rows}
    assert pooled["batch=7"] == 1  # the wandering setting stands alone
    assert sorted(pooled.values())[len(pooled) // 2] >= 12
