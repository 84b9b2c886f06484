"""`ledger init [DIR]`: the template -> a working project, its first run measured by its own probe.

Writes mkdocs.yml (the plugin and its policy, the probe declared), an example probe that needs only
the standard library, claims of every kind, a table and a chart, a page citing them, the review and
publish and preview workflows with their .github/pages.py, requirements.txt (what they install) and a
pre-commit config. `--bare` leaves the
example out, `--fleet` adds the fleet's measure workflow (alone, in a project that exists), `--git`
makes the first commit, `--adopt` adds the ledger to an existing MkDocs project (adopt.py). Never
overwrites: it stops before writing anything if one of its files exists (`--adopt` writes only what is
missing and says what it skipped). The claims' values come from the run the probe writes here, not from the template.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

from .. import probe as probe_api
from .. import text
from ..gate import check, check_project
from ..inputs import project
from ..inputs.config import read_policy
from ..lang.relations import INCONCLUSIVE
from ..lang.values import parse_number
from ..records import LedgerError, Report
from ..runs import link_problem
from . import adopt, initfiles, measure

CLAIMS = "claims/hashing.yaml"  # filled from the example's first run
README = "README.md"  # a surface (mkdocs.yml lists it): filled from the first run too, or kept where one exists
FILLED = (CLAIMS, README)  # the example's files written once its first run gives their values
FLEET_WORKFLOW = ".github/workflows/measure.yml"
FLEET_FILES = (FLEET_WORKFLOW, ".github/workflows/mac-smoke.yml", "requirements-measure.txt")
FIRST_COMMIT = "A ledger, started by `ledger init`"


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", nargs="?", help="the new project's folder (default: --root, else .)")
    parser.add_argument(
        "--source",
        default="evidence-ledger",
        metavar="SPEC",
        help="the pip requirement the workflows and pre-commit config install: a git URL "
        "(git+https://host/repo@COMMIT), a wheel's path or URL, or a PyPI name (default: evidence-ledger)",
    )
    parser.add_argument("--name", help="the site's name, on its index page too (default: from the folder's name)")
    parser.add_argument("--bare", action="store_true", help="no example: no probe, claims, run or figures")
    parser.add_argument(
        "--fleet",
        action="store_true",
        help="add .github/workflows/measure.yml, measuring on self-hosted runners (guide/fleet.md); "
        "in a project that exists, write only that",
    )
    parser.add_argument(
        "--git", action="store_true", help="make the first commit (git init where there is no repository)"
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="add the ledger to an existing MkDocs project: write only the files that are missing (never "
        "overwrite; say what was skipped and why), add the plugin to mkdocs.yml keeping its comments, and "
        "the generated pages to an explicit nav",
    )


def project_files(target: Path, source: str, site_name: str, *, bare: bool, fleet: bool) -> dict[str, str]:
    """What init writes into target: a whole project, or only the fleet's files where one exists (its
    measure workflow always: init refuses if it is there; the rest where missing)."""
    testbeds = (probe_api.default_testbed(),) if fleet else ()
    chosen = initfiles.chosen(initfiles.template_files(), bare=bare, fleet=fleet)
    files = initfiles.filled(chosen, source=source, name=site_name, bare=bare, testbeds=testbeds)
    if fleet and (target / "mkdocs.yml").exists():
        return {
            path: text
            for path, text in files.items()
            if path == FLEET_WORKFLOW or (path in (*FLEET_FILES, "requirements.txt") and not (target / path).exists())
        }
    return files


@dataclass(frozen=True, slots=True)
class Started:
    """What init did: the paths written, a README found and kept (listed as a surface), the gate's verdict on
    the new project (None where it wrote only the fleet's files) and whether it committed."""

    written: list[str]
    kept: list[str]
    report: Report | None
    committed: bool


def init(
    target: Path, source: str, site_name: str, echo=print, *, bare: bool = False, fleet: bool = False, git: bool = False
) -> Started:
    """Write the project under target, measure its first run, fill its claims and run the gate on it; commit
    (git) only what passes."""
    files = project_files(target, source, site_name, bare=bare, fleet=fleet)
    whole = "mkdocs.yml" in files
    places = [*files, *(("claims/", "measurements/") if whole else ())]
    linked = next(filter(None, (link_problem(target, target / path, "") for path in places)), "")
    if linked:  # a file written through it would land wherever the link points
        raise LedgerError(linked)
    kept = [README] if whole and (target / README).is_file() else []  # the project's own: listed, never replaced
    files = {path: text for path, text in files.items() if path not in kept}
    clashes = sorted(path for path in files if (target / path).exists())
    if whole and ((target / "claims").is_dir() or (target / "measurements").is_dir()):
        clashes.append("claims/ or measurements/")
    if clashes:
        raise LedgerError(
            f"{target}: {', '.join(clashes)} already exist; `ledger init` never overwrites (choose an empty folder)"
        )
    existing = _git_ready(target) if git else False
    example = CLAIMS in files
    written: list[Path] = []
    try:
        for relative, text in files.items():
            if example and relative in FILLED:
                continue
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        report = None
        if example:
            echo("measuring the example probe (its run is the claims' evidence):")
            templates = {path: files[path] for path in FILLED if path in files}
            written += [target / path for path in templates]
            written_config = project.read(target)  # composed once, as written: for the probe and for the gate
            run = _measure_example(written_config, templates, echo)
            report = _example_checked(written_config, templates, run, echo)
        elif whole:
            report = check_project(target, None, datetime.now(timezone.utc))
        committed = git and (report is None or report.ok)  # a project the gate fails on is left to fix, uncommitted
        if committed:
            _commit(target, sorted(files) + (["measurements"] if example else []), existing)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        for folder in ("measurements", "claims") if whole else ():
            shutil.rmtree(target / folder, ignore_errors=True)
        if git and not existing:
            shutil.rmtree(target / ".git", ignore_errors=True)
        raise
    return Started(sorted(files), kept, report, committed)


def _number(cell: str) -> float:
    """A cell of the example run, read as the gate reads every cell (values.parse_number)."""
    number = parse_number(cell)
    if number is None:
        raise LedgerError(f"the example probe wrote {cell!r}, which is not a number")
    return number


def _measure_example(written: project.Project, templates: dict[str, str], echo) -> str:
    """Run the example probe once and write its claims (and the README's marker) with that run's values;
    the run's path."""
    target = written.root
    outcomes = measure.measure(target, written.policy, ["hashing"], "default", None, echo=echo)
    if not outcomes[0].ok:
        raise LedgerError(f"the example probe failed ({outcomes[0].problem}); nothing was kept")
    (target / "claims").mkdir(exist_ok=True)
    values = _values(target, outcomes[0].runs[0])
    for relative, template in templates.items():
        for marker, value in values.items():
            template = template.replace(marker, value)
        (target / relative).write_text(template, encoding="utf-8")
    return outcomes[0].runs[0]


TRIES = 3  # runs of the example probe at most, while its check cannot tell (a machine too busy for one run)
CHECKED = "sha256-timeit-estimate"  # the example's borrowed claim, which its first run's measurement checks


def _example_checked(written: project.Project, templates: dict[str, str], run: str, echo) -> Report:
    """The gate on the new project; while the example's check is inconclusive (a run so noisy that its
    interval reaches below the bound), the probe runs again and its run replaces the one before (which
    nothing cites or has committed yet): a new project holds one run, as a project measured once does."""
    target = written.root
    report = check(target, written.policy, datetime.now(timezone.utc))
    for _ in range(TRIES - 1):
        verdict = report.verdicts.get(CHECKED)
        if verdict is None or verdict.support != INCONCLUSIVE:
            break
        why = next((result.why for result in verdict.checks if result.strength == INCONCLUSIVE), "")
        echo(f"the run is too noisy for the example's check to tell ({why}); measuring again, in its place:")
        noisy, run = run, _measure_example(written, templates, echo)
        shutil.rmtree(target / noisy)
        report = check(target, written.policy, datetime.now(timezone.utc))
    return report


def _git(target: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=target, capture_output=True, text=True)


def _git_ready(target: Path) -> bool:
    """Whether target is already in a git work tree; refuses before anything is written if git cannot commit."""
    if shutil.which("git") is None:
        raise LedgerError("--git: git is not installed here; install it, or leave out --git and commit yourself")
    if _git(target, "var", "GIT_COMMITTER_IDENT").returncode != 0:
        raise LedgerError(
            "--git: git has no identity to commit with; set one (`git config --global user.name NAME` and "
            "`git config --global user.email EMAIL`), or leave out --git"
        )
    return _git(target, "rev-parse", "--is-inside-work-tree").stdout.strip() == "true"


def _commit(target: Path, paths: list[str], existing: bool) -> None:
    """The first commit, of the files init wrote only, so the gate checks run history from day one."""
    steps = [] if existing else [["init", "-q", "--initial-branch=main"]]  # publish.yml deploys from main
    steps += [["add", "--", *paths], ["commit", "-q", "-m", FIRST_COMMIT, "--", *paths]]
    for args in steps:
        done = _git(target, *args)
        if done.returncode != 0:
            raise LedgerError(f"--git: `git {' '.join(args[:2])}` failed: {done.stderr.strip() or done.stdout.strip()}")


FLOOR_SHARE = 0.7  # the example's borrowed bound: this share of the first run's rate, ...
FLOOR_LEAST = 0.6  # ... never below the slowest round (so the check agrees), nor below this share (too loose)


def _values(target: Path, run: str) -> dict[str, str]:
    """The template's markers -> the run's path, testbed and values (3 significant digits)."""
    with open(target / run / "results.csv", newline="", encoding="utf-8") as handle:
        rows = {(row["algorithm"], row["size_kib"]): row for row in csv.DictReader(handle)}
    sha256 = _number(rows[("sha256", "1024")]["gb_per_s"])
    slowest = _number(rows[("sha256", "1024")]["gb_per_s_min"])
    return {
        "__RUN__": run,
        "__TESTBED__": run.rsplit("/", 1)[-1].split("Z-", 1)[1],
        "__SHA256__": _significant(sha256, 3),
        "__BLAKE2B__": _significant(_number(rows[("blake2b", "1024")]["gb_per_s"]), 3),
        # from the measured value, not the rounded one: the gate computes formulas from evidence
        "__SECONDS__": _significant(1.073741824 / sha256, 3),
        "__FLOOR__": floor(sha256, slowest),
    }


def floor(rate: float, slowest: float) -> str:
    """The example's lower bound on a rate, at 2 significant digits rounded down: FLOOR_SHARE of it, or the
    slowest round where that is lower (every interval of its rounds then lies above the bound, so the check
    agrees however noisy the run), but never below FLOOR_LEAST of it (a bound at or below half the rate
    constrains nothing a plausible measurement could give)."""
    bound = Decimal(repr(max(min(FLOOR_SHARE * rate, slowest), FLOOR_LEAST * rate)))
    step = Decimal(1).scaleb(bound.adjusted() - 1)  # the place of the second significant digit
    return format(bound.quantize(step, rounding=ROUND_FLOOR).normalize(), "f")


def _significant(value: float, digits: int) -> str:
    text = f"{value:.{digits}g}"
    return text if "e" not in text else repr(float(text))


FULL_NEXT = (
    "ledger check            # the gate, again after every change",
    "mkdocs serve            # the site, live",
    "ledger measure          # a new run of every declared probe",
    "ledger refresh --write  # claims follow the newest runs",
)
BARE_NEXT = (
    "declare a probe under `probes:` in mkdocs.yml (guide/probes.md)",
    "ledger measure          # its first run",
    "write claims/*.yaml citing the run (guide/claims.md), cite them in docs/",
    "ledger check            # the gate",
)


ADOPT_NEXT = (
    "ledger check            # the gate: figures typed into the old pages are warnings (warn: in mkdocs.yml)",
    "mkdocs build --strict   # the site, its theme and nav kept, the ledger's pages added",
    "declare a probe under `probes:` in mkdocs.yml, `ledger measure`, then claims/*.yaml (guide/adopt.md)",
)


def _adopt(target: Path, args: argparse.Namespace) -> int:
    """`ledger init --adopt`: the bare project's files where missing, the plugin and nav added."""
    if args.bare or args.fleet or args.git:
        raise LedgerError(
            "--adopt writes what a --bare project has and the project lacks: leave out --bare, --fleet and --git "
            "(run `ledger init --fleet` after it for the fleet, and commit yourself)"
        )
    chosen = initfiles.chosen(initfiles.template_files(), bare=True, fleet=False)
    files = initfiles.filled(chosen, source=args.source, name=target.name, bare=True, testbeds=())
    done = adopt.adopt(target, files)
    where = "." if target == Path.cwd().resolve() else str(args.dir or args.root)
    lines = [f"wrote {path}" for path in sorted(done.write)] + [f"added to {line}" for line in done.added]
    print(f"adopted {where}:" if lines else f"adopted {where} already: nothing to write")
    print("\n".join(f"  {line}" for line in [*lines, *(f"skipped {line}" for line in done.skipped)]))
    print("next:\n" + (f"  cd {where}\n" if where != "." else "") + "\n".join(f"  {line}" for line in ADOPT_NEXT))
    return 0


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _refuse_inside_a_ledger(target: Path, args: argparse.Namespace) -> None:
    """A folder inside a ledger gets no second one quietly (`cd docs && ledger init`): name it with --root."""
    if getattr(args, "root_named", True):
        return
    inside = project.above(target.parent)
    if inside is not None:
        here = args.dir or "."
        raise LedgerError(
            f"{target} is inside the ledger at {inside.root} (its mkdocs.yml declares the ledger plugin), and "
            f"`ledger init` would start a second ledger in it; that ledger's commands work from any folder below "
            f"it. To start a separate ledger here anyway, name the folder: `ledger --root {here} init`"
        )


def run_from_args(args: argparse.Namespace) -> int:
    target = Path(args.dir or args.root).resolve()
    _refuse_inside_a_ledger(target, args)
    initfiles.requirement(args.source, initfiles.SITE_EXTRA)  # refuses a source pip could not read, before writing
    warning = initfiles.source_warning(args.source)
    if warning:
        print(warning, file=sys.stderr)
    if args.adopt:
        return _adopt(target, args)
    target.mkdir(parents=True, exist_ok=True)
    name = args.name or target.name.replace("-", " ").replace("_", " ").strip().capitalize() or "Measurements"
    started = init(target, args.source, name, echo=_progress, bare=args.bare, fleet=args.fleet, git=args.git)
    written = started.written
    where = "." if target == Path.cwd().resolve() else str(args.dir or args.root)
    if started.report is None:
        print(f"wrote {', '.join(written)} in {where}; guide/fleet.md says how to set up its runners")
        if not read_policy(target / "mkdocs.yml").testbeds:
            print("next: declare where it measures, `testbeds: [NAME, ...]` under the ledger plugin in mkdocs.yml")
        return 0
    print(f"a ledger in {where}: {', '.join(sorted({path.split('/')[0] for path in written}))}")
    for path in started.kept:
        print(f"kept {path} as it was; mkdocs.yml lists it under `surfaces:`, so the gate reads its figures too")
    report = started.report
    if not report.ok:  # the verdict it saw, every finding with its fix, as `ledger check` prints them
        print(text.as_text(report))
        committed = " (nothing was committed)" if args.git else ""
        print(f"the gate fails on the new project{committed}: fix what it names above, then run `ledger check`")
        return 1
    print(f"ledger check: {text.summary(report)}")
    if started.committed:
        print("committed them: the gate checks run history from the first run on")
    steps = BARE_NEXT if args.bare else FULL_NEXT
    print("next:\n" + (f"  cd {where}\n" if where != "." else "") + "\n".join(f"  {line}" for line in steps))
    if args.source == initfiles.DEFAULT_SOURCE:
        print(
            f"note: requirements.txt and the pre-commit config install {initfiles.DEFAULT_SOURCE!r}, which is not on "
            "PyPI yet; rerun with --source SPEC (a git URL or a wheel) or edit them"
        )
    return 0
