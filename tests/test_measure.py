"""`ledger measure`: the probes declared in mkdocs.yml, each in its own process, with a progress line
per probe and a summary of the runs written; this repository's MLX probes are declared the same way."""

import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers import REPO, git, project, run_ledger, write_tree

from generator.inputs.config import read_policy

PY_PROBE = """
import os
from generator.probe import measure

with measure("py_probe", parameters={"profile": os.environ["LEDGER_PROFILE"], "rounds": 1}) as run:
    run.row(pid=os.getpid(), malloc=os.environ.get("MALLOC_MMAP_MAX_", ""))
"""

SH_PROBE = '#!/bin/sh\nprintf \'size,ms\\n2,%s\\n\' "$2" > "$1/results.csv"\n'
PROBES = {"probes/py_probe.py": PY_PROBE, "probes/sh_probe.sh": SH_PROBE}

CONFIG = """
site_name: t
plugins:
  - ledger:
      probes:
        - name: py_probe
          command: "{python} probes/py_probe.py"
          env: {MALLOC_MMAP_MAX_: "0"}
        - name: sh_probe
          command: "sh probes/sh_probe.sh {out} 42"
"""


def runs(root: Path, probe: str) -> list[Path]:
    folder = root / "measurements" / probe
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


def test_measure_runs_every_declared_probe_with_progress_and_a_summary(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    result = run_ledger("measure", "--profile", "quick", "--testbed", "bench-box", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "[1/2] py_probe (quick) ..." in result.errors and "[2/2] sh_probe (quick) ..." in result.errors
    assert "2 runs written by 2 probe(s)" in result.output
    (py_run,) = runs(tmp_path, "py_probe")
    (sh_run,) = runs(tmp_path, "sh_probe")
    assert py_run.name.endswith("Z-bench-box") and sh_run.name.endswith("Z-bench-box")
    rows = (py_run / "results.csv").read_text().splitlines()
    assert rows[0] == "pid,malloc" and rows[1].endswith(",0")  # its env, its own process
    assert int(rows[1].split(",")[0]) != __import__("os").getpid()
    assert (sh_run / "results.csv").read_text() == "size,ms\n2,42\n"
    assert '"probes/sh_probe.sh"' in (sh_run / "manifest.json").read_text()
    assert not list((tmp_path / "measurements").rglob(".partial-*"))


def test_measure_warns_when_it_runs_an_untracked_probe_and_check_says_git_add_in_its_fix(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "mkdocs.yml", "probes/py_probe.py")  # probes/sh_probe.sh left untracked
    git(tmp_path, "commit", "-qm", "probes")
    measured = run_ledger("measure", "--profile", "quick", cwd=tmp_path)
    assert measured.exit_code == 0, measured.errors
    warnings = [line for line in measured.errors.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: probes/sh_probe.sh is not tracked by git: its run fails the gate (review cannot see the code that "
        "measured it) until you `git add probes/sh_probe.sh` and commit it with the run"
    ]
    (sh_run,) = runs(tmp_path, "sh_probe")
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": f"claims:\n  - id: a\n    kind: measured\n    value: 42\n    unit: ms\n    evidence:\n"
            f"      run: {sh_run.relative_to(tmp_path).as_posix()}\n      file: results.csv\n      where: {{size: 2}}\n"
            "      column: ms\n"
        },
    )
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    assert checked.output.splitlines()[:2] == [
        f"claims/a.yaml:6: a: invalid: run {sh_run.relative_to(tmp_path).as_posix()}: code file probes/sh_probe.sh "
        "is not tracked by git, so review cannot see the code that measured it",
        "  fix: `git add probes/sh_probe.sh` and commit it with the run",
    ]
    git(tmp_path, "add", "probes/sh_probe.sh")
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_measure_runs_only_the_probes_named(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    result = run_ledger("measure", "sh_probe", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "[1/1] sh_probe (default)" in result.errors
    assert runs(tmp_path, "py_probe") == [] and len(runs(tmp_path, "sh_probe")) == 1


def test_measure_names_an_undeclared_probe_and_lists_the_declared(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    result = run_ledger("measure", "nope", cwd=tmp_path)
    assert result.exit_code == 2
    assert "no declared probe 'nope'; mkdocs.yml declares: py_probe, sh_probe" in result.errors


def test_measure_without_declared_probes_says_how_to_declare_them(tmp_path):
    project(tmp_path, "site_name: t\nplugins:\n  - ledger\n", PROBES)
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 2 and "declares no probes" in result.errors


def test_a_failing_probe_fails_measure_and_writes_nothing_for_it(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    write_tree(tmp_path, {"probes/sh_probe.sh": "#!/bin/sh\nprintf 'size\\n1\\n' > \"$1/results.csv\"\nexit 3\n"})
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 1
    assert "sh_probe: " in result.errors and "FAILED: exit status 3" in result.errors
    assert "1 run written by 1 probe(s); 1 failed: sh_probe" in result.output
    assert runs(tmp_path, "sh_probe") == []
    assert not (tmp_path / "measurements/sh_probe").exists()  # nor an empty folder its {out} was made in


def test_a_bad_probe_declaration_names_the_option(tmp_path):
    project(
        tmp_path, "site_name: t\nplugins:\n  - ledger:\n      probes:\n        - {name: Bad-Name, command: x}\n", PROBES
    )
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 2
    assert "ledger option probes: entry 1: `name` must be lower_snake_case" in result.errors


def test_this_repositorys_mlx_probes_are_declared_each_with_the_allocator_settings():
    sys.path.insert(0, str(REPO))
    from probes.__main__ import MALLOC_ENV, PROBES  # the old runner's list, which the declaration replaces

    declared = read_policy(REPO / "mkdocs.yml").probes
    measuring = [spec for spec in declared if not spec.manual]  # coverage reads the others' runs, when named
    assert tuple(spec.name for spec in measuring) == PROBES
    for spec in measuring:
        assert dict(spec.env) == MALLOC_ENV
        assert spec.command == f"{{python}} -m probes.{spec.name} --profile {{profile}}"


def test_make_measure_calls_ledger_measure():
    makefile = (REPO / "Makefile").read_text()
    target = makefile.split("\nmeasure:", 1)[1].split("\n\n", 1)[0]
    assert "ledger measure $(PROBE) --profile $(PROFILE)" in target


def test_a_probes_code_must_lie_inside_the_repository(tmp_path):
    config = "site_name: t\nplugins:\n  - ledger:\n      probes:\n        - {name: p, command: x, code: [../p.c]}\n"
    project(tmp_path, config, PROBES)
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 2
    assert "probe p: `code` must be a list of file paths inside the repository" in result.errors


STAMPED = r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-bench-box"


def test_one_probe_measured_twice_within_a_second_waits_for_the_next_and_both_runs_are_written(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    first = run_ledger("measure", "sh_probe", "sh_probe", "--testbed", "bench-box", cwd=tmp_path)
    again = run_ledger("measure", "sh_probe", "--testbed", "bench-box", cwd=tmp_path)  # at once, the same second
    assert (first.exit_code, again.exit_code) == (0, 0), first.errors + again.errors
    assert "2 runs written by 1 probe(s)" in first.output and "1 run written by 1 probe(s)" in again.output
    names = [run.name for run in runs(tmp_path, "sh_probe")]
    assert len(set(names)) == 3 and all(re.fullmatch(STAMPED, name) for name in names), names


def test_a_python_probe_measured_twice_at_once_writes_two_runs(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    for _ in range(2):
        result = run_ledger("measure", "py_probe", "--testbed", "bench-box", cwd=tmp_path)
        assert result.exit_code == 0 and "1 run written by 1 probe(s)" in result.output, result.errors
    assert len(runs(tmp_path, "py_probe")) == 2


def test_a_failed_probe_counts_no_run_that_another_process_wrote_meanwhile(tmp_path):
    project(tmp_path, CONFIG, PROBES)
    other = "measurements/sh_probe/2026-11-30T10-00-00Z-other-box"  # as a concurrent `ledger measure` would
    write_tree(tmp_path, {"probes/sh_probe.sh": f"#!/bin/sh\nmkdir -p {other}\nexit 3\n"})
    result = run_ledger("measure", "sh_probe", cwd=tmp_path)
    assert result.exit_code == 1
    assert "0 runs written by 0 probe(s); 1 failed: sh_probe" in result.output


BUILT = """
site_name: t
plugins:
  - ledger:
      probes:
        - name: built
          build: "sh probes/build.sh {build}"
          command: "sh probes/run.sh {out} {build}"
          code: [probes/build.sh, probes/run.sh, probes/source.txt]
"""
BUILD_SH = 'echo "built from $(cat probes/source.txt)" > "$1/binary"\n'  # the compiler's stand-in
RUN_SH = 'printf \'made_by\\n%s\\n\' "$(cat "$2/binary")" > "$1/results.csv"\n'


def built_project(root: Path, run_sh: str = RUN_SH) -> None:
    project(root, BUILT, {"probes/build.sh": BUILD_SH, "probes/run.sh": run_sh, "probes/source.txt": "1\n"})


def test_a_probe_with_a_build_is_built_into_an_emptied_folder_then_run_and_its_inputs_are_its_code(tmp_path):
    built_project(tmp_path)
    write_tree(tmp_path, {".cache/ledger/build/built/stale-binary": "from an older source"})
    result = run_ledger("measure", "built", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    (run,) = runs(tmp_path, "built")
    assert (run / "results.csv").read_text() == "made_by\nbuilt from 1\n"
    assert sorted(os.listdir(tmp_path / ".cache/ledger/build/built")) == ["binary"]  # the stale one is gone
    code = json.loads((run / "manifest.json").read_text())["probe"]["code"]
    assert sorted(code) == ["probes/build.sh", "probes/run.sh", "probes/source.txt"]


def test_a_failed_build_runs_nothing_and_leaves_no_binary_of_an_earlier_build(tmp_path):
    built_project(tmp_path)
    assert run_ledger("measure", "built", cwd=tmp_path).exit_code == 0
    write_tree(tmp_path, {"probes/build.sh": "exit 4\n", "probes/source.txt": "2\n"})
    result = run_ledger("measure", "built", cwd=tmp_path)
    assert result.exit_code == 1
    assert "built: " in result.errors and "FAILED: its build failed: exit status 4" in result.errors
    assert len(runs(tmp_path, "built")) == 1
    assert os.listdir(tmp_path / ".cache/ledger/build/built") == []


def test_a_run_whose_inputs_changed_after_the_build_is_not_kept(tmp_path):
    built_project(tmp_path, RUN_SH + "echo 3 > probes/source.txt\n")  # as an editor saving mid-run would
    result = run_ledger("measure", "built", cwd=tmp_path)
    assert result.exit_code == 1
    assert "FAILED: its inputs changed while it was built or ran; nothing was kept, measure it again" in result.errors
    assert runs(tmp_path, "built") == []


def test_a_build_input_that_does_not_exist_is_named(tmp_path):
    built_project(tmp_path)
    write_tree(tmp_path, {"mkdocs.yml": BUILT.replace("probes/source.txt]", "probes/nope.c]")})
    result = run_ledger("measure", "built", cwd=tmp_path)
    assert result.exit_code == 1 and "FAILED: its input probes/nope.c does not exist" in result.errors


@pytest.mark.parametrize(
    "entry, problem",
    [
        ("{name: p, command: 'x {out}', build: 'cc p.c'}", "probe p: a probe with `build` lists the build's inputs under `code`"),
        ("{name: p, command: x, build: 'cc p.c', code: [p.c]}", "probe p: a probe with `build` writes {out}"),
        ("{name: p, command: 'x {out}', build: '', code: [p.c]}", "probe p: `build` must be a command line"),
    ],
)  # fmt: skip
def test_a_bad_build_declaration_names_what_to_fix(tmp_path, entry, problem):
    project(tmp_path, f"site_name: t\nplugins:\n  - ledger:\n      probes:\n        - {entry}\n", PROBES)
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 2 and problem in result.errors, result.errors


def test_measure_smoke_runs_each_probe_checks_its_run_and_keeps_nothing(tmp_path):
    """A probe run by hand as a smoke test wrote a run into measurements/: --smoke runs it into a scratch folder,
    reads the run back, removes it, and fails naming any run a probe wrote into measurements/ regardless."""
    root = tmp_path / "p"
    assert run_ledger("init", str(root), cwd=tmp_path).exit_code == 0
    before = sorted((root / "measurements").rglob("*"))
    done = run_ledger("measure", "--smoke", cwd=root)
    assert done.exit_code == 0, done.errors
    assert "hashing: a valid run (not kept)" in done.errors
    assert done.output.strip() == "smoke test: 1 of 1 probe run(s) wrote a valid run; nothing kept"
    assert sorted((root / "measurements").rglob("*")) == before
    assert not (root / ".cache/ledger/smoke").exists()
    stubborn = (  # a probe that names its folder itself, as this repository's probes/session.py does (--out)
        "import sys\nfrom datetime import datetime, timezone\nfrom pathlib import Path\n"
        "from generator.runs import write_run\nnow = datetime.now(timezone.utc)\n"
        "write_run(Path(sys.argv[1]), 'stubborn', 'x', {'r.csv': [{'a': 1}]}, parameters={}, environment={},\n"
        "          started=now, finished=now, code=['probes/stubborn.py'], measurements=Path(sys.argv[1]) / 'measurements')\n"
    )
    write_tree(root, {"probes/stubborn.py": stubborn})
    config = re.sub(
        r"(?m)^      probes:.*\n",
        lambda m: (
            m.group(0) + "        - {name: stubborn, command: '{python} probes/stubborn.py {root}', manual: true}\n"
        ),
        (root / "mkdocs.yml").read_text(),
    )
    write_tree(root, {"mkdocs.yml": config})
    done = run_ledger("measure", "stubborn", "--smoke", cwd=root)
    assert done.exit_code == 1
    assert "written into measurements/ by a probe that ignores LEDGER_MEASUREMENTS" in done.errors
