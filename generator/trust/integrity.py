"""Run integrity: a manifest's shape, and its folder name and times against the manifest. Pure.

load.py calls shape() on every manifest it reads (a malformed one gives the run a problem instead of
a crash); verdicts.py calls placement() with the clock, so a run dated in the future or filed under
another testbed's or time's folder is refused whether or not a claim cites it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import PurePosixPath

from .. import machine
from ..records import Run
from ..runs import (
    FORMAT,
    KEBAB,
    SNAKE,
    TESTBED_PATTERN,
    Revision,
    attachment_problem,
    code_hash,
    is_samples,
    read_columns,
)

HEX64 = re.compile(r"^[0-9a-f]{64}$")
# A run's folder as write_run names it: measurements/<probe>/<UTC start>-<testbed>/, ASCII only.
RUN_FOLDER = re.compile(rf"\d{{4}}-\d{{2}}-\d{{2}}T\d{{2}}-\d{{2}}-\d{{2}}Z-{KEBAB}", re.ASCII)
PROBE_FOLDER = re.compile(SNAKE, re.ASCII)
CLOCK_SKEW = timedelta(minutes=10)  # a run may finish this far ahead of the checking machine's clock


def parse_time(text: object) -> tuple[datetime | None, str]:
    """An ISO time with a zone -> (datetime, ""); otherwise (None, why)."""
    if not isinstance(text, str):
        return None, f"is {type(text).__name__}, not an ISO time text"
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, f"{text[:40]!r} is not an ISO time"
    if moment.tzinfo is None:
        return None, f"{text[:40]!r} has no time zone (write it in UTC with a trailing Z)"
    return moment, ""


def shape(manifest: object) -> list[str]:
    """What is wrong with a manifest's structure (empty when it is a usable run manifest)."""
    if not isinstance(manifest, dict):
        return ["is not a JSON object"]
    if manifest.get("format", FORMAT) != FORMAT:  # a manifest from before `format` was written is format 1
        return [f"`format` is {str(manifest['format'])[:20]}: this ledger reads format {FORMAT}; upgrade the ledger"]
    problems = []
    probe = manifest.get("probe")
    if not isinstance(probe, dict):
        return ["has no `probe` object"]
    path, code = probe.get("path"), probe.get("code")
    if not isinstance(path, str) or not path:
        problems.append("probe.path is missing or not text")
    if not isinstance(code, dict) or not code:
        problems.append("probe.code is empty: no code file is hashed, so the probe could change unnoticed")
    else:
        for name, digest in code.items():
            if not isinstance(digest, str) or not HEX64.match(digest):
                problems.append(f"probe.code[{str(name)[:60]!r}] is not a 64-digit hex sha256")
        if isinstance(path, str) and path not in code:
            problems.append(f"the probe {path[:60]} is not among the hashed code files")
        named = probe.get("sha256")  # the probe version, written by write_run: read back against its code
        if named is not None and not problems and named != code_hash(code):
            problems.append(
                f"probe.sha256 {str(named)[:16]}… is not the hash of probe.code ({code_hash(code)[:16]}…): the "
                "manifest names another probe version than the code it lists"
            )
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        problems.append("`files` is missing or empty")
    else:
        for name, entry in files.items():
            digest = entry.get("sha256") if isinstance(entry, dict) else None
            if not isinstance(digest, str) or not HEX64.match(digest):
                problems.append(f"files[{str(name)[:60]!r}].sha256 is not a 64-digit hex sha256")
    testbed = manifest.get("testbed")
    if not isinstance(testbed, str) or not testbed or testbed != testbed.strip():
        problems.append("`testbed` is missing, not text, or has spaces around it")
    elif not TESTBED_PATTERN.fullmatch(testbed):
        problems.append(f"`testbed` {testbed[:40]!r} is not lower-kebab-case ASCII (letters a-z, digits, '-')")
    for key in ("started", "finished"):
        _, why = parse_time(manifest.get(key))
        if why:
            problems.append(f"`{key}` {why}")
    for key in ("parameters", "environment"):
        if key in manifest and not isinstance(manifest[key], dict):
            problems.append(f"`{key}` is not an object")
    if "revision" in manifest:
        try:
            Revision.read(manifest["revision"])
        except ValueError as error:
            problems.append(str(error))
    if "machine" in manifest:  # absent: the run was not measured by `ledger measure` (not recorded)
        problems += machine.problems(manifest["machine"])
    return problems + columns_shape(manifest) + attachments_shape(manifest)


def columns_shape(manifest: dict) -> list[str]:
    """What is wrong with a manifest's column declarations (none is fine: a run from before them)."""
    if "columns" not in manifest and "columns_sha256" not in manifest:
        return []
    digest = manifest.get("columns_sha256")
    if not isinstance(digest, str) or not HEX64.match(digest):
        return ["`columns_sha256` is missing or not a 64-digit hex sha256 (it hashes the column declarations)"]
    try:
        columns = read_columns(manifest.get("columns"), "`columns`")
    except ValueError as error:
        return [str(error)]
    listed = manifest.get("files")
    files = listed if isinstance(listed, dict) else {}
    problems = []
    for name in columns:
        if name not in files or is_samples(name):
            problems.append(f"`columns` declares {name[:60]!r}, which is not a table the manifest lists")
    return problems


def attachments_shape(manifest: dict) -> list[str]:
    """What is wrong with a manifest's attachments (none is fine: a run keeps no tool's export)."""
    if "attachments" not in manifest:
        return []
    attachments = manifest["attachments"]
    if not isinstance(attachments, dict):
        return ['`attachments` must be {name: {"sha256": ...}}']
    listed = manifest.get("files")
    tables = listed if isinstance(listed, dict) else {}
    problems = []
    for name, entry in attachments.items():
        why = attachment_problem(name, tables)
        digest = entry.get("sha256") if isinstance(entry, dict) and set(entry) == {"sha256"} else None
        if why:
            problems.append(f"`attachments`: {why}")
        elif not isinstance(digest, str) or not HEX64.match(digest):
            problems.append(f'attachments[{name[:60]!r}] must be {{"sha256": a 64-digit hex sha256}}')
    return problems


def folder_name(run_path: str) -> list[str]:
    """Whether a run's folder is named as write_run names it: <probe>/<UTC start>-<testbed>."""
    *_, probe, name = run_path.split("/")
    problems = []
    if not PROBE_FOLDER.fullmatch(probe):
        problems.append(f"probe folder {probe[:60]!r} is not lower_snake_case ASCII")
    if not RUN_FOLDER.fullmatch(name):
        problems.append(
            f"folder {name[:80]!r} is not named <UTC start>-<testbed> as runs are written "
            "(e.g. 2026-11-30T05-56-12Z-linux-cpu: ASCII, lower-kebab-case testbed)"
        )
    return problems


TIMING_MODULE = "generator/timing.py"  # the probes' shared timer, hashed into runs when it lies in the repository


def code_files(run: Run, probes_dir: str, declared: tuple[str, ...]) -> list[str]:
    """What is wrong with the code files a run's manifest hashes: each must be a file of the probes
    folder, the timing module or one the probe declares (`code:`), reached without links."""
    problems = []
    for path in sorted(run.declared_code):
        why = run.code_problems.get(path, "")
        if not why and not (path.startswith(probes_dir.rstrip("/") + "/") or path == TIMING_MODULE or path in declared):
            why = f"is not in {probes_dir}/, the timing module or the probe's declared `code:`"
        if why:
            problems.append(f"code file {path[:80]} {why}")
    return problems


def untracked_code(run: Run, tracked: frozenset[str] | None) -> tuple[str, ...]:
    """The code files a run hashes that exist but git does not track (None: not known): review cannot
    see the code that measured it until they are committed (a file deleted since is probe-changed)."""
    if tracked is None:
        return ()
    return tuple(
        path
        for path in sorted(run.declared_code)
        if path not in tracked and run.current_code.get(path) is not None and not run.code_problems.get(path)
    )


def placement(run: Run, now: datetime) -> list[str]:
    """Whether the run's folder name, probe and times agree with its manifest and with the clock."""
    problems = []
    if run.started and run.finished:
        if run.started > run.finished:
            problems.append(f"started {_stamp(run.started)} is after finished {_stamp(run.finished)}")
        if run.finished > now + CLOCK_SKEW:
            problems.append(f"finished {_stamp(run.finished)} is in the future")
        expected = f"{_stamp(run.started).replace(':', '-')}-{run.testbed}"
        if run.name != expected:
            problems.append(
                f"folder {run.name} does not match the manifest (started {_stamp(run.started)}, "
                f"testbed {run.testbed}: {expected})"
            )
    if run.probe and PurePosixPath(run.probe).stem != run.probe_name:
        problems.append(f"probe {run.probe} does not match the folder measurements/{run.probe_name}/")
    return problems


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
