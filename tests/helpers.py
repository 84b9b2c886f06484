"""Shared test helpers: real files in a temporary folder, the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.runs import Column, write_run  # noqa: E402

RUN_TIME = datetime(2026, 11, 29, 10, 0, 0, tzinfo=timezone.utc)
TOY_PROBE = "# a stand-in probe: its bytes are what the manifest hashes\nprint('toy')\n"
RUN = "measurements/toy/2026-11-29T10-00-00Z-linux-cpu"
TOY_UNITS = {"batch": "", "speedup": "×"}  # the units of what the toy runs hold
TIMING_SIGNS = ("_min", "_max", "_low", "_high")  # a column's min–max beside it: a timed value (judging/intervals.py)


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    """Write {relative path: text or bytes} under root (text is dedented)."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")


def a_run(
    root: Path,
    rows: list[dict],
    probe: str = "toy",
    testbed: str = "linux-cpu",
    when: datetime = RUN_TIME,
    file: str = "results.csv",
    columns: dict[str, Column] | None = None,
    attachments: dict[str, bytes] | None = None,
) -> str:
    """A real run written by the real run writer, from a stand-in probe file; returns its path.
    columns: the declarations of `file`'s columns; by default the toy columns it has, as a probe would
    declare them (toy_columns); {}: a run that declares none (no units, no kinds). attachments: files kept
    as a tool wrote them (a tool probe's export)."""
    if columns is None:
        columns = toy_columns(rows)
    probe_file = root / "probes" / f"{probe}.py"
    if not probe_file.exists():
        write_tree(root, {f"probes/{probe}.py": TOY_PROBE})
    path = write_run(
        root,
        probe,
        testbed,
        {file: rows},
        parameters={"rounds": 3},
        environment={"backend": "cpu"},
        code=[f"probes/{probe}.py"],
        started=when,
        finished=when,
        columns={file: columns} if columns else None,
        attachments=attachments,
    )
    return path.relative_to(root).as_posix()


def toy_columns(rows: list[dict]) -> dict[str, Column]:
    """The toy columns the rows hold (a batch size, a speedup in ×), each declared as its probe would: timed
    where the rows carry a sign of timing (`rounds`, or the column's min–max), else exact (a count)."""
    declared = {}
    for name, unit in TOY_UNITS.items():
        if any(name in row for row in rows):
            timed = name != "batch" and any(
                "rounds" in row or any(name + s in row for s in TIMING_SIGNS) for row in rows
            )
            declared[name] = Column(unit, "timed" if timed else "exact")
    return declared


@dataclass
class Result:
    exit_code: int
    output: str  # stdout
    errors: str  # stderr


def run_ledger(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float | None = None, preexec_fn=None
) -> Result:
    """The real `ledger` command, as a user runs it (env: variables to set besides the test's own; a
    hang past `timeout` seconds fails the test)."""
    done = subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env() | (env or {}),
        timeout=timeout,
        preexec_fn=preexec_fn,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def init_project(factory, *options: str) -> Path:
    """A project made by `ledger init` (with its options) in a new temporary folder (factory: pytest's
    tmp_path_factory), for the tests of a module to share or copy."""
    root = factory.mktemp("init") / "p"
    made = run_ledger("init", str(root), *options, cwd=root.parent)
    assert made.exit_code == 0, made.output + made.errors
    return root


def run_python(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """The real Python running a script or `-m module` in cwd, with cwd's packages importable before this
    repository's (a project holding its own generator/ imports that one); env: variables to set besides
    the test's own; a hang past `timeout` seconds fails the test."""
    path = os.pathsep.join(p for p in (str(cwd), str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    environment = {**os.environ, "PYTHONPATH": path, **(env or {})}
    command = [sys.executable, *map(str, args)]
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout)


def project(root: Path, config: str, files: dict[str, str | bytes] | None = None) -> Path:
    """A project `ledger` finds under root: mkdocs.yml holding config, the files (probes, ...), and claims/."""
    write_tree(root, {"mkdocs.yml": config, **(files or {})})
    (root / "claims").mkdir(exist_ok=True)
    return root


def initialised(parent: Path, source: str = "evidence-ledger==0.1.0") -> Path:
    """A fresh `ledger init` project in parent/hashes, its example probe measured once (as init does)."""
    root = parent / "hashes"
    result = run_ledger("init", str(root), "--source", source, cwd=parent)
    assert result.exit_code == 0, result.errors
    return root


def run_mkdocs(*args: str, cwd: Path) -> Result:
    done = subprocess.run([sys.executable, "-m", "mkdocs", *args], cwd=cwd, capture_output=True, text=True, env=_env())
    return Result(done.returncode, done.stdout, done.stderr)


def _env() -> dict:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


MEASURED = """
claims:
  - id: moe-speedup-b16          # the headline
    statement: MoE expert reads get faster per token at B=16 than at B=1
    value: 3.59
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence:
      run: measurements/toy/2026-11-29T10-00-00Z-linux-cpu
      file: results.csv
      where: {batch: 16}
      column: speedup
    tolerance: 5%
"""

SPEEDUP_ROWS = [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.6}]
SPEEDUP_KINDS = {"speedup": Column("×", "exact")}  # the toy run's column, declared as a probe declares it

BORROWED_CHECKED = """
  - id: m1max-moe-speedup-b16
    kind: borrowed
    value: 3.59
    unit: "×"
    testbed: apple-m1-max
    source: {title: "What is batching actually saving?", quote: "MoE coverage … 3.59x"}
    checked_by: [{claim: moe-speedup-b16, expects: "within 1.05x"}]
"""

DOUBLED = """
  - id: moe-speedup-doubled
    kind: extrapolated
    formula: 2 * s
    inputs: {s: moe-speedup-b16}
    value: 7.2
"""


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """The real git in root as a test user (no user or system config read); returns its output."""
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    isolated = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, **identity}
    done = subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **isolated, **(env or {})}
    )
    return done.stdout.decode(errors="replace").strip()


def ledger(root: Path, claims: str, rows: list[dict] = SPEEDUP_ROWS, **files: str) -> Result:
    """`ledger check` on claims/moe.yaml against the toy run (written with rows unless the test wrote it; the
    default rows with their column declared, so no undeclared-kind)."""
    if not (root / RUN).exists():
        a_run(root, rows, columns=SPEEDUP_KINDS if rows is SPEEDUP_ROWS else None)
    write_tree(root, {"claims/moe.yaml": claims, **files})
    return run_ledger("check", cwd=root)


def restore_measured_code(copy: Path, repo: Path = REPO) -> list[str]:
    """In a copy of the repository's report, put back each code file its runs hash as the runs measured it, where
    the working tree's differs: the newest version in git history whose sha256 some manifest records. On main
    this changes nothing (the cited runs match the code); on a probe branch before its re-measure it gives the
    gate the code the committed runs were measured with. Returns the paths restored."""
    import hashlib
    import json

    wanted: dict[str, set[str]] = {}
    for manifest in (copy / "measurements").glob("*/*/manifest.json"):
        for path, sha in json.loads(manifest.read_text())["probe"]["code"].items():
            wanted.setdefault(path, set()).add(sha)
    restored = []
    for path, shas in sorted(wanted.items()):
        here = copy / path
        if here.is_file() and hashlib.sha256(here.read_bytes()).hexdigest() in shas:
            continue
        log = subprocess.run(["git", "-C", str(repo), "log", "--format=%H", "--", path], capture_output=True, text=True)
        for commit in log.stdout.split():
            shown = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True)
            if shown.returncode == 0 and hashlib.sha256(shown.stdout).hexdigest() in shas:
                here.parent.mkdir(parents=True, exist_ok=True)
                here.write_bytes(shown.stdout)
                restored.append(path)
                break
    return restored


def verdict_of(claim, table=None, **fields):
    """A claim's verdict as the evidence stage would begin it (its unit read with `table`), for pure tests."""
    from generator.inputs.config import DEFAULTS
    from generator.lang import units
    from generator.records import ClaimVerdict
    from generator.wording import tolerance_for

    unit = units.read(claim.unit, table or units.BUILT_IN)
    return ClaimVerdict(claim, unit, tolerance_for(claim, DEFAULTS), **fields)
