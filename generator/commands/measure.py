"""`ledger measure`: the probes declared in mkdocs.yml -> one process each -> new runs, with progress.

A probe is declared as a row of the policy's `probes:` list, {name, command, code, env, build}. Its
command is split like a shell line (no shell runs it) and may name {python} (this interpreter),
{profile}, {testbed}, {root}, {out} and {build}. A command naming {out} is a probe in any language: it
fills that empty folder with CSV files and the probe API finalizes it into a run (manifest, hashes,
atomic rename). A compiled probe's `build` runs first, into an emptied {build} folder; its inputs
(`code`) are hashed before the build and again after the run, so no run carries other source than
its binary was built from, and the build command is recorded in the run's environment. A probe that
is a benchmark tool (`tool:`) writes the tool's export to {export}, and generator.tools makes the run
from it; `--from FILE` reads an export the tool wrote elsewhere instead of running it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import probe as probe_api
from .. import tools
from ..inputs import gitlog, hashcache
from ..inputs.config import MAX_REPLICATES, project_policy
from ..records import LedgerError, Policy, ProbeSpec
from ..runs import MANIFEST, PARTIAL_PREFIX, link_problem, remove_tree, sha256_file, utc_stamp

PLACEHOLDERS = ("python", "profile", "testbed", "root", "out", "build", "export")
BUILD_DIR = f"{hashcache.FOLDER}/build"  # {build}: a compiled probe's binary, rebuilt before every run; ignored by git


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    ok: bool
    seconds: float
    runs: tuple[str, ...]  # new run folders, relative to the root
    problem: str = ""


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("probes", nargs="*", metavar="PROBE", help="declared probes to run (default: all)")
    parser.add_argument("--profile", default="default", help="passed to each probe as {profile} (default: default)")
    parser.add_argument("--testbed", help="the testbed name (default: the probe decides, e.g. linux-x86-64)")
    parser.add_argument(
        "--replicates",
        type=_replicates,
        metavar="N",
        help="runs of each probe, each in a fresh process, the probes taking turns (a, b, a, b, ...); each writes "
        "its own run (default: each probe's `replicates:` in mkdocs.yml, else 1)",
    )
    parser.add_argument(
        "--from",
        dest="export",
        type=Path,
        metavar="FILE",
        help="run nothing: make the run from FILE, an export the named tool probe's tool wrote elsewhere "
        "(with --testbed, where it was measured)",
    )
    parser.add_argument(
        "--matrix",
        nargs="?",
        const="all",
        metavar="TESTBEDS",
        help="measure nothing: print the policy's testbeds (all, or a comma-separated few) as a GitHub Actions "
        'matrix, {"testbed": [...]}, for the fleet workflow (guide/fleet.md)',
    )


def run_from_args(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    policy = project_policy(root, args.config)
    if args.matrix is not None:
        print(json.dumps(matrix(policy.testbeds, args.matrix)))
        return 0
    echo = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.export is not None:
        outcomes = [imported(root, policy, args.probes, args.export, args.profile, args.testbed, args.replicates)]
        echo(f"{outcomes[0].name}: {', '.join(outcomes[0].runs) or 'FAILED: ' + outcomes[0].problem}")
        print(summary(outcomes))
        return 0 if outcomes[0].ok else 1
    outcomes = measure(root, policy, args.probes, args.profile, args.testbed, echo=echo, replicates=args.replicates)
    print(summary(outcomes))
    return 0 if all(outcome.ok for outcome in outcomes) else 1


def chosen(policy: Policy, names: list[str]) -> list[ProbeSpec]:
    """The declared probes to run: all of them but those run only when named (`manual: true`), or the ones
    named, in the order named."""
    declared = [finding for option, finding in policy.problems if option == "probes"]
    if declared:  # the gate lists a bad declaration among its findings; measuring cannot go on
        raise LedgerError("\n".join(str(finding) for finding in declared))
    if not policy.probes:
        raise LedgerError(
            "mkdocs.yml declares no probes: add a `probes:` list under the ledger plugin, e.g. "
            "`- {name: hashing, command: '{python} probes/hashing.py --profile {profile}'}` (guide/probes.md)"
        )
    by_name = {spec.name: spec for spec in policy.probes}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise LedgerError(f"no declared probe {unknown[0]!r}; mkdocs.yml declares: {', '.join(by_name)}")
    if names:
        return [by_name[name] for name in names]
    unnamed = [spec for spec in policy.probes if not spec.manual]
    if not unnamed:
        raise LedgerError(
            f"every probe mkdocs.yml declares runs only when named (`manual: true`): {', '.join(by_name)}; "
            "name one: `ledger measure NAME`"
        )
    return unnamed


def matrix(declared: tuple[str, ...], selection: str) -> dict[str, list[str]]:
    """The testbeds to measure on as a GitHub Actions matrix: all declared, or the comma-separated ones named."""
    if not declared:
        raise LedgerError(
            "mkdocs.yml declares no testbeds: add `testbeds: [NAME, ...]` under the ledger plugin, "
            "one per self-hosted runner label (guide/fleet.md)"
        )
    named = [name.strip() for name in selection.split(",") if name.strip()]
    if not named or named == ["all"]:
        return {"testbed": list(declared)}
    unknown = [name for name in named if name not in declared]
    if unknown:
        raise LedgerError(f"testbed {unknown[0]!r} is not declared; mkdocs.yml declares: {', '.join(declared)}")
    return {"testbed": list(dict.fromkeys(named))}


def command_line(spec: ProbeSpec, values: dict[str, str], template: str | None = None) -> list[str]:
    """The probe's argv (or its build's, given the template) with its placeholders filled in."""
    template = spec.command if template is None else template
    try:
        return [token.format(**values) for token in shlex.split(template)]
    except (KeyError, IndexError, ValueError) as error:
        raise LedgerError(
            f"probe {spec.name}: command {template!r}: {error}; placeholders are "
            + ", ".join("{" + name + "}" for name in PLACEHOLDERS)
        ) from None


def run_probe(spec: ProbeSpec, root: Path, policy: Policy, profile: str, testbed: str | None) -> Outcome:
    """Run one probe in its own process (after its build, if it has one) and return the runs it wrote."""
    runs_dir = root / policy.measurements_dir / spec.name
    before = _runs(runs_dir)
    out = runs_dir / f"{PARTIAL_PREFIX}out-{os.getpid()}"
    build_dir = root / BUILD_DIR / spec.name
    values = {
        "python": sys.executable,
        "profile": profile,
        "testbed": testbed or probe_api.default_testbed(),
        "root": str(root),
        "out": str(out),
        "build": str(build_dir),
        "export": str(out / tools.TOOLS[spec.tool].export) if spec.tool else "",
    }
    clock = time.perf_counter()
    linked = _linked(spec, root, build_dir, out)
    if linked:
        return Outcome(spec.name, False, time.perf_counter() - clock, (), linked)
    try:
        problem = _build_run_finalize(spec, root, policy, profile, testbed, values)
    finally:  # also when interrupted (Ctrl-C, SIGTERM): no output folder is left behind
        if os.path.lexists(out):
            remove_tree(out)  # a link the probe put in its place is removed, never followed
    # A failed probe wrote nothing: a folder that appeared meanwhile is another process's run.
    new = sorted(_runs(runs_dir) - before) if not problem else []
    written = tuple(f"{policy.measurements_dir}/{spec.name}/{name}" for name in new)
    if not problem and not written:
        problem = "it exited cleanly but wrote no run"
    return Outcome(spec.name, not problem, time.perf_counter() - clock, written, problem)


def _build_run_finalize(
    spec: ProbeSpec, root: Path, policy: Policy, profile: str, testbed: str | None, values: dict[str, str]
) -> str:
    """Build the probe (if it has a build), run it, finalize its {out} folder into a run; '' or what failed."""
    out, build_dir, runs_dir = Path(values["out"]), Path(values["build"]), Path(values["out"]).parent
    argv = command_line(spec, values)
    tool = tools.TOOLS.get(spec.tool)
    writes_folder = "{out}" in spec.command or tool is not None  # a tool's export goes into the folder
    env = _environment(spec, root, policy, profile, testbed)
    version, problem = tools.installed(tool, argv, root, env) if tool else ("", "")
    inputs = _hashes(root, spec.code) if spec.build else {}
    problem = problem or (_build(spec, build_dir, values, root, env, inputs) if spec.build else "")
    _wait_for_a_new_second(runs_dir)
    if writes_folder:
        out.mkdir(parents=True, exist_ok=False)
    started = datetime.now(timezone.utc).replace(microsecond=0)
    problem = problem or _run(argv, root, env)
    if not problem and spec.build and _hashes(root, spec.code) != inputs:
        # The binary was built from the inputs hashed before the build: a run must not carry newer ones.
        problem = "its inputs changed while it was built or ran; nothing was kept, measure it again"
    if not problem and tool is not None:
        extra = {"tool": version, "command": spec.command, **({"build": spec.build} if spec.build else {})}
        problem = _tool_run(spec, root, policy, Path(values["export"]), tool.export, testbed, profile, extra, started)
    elif not problem and writes_folder:
        try:
            probe_api.finalize(
                out,
                spec.name,
                root=root,
                code=list(spec.code) or _code_in(argv, root),
                started=started,
                testbed=testbed,
                parameters={"profile": profile},
                probes_dir=policy.probes_dir,
                environment_extra={"build": spec.build} if spec.build else None,  # as declared: flags, no paths
            )
        except (ValueError, OSError) as error:
            problem = f"its output could not be finalized: {error}"
    return problem


def _tool_run(
    spec: ProbeSpec,
    root: Path,
    policy: Policy,
    export: Path,
    shown: str,
    testbed: str | None,
    profile: str,
    extra: Mapping[str, object],
    started: datetime | None,
) -> str:
    """Write the run of a tool probe's export ('' when written, else why not); extra: what this machine says of
    the tool (its version, the command as declared), under what the export records itself."""
    tool = tools.TOOLS[spec.tool]
    if not export.is_file():
        return f"{tool.title} wrote no export to {{export}} (`{tool.writes}` writes it there)"
    machine = probe_api.environment() if started else {}  # an export made elsewhere: only what it says
    try:
        tools.write(
            tool,
            export,
            shown,
            spec.name,
            root=root,
            measurements=root / policy.measurements_dir,
            code=spec.code,
            testbed=testbed or probe_api.default_testbed(),
            parameters={"profile": profile},
            environment={**machine, **extra},
            probes_dir=policy.probes_dir,
            started=started,
        )
    except FileExistsError:  # the folder is named by the export's own time stamp
        return f"{shown} made a run of {spec.name} already: one export is one run, never two"
    except (ValueError, OSError) as error:
        return f"its export could not be read: {error}"
    return ""


def imported(
    root: Path,
    policy: Policy,
    names: list[str],
    export: Path,
    profile: str,
    testbed: str | None,
    replicates: int | None,
) -> Outcome:
    """`--from FILE`: the run of one tool probe from an export its tool wrote elsewhere; nothing runs."""
    specs = chosen(policy, names) if len(names) == 1 else []
    if not specs or not specs[0].tool:
        raise LedgerError(
            "--from FILE reads one tool probe's export: name that probe (`ledger measure NAME --from FILE`)"
        )
    if not testbed:
        raise LedgerError(
            "--from FILE reads an export made elsewhere: name the testbed it was measured on (--testbed NAME)"
        )
    if replicates not in (None, 1):
        raise LedgerError("--from FILE makes one run from one export; --replicates does not apply")
    spec = specs[0]
    runs_dir = root / policy.measurements_dir / spec.name
    before, clock = _runs(runs_dir), time.perf_counter()
    tool = tools.TOOLS[spec.tool]
    extra = {"tool": f"{tool.title} (its version is not in the export)", "command": "not recorded: read by --from"}
    problem = _tool_run(spec, root, policy, export, str(export), testbed, profile, extra, None)
    written = tuple(f"{policy.measurements_dir}/{spec.name}/{name}" for name in sorted(_runs(runs_dir) - before))
    return Outcome(spec.name, not problem, time.perf_counter() - clock, () if problem else written, problem)


def _environment(spec: ProbeSpec, root: Path, policy: Policy, profile: str, testbed: str | None) -> dict[str, str]:
    env = {**os.environ, "LEDGER_ROOT": str(root), "LEDGER_PROBES_DIR": policy.probes_dir, "LEDGER_PROFILE": profile}
    if testbed:
        env["LEDGER_TESTBED"] = testbed
    if policy.measurements_dir != "measurements":
        env["LEDGER_MEASUREMENTS"] = str(root / policy.measurements_dir)
    env.update(dict(spec.env))
    return env


def _run(argv: list[str], root: Path, env: dict[str, str]) -> str:
    """Run a command in the project; '' when it exits 0, else what went wrong."""
    try:
        # Its output goes to stderr with the progress lines; stdout keeps the summary.
        done = subprocess.run(argv, cwd=root, env=env, stdout=_stderr_fd())
    except OSError as error:
        return f"cannot start {argv[0]!r}: {error.strerror or error}"
    return "" if done.returncode == 0 else f"exit status {done.returncode}"


def _build(
    spec: ProbeSpec, build_dir: Path, values: dict[str, str], root: Path, env: dict[str, str], inputs: dict[str, str]
) -> str:
    """Build a compiled probe into an empty {build} folder: no binary of an earlier build can run."""
    absent = [path for path, digest in inputs.items() if not digest]
    if absent:
        return f"its input {absent[0]} does not exist (fix `code:` in mkdocs.yml)"
    if os.path.lexists(build_dir):
        remove_tree(build_dir)
    build_dir.mkdir(parents=True)
    problem = _run(command_line(spec, values, spec.build), root, env)
    return f"its build failed: {problem}" if problem else ""


def _linked(spec: ProbeSpec, root: Path, build_dir: Path, out: Path) -> str:
    """Why the probe cannot run: a link on the way to its build folder, its runs' folder or its code ('' if none).

    The build folder is emptied and the output folder removed: through a committed link, that would
    delete whatever it points to (the project's own files, or anything on the machine)."""
    places = [(build_dir, "its build folder")] if spec.build else []
    places += [(out, "its runs' folder"), *((root / path, "its code") for path in spec.code)]
    for path, what in places:
        problem = link_problem(root, path, what)
        if problem:
            return problem
    return ""


def _hashes(root: Path, paths: tuple[str, ...]) -> dict[str, str]:
    """Each input's SHA-256 ('' when it is not a file)."""
    return {path: sha256_file(root / path) if (root / path).is_file() else "" for path in paths}


def measure(
    root: Path,
    policy: Policy,
    names: list[str],
    profile: str,
    testbed: str | None,
    echo=print,
    replicates: int | None = None,
) -> list[Outcome]:
    """Run each chosen probe in turn, `replicates` times each (else its declared `replicates:`), the probes
    taking turns so that each replicate of one is spaced by the others: a line as each starts and ends."""
    specs = chosen(policy, names)
    plan = schedule(specs, replicates)
    outcomes = []
    for number, (spec, replicate, of) in enumerate(plan, start=1):
        which = f", replicate {replicate}/{of}" if of > 1 else ""
        echo(f"[{number}/{len(plan)}] {spec.name} ({profile}{which}) ...")
        outcome = run_probe(spec, root, policy, profile, testbed)
        result = ", ".join(outcome.runs) if outcome.ok else f"FAILED: {outcome.problem}"
        echo(f"[{number}/{len(plan)}] {spec.name}: {outcome.seconds:.1f} s, {result}")
        for path in untracked_code(root, outcome.runs):
            echo(
                f"warning: {path} is not tracked by git: its run fails the gate (review cannot see the code "
                f"that measured it) until you `git add {path}` and commit it with the run"
            )
        outcomes.append(outcome)
    return outcomes


def schedule(specs: list[ProbeSpec], replicates: int | None = None) -> list[tuple[ProbeSpec, int, int]]:
    """(probe, replicate, of) in the order they run: round r runs each probe that has an r-th replicate, so
    replicates of one probe are spaced by the others (a, b, c, a, b, c, ...), each a fresh process."""
    counts = [(spec, replicates or spec.replicates) for spec in specs]
    rounds = max((count for _, count in counts), default=0)
    return [(spec, r, count) for r in range(1, rounds + 1) for spec, count in counts if r <= count]


def _replicates(text: str) -> int:
    """--replicates N: a whole number of runs from 1 to MAX_REPLICATES."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_REPLICATES:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of runs from 1 to {MAX_REPLICATES}")
    return value


def untracked_code(root: Path, runs: tuple[str, ...]) -> list[str]:
    """The code files the new runs' manifests hash that git does not track (none outside a git work tree)."""
    tracked = gitlog.tracked_files(root) if runs else None
    if tracked is None:
        return []
    code: set[str] = set()
    for run in runs:
        try:
            manifest = json.loads((root / run / MANIFEST).read_text(encoding="utf-8"))
            code |= set(manifest["probe"]["code"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # the gate says what is wrong with the manifest
    return sorted(path for path in code if path not in tracked and (root / path).is_file())


def summary(outcomes: list[Outcome]) -> str:
    """'3 runs written by 3 probes' (and which failed); the next step."""
    written = sum(len(outcome.runs) for outcome in outcomes)
    writers = len({outcome.name for outcome in outcomes if outcome.runs})
    failed = Counter(outcome.name for outcome in outcomes if not outcome.ok)
    text = f"{written} run{'s' if written != 1 else ''} written by {writers} probe(s)"
    if failed:
        named = ", ".join(f"{name} ({count} times)" if count > 1 else name for name, count in failed.items())
        text += f"; {sum(failed.values())} failed: {named}"
    if written:
        text += "\nnext: `ledger refresh` shows which claims the new runs move (`--write` applies it)"
    if any(count > 1 for count in Counter(outcome.name for outcome in outcomes if outcome.runs).values()):
        text += "; a claim pools replicate runs with `replicates: N` under its evidence (guide/claims.md)"
    return text


def _wait_for_a_new_second(runs_dir: Path, clock=time.time, sleep=time.sleep) -> None:
    """Start no probe in a second that already names one of its runs: a run's folder is its start second.

    Two runs of one probe within a second (a fast probe measured twice) would otherwise collide on
    one folder name, and the second would fail rather than overwrite.
    """
    while True:
        now = clock()
        stamp = utc_stamp(datetime.fromtimestamp(now, timezone.utc)).replace(":", "-")
        taken = runs_dir.is_dir() and any(
            name.startswith((stamp, f"{PARTIAL_PREFIX}{stamp}")) for name in os.listdir(runs_dir)
        )
        if not taken:
            return
        sleep(1 - now % 1 + 0.001)


def _stderr_fd() -> int | None:
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a file (captured): inherit stdout
        return None


def _runs(folder: Path) -> set[str]:
    if not folder.is_dir():
        return set()
    return {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", PARTIAL_PREFIX))}


def _code_in(argv: list[str], root: Path) -> list[str]:
    """Files named on the command line that lie inside the project: the code hash covers them."""
    found = []
    for token in argv:
        if token == sys.executable:
            continue
        path = (root / token).resolve() if not Path(token).is_absolute() else Path(token).resolve()
        if path.is_file() and root.resolve() in path.parents:
            found.append(path.relative_to(root.resolve()).as_posix())
    return found
