"""Load stage: claim files, measurement runs and page texts -> raw records with their Source.

All file reading for the gate happens here; later stages are pure functions of what this returns.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..lang import yamlread
from ..lang.rows import Table
from ..records import Finding, Run, Source
from ..runs import MANIFEST, PARTIAL_PREFIX, Manifest, columns_sha256, is_samples
from ..trust import integrity
from . import attributes
from . import bounded as reading
from .bounded import UNBOUNDED, Budget, Unreadable, blob_id, read_capped

__all__ = ["Budget", "Unreadable", "blob_id", "read_capped"]  # read by config, figures and prose too

MAX_MANIFEST_BYTES = 1 << 20
MAX_DATA_BYTES = 256 << 20
MAX_CODE_BYTES = 16 << 20
MAX_PAGE_BYTES = 4 << 20
MAX_CONFIG_BYTES = 1 << 20
NOT_PARSED = "is not parsed: raw rounds are read only in runs a claim cites"
PAGE_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")  # every extension MkDocs renders as Markdown
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".xht", ".shtml", ".shtm")  # copied into the site as they are


@dataclass(frozen=True, slots=True)
class RawFile:
    """One claim file as read: its data, or the problem that stopped the reading."""

    source: Source  # line 0: the whole file
    data: object = None
    problem: str = ""
    fix: str = ""
    line: int = 0
    column: int = 0


def claim_files(root: Path, claims_dir: str, max_bytes: int, budget: Budget = UNBOUNDED) -> list[RawFile]:
    """Every claims/**/*.yaml (and .yml) file under root, parsed, in path order."""
    base = root / claims_dir
    if not base.is_dir():
        return []
    paths = sorted(p for p in base.rglob("*") if p.suffix in (".yaml", ".yml"))
    return [_claim_file(root, path, max_bytes, budget) for path in paths]


def _claim_file(root: Path, path: Path, max_bytes: int, budget: Budget) -> RawFile:
    source = Source(_relative(root, path), 0)
    if not _inside(path, root):
        return RawFile(
            source, problem="is a link to a file outside the repository", fix="replace the link with the file itself"
        )
    try:
        raw = read_capped(path, max_bytes, budget)
    except Unreadable as problem:
        big = "limit" in str(problem)
        return RawFile(
            source,
            problem=f"file {problem}",
            fix="split it into several files, or raise max_claim_file_bytes in mkdocs.yml"
            if big
            else "replace it with a regular YAML file, or rename it so it does not end in .yaml",
        )
    try:
        data = yamlread.parse(raw)
    except yamlread.YamlProblem as problem:
        return RawFile(source, problem=problem.message, fix=problem.fix, line=problem.line, column=problem.column)
    except MemoryError:
        return RawFile(source, problem="needs more memory to read than there is", fix="split it into several files")
    return RawFile(source, data=data)


_ID_LINE = re.compile(r"""^[ \t]*(?:-[ \t]+)?id[ \t]*:[ \t]*["']?([^\s"'#]+)""", re.M)


def defined_ids(root: Path, path: str, max_bytes: int) -> list[tuple[str, int]]:
    """(id, line) of every `id:` line in a claim file, read as text: what a file that failed to load
    would have defined (judging/causes.py); none when it cannot be read."""
    try:
        text = read_capped(root / path, max_bytes).decode("utf-8", errors="replace")
    except (Unreadable, OSError):
        return []
    return [(match.group(1), text.count("\n", 0, match.start()) + 1) for match in _ID_LINE.finditer(text)]


CodeHashes = dict[str, tuple[str | None, str]]  # code path -> (its sha256 now, code_place): found once a check


def runs(
    root: Path,
    measurements_dir: str,
    cited: Collection[str] | None = None,
    budget: Budget = UNBOUNDED,
    every_table: bool = False,
    reused: Mapping[str, Run] | None = None,
) -> tuple[dict[str, Run], list[Finding]]:
    """Every run folder measurements/<probe>/<run>/ with its manifest, hashes and CSV tables, and the
    folders refused as links (a linked folder's files are not the ones git holds).

    Raw rounds (samples.csv, NAME.samples.csv) are hashed in every run but parsed only in the runs
    `cited` names (None: every run), so an archive of uncited runs costs a check only its hashing. The
    other tables of a run `cited` does not name are read and checked alike, their rows counted, not kept
    (Table.counted), unless every_table (the site shows them and figures draw them): a run's memory is
    the stream's, whatever its rows. `reused`: runs read already from the same bytes (`ledger diff`'s other
    revision), which the folder does not hold: taken as they are."""
    base = root / measurements_dir
    found: dict[str, Run] = {}
    refused: list[Finding] = []
    linked = next((p for p in (base, *base.parents) if p.is_symlink() and root in (p, *p.parents)), None)
    if linked is not None:
        return found, [_linked(root, linked, "the measurements folder")]
    if not base.is_dir() and not reused:
        return found, refused
    code_hashes: CodeHashes = {}  # many runs share probe files: hash and place each once
    for probe_dir in (
        sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")) if base.is_dir() else []
    ):
        if probe_dir.is_symlink():
            refused.append(_linked(root, probe_dir, "a probe's folder"))
            continue
        found.update(_probe_runs(root, probe_dir, code_hashes, cited, budget, every_table))
    if reused:  # in the order a folder's runs are read: by probe, then run
        found = dict(sorted({**found, **reused}.items(), key=lambda item: item[0].split("/")))
    return found, refused


def probe_runs(root: Path, measurements_dir: str, probes: Collection[str]) -> dict[str, Run]:
    """The runs of the named probes alone, raw rounds parsed: what a command reads of the runs it just made
    (`ledger measure --until-settled`). A linked folder is left out (the gate refuses it)."""
    found: dict[str, Run] = {}
    code_hashes: CodeHashes = {}
    for probe in sorted(probes):
        folder = root / measurements_dir / probe
        if folder.is_dir() and not folder.is_symlink() and not (root / measurements_dir).is_symlink():
            found.update(_probe_runs(root, folder, code_hashes, None, UNBOUNDED))
    return found


def one_run(root: Path, path: str) -> Run:
    """One run folder (relative to root), read as runs() reads it with its raw rounds parsed."""
    return _run(root, root / path, {}, None, UNBOUNDED)


def _probe_runs(
    root: Path,
    probe_dir: Path,
    code_hashes: CodeHashes,
    cited: Collection[str] | None,
    budget: Budget,
    every_table: bool = True,
) -> dict[str, Run]:
    found: dict[str, Run] = {}
    for run_dir in sorted(p for p in probe_dir.iterdir() if p.is_dir()):
        if run_dir.name.startswith((".", PARTIAL_PREFIX)):
            continue
        try:
            run = _run(root, run_dir, code_hashes, cited, budget, every_table)
        except MemoryError:  # a table too large to hold: a finding about this run, not a crash
            path = _relative(root, run_dir)
            run = Run(path, Source(f"{path}/{MANIFEST}", 0), problem="needs more memory to read than there is")
        found[run.path] = run
    return found


def _linked(root: Path, path: Path, what: str) -> Finding:
    return Finding(
        Source(_relative(root, path), 0),
        "",
        "invalid",
        f"{what} is a link: the gate would read the files it points to, not the ones git holds",
        "replace the link with the folder itself (runs are committed as they are)",
    )


def _run(
    root: Path,
    run_dir: Path,
    code_hashes: CodeHashes,
    cited: Collection[str] | None,
    budget: Budget,
    every_table: bool = True,
) -> Run:
    path = _relative(root, run_dir)
    rounds_wanted = cited is None or path in cited
    source = Source(f"{path}/{MANIFEST}", 0)
    if run_dir.is_symlink():
        return Run(path, source, problem="is a link: a run folder is committed as it is, never linked")
    if (run_dir / MANIFEST).is_symlink():
        return Run(path, source, problem="manifest.json is a link: a run's files are committed as they are")
    try:
        manifest_bytes = read_capped(run_dir / MANIFEST, MAX_MANIFEST_BYTES, budget)
    except Unreadable as problem:
        missing = not (run_dir / MANIFEST).exists() and not (run_dir / MANIFEST).is_symlink()
        return Run(path, source, problem="has no manifest.json" if missing else f"manifest.json {problem}")
    try:
        manifest = json.loads(manifest_bytes.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        return Run(path, source, problem=f"manifest.json is not valid JSON ({str(error)[:80]})")
    problems = integrity.shape(manifest)
    if problems:
        return Run(path, source, problem="manifest.json " + "; ".join(problems))
    record = Manifest.read(manifest)
    declared_code = dict(record.code)
    # An attachment (a tool's export) is verified as a data file is; not a .csv, it is never parsed.
    declared_files = {**{name: sha256 for name, (sha256, _) in record.files.items()}, **record.attachments}
    started, _ = integrity.parse_time(record.started)
    finished, _ = integrity.parse_time(record.finished)
    present = {entry.name for entry in run_dir.iterdir() if entry.name != MANIFEST}
    actual_files, blob_ids, tables = _data_files(run_dir, declared_files, present, budget, rounds_wanted, every_table)
    blob_ids = {MANIFEST: blob_id(manifest_bytes), **blob_ids}
    unlisted = tuple(sorted(present - set(declared_files)))
    current_code, code_problems = _code_now(root, declared_code, code_hashes)
    return Run(
        path,
        source,
        probe=record.probe_path,
        testbed=record.testbed,
        started=started,
        finished=finished,
        parameters=record.parameters,
        environment=record.environment,
        declared_files=declared_files,
        actual_files=actual_files,
        declared_code=declared_code,
        current_code=current_code,
        code_problems=code_problems,
        tables=tables,
        unlisted=unlisted,
        blob_ids=blob_ids,
        manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest(),
        columns=record.columns,
        columns_sha256=(columns_sha256(record.columns), record.columns_sha256) if record.columns else ("", ""),
        commit=record.revision.commit if record.revision else "",
        clean=record.revision.clean if record.revision else None,
        attachments=tuple(record.attachments),
        machine=record.machine,
    )


def _data_files(
    run_dir: Path, declared: Collection[str], present: set[str], budget: Budget, rounds_wanted: bool, keep_all: bool
) -> tuple[dict[str, str | None], dict[str, str], dict[str, Table]]:
    """A run's declared data files read: (each one's sha256, None where it cannot be read; each one's git blob
    id; its tables). A table is kept where its run's rounds are wanted or keep_all, else its rows are counted."""
    actual_files: dict[str, str | None] = {}
    blob_ids: dict[str, str] = {}
    tables: dict[str, Table] = {}
    for name in declared:
        data_path = run_dir / name
        if "/" in name or "\\" in name or name.startswith(".") or name not in present:
            actual_files[name] = None
            continue
        if data_path.is_symlink():
            actual_files[name] = None
            tables[name] = Table((), (), problem="is a link: a run's files are committed as they are")
            continue
        try:
            parse = name.endswith(".csv") and (rounds_wanted or not is_samples(name))
            data = reading.data_file(data_path, MAX_DATA_BYTES, budget, parse=parse, keep=rounds_wanted or keep_all)
        except (Unreadable, OSError) as problem:
            actual_files[name] = None
            tables[name] = Table((), (), problem=str(problem))
            continue
        actual_files[name] = data.sha256
        blob_ids[name] = data.blob
        if data.table is not None:
            tables[name] = data.table
        if is_samples(name) and not rounds_wanted:
            tables[name] = Table((), (), problem=NOT_PARSED)
    return actual_files, blob_ids, tables


def _code_now(
    root: Path, declared_code: dict[str, str], code_hashes: CodeHashes
) -> tuple[dict[str, str | None], dict[str, str]]:
    """Each declared code file's hash now and why it is not ours, if so: both found once per file, shared
    across runs through `code_hashes` (code path -> (hash, code_place))."""
    current: dict[str, str | None] = {}
    problems: dict[str, str] = {}
    for code_path in declared_code:
        if code_path not in code_hashes:
            code_hashes[code_path] = (_code_hash(root, code_path), code_place(root, code_path))
        current[code_path], where = code_hashes[code_path]
        if where:
            problems[code_path] = where
    return current, problems


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def code_place(root: Path, code_path: str) -> str:
    """Why a run's code file is not a file of the repository reached without links ("" when it is)."""
    parts = PurePosixPath(code_path).parts
    if PurePosixPath(code_path).is_absolute() or ".." in parts or "\\" in code_path or not parts:
        return "is outside the repository"
    if ".git" in parts:
        return "is under .git/, which git does not version"
    for depth in range(1, len(parts) + 1):
        if root.joinpath(*parts[:depth]).is_symlink():
            return "is reached through a link"
    return ""


def _code_hash(root: Path, code_path: str) -> str | None:
    file = root / code_path
    if Path(code_path).is_absolute() or ".." in Path(code_path).parts or not _inside(file, root):
        return None
    try:
        return hashlib.sha256(read_capped(file, MAX_CODE_BYTES)).hexdigest()
    except Unreadable:
        return None


def pages(root: Path, docs_dir: str, budget: Budget = UNBOUNDED) -> tuple[dict[str, str], list[Finding]]:
    """The text of every hand-written page (every Markdown extension MkDocs renders), by its path
    relative to root, and the pages that cannot be read."""
    base = root / docs_dir
    if not base.is_dir():
        return {}, []
    texts: dict[str, str] = {}
    problems: list[Finding] = [
        Finding(
            Source(_relative(root, page), 0),
            "",
            "invalid",
            "a hand-written HTML page is published as it is: the ledger neither renders nor reads it, so its "
            "figures and references are never checked (and verify-site refuses it unstamped)",
            "write it as Markdown (raw HTML inside a Markdown page is read and checked), or move it out of the docs folder",
        )
        for page in sorted(p for p in base.rglob("*") if p.suffix.lower() in HTML_SUFFIXES and p.is_file())
    ]
    for page in sorted(p for p in base.rglob("*") if p.suffix.lower() in PAGE_SUFFIXES):
        relative = _relative(root, page)
        try:
            texts[relative] = read_capped(page, MAX_PAGE_BYTES, budget).decode("utf-8", errors="replace")
        except Unreadable as problem:
            problems.append(
                Finding(
                    Source(relative, 0),
                    "",
                    "invalid",
                    f"page {problem}",
                    "replace it with a regular Markdown file, or rename it",
                )
            )
    return texts, problems


def surfaces(
    root: Path, paths: tuple[str, ...], docs_dir: str, budget: Budget = UNBOUNDED, config: str = "mkdocs.yml"
) -> tuple[dict[str, str], list[Finding]]:
    """The text of every surface the policy lists (`surfaces:`: files outside docs/ read with the prose
    rules), and why each one that cannot be read is refused."""
    texts: dict[str, str] = {}
    problems: list[Finding] = []
    docs = docs_dir.rstrip("/") + "/"
    for relative in paths:
        path = root / relative
        why = ""
        if relative.startswith(docs):
            why = f"is a page under {docs}: the site's pages are read already"
        elif not path.exists() and not path.is_symlink():
            why = "does not exist"
        elif root.resolve() not in path.resolve().parents:
            why = "leads outside the project"
        else:
            try:
                texts[relative] = read_capped(path, MAX_PAGE_BYTES, budget).decode("utf-8", errors="replace")
            except Unreadable as problem:
                why = str(problem)
        if why:
            fix = f"create it, or take it out of `surfaces:` in {config}"
            refused = f"surface listed under `surfaces:` in {config} {why}"
            problems.append(Finding(Source(relative, 0), "", "invalid", refused, fix))
    return texts, problems


def attribute_rules(root: Path, measurements_dir: str) -> tuple[list[attributes.Rule], str]:
    """The .gitattributes rules that can reach runs, in git's order of precedence, and the root's path
    from the repository's top (rules match paths from there): the files from the top down to the
    root, then those inside the measurements folder, shallow before deep."""
    top = next((folder for folder in (root, *root.parents) if (folder / ".git").exists()), root)
    chain = [*reversed([folder for folder in (root, *root.parents) if top in (folder, *folder.parents)])]
    base = root / measurements_dir
    inside = sorted(base.rglob(".gitattributes"), key=lambda p: (len(p.parts), p)) if base.is_dir() else []
    files = [folder / ".gitattributes" for folder in chain]
    files += [root / part / ".gitattributes" for part in _parents(measurements_dir)]
    files += [path for path in inside if path not in files]
    rules: list[attributes.Rule] = []
    for path in files:
        try:
            text = read_capped(path, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
        except Unreadable:
            continue
        folder = path.parent.relative_to(top).as_posix()
        rules += attributes.parse(
            os.path.relpath(path, root), "" if folder == "." else folder, text, path.parent == top
        )
    prefix = root.relative_to(top).as_posix()
    return rules, "" if prefix == "." else prefix + "/"


def _parents(relative: str) -> list[str]:
    parts = relative.strip("/").split("/")
    return ["/".join(parts[: index + 1]) for index in range(len(parts))]


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _inside(path: Path, base: Path) -> bool:
    """Whether path, with every link followed, stays under base."""
    resolved, limit = path.resolve(), base.resolve()
    return resolved == limit or limit in resolved.parents
