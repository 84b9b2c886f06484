"""Every command ends with a one-line error and an exit status (issue 29, class 2): on an interruption
(Ctrl-C, SIGTERM), on an output it cannot write, and within a budget that bounds the whole check (many
slow pages together), never a traceback or a hang; an interrupted `ledger measure` leaves no partial
folder. The real CLI in real projects, interrupted with real signals."""

import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import REPO, project, write_tree

SLOW_PAGE = "[" * 8000  # Python-Markdown's link scanner is quadratic on this: about 20 s here
CONFIG = "site_name: t\nplugins:\n  - ledger\n"


def ledger(cwd, *args, stdout=subprocess.PIPE) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's foreground job
    )


def interrupted(process: subprocess.Popen, after: float, how: int) -> tuple[int, str]:
    time.sleep(after)
    process.send_signal(how)
    _, errors = process.communicate(timeout=60)
    return process.returncode, errors


def one_line(errors: str, *words: str) -> None:
    assert "Traceback" not in errors, errors
    lines = [line for line in errors.splitlines() if line.startswith("ledger:")]
    assert len(lines) == 1, errors
    for word in words:
        assert word in lines[0], errors


@pytest.mark.parametrize("how, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_check_ends_with_one_line_and_its_status(tmp_path, how, status):
    project(tmp_path, CONFIG, {"docs/slow.md": SLOW_PAGE})
    code, errors = interrupted(ledger(tmp_path, "check", "--no-cache"), 3.0, how)
    assert code == status, errors
    one_line(errors, "interrupted")


def test_an_interrupted_measure_ends_with_one_line_and_leaves_no_partial_folder(tmp_path):
    config = CONFIG.replace(
        "  - ledger\n", "  - ledger:\n      probes:\n        - {name: slow, command: 'sh probes/slow.sh {out}'}\n"
    )
    project(tmp_path, config, {"probes/slow.sh": "echo 'x,ms' > \"$1/results.csv\"\nsleep 30\n"})
    code, errors = interrupted(ledger(tmp_path, "measure"), 3.0, signal.SIGINT)
    assert code == 130, errors
    one_line(errors, "interrupted")
    assert not list((tmp_path / "measurements").rglob(".partial-*"))


@pytest.mark.parametrize("verb", [["check"], ["schema"], ["show", "x"]])
def test_an_output_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path, verb):
    project(tmp_path, CONFIG)
    with open(os.devnull if not os.path.exists("/dev/full") else "/dev/full", "w") as full:
        process = ledger(tmp_path, *verb, stdout=full)
        _, errors = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "Traceback" not in errors, errors


def test_many_slow_pages_together_are_bounded_by_the_checks_render_budget(tmp_path):
    config = CONFIG.replace("  - ledger\n", "  - ledger:\n      max_render_seconds: 4\n")
    project(tmp_path, config, {f"docs/slow-{n}.md": SLOW_PAGE for n in range(8)})  # 8 pages x 5 s each alone
    started = time.monotonic()
    process = ledger(tmp_path, "check", "--no-cache", "--full")  # each page named
    try:
        output, errors = process.communicate(timeout=25)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the check ran past the budget of the whole check")
    assert time.monotonic() - started < 25
    assert process.returncode == 1, output + errors
    assert "render budget" in output and "docs/slow-7.md" in output and "Traceback" not in errors


def test_a_page_that_vanishes_or_a_folder_in_a_files_place_is_a_finding(tmp_path):
    project(tmp_path, CONFIG, {"docs/index.md": "# Hi\n"})
    os.symlink("nowhere.md", tmp_path / "docs/gone.md")
    (tmp_path / "docs/folder.md").mkdir()
    write_tree(tmp_path, {"claims/folder.yaml/inner.txt": "x"})
    process = ledger(tmp_path, "check")
    output, errors = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in errors
    assert "docs/gone.md" in output and "docs/folder.md" in output and "claims/folder.yaml" in output


def test_ctrl_c_at_a_terminal_reaches_the_probe_too_and_shows_no_traceback_of_it(tmp_path):
    """Ctrl-C at a terminal signals the whole foreground process group: the Python probe unwinds with its own
    KeyboardInterrupt, whose traceback is not shown; `ledger measure` ends with its one line, no partial folder."""
    config = CONFIG.replace(
        "  - ledger\n", "  - ledger:\n      probes:\n        - {name: slow, command: '{python} probes/slow.py {out}'}\n"
    )
    probe = "import sys, time\nprint('measuring', flush=True)\ntime.sleep(60)\n"
    project(tmp_path, config, {"probes/slow.py": probe})
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(
        [sys.executable, "-m", "generator", "measure"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,  # its own group, as a terminal's job is
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not list((tmp_path / "measurements/slow").glob(".partial-*")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # the probe has started and printed
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 130, errors
    one_line(errors, "interrupted")
    assert "measuring" in errors  # what the probe printed before is shown
    assert "KeyboardInterrupt" not in errors and "time.sleep" not in errors
    assert not list((tmp_path / "measurements").rglob(".partial-*"))
