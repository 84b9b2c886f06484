"""The probe API (generator.probe): a Python probe's `with measure(...)` block, and a folder of CSVs
from a command in any language, each become a run the gate accepts; nothing half-written is left."""

import csv
import importlib.metadata
import json
import os
import shutil
import statistics
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import REPO, run_ledger, run_python, write_tree

from generator import probe

CLAIM = """
claims:
  - id: answer
    kind: measured
    value: 42
    unit: ms
    testbed: bench-box
    evidence: {{run: {run}, file: results.csv, where: {{size: 2}}, column: ms}}
"""

PYTHON_PROBE = """
from generator.probe import measure
from probes import helper

with measure("toy", parameters={"profile": "quick", "rounds": 1}, testbed="bench-box") as run:
    run.row(size=1, ms=helper.value(1))
    run.rows("results.csv", [{"size": 2, "ms": helper.value(2)}])
"""

HELPER = "def value(size):\n    return 21.0 * size\n"


def test_time_rounds_interleaves_and_gives_median_low_high_and_rounds():
    calls = []
    timed = probe.time_rounds({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, rounds=3, warmup=1)
    assert calls == ["a", "b"] * 4  # one warm-up round, then three rounds, settings interleaved
    assert timed["a"].rounds == 3 and timed["a"].low <= timed["a"].median <= timed["a"].high


def test_spread_is_median_min_max():
    assert probe.spread([3.0, 1.0, 2.0]) == probe.Spread(median=2.0, low=1.0, high=3.0, rounds=3)


def test_python_probe_writes_a_run_hashing_itself_and_what_it_imports(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/__init__.py": "", "probes/helper.py": HELPER})
    write_tree(tmp_path, {"probes/toy.py": PYTHON_PROBE})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = done.stdout.strip()
    assert run.startswith("measurements/toy/") and run.endswith("Z-bench-box")
    manifest = json.loads((tmp_path / run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "probes/toy.py"
    assert sorted(manifest["probe"]["code"]) == ["probes/__init__.py", "probes/helper.py", "probes/toy.py"]
    assert manifest["parameters"] == {"profile": "quick", "rounds": 1}
    assert {"os", "python", "cpu_count"} <= set(manifest["environment"])
    assert (tmp_path / run / "results.csv").read_text() == "size,ms\n1,21.0\n2,42.0\n"
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=run)})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_environment_names_no_user_or_host(tmp_path):
    found = json.dumps(probe.environment())
    for personal in {os.environ.get("USER", ""), os.environ.get("HOME", ""), os.uname().nodename} - {""}:
        assert personal not in found


def test_editing_an_imported_helper_makes_the_claim_probe_changed(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/__init__.py": "", "probes/helper.py": HELPER})
    write_tree(tmp_path, {"probes/toy.py": PYTHON_PROBE})
    run = run_python(tmp_path / "probes/toy.py", cwd=tmp_path).stdout.strip()
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=run), "probes/helper.py": HELPER + "# tuned\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "probe-changed: probes/helper.py changed since the run" in result.output


def test_an_exception_in_the_block_writes_nothing(tmp_path):
    failing = PYTHON_PROBE.replace("run.row(size=1, ms=helper.value(1))", 'raise SystemExit("reference mismatch")')
    write_tree(tmp_path, {"mkdocs.yml": "", "probes/__init__.py": "", "probes/helper.py": HELPER})
    write_tree(tmp_path, {"probes/toy.py": failing})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)
    assert done.returncode == 1 and "reference mismatch" in done.stderr
    assert not (tmp_path / "measurements").exists() or not any((tmp_path / "measurements").rglob("*.csv"))


def test_probes_dir_is_where_the_policy_says(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "", "bench/__init__.py": "", "bench/helper.py": HELPER})
    write_tree(tmp_path, {"bench/toy.py": PYTHON_PROBE.replace("from probes import", "from bench import")})
    done = run_python(tmp_path / "bench/toy.py", cwd=tmp_path, env={"LEDGER_PROBES_DIR": "bench"})
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / done.stdout.strip() / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "bench/toy.py"
    assert sorted(manifest["probe"]["code"]) == ["bench/__init__.py", "bench/helper.py", "bench/toy.py"]


def test_finalize_turns_a_shell_commands_csv_folder_into_a_run(tmp_path):
    write_tree(tmp_path, {"probes/toy.sh": "#!/bin/sh\nprintf 'size,ms\\n2,42\\n' > \"$1/results.csv\"\n"})
    out = tmp_path / "measurements/toy/.partial-out"
    out.mkdir(parents=True)
    subprocess.run(["sh", "probes/toy.sh", str(out)], cwd=tmp_path, check=True)
    (out / "parameters.json").write_text('{"shape": [2]}')
    started = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    run = probe.finalize(
        out, "toy", root=tmp_path, code=["probes/toy.sh"], started=started, testbed="bench-box", parameters={"p": 1}
    )
    assert run == tmp_path / "measurements/toy/2026-11-30T06-00-00Z-bench-box"
    assert not out.exists()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "probes/toy.sh"
    assert manifest["parameters"] == {"p": 1, "shape": [2]}
    assert (run / "results.csv").read_text() == "size,ms\n2,42\n"
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=run.relative_to(tmp_path).as_posix())})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_finalize_refuses_a_folder_with_other_files_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    write_tree(out, {"results.csv": "a\n1\n", "notes.txt": "x"})
    write_tree(tmp_path, {"probes/toy.sh": "true\n"})
    started = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="notes.txt"):
        probe.finalize(out, "toy", root=tmp_path, code=["probes/toy.sh"], started=started, testbed="b")
    assert not (tmp_path / "measurements").exists()


def finalize_from_the_command_line(root: Path, code: str, *extra: str) -> dict:
    """`python -m generator.probe finalize out ...` in root; the run's manifest."""
    fixed = "finalize out --probe toy --testbed b --started 2026-11-30T06:00:00Z".split()
    done = run_python("-m", "generator.probe", *fixed, "--code", code, *extra, cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "measurements/toy/2026-11-30T06-00-00Z-b/manifest.json").read_text())


def test_finalize_from_the_command_line(tmp_path):
    write_tree(tmp_path, {"probes/toy.sh": "true\n", "out/results.csv": "a\n1\n"})
    manifest = finalize_from_the_command_line(tmp_path, "probes/toy.sh", "--param", "rounds=3")
    assert manifest["parameters"] == {"rounds": 3}


def test_write_run_keeps_its_path_and_default_probe_path(tmp_path):
    from generator.runs import TESTBED_PATTERN, imported_code, write_run  # what this repository's probes import

    assert callable(imported_code) and TESTBED_PATTERN.match("linux-cpu")
    write_tree(tmp_path, {"probes/x.py": "pass\n"})
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    path = write_run(
        tmp_path, "x", "b", {"r.csv": [{"a": 1}]}, parameters={}, environment={}, code=["probes/x.py"],
        started=now, finished=now,
    )  # fmt: skip
    assert json.loads((path / "manifest.json").read_text())["probe"]["path"] == "probes/x.py"


TIMED_PROBE = """
from generator.probe import Stop, each, measure, paired, time_settings

with measure("toy", parameters={"profile": "quick"}, testbed="bench-box") as run:
    timed = time_settings({"one": lambda: sum(range(2000)), "two": lambda: sum(range(4000))},
                          Stop(target=None, min_rounds=9, max_rounds=9))
    for size, name in ((1, "one"), (2, "two")):
        run.timed("results.csv", {"size": size}, timed[name],
                  {"ms": each(timed[name], lambda s: s * 1e3),
                   "ratio": paired(timed[name], timed["one"], lambda mine, one: mine / one)},
                  spread_of=["ms"])
"""


def test_a_timed_probe_writes_every_round_to_samples_csv_beside_the_medians(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/toy.py": TIMED_PROBE})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / done.stdout.strip()
    results = list(csv.DictReader((run / "results.csv").open()))
    samples = list(csv.DictReader((run / "samples.csv").open()))
    assert list(samples[0]) == ["size", "round", "reps", "ms", "ratio", "started", "wall_s", "cpu_s", "load_1m"]
    assert [(r["size"], r["round"]) for r in samples] == [(s, str(i)) for s in "12" for i in range(9)]
    for row in results:
        mine = [r for r in samples if r["size"] == row["size"]]
        assert row["rounds"] == "9" and row["stop"] == "fixed"
        for column in ("ms", "ratio"):
            assert float(row[column]) == statistics.median(float(r[column]) for r in mine)
        assert float(row["ms_min"]) == min(float(r["ms"]) for r in mine)
    assert {r["ratio"] for r in samples if r["size"] == "1"} == {"1.0"}  # paired with itself, round by round
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["files"]["samples.csv"]["rows"] == 18
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=done.stdout.strip()).replace("value: 42", "value: 1")})
    result = run_ledger("check", cwd=tmp_path)
    assert "drifted" in result.output and "invalid" not in result.output  # the row and column exist


def test_the_timing_module_is_hashed_when_the_project_holds_it(tmp_path):
    shutil.copytree(REPO / "generator", tmp_path / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/toy.py": TIMED_PROBE})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)  # generator imported from inside the project
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / done.stdout.strip() / "manifest.json").read_text())
    assert sorted(manifest["probe"]["code"]) == ["generator/timing.py", "probes/toy.py"]
    assert "timing" not in manifest["environment"]


def test_an_installed_timing_module_is_named_with_its_version_instead(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/toy.py": TIMED_PROBE})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)  # generator from this repository: outside the project
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / done.stdout.strip() / "manifest.json").read_text())
    assert sorted(manifest["probe"]["code"]) == ["probes/toy.py"]
    assert manifest["environment"]["timing"] == f"evidence-ledger=={importlib.metadata.version('evidence-ledger')}"


def test_finalize_records_the_probes_own_environment_never_as_a_parameter(tmp_path):
    write_tree(tmp_path, {"probes/toy.c": "int main(){}\n"})
    write_tree(tmp_path / "out", {
        "results.csv": "size,ms\n2,42\n",
        "samples.csv": "size,round,reps,ms\n2,0,1,41\n2,1,1,42\n2,2,1,43\n",
        "environment.json": '{"compiler": "cc 1.0", "flags": "-O2"}',
    })  # fmt: skip
    manifest = finalize_from_the_command_line(
        tmp_path, "probes/toy.c", "--env", "flags=-O3 -march=native", "--env", "libc=2.39"
    )
    env = manifest["environment"]
    assert (env["compiler"], env["flags"], env["libc"]) == ("cc 1.0", "-O3 -march=native", "2.39")
    assert "os" in env and manifest["parameters"] == {}
    assert manifest["files"]["samples.csv"]["rows"] == 3


@pytest.mark.parametrize("name, text", [("environment.json", "[1, 2]"), ("parameters.json", "{not json")])
def test_finalize_refuses_an_environment_or_parameters_file_that_is_not_an_object(tmp_path, name, text):
    write_tree(tmp_path, {"probes/toy.sh": "true\n"})
    write_tree(tmp_path / "out", {"results.csv": "a\n1\n", name: text})
    started = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match=name):
        probe.finalize(tmp_path / "out", "toy", root=tmp_path, code=["probes/toy.sh"], started=started, testbed="b")
    assert not (tmp_path / "measurements").exists()


DECLARING_PROBE = """
from generator.probe import Stop, each, measure, paired, time_settings

with measure("toy", parameters={"profile": "quick"}, testbed="bench-box") as run:
    timed = time_settings({"one": lambda: sum(range(2000)), "two": lambda: sum(range(4000))},
                          Stop(target=None, min_rounds=9, max_rounds=9))
    for size, name in ((1, "one"), (2, "two")):
        run.timed("results.csv", {"size": size}, timed[name],
                  {"ms": each(timed[name], lambda s: s * 1e3),
                   "ratio": paired(timed[name], timed["one"], lambda mine, one: mine / one)},
                  spread_of=["ms"], units={"ms": "ms", "ratio": "×", "size": "KiB"})
    run.rows("sizes.csv", [{"size": 1, "bytes": 1024}, {"size": 2, "bytes": 2048}], units={"bytes": "B"})
    run.row("sizes.csv", size=3, bytes=3072)
    run.declare("sizes.csv", {"size": "KiB"})
"""


def test_a_probe_declares_each_value_columns_unit_timed_or_exact_in_the_manifest(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/toy.py": DECLARING_PROBE})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / done.stdout.strip() / "manifest.json").read_text())
    timed, exact = {"kind": "timed"}, {"kind": "exact"}
    assert manifest["columns"] == {
        "results.csv": {
            "size": {"unit": "KiB", **exact},
            "ms": {"unit": "ms", **timed},
            "ratio": {"unit": "×", **timed},
            "ms_min": {"unit": "ms", **timed},
            "ms_max": {"unit": "ms", **timed},
        },
        "sizes.csv": {"bytes": {"unit": "B", **exact}, "size": {"unit": "KiB", **exact}},
    }
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=done.stdout.strip()).replace("value: 42", "value: 1")})
    assert "invalid" not in run_ledger("check", cwd=tmp_path).output


@pytest.mark.parametrize(
    "calls, message",
    [
        (
            'run.timed("results.csv", {"size": 1}, timed, {"ms": ms}, units={"size": "KiB"})',
            "results.csv: units: no unit for ms; give every value column of the row its unit",
        ),
        (
            'run.timed("results.csv", {"size": 1}, timed, {"ms": ms}, units={"ms": "ms", "us": "us"})',
            "results.csv: units: us is not a column; give every value column of the row its unit",
        ),
        (
            'run.rows("r.csv", [{"ms": 1}], units={"ms": "ms"}); run.declare("r.csv", {"ms": "s"})',
            "r.csv, column 'ms': declared 'ms' (exact), now 's' (exact)",
        ),
        (
            'run.timed("r.csv", {"size": 1}, timed, {"ms": ms}, units={"ms": "ms"}); run.declare("r.csv", {"ms": "ms"})',
            "r.csv, column 'ms': declared 'ms' (timed), now 'ms' (exact)",
        ),
        ('run.declare("r.csv", {"ms": "ms"}, "noisy")', "kind 'noisy': a column is timed or exact"),
    ],
)
def test_a_probe_that_leaves_a_value_undeclared_or_declares_it_twice_otherwise_writes_nothing(tmp_path, calls, message):
    body = f"""
from generator.probe import each, measure, time_settings
from generator.timing import fixed

with measure("toy", parameters={{}}, testbed="bench-box") as run:
    timed = time_settings({{"one": lambda: None}}, fixed(3))["one"]
    ms = each(timed, lambda s: s * 1e3)
    {calls}
"""
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\n", "probes/toy.py": body})
    done = run_python(tmp_path / "probes/toy.py", cwd=tmp_path)
    assert done.returncode == 1 and f"ValueError: {message}" in done.stderr
    assert not (tmp_path / "measurements").exists()


def test_a_probe_in_another_language_declares_its_columns_in_columns_json(tmp_path):
    write_tree(tmp_path, {"probes/toy.c": "int main(){}\n"})
    declared = {"results.csv": {"ms": {"unit": "ms", "kind": "timed"}, "bytes": {"unit": "B", "kind": "exact"}}}
    write_tree(tmp_path / "out", {"results.csv": "size,bytes,ms\n2,2048,42\n", "columns.json": json.dumps(declared)})
    manifest = finalize_from_the_command_line(tmp_path, "probes/toy.c")
    assert manifest["columns"] == declared
    assert "columns.json" not in manifest["files"]


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"results.csv": {"ms": "ms"}}', 'results.csv, column \'ms\': write {"unit": ..., "kind": ...}'),
        ('{"results.csv": {"ms": {"unit": "ms", "kind": "median"}}}', "kind 'median': a column is timed or exact"),
        ('{"other.csv": {"ms": {"unit": "ms", "kind": "timed"}}}', "columns: 'other.csv' is not a table of the run"),
        ('{"results.csv": {"us": {"unit": "us", "kind": "timed"}}}', "columns: results.csv has no column 'us'"),
    ],
)
def test_finalize_refuses_a_columns_file_that_does_not_declare_the_folders_columns(tmp_path, text, message):
    write_tree(tmp_path, {"probes/toy.sh": "true\n"})
    write_tree(tmp_path / "out", {"results.csv": "size,ms\n2,42\n", "columns.json": text})
    started = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    with pytest.raises(ValueError) as error:
        probe.finalize(tmp_path / "out", "toy", root=tmp_path, code=["probes/toy.sh"], started=started, testbed="b")
    assert message in str(error.value)
    assert not (tmp_path / "measurements").exists() and (tmp_path / "out/results.csv").exists()
