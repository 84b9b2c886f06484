"""Noise named at its source: in a fresh `ledger init` project, runs that `ledger measure` makes while
CPU-bound processes run record the CPU time the other processes took and read unstable, saying so; runs
made without the runner say "machine not recorded"; a malformed record is invalid. Real processes, real
files; no test asserts that a run made without the CPU-bound processes reads stable (the machine running
the tests may be busy)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import initialised, run_ledger, run_mkdocs, run_python

from generator import machine
from generator.inputs import load
from generator.lang.stability import LIMIT
from generator.trust.verdicts import run_stability, stability_text

BUSY = "while True: pass"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return initialised(tmp_path_factory.mktemp("noise"))


def runs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "measurements/hashing").iterdir() if not p.name.startswith("."))


def record(run: Path) -> dict | None:
    return json.loads((run / "manifest.json").read_text()).get("machine")


def cpu_bound(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]


def stopped(hogs: list[subprocess.Popen]) -> float:
    """Stop the processes; the CPU seconds they took (their rusage, once each is reaped)."""
    taken = 0.0
    for hog in hogs:
        hog.send_signal(signal.SIGKILL)
        _, _, usage = os.wait4(hog.pid, 0)
        hog.returncode = -9  # reaped here: Popen must not wait for it again
        taken += usage.ru_utime + usage.ru_stime
    return taken


def test_a_run_made_by_ledger_measure_carries_the_machine_record(project):
    """ledger init measured its probe through `ledger measure`: the record is there, every field of it,
    whatever the machine was doing (no verdict asserted)."""
    (first,) = runs(project)
    found = record(first)
    assert found is not None and set(found) == set(machine.NAMES) and machine.problems(found) == []
    assert found["sampled_by"] == "ledger measure" and found["readings"] >= 2 and found["seconds"] > 0
    if Path("/proc/stat").is_file():
        assert 0 <= found["other_cpu_share"] <= 1 and 0 < found["probe_cpu_share"] <= 1


def test_runs_made_while_cpu_bound_processes_run_read_unstable_from_the_cpu_time_others_took(project):
    """Two CPU-bound processes (one per core where there are more) started just before the run: the load
    average barely moves in that time, but the CPU time they took is in the record and the verdict names it."""
    if not Path("/proc/stat").is_file():
        pytest.skip("the CPU time other processes took is read from /proc/stat")
    cores = os.cpu_count() or 2
    before = set(runs(project))
    gate_before = run_ledger("check", cwd=project)
    started = time.monotonic()
    hogs = cpu_bound(max(2, cores))
    try:
        time.sleep(0.5)
        result = run_ledger("measure", "--profile", "quick", cwd=project, timeout=300)
    finally:
        taken = stopped(hogs)
    lived = time.monotonic() - started
    assert result.exit_code == 0, result.errors
    (new,) = sorted(set(runs(project)) - before)
    found = record(new)
    share = found["other_cpu_share"]
    hogs_share = taken / (lived * cores)  # what they took over their whole life, of every core
    assert share > LIMIT["load"].default and share >= 0.5 * hogs_share, (found, hogs_share)
    words = f"unstable: other processes took {share:.0%} of the CPU time while it ran (limit 10%)"
    assert f"{new.name}: {words}" in result.errors
    verdict = run_stability(load.one_run(project, new.relative_to(project).as_posix()))
    assert verdict.loaded and verdict.other_cpu_share == share and stability_text(verdict).startswith(words)
    gate_after = run_ledger("check", cwd=project)  # never a failure: the gate says what it said before
    assert gate_after.exit_code == gate_before.exit_code and new.name not in gate_after.output


def by_hand(project: Path) -> None:
    """The example probe run by hand, in a second of its own (a run's folder is its start second, and a run
    by hand does not wait for a new one as `ledger measure` does)."""
    time.sleep(1.1)
    done = run_python("probes/hashing.py", "--profile", "quick", cwd=project, env={"LEDGER_ROOT": str(project)})
    assert done.returncode == 0, done.stderr


def test_a_run_made_without_the_runner_says_machine_not_recorded(project):
    before = set(runs(project))
    by_hand(project)
    (new,) = sorted(set(runs(project)) - before)
    assert record(new) is None
    verdict = run_stability(load.one_run(project, new.relative_to(project).as_posix()))
    assert not verdict.recorded and not verdict.loaded
    assert "machine not recorded (not measured by `ledger measure`)" in stability_text(verdict)


@pytest.mark.site
def test_the_run_page_and_the_claim_page_show_the_stability(project, tmp_path):
    by_hand(project)  # its page says the machine was not recorded
    built = run_mkdocs("build", "--strict", "-d", str(tmp_path / "site"), cwd=project)
    assert built.exit_code == 0, built.errors
    pages = {path: path.read_text() for path in (tmp_path / "site").rglob("index.html")}
    run_pages = [text for path, text in pages.items() if "/run/hashing/" in path.as_posix()]
    assert any("The machine while it ran" in text and "other_cpu_share" in text for text in run_pages)
    assert any("machine not recorded" in text.lower() for text in run_pages)
    assert any("The run&#x27;s stability:" in text or "The run's stability:" in text for text in pages.values())


def test_a_malformed_machine_record_is_invalid(tmp_path, project):
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(project), str(copy)], check=True)
    (first,) = runs(copy)[:1]
    manifest = json.loads((first / "manifest.json").read_text())
    manifest["machine"]["other_cpu_share"] = "lots"
    (first / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    result = run_ledger("check", cwd=copy)
    assert result.exit_code == 1
    assert "`machine.other_cpu_share` is 'lots', not a number >= 0 or null" in result.output
