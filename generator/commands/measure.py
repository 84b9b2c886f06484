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
its binary was built from, and the build command is recorded in the run's environment.

Around each probe's process the machine is sampled (generator/machine.py: load, the CPU time other
processes took, frequency, temperature), the run's manifest keeps the record and each new run's stability
is printed (lang/stability.py). `--until-settled CLAIM...` adds replicates of the probes those claims cite
until each claim's interval decides its tolerance and `asserts:`, within a count (and time) budget fixed
first, its level divided among the looks (lang/sequential.py, judging/settled.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from .. import child, machine, tools
from .. import probe as probe_api
from ..gate import check
from ..inputs import gitlog, hashcache, load
from ..inputs.config import MAX_REPLICATES
from ..judging import settled
from ..lang import sequential
from ..records import LedgerError, Policy, ProbeSpec
from ..runs import MANIFEST, PARTIAL_PREFIX, link_problem, remove_tree, sha256_file, utc_stamp
from ..trust import verdicts

PLACEHOLDERS = ("python", "profile", "testbed", "root", "out", "build", "export")
BUILD_DIR = f"{hashcache.FOLDER}/build"  # {build}: a compiled probe's binary, rebuilt before every run; ignored by git
MACHINE_DIR = f"{hashcache.FOLDER}/machine"  # the machine's readings while a probe runs (machine.ENV names the file)
MOST_NEW = 10  # --until-settled's count budget by default: new replicate runs of each probe


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    ok: bool
    seconds: float
    runs: tuple[str, ...]  # new run folders, relative to the root
    problem: str = ""


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("probes", nargs="*", metavar="PROBE", help="declared probes to run (default: all)")
    parser.add_argument(
        "--profile",
        help="passed to each probe as {profile} (default: default; with --until-settled, the claims' runs' profile)",
    )
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
        "--smoke",
        action="store_true",
        help="a smoke test: run the probes (quick profile unless --profile), check each writes a valid run, keep "
        "nothing (the runs go to a scratch folder, never measurements/)",
    )
    parser.add_argument(
        "--matrix",
        nargs="?",
        const="all",
        metavar="TESTBEDS",
        help="measure nothing: print the policy's testbeds (all, or a comma-separated few) as a GitHub Actions "
        'matrix, {"testbed": [...]}, for the fleet workflow (guide/fleet.md)',
    )
    parser.add_argument(
        "--until-settled",
        nargs="+",
        metavar="CLAIM",
        help="add replicate runs of the probes these measured claims cite until each claim's interval decides "
        "its tolerance and `asserts:`, or a budget is spent; the level is divided among the looks (guide/checks.md)",
    )
    parser.add_argument(
        "--max-replicates",
        type=_budget(int, "a whole number of replicate runs"),
        default=MOST_NEW,
        metavar="N",
        help=f"--until-settled's count budget: new runs of each probe at most (default {MOST_NEW}); fixed before "
        "the first look, it sets how many looks share the level",
    )
    parser.add_argument(
        "--max-minutes",
        type=_budget(float, "a number of minutes"),
        metavar="M",
        help="--until-settled's time budget: no replicate starts after M minutes (default: none)",
    )


def run_from_args(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    policy = args.project.policy
    if args.matrix is not None:
        print(json.dumps(matrix(policy.testbeds, args.matrix)))
        return 0
    echo = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.until_settled:
        if args.probes or args.replicates or args.export is not None:
            raise LedgerError(
                "--until-settled names claims and makes its own replicates: name no probe, no --replicates, no --from"
            )
        return until_settled(root, policy, args, echo)
    profile = args.profile or "default"
    if args.export is not None:
        outcomes = [imported(root, policy, args.probes, args.export, profile, args.testbed, args.replicates)]
        echo(f"{outcomes[0].name}: {', '.join(outcomes[0].runs) or 'FAILED: ' + outcomes[0].problem}")
        print(summary(outcomes))
        return 0 if outcomes[0].ok else 1
    if args.smoke:
        return smoke(root, policy, args, echo)
    outcomes = measure(root, policy, args.probes, profile, args.testbed, echo=echo, replicates=args.replicates)
    print(summary(outcomes))
    return 0 if all(outcome.ok for outcome in outcomes) else 1


SMOKE_DIR = f"{hashcache.FOLDER}/smoke"  # --smoke's runs, removed when it ends


def smoke(root: Path, policy: Policy, args: argparse.Namespace, echo) -> int:
    """Each probe run once into a scratch measurements folder (LEDGER_MEASUREMENTS points at it), its run read
    back as the gate reads runs, then removed: whether the probes work, with nothing kept. A probe that writes
    into measurements/ anyway (it ignores LEDGER_MEASUREMENTS) fails, its run named."""
    if args.replicates not in (None, 1) or args.export is not None:
        raise LedgerError("--smoke runs each probe once and keeps nothing: no --replicates, no --from")
    scratch = root / SMOKE_DIR
    if os.path.lexists(scratch):
        remove_tree(scratch)
    real = root / policy.measurements_dir
    before = {p.relative_to(root).as_posix() for p in real.glob("*/*")} if real.is_dir() else set()
    trial = replace(policy, measurements_dir=SMOKE_DIR)
    try:
        outcomes = measure(root, trial, args.probes, args.profile or "quick", args.testbed, echo=echo)
        for outcome in outcomes:
            for path in outcome.runs:
                problem = load.one_run(root, path).problem
                echo(f"{outcome.name}: {'its run reads back: ' + problem if problem else 'a valid run'} (not kept)")
    finally:
        if os.path.lexists(scratch):
            remove_tree(scratch)
    after = {p.relative_to(root).as_posix() for p in real.glob("*/*")} if real.is_dir() else set()
    strays = sorted(after - before)
    for stray in strays:
        echo(f"{stray}: written into {policy.measurements_dir}/ by a probe that ignores LEDGER_MEASUREMENTS: "
             "delete it, it is a smoke test's")  # fmt: skip
    ok = all(outcome.ok for outcome in outcomes) and not strays
    worked = sum(1 for outcome in outcomes if outcome.ok)
    print(f"smoke test: {worked} of {len(outcomes)} probe run(s) wrote a valid run; nothing kept")
    return 0 if ok else 1


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
    before, existed = _runs(runs_dir), runs_dir.is_dir()
    out = runs_dir / f"{PARTIAL_PREFIX}out-{os.getpid()}"
    build_dir = root / BUILD_DIR / spec.name
    readings = root / MACHINE_DIR / f"{spec.name}-{os.getpid()}.json"
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
    linked = _linked(spec, root, build_dir, out) or link_problem(root, readings, "the machine's readings")
    if linked:
        return Outcome(spec.name, False, time.perf_counter() - clock, (), linked)
    try:
        problem = _build_run_finalize(spec, root, policy, profile, testbed, values, readings)
    finally:  # also when interrupted (Ctrl-C, SIGTERM): no output folder is left behind
        if os.path.lexists(out):
            remove_tree(out)  # a link the probe put in its place is removed, never followed
        if not existed and runs_dir.is_dir() and not any(runs_dir.iterdir()):
            runs_dir.rmdir()  # nor the probe's folder its {out} was made in, where no run came of it
    # A failed probe wrote nothing: a folder that appeared meanwhile is another process's run.
    new = sorted(_runs(runs_dir) - before) if not problem else []
    written = tuple(f"{policy.measurements_dir}/{spec.name}/{name}" for name in new)
    if not problem and not written:
        problem = "it exited cleanly but wrote no run"
    return Outcome(spec.name, not problem, time.perf_counter() - clock, written, problem)


def _build_run_finalize(
    spec: ProbeSpec,
    root: Path,
    policy: Policy,
    profile: str,
    testbed: str | None,
    values: dict[str, str],
    readings: Path,
) -> str:
    """Build the probe (if it has a build), run it with the machine sampled around it (the readings go to
    `readings`, which the run writer reads), finalize its {out} folder into a run; '' or what failed."""
    out, build_dir, runs_dir = Path(values["out"]), Path(values["build"]), Path(values["out"]).parent
    argv = command_line(spec, values)
    tool = tools.TOOLS.get(spec.tool)
    writes_folder = "{out}" in spec.command or tool is not None  # a tool's export goes into the folder
    env = {**_environment(spec, root, policy, profile, testbed), machine.ENV: str(readings)}
    version, problem = tools.installed(tool, argv, root, env) if tool else ("", "")
    inputs = _hashes(root, spec.code) if spec.build else {}
    problem = problem or (_build(spec, build_dir, values, root, env, inputs) if spec.build else "")
    _wait_for_a_new_second(runs_dir)
    if writes_folder:
        out.mkdir(parents=True, exist_ok=False)
    started = datetime.now(timezone.utc).replace(microsecond=0)
    readings.parent.mkdir(parents=True, exist_ok=True)
    with machine.sampled(readings) as sampling:  # from just before the probe starts to its end
        problem = problem or _run(argv, root, env)
        record = sampling.record()
    if not problem and spec.build and _hashes(root, spec.code) != inputs:
        # The binary was built from the inputs hashed before the build: a run must not carry newer ones.
        problem = "its inputs changed while it was built or ran; nothing was kept, measure it again"
    if not problem and tool is not None:
        extra = {"tool": version, "command": spec.command, **({"build": spec.build} if spec.build else {})}
        export = Path(values["export"])
        problem = _tool_run(spec, root, policy, export, tool.export, testbed, profile, extra, started, record)
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
                machine=record,
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
    record: Mapping[str, object] | None = None,
) -> str:
    """Write the run of a tool probe's export ('' when written, else why not); extra: what this machine says of
    the tool (its version, the command as declared), under what the export records itself; record: what the
    machine did while the tool ran (None: an export made elsewhere, not recorded)."""
    tool = tools.TOOLS[spec.tool]
    if not export.is_file():
        return f"{tool.title} wrote no export to {{export}} (`{tool.writes}` writes it there)"
    here = probe_api.environment() if started else {}  # an export made elsewhere: only what it says
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
            environment={**here, **extra},
            probes_dir=policy.probes_dir,
            started=started,
            machine=record,
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
        # Its output goes to stderr with the progress lines (until an interruption: child.py); stdout keeps
        # the summary.
        status = child.run(argv, root, env)
    except OSError as error:
        return f"cannot start {argv[0]!r}: {error.strerror or error}"
    return "" if status == 0 else f"exit status {status}"


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
        for path in outcome.runs:
            echo(f"  {path.rsplit('/', 1)[-1]}: {_stability(root, path)}")
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


def until_settled(root: Path, policy: Policy, args: argparse.Namespace, echo) -> int:
    """Replicates of the named claims' probes, the probes taking turns, until every claim's interval decides
    its questions or the budget is spent; a look after each turn, every claim's last look on stdout.
    Ctrl-C keeps every replicate finished (each run is written whole or not at all)."""
    report = check(root, policy, datetime.now(timezone.utc))
    unknown = [claim_id for claim_id in args.until_settled if report.verdict(claim_id) is None]
    if unknown:
        raise LedgerError(f"no claim {unknown[0]!r}; `ledger show ID` finds a claim by its id")
    named = dict.fromkeys(args.until_settled)
    targets = {claim_id: settled.target(report.verdicts[claim_id], report.runs, policy) for claim_id in named}
    specs = chosen(policy, list(dict.fromkeys(found.probe for found in targets.values())))
    sets = _sets(root, policy, targets)
    shares = {claim_id: sequential.looks(len(sets[claim_id]), args.max_replicates) for claim_id in targets}
    made: Counter[str] = Counter()
    deadline = time.monotonic() + 60 * args.max_minutes if args.max_minutes else None
    try:
        while True:
            looks = {claim_id: _look(found, sets[claim_id], shares[claim_id]) for claim_id, found in targets.items()}
            for claim_id, found in targets.items():
                echo("  " + settled.said(found, looks[claim_id], sequential.LEVEL))
            open_probes = {found.probe for claim_id, found in targets.items() if not looks[claim_id].settled}
            turn = [spec for spec in specs if spec.name in open_probes and made[spec.name] < args.max_replicates]
            if not turn or (deadline is not None and time.monotonic() >= deadline):
                break
            for spec in turn:
                made[spec.name] += 1
                _replicate(
                    spec, targets, root, policy, args, f"[{spec.name} +{made[spec.name]}/{args.max_replicates}]", echo
                )
            sets = _grown(sets, _sets(root, policy, targets), targets, {spec.name for spec in turn})
    except KeyboardInterrupt:
        echo("interrupted: every replicate finished before it is kept (a run is written whole or not at all)")
        raise
    for claim_id, found in targets.items():
        print(settled.said(found, looks[claim_id], sequential.LEVEL))
    spent = [spec.name for spec in specs if made[spec.name] >= args.max_replicates]
    print(_settled_summary(looks, made, spent))
    return 0


def _replicate(
    spec: ProbeSpec,
    targets: dict[str, settled.Target],
    root: Path,
    policy: Policy,
    args: argparse.Namespace,
    tag: str,
    echo,
) -> None:
    """One more run of a probe, with its claims' profile and testbed unless the command line names them."""
    found = next(target for target in targets.values() if target.probe == spec.name)
    echo(f"{tag} ...")
    outcome = run_probe(spec, root, policy, args.profile or found.profile, args.testbed or found.testbed)
    if not outcome.ok:
        raise LedgerError(f"probe {spec.name} failed ({outcome.problem}); every run made before it is kept")
    for path in outcome.runs:
        echo(f"{tag} {path}: {_stability(root, path)}")


def _grown(before: dict, after: dict, targets: dict[str, settled.Target], ran: set[str]) -> dict:
    """The sets after a turn; LedgerError when a probe's new run joined none of its claims' sets."""
    for probe in sorted(ran):
        mine = [claim_id for claim_id, found in targets.items() if found.probe == probe]
        if all(len(after[claim_id]) <= len(before[claim_id]) for claim_id in mine):
            cited = targets[mine[0]].evidence.run
            raise LedgerError(
                f"the new run of {probe} is not a replicate of {cited} (its testbed, defining parameters or "
                "environment differ, or it failed the gate's checks): measure with the profile and testbed that run "
                "was measured with (--profile, --testbed), on its kind of machine; the runs made are kept"
            )
    return after


def _stability(root: Path, path: str) -> str:
    return verdicts.stability_text(verdicts.run_stability(load.one_run(root, path)))


def _sets(root: Path, policy: Policy, targets: dict[str, settled.Target]) -> dict[str, list]:
    """Each target's set as the runs on disk make it now (read afresh: the new runs are in it)."""
    runs = load.probe_runs(root, policy.measurements_dir, {found.probe for found in targets.values()})
    states = verdicts.run_states(runs, policy, datetime.now(timezone.utc), {})
    return {
        claim_id: settled.values(found, settled.members(found, runs, states)) for claim_id, found in targets.items()
    }


def _look(found: settled.Target, values: list, looks: int) -> sequential.Look:
    return sequential.look(values, sequential.look_level(sequential.LEVEL, looks), found.questions)


def _settled_summary(looks: dict[str, sequential.Look], made: Counter, spent: list[str]) -> str:
    """'2 of 3 claims settled with 7 new runs; the count budget was spent for moe' and the next step."""
    done = sum(1 for found in looks.values() if found.settled)
    text = f"{done} of {len(looks)} claim{'s' if len(looks) != 1 else ''} settled with {sum(made.values())} new run(s)"
    if done < len(looks):
        text += f"; the count budget was spent for {', '.join(spent)}" if spent else "; the time budget was spent"
    return text + f"\nnext: {settled.NEXT}"


def _budget(kind, what: str):
    """An argparse type for a budget: `kind` above 0, else a clear error."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r}: a budget is {what} above 0")
        if kind is int and value > MAX_REPLICATES:
            raise argparse.ArgumentTypeError(f"{text!r}: at most {MAX_REPLICATES} replicate runs")
        return value

    return parse


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
        text += (
            "; a claim pools replicate runs with `replicates: N` under its evidence (guide/checks.md#replicate-runs)"
        )
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
