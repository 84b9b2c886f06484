"""`ledger init [DIR]`: the template -> a working project, its first run measured by its own probe.

Writes mkdocs.yml (the plugin and its policy, the probe declared), an example probe that needs only
the standard library, claims of every kind, a table and a chart, a page citing them, the review and
publish workflows and a pre-commit config. Never overwrites: it stops before writing anything if
one of its files exists. The claims' values come from the run the probe writes here, not from the
template.
"""

from __future__ import annotations

import csv
import shutil
import sys
from importlib import resources
from pathlib import Path

from ..config import read_policy
from ..records import LedgerError
from . import measure

DEFAULT_SOURCE = "evidence-ledger"  # the pip requirement the workflows install (see --source)
RENAMED = {
    "gitignore": ".gitignore",
    "gitattributes": ".gitattributes",
}  # template names a wheel would drop or a tool would read


def template_files() -> dict[str, bytes]:
    """Relative path in the new project -> the template's bytes."""
    base = resources.files("generator.commands").joinpath("template")
    found: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            name = f"{prefix}{child.name}"
            if child.is_dir():
                if child.name != "__pycache__":
                    walk(child, name + "/")
            elif not child.name.endswith(".pyc"):
                found[RENAMED.get(name, name)] = child.read_bytes()

    walk(base, "")
    return found


def init(target: Path, source: str, site_name: str, echo=print) -> list[str]:
    """Write the project under target, measure its first run and fill its claims; the paths written."""
    files = template_files()
    clashes = sorted(path for path in files if (target / path).exists())
    if (target / "claims").is_dir() or (target / "measurements").is_dir():
        clashes.append("claims/ or measurements/")
    if clashes:
        raise LedgerError(
            f"{target}: {', '.join(clashes)} already exist; `ledger init` never overwrites (choose an empty folder)"
        )
    claims_path = "claims/hashing.yaml"
    written: list[Path] = []
    try:
        for relative, content in files.items():
            if relative == claims_path:
                continue
            text = content.decode("utf-8").replace("__SOURCE__", source).replace("__SITE_NAME__", site_name)
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        policy = read_policy(target / "mkdocs.yml")
        echo("measuring the example probe (its run is the claims' evidence):")
        outcomes = measure.measure(target.resolve(), policy, ["hashing"], "default", None, echo=echo)
        if not outcomes[0].ok:
            raise LedgerError(f"the example probe failed ({outcomes[0].problem}); nothing was kept")
        run = outcomes[0].runs[0]
        claims = _filled(files[claims_path].decode("utf-8"), target, run)
        (target / "claims").mkdir(exist_ok=True)
        (target / claims_path).write_text(claims, encoding="utf-8")
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        for folder in ("measurements", "claims"):
            shutil.rmtree(target / folder, ignore_errors=True)
        raise
    return sorted(files)


def _filled(template: str, target: Path, run: str) -> str:
    """The claims template with the run's path, testbed and values (3 significant digits)."""
    with open(target / run / "results.csv", newline="", encoding="utf-8") as handle:
        rows = {(row["algorithm"], row["size_kib"]): float(row["gb_per_s"]) for row in csv.DictReader(handle)}
    sha256, blake2b = _significant(rows[("sha256", "1024")], 3), _significant(rows[("blake2b", "1024")], 3)
    testbed = run.rsplit("/", 1)[-1].split("Z-", 1)[1]
    values = {
        "__RUN__": run,
        "__TESTBED__": testbed,
        "__SHA256__": sha256,
        "__BLAKE2B__": blake2b,
        # from the measured value, not the rounded one: the gate computes formulas from evidence
        "__SECONDS__": _significant(1.073741824 / rows[("sha256", "1024")], 3),
        "__ESTIMATE__": _significant(float(sha256), 2),  # a rounder figure, within its 50% tolerance
    }
    for marker, value in values.items():
        template = template.replace(marker, value)
    return template


def _significant(value: float, digits: int) -> str:
    text = f"{value:.{digits}g}"
    return text if "e" not in text else repr(float(text))


def run_init(args) -> int:
    target = Path(args.dir or args.root).resolve()
    target.mkdir(parents=True, exist_ok=True)
    name = args.name or target.name.replace("-", " ").replace("_", " ").strip().capitalize() or "Measurements"
    init(target, args.source, name, echo=lambda line: print(line, file=sys.stderr, flush=True))
    where = "." if target == Path.cwd().resolve() else str(args.dir or args.root)
    print(f"a ledger in {where}: mkdocs.yml, claims/, probes/, measurements/, figures/, docs/, workflows")
    print(
        "next:\n"
        + (f"  cd {where}\n" if where != "." else "")
        + "  ledger check            # the gate: 0 failures\n"
        + "  mkdocs serve            # the site, live\n"
        + "  ledger measure          # a new run of every declared probe\n"
        + "  ledger refresh --write  # claims follow the newest runs"
    )
    if args.source == DEFAULT_SOURCE:
        print(
            f"note: the workflows and pre-commit config install {DEFAULT_SOURCE!r}, which is not on PyPI yet; "
            "rerun with --source SPEC (a git URL or a wheel) or edit them"
        )
    return 0
