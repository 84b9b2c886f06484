"""`ledger VERB`: parse arguments, call check(), print, exit (0 clean, 1 gate failed, 2 usage).

Each verb is one row of VERBS; its module is imported only when it runs, so `ledger check` (and
the pre-commit hook) loads the core alone, never the site stack.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import hashcache, reads, stack, text
from .config import read_policy
from .gate import check
from .records import LedgerError, Policy, Report


@dataclass(frozen=True)
class Verb:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: str  # "module:function" under generator, imported when the verb runs
    needs_ledger: bool = True  # refuse to run where no ledger is found (exit 2, suggest `ledger init`)


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="github: findings as GitHub Actions annotations on the pull request's lines",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="ignore and keep no check cache (.cache/ledger/check.json); CI uses this",
    )
    parser.add_argument(
        "--require-history",
        action="store_true",
        help="fail when the runs' git history cannot be read (a shallow clone, no git); CI uses this",
    )


def _accept_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the revision to compare with, e.g. origin/main")
    parser.add_argument("head", metavar="HEAD", nargs="?", help="a revision (default: the working tree)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")


def _init_arguments(parser: argparse.ArgumentParser) -> None:
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


def _measure_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("probes", nargs="*", metavar="PROBE", help="declared probes to run (default: all)")
    parser.add_argument("--profile", default="default", help="passed to each probe as {profile} (default: default)")
    parser.add_argument("--testbed", help="the testbed name (default: the probe decides, e.g. linux-x86-64)")
    parser.add_argument(
        "--matrix",
        nargs="?",
        const="all",
        metavar="TESTBEDS",
        help="measure nothing: print the policy's testbeds (all, or a comma-separated few) as a GitHub Actions "
        'matrix, {"testbed": [...]}, for the fleet workflow (guide/fleet.md)',
    )


def _refresh_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--write", action="store_true", help="apply the moves: evidence and values, dependents too")


def _history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "id", metavar="ID", nargs="?", help="a measured claim (its evidence selects a value in each run)"
    )
    parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    parser.add_argument("--changed", action="store_true", help="list the claims whose series has a step instead")


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def _pages_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path, help="the docs folder another builder reads")


def _verify_site_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site_dir", metavar="SITE_DIR", type=Path, help="a built site, e.g. site/")
    parser.add_argument(
        "--against",
        metavar="REGISTRY",
        help="the registry of runs the previous site published (a folder, a file or an http(s) URL): "
        "refuse a published run whose bytes changed",
    )


VERBS = (
    Verb("check", "run the gate; exit 1 on any failure", _check_arguments, "cli:run_check"),
    Verb("accept", "write computed values into drifted claims", _accept_arguments, "commands.verbs:run_accept"),
    Verb("diff", "what changed in the ledger between two git revisions", _diff_arguments, "commands.verbs:run_diff"),
    Verb("show", "one claim's lineage as a tree, with freshness", _show_arguments, "commands.verbs:run_show"),
    Verb(
        "init",
        "a working project: config, claims, a probe and its run, figures, a page",
        _init_arguments,
        "commands.init:run_init",
        needs_ledger=False,
    ),
    Verb(
        "measure",
        "run the probes declared in mkdocs.yml, each in its own process",
        _measure_arguments,
        "commands.verbs:run_measure",
    ),
    Verb(
        "refresh",
        "move claims to the newest intact runs; value changes marked beyond or within noise",
        _refresh_arguments,
        "commands.refresh:run_refresh",
    ),
    Verb(
        "history",
        "a claim's value across runs and commits, with its segments and steps (--changed: every claim with a step)",
        _history_arguments,
        "commands.history:run_history",
    ),
    Verb("schema", "print the claim files' JSON Schema", _no_arguments, "cli:run_schema", needs_ledger=False),
    Verb(
        "pages",
        "write the generated pages as Markdown, for builders without MkDocs plugins",
        _pages_arguments,
        "commands.verbs:run_pages",
    ),
    Verb(
        "verify-site",
        "refuse a built site whose pages the ledger did not render from this ledger",
        _verify_site_arguments,
        "commands.verbs:run_verify_site",
        needs_ledger=False,
    ),
)


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(prog="ledger", description="Evidence-tracked claims: the gate and its tools.")
    found.add_argument("--root", type=Path, default=Path("."), help="project root (default: .)")
    found.add_argument("--config", type=Path, help="mkdocs.yml holding the policy (default: ROOT/mkdocs.yml)")
    commands = found.add_subparsers(dest="command", required=True)
    for verb in VERBS:
        verb.arguments(commands.add_parser(verb.name, help=verb.help))
    return found


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    verb = next(v for v in VERBS if v.name == args.command)
    module, function = verb.run.split(":")
    try:
        if verb.needs_ledger:
            find_ledger(args)
        return getattr(importlib.import_module(f"generator.{module}"), function)(args)
    except (LedgerError, stack.SiteStackMissing) as error:
        print(f"ledger: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `ledger diff | head`: the reader left; end quietly, as SIGPIPE would
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def find_ledger(args: argparse.Namespace) -> None:
    """Refuse (exit 2) where there is no ledger: no --root folder, or neither claims/ nor the plugin."""
    root = args.root
    if not root.is_dir():
        raise LedgerError(f"--root {root}: no such folder; to start a ledger there: `ledger init {root}`")
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    if (root / policy.claims_dir).is_dir() or _declares_plugin(config):
        return
    raise LedgerError(
        f"no ledger in {root.resolve()}: looked for {policy.claims_dir}/ and the ledger plugin in {config.name}; "
        "run `ledger init` to start one, or pass --root"
    )


def _declares_plugin(config: Path) -> bool:
    if not config.is_file():
        return False
    import yaml

    from .config import _plugin_options

    try:
        node = yaml.compose(config.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return True  # a malformed mkdocs.yml: let the verb say what is wrong with it
    if not isinstance(node, yaml.MappingNode):
        return False
    top = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
    return _plugin_options(top.get("plugins")) is not None


def run_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of claim files, as shipped in the package."""
    from importlib import resources

    try:
        text = resources.files("generator.schema").joinpath("claims.schema.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # a source checkout: the schema/ folder it is built from
        text = (Path(__file__).resolve().parents[1] / "schema" / "claims.schema.json").read_text(encoding="utf-8")
    sys.stdout.write(text)
    return 0


def gate_report(args: argparse.Namespace, every_run_rounds: bool = False) -> Report:
    """The gate's Report for the project the arguments name (gate.check)."""
    root = args.root.resolve()
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    return check(
        root,
        policy,
        datetime.now(timezone.utc),
        every_run_rounds,
        require_history=getattr(args, "require_history", False),
    )


def run_check(args: argparse.Namespace) -> int:
    """The gate; with the cache, the last verdict when nothing it reads has changed (hashcache.py)."""
    root = args.root.resolve()
    cache = hashcache.load(root, enabled=not args.no_cache and not os.environ.get(hashcache.NO_CACHE))
    code = tuple(cache.verdict.get("code", ())) if cache.path else ()  # what the runs declared last time
    key = _check_key(args, root, code) if cache.path else []
    done = cache.reusable(key) if cache.path else None
    _note_a_missing_site_stack(args.config or root / "mkdocs.yml")
    if done is not None:
        print(done["output"])
        return int(done["exit"])
    gc.disable()  # a short-lived process making many objects and few cycles: collection costs more than it frees
    report = gate_report(args)
    output = {"json": text.as_json, "github": text.as_github}.get(args.format, text.as_text)(report)
    print(output)
    exit_code = 0 if report.ok else 1
    if cache.path:
        declared = reads.declared_code(report.runs)
        # Stats taken now are safe: a file changed since this run started is racy and never reused.
        cache.save(key if declared == code else _check_key(args, root, declared), output, exit_code, declared)
    return exit_code


def _note_a_missing_site_stack(config: Path) -> None:
    """The gate needs no site stack, but a project that declares the plugin builds with it: say how to get it."""
    absent = stack.missing()
    if absent and _declares_plugin(config):
        print(
            f"note: {config.name} declares the ledger plugin; `ledger check` runs without the site, "
            f"but `mkdocs build` needs {', '.join(absent)}: install evidence-ledger[site] ({stack.INSTALL})",
            file=sys.stderr,
        )


def _check_key(args: argparse.Namespace, root: Path, code: tuple[str, ...]) -> list:
    """What `ledger check` reads (reads.py, from the policy), git's state, the config, and the code
    files the runs declare."""
    config = args.config or root / "mkdocs.yml"
    policy = read_policy(config) if args.config or config.exists() else Policy()
    folders = (*reads.folders(policy), *reads.GIT_FOLDERS)
    files = (str(config), *reads.GIT_FILES, *reads.files(policy), *code)
    context = [str(root), str(config), args.format, args.require_history, datetime.now(timezone.utc).date().isoformat()]
    return hashcache.inputs_key(root, folders, files, context)


if __name__ == "__main__":
    sys.exit(main())
