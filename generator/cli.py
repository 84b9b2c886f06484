"""`ledger VERB`: find the verb, parse its arguments, run it; exit 0 clean, 1 gate failed, 2 usage.

Each verb is one row of VERBS and one module under generator/commands/ holding its own
`setup_arguments(parser)` and `run_from_args(args)` (asv's commands/ layout). A verb that needs a ledger
gets the project's configuration composed once, here, as `args.project` (inputs/project.py: its policy and
settings; nothing below reads mkdocs.yml again). Only the module of the verb named is imported, so `ledger
check` (and the pre-commit hook) loads the core alone, never the site stack. A verb's module may also hold
`cached(args) -> exit code | None`, asked before anything else is loaded or the ledger looked for: `ledger
check` answers from its cache there when nothing has changed. Adding a verb: a row here, its module, and its
section in guide/cli.md (tests/test_cli_guide.py).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from . import __version__, collector
from .inputs import stack


@dataclass(frozen=True, slots=True)
class Verb:
    name: str
    help: str
    needs_ledger: bool = True  # refuse to run where no ledger is found (exit 2, suggest `ledger init`)
    needs_site: bool = False  # refuse to run without the site stack (exit 2, the install command); --help still works

    @property
    def module(self) -> str:
        return "generator.commands." + self.name.replace("-", "_")

    def load(self) -> ModuleType:
        """The verb's module: `setup_arguments(parser)` and `run_from_args(args) -> exit code`."""
        # __import__, not importlib.import_module: the same import, but one `python -X importtime` reports.
        return __import__(self.module, fromlist=["run_from_args"])


VERBS = (
    Verb("check", "run the gate; exit 1 on any failure"),
    Verb("accept", "write computed values into drifted claims"),
    Verb("diff", "what changed in the ledger between two git revisions"),
    Verb("show", "one claim's lineage as a tree, with freshness"),
    Verb("init", "a working project: config, claims, a probe and its run, figures, a page", needs_ledger=False),
    Verb("measure", "run the probes declared in mkdocs.yml, each in its own process"),
    Verb("refresh", "move claims to the newest intact runs; value changes marked beyond or within noise"),
    Verb("history", "a claim's value across runs and commits, its segments and steps (--changed: each with a step)"),
    Verb("coverage", "how often each interval holds a left-out run of the probes' replicate sets (--write-run: a run)"),
    Verb("schema", "print the claim files' JSON Schema", needs_ledger=False),
    Verb("pages", "write the generated pages as Markdown, for builders without MkDocs plugins", needs_site=True),
    # It says first whether SITE_DIR is a folder, then looks for the ledger itself.
    Verb(
        "verify-site", "refuse a built site whose pages the ledger did not render from this ledger", needs_ledger=False
    ),
)


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, the arguments of that verb alone (the others' modules stay unread)."""
    whole = argparse.ArgumentParser(prog="ledger", description="Evidence-tracked claims: the gate and its tools.")
    whole.add_argument("--version", action="version", version=f"ledger (evidence-ledger) {__version__}")
    whole.add_argument("--root", type=Path, default=Path("."), help="project root (default: .)")
    whole.add_argument("--config", type=Path, help="mkdocs.yml holding the policy (default: ROOT/mkdocs.yml)")
    commands = whole.add_subparsers(dest="command", required=True)
    for verb in VERBS:
        sub = commands.add_parser(verb.name, help=verb.help)
        if only is None or verb.name == only:
            verb.load().setup_arguments(sub)
    return whole


def _named_verb(argv: list[str]) -> str | None:
    """The verb argv names, read without its arguments (so only its module loads), or None."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--root")
    first.add_argument("--config")
    first.add_argument("command", nargs="?")
    try:
        named = first.parse_known_args(argv)[0].command
    except SystemExit:  # a malformed line: the whole parser says what is wrong
        return None
    return named if any(verb.name == named for verb in VERBS) else None


def _root_named(argv: list[str]) -> bool:
    """Whether the command line names --root (`--root .` names this folder: nothing is looked for above)."""
    return any(arg == "--root" or arg.startswith("--root=") for arg in argv)


def _a_ledger_here() -> bool:
    """This folder has what `project.find` looks for first (a ledger, or a config to say what is wrong)."""
    return Path("mkdocs.yml").exists() or Path("claims").is_dir()


class Interrupted(BaseException):
    """SIGTERM, raised where the command is, so it unwinds as Ctrl-C does (its cleanups run)."""


def _terminated(signum, frame) -> None:
    raise Interrupted()


DEBUG = "LEDGER_DEBUG"  # set: an unexpected error shows its traceback too


def main(argv: list[str] | None = None) -> int:
    """Every verb ends with its exit status and, on any error or interruption, one line on stderr."""
    argv = sys.argv[1:] if argv is None else argv
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)
    with collector.off():  # the one collector policy: a verb makes many short-lived objects (collector.py)
        return _run(argv)


def _run(argv: list[str]) -> int:
    try:
        args = parser(_named_verb(argv)).parse_args(argv)
        verb = next(v for v in VERBS if v.name == args.command)
        if verb.needs_site and (absent := stack.missing()):
            raise stack.SiteStackMissing(stack.message(absent))
        args.root_named = _root_named(argv)
        args.project = None  # the configuration, composed once here and handed to the verb (a verb needing a ledger)
        if verb.needs_ledger and not args.root_named and args.config is None and not _a_ledger_here():
            from .inputs import project  # only where this folder holds none: the warm path stays lean

            args.project = project.above(Path.cwd())
            args.root = args.project.root if args.project else args.root
        module = verb.load()
        answered = module.cached(args) if hasattr(module, "cached") else None  # the warm path: nothing else loads
        if answered is not None:
            return answered
        from .inputs import project

        if verb.needs_ledger and args.project is None:
            args.project = project.find(args.root, args.config)
        return module.run_from_args(args)
    except (_ledger_error(), stack.SiteStackMissing) as error:
        return _said(f"ledger: {error}", 2)
    except BrokenPipeError:  # `ledger diff | head`: the reader left; end quietly, as SIGPIPE would
        _quiet_stdout()
        return 141
    except (KeyboardInterrupt, Interrupted) as error:
        _quiet_stdout()
        by = "Ctrl-C" if isinstance(error, KeyboardInterrupt) else "SIGTERM"
        return _said(f"ledger: interrupted ({by}); nothing was left half-written", 130 if by == "Ctrl-C" else 143)
    except OSError as error:  # the disk filled, a file vanished mid-read, a device went away
        _quiet_stdout()
        where = f"{error.filename}: " if error.filename else ""
        return _said(f"ledger: {where}{error.strerror or error}", 74)
    except (MemoryError, RecursionError) as error:
        return _said(f"ledger: ran out of {'memory' if isinstance(error, MemoryError) else 'stack'}", 70)
    except Exception as error:
        if os.environ.get(DEBUG):
            raise
        detail = f"{type(error).__name__}: {error}".splitlines()[0][:300]
        return _said(
            f"ledger: unexpected error ({detail}); a bug: report it with the command (LEDGER_DEBUG=1 shows where)", 70
        )


def _ledger_error() -> type[Exception]:
    """LedgerError, imported only once an error is raised (the warm path never loads records)."""
    from .records import LedgerError

    return LedgerError


def _said(line: str, status: int) -> int:
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass
    return status


def _quiet_stdout() -> None:
    """No more output: what Python would flush at exit could fail again (a closed pipe, a full disk)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
