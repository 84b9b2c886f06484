"""The probe API (generator.probe): a Python probe's `with measure(...)` block, and a folder of CSVs
from a command in any language, each become a run the gate accepts; nothing half-written is left."""

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import REPO, run_ledger, write_tree

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


def run_python(script: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": f"{cwd}{os.pathsep}{REPO}", **env}
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=environment, capture_output=True, text=True)


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
    done = run_python(tmp_path / "probes/toy.py", tmp_path)
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
    run = run_python(tmp_path / "probes/toy.py", tmp_path).stdout.strip()
    write_tree(tmp_path, {"claims/c.yaml": CLAIM.format(run=run), "probes/helper.py": HELPER + "# tuned\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "probe-changed: probes/helper.py changed since the run" in result.output


def test_an_exception_in_the_block_writes_nothing(tmp_path):
    failing = PYTHON_PROBE.replace("run.row(size=1, ms=helper.value(1))", 'raise SystemExit("reference mismatch")')
    write_tree(tmp_path, {"mkdocs.yml": "", "probes/__init__.py": "", "probes/helper.py": HELPER})
    write_tree(tmp_path, {"probes/toy.py": failing})
    done = run_python(tmp_path / "probes/toy.py", tmp_path)
    assert done.returncode == 1 and "reference mismatch" in done.stderr
    assert not (tmp_path / "measurements").exists() or not any((tmp_path / "measurements").rglob("*.csv"))


def test_probes_dir_is_where_the_policy_says(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "", "bench/__init__.py": "", "bench/helper.py": HELPER})
    write_tree(tmp_path, {"bench/toy.py": PYTHON_PROBE.replace("from probes import", "from bench import")})
    done = run_python(tmp_path / "bench/toy.py", tmp_path, LEDGER_PROBES_DIR="bench")
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


def test_finalize_from_the_command_line(tmp_path):
    write_tree(tmp_path, {"probes/toy.sh": "true\n", "out/results.csv": "a\n1\n"})
    done = subprocess.run(
        [sys.executable, "-m", "generator.probe", "finalize", "out", "--probe", "toy", "--code", "probes/toy.sh"]
        + ["--testbed", "b", "--started", "2026-11-30T06:00:00Z", "--param", "rounds=3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "measurements/toy/2026-11-30T06-00-00Z-b/manifest.json").read_text())
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
