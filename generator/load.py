"""Load stage: claim files, measurement runs and page references -> raw records with their Source.

All file reading for the gate happens here; later stages are pure functions of what this returns.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from . import references, yamlread
from .records import PageRef, RawFile, Run, Source, Table
from .runs import MANIFEST, PARTIAL_PREFIX, sha256_file


def claim_files(root: Path, claims_dir: str, max_bytes: int) -> list[RawFile]:
    """Every claims/**/*.yaml (and .yml) file under root, parsed, in path order."""
    base = root / claims_dir
    if not base.is_dir():
        return []
    paths = sorted(p for p in base.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return [_claim_file(root, path, max_bytes) for path in paths]


def _claim_file(root: Path, path: Path, max_bytes: int) -> RawFile:
    source = Source(_relative(root, path), 0)
    if not _inside(path, root):
        return RawFile(
            source, problem="is a link to a file outside the repository", fix="replace the link with the file itself"
        )
    size = path.stat().st_size
    if size > max_bytes:
        return RawFile(
            source,
            problem=f"file is {size:,} bytes; the limit is {max_bytes:,}",
            fix="split it into several files, or raise max_claim_file_bytes in mkdocs.yml",
        )
    try:
        data = yamlread.parse(path.read_bytes())
    except yamlread.YamlProblem as problem:
        return RawFile(source, problem=problem.message, fix=problem.fix, line=problem.line, column=problem.column)
    return RawFile(source, data=data)


def runs(root: Path, measurements_dir: str, hash_file: Callable[[Path], str] = sha256_file) -> dict[str, Run]:
    """Every run folder measurements/<probe>/<run>/ with its manifest, hashes and CSV tables.

    hash_file: how a file's SHA-256 is found (the check cache, hashcache.Cache.sha256, may know it)."""
    base = root / measurements_dir
    found: dict[str, Run] = {}
    if not base.is_dir():
        return found
    code_hashes: dict[str, str | None] = {}  # many runs share probe files: hash each once
    for probe_dir in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for run_dir in sorted(p for p in probe_dir.iterdir() if p.is_dir()):
            if run_dir.name.startswith((".", PARTIAL_PREFIX)):
                continue
            run = _run(root, run_dir, code_hashes, hash_file)
            found[run.path] = run
    return found


def _run(root: Path, run_dir: Path, code_hashes: dict[str, str | None], hash_file: Callable[[Path], str]) -> Run:
    path = _relative(root, run_dir)
    source = Source(f"{path}/{MANIFEST}", 0)
    if not _inside(run_dir, root / path.split("/")[0]):
        return Run(path, source, problem="is a link that leaves measurements/")
    manifest_path = run_dir / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        probe = manifest["probe"]
        declared_code = dict(probe["code"])
        declared_files = {name: entry["sha256"] for name, entry in manifest["files"].items()}
        started = _time(manifest["started"])
        finished = _time(manifest["finished"])
    except FileNotFoundError:
        return Run(path, source, problem="has no manifest.json")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return Run(path, source, problem=f"manifest.json is not a valid run manifest ({error})")
    actual_files: dict[str, str | None] = {}
    tables: dict[str, Table] = {}
    for name in declared_files:
        data_path = run_dir / name
        if "/" in name or name.startswith(".") or not data_path.is_file():
            actual_files[name] = None
            continue
        if not _inside(data_path, run_dir):
            actual_files[name] = None
            tables[name] = Table((), (), problem="is a link that leaves its run folder")
            continue
        actual_files[name] = hash_file(data_path)
        if name.endswith(".csv"):
            tables[name] = _table(data_path.read_bytes())
    current_code = {}
    for code_path in declared_code:
        if code_path not in code_hashes:
            file = root / code_path
            safe = not Path(code_path).is_absolute() and ".." not in Path(code_path).parts
            ok = safe and file.is_file() and _inside(file, root)
            code_hashes[code_path] = hash_file(file) if ok else None
        current_code[code_path] = code_hashes[code_path]
    return Run(
        path,
        source,
        probe=str(probe.get("path", "")),
        testbed=str(manifest.get("testbed", "")),
        started=started,
        finished=finished,
        parameters=manifest.get("parameters") or {},
        environment=manifest.get("environment") or {},
        declared_files=declared_files,
        actual_files=actual_files,
        declared_code=declared_code,
        current_code=current_code,
        tables=tables,
    )


def _table(data: bytes) -> Table:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return Table((), (), problem=f"is not UTF-8 (line {line})")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return Table((), (), problem="is empty")
    header, body = tuple(rows[0]), rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            return Table(header, (), problem=f"line {number} has {len(row)} cells, the header {len(header)}")
    return Table(header, tuple(tuple(row) for row in body))


def page_refs(root: Path, docs_dir: str) -> list[PageRef]:
    """Every {{ claim(...) }}, {{ table(...) }} and {{ chart(...) }} in the hand-written pages."""
    base = root / docs_dir
    if not base.is_dir():
        return []
    found: list[PageRef] = []
    for page in sorted(base.rglob("*.md")):
        text = page.read_text(encoding="utf-8", errors="replace")
        found += references.find(text, _relative(root, page))
    return found


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _inside(path: Path, base: Path) -> bool:
    """Whether path, with every link followed, stays under base."""
    resolved, limit = path.resolve(), base.resolve()
    return resolved == limit or limit in resolved.parents
