"""Benchmark tools as probes: a tool's export (JSON) -> one run, every round it kept as raw rounds and the
export itself kept in the run, hashed. Standard library only, like the probe API.

TOOLS is the one table of the tools a probe may name (`tool:` under `probes:` in mkdocs.yml): how a probe
names it, where its command writes its export ({export}), how to tell it is installed and which version
runs, how to install it, how to keep fewer rounds, and the module that reads its export. A fourth tool is
a module with recognizes(data) and read(data) -> reading.Reading, and a row here (guide/probes.md).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..lang.stats import MAX_ROUNDS
from ..probe import own_file
from ..runs import write_run
from . import google_bench, hyperfine, pytest_bench
from .reading import BadExport, Reading, tables

MAX_EXPORT_BYTES = 256 << 20  # a run's data file may be this large (load.MAX_DATA_BYTES): so may an export


@dataclass(frozen=True, slots=True)
class Tool:
    name: str  # as a probe's `tool:` names it
    title: str  # as its makers write it
    export: str  # the export's file name inside the run
    writes: str  # the option of its command that writes the export to {export}
    version: Callable[[Sequence[str]], list[str]]  # the probe's command -> one printing the version; fails if absent
    install: str  # how to install it, for the error when it is not
    fewer: str  # how to keep at most MAX_ROUNDS rounds a benchmark
    recognizes: Callable[[object], bool]  # whether parsed JSON is this tool's export
    read: Callable[[object], Reading]  # parsed JSON -> its benchmarks, units and environment (BadExport)


TOOLS = {
    tool.name: tool
    for tool in (
        Tool(
            "pytest-benchmark",
            "pytest-benchmark",
            "pytest-benchmark.json",
            "--benchmark-json={export}",
            lambda argv: [argv[0], "-c", "import pytest_benchmark as p; print(p.__version__)"],
            "`{python} -m pip install pytest-benchmark`",
            "rounds fill --benchmark-max-time (at least --benchmark-min-rounds): lower it, or use "
            "benchmark.pedantic(..., rounds=N)",
            pytest_bench.recognizes,
            pytest_bench.read,
        ),
        Tool(
            "hyperfine",
            "hyperfine",
            "hyperfine.json",
            "--export-json {export}",
            lambda argv: [argv[0], "--version"],
            "`apt-get install hyperfine` (Debian, Ubuntu), `brew install hyperfine` (macOS) or `cargo install hyperfine`",
            "pass --runs N (or --max-runs N)",
            hyperfine.recognizes,
            hyperfine.read,
        ),
        Tool(
            "google-benchmark",
            "Google Benchmark",
            "google-benchmark.json",
            "--benchmark_out={export} --benchmark_out_format=json",
            lambda argv: ["pkg-config", "--modversion", "benchmark"],
            "`apt-get install libbenchmark-dev pkg-config` (Debian, Ubuntu) or `brew install google-benchmark "
            "pkg-config` (macOS)",
            "pass fewer --benchmark_repetitions",
            google_bench.recognizes,
            google_bench.read,
        ),
    )
}


def installed(tool: Tool, argv: Sequence[str], root: Path, env: Mapping[str, str]) -> tuple[str, str]:
    """('<title> <version>', '') when the tool runs here; ('', why not and how to install it) when it does not."""
    check = tool.version(argv)
    try:
        done = subprocess.run(check, cwd=root, env=dict(env), capture_output=True, text=True, timeout=120)
        printed = done.stdout.split() if done.returncode == 0 else []
    except (OSError, subprocess.SubprocessError):
        printed = []
    if not printed:
        python = shlex.quote(argv[0] if tool.name == "pytest-benchmark" else sys.executable)
        return (
            "",
            f"{tool.title} is not installed (`{shlex.join(check)}` failed): install it with {tool.install.format(python=python)}",
        )
    return f"{tool.title} {printed[-1]}", ""


def read(tool: Tool, path: Path, shown: str) -> tuple[Reading, bytes]:
    """The export's reading and its bytes; ValueError naming `shown` (the file) and the field."""
    try:
        with open(path, "rb") as handle:
            content = handle.read(MAX_EXPORT_BYTES + 1)
    except OSError as error:
        raise ValueError(f"{shown}: cannot be read ({error.strerror or error}); {tool.writes} writes it") from None
    if len(content) > MAX_EXPORT_BYTES:
        raise ValueError(f"{shown}: larger than {MAX_EXPORT_BYTES >> 20} MiB, the most a run's file may be")
    try:
        data = json.loads(content.decode("utf-8"))  # NaN parses: a reader refuses it where it reads a number
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{shown}: is not JSON ({str(error)[:80]}): a truncated export? run the tool again") from None
    other = next((found for found in TOOLS.values() if found is not tool and found.recognizes(data)), None)
    if other is not None and not tool.recognizes(data):
        raise ValueError(
            f"{shown}: is a {other.title} export, not {tool.title}'s: the probe declares `tool: {tool.name}`"
        )
    try:
        reading = tool.read(data)
    except BadExport as error:
        foreign = "" if tool.recognizes(data) else f" (not a {tool.title} export: `{tool.writes}` writes one)"
        raise ValueError(f"{shown}: {error}{foreign}") from None
    for benchmark in reading.benchmarks:
        if len(benchmark.rounds) > MAX_ROUNDS:
            raise ValueError(
                f"{shown}: {benchmark.where}: {len(benchmark.rounds):,} rounds; a claim's interval is read from at "
                f"most {MAX_ROUNDS}: {tool.fewer}"
            )
    return reading, content


def write(
    tool: Tool,
    export: Path,
    shown: str,
    probe: str,
    *,
    root: Path,
    measurements: Path,
    code: Sequence[str],
    testbed: str,
    parameters: Mapping[str, object],
    environment: Mapping[str, object],
    probes_dir: str,
    started: datetime | None,
    machine: Mapping[str, object] | None = None,
) -> Path:
    """Write the run of a tool's export: its tables, the columns' units, the export as an attachment; its folder.

    environment: the machine and the tool's version as seen here, under what the export records itself.
    started: when the tool started; None for an export made elsewhere: its own time stamp, else its file's time.
    machine: what the machine did while the tool ran (`ledger measure` samples it); None: not recorded.
    """
    reading, content = read(tool, export, shown)
    try:
        made, columns = tables(reading)
    except BadExport as error:
        raise ValueError(f"{shown}: {error}") from None
    now = datetime.now(timezone.utc).replace(microsecond=0)
    stamped = reading.measured or datetime.fromtimestamp(int(export.stat().st_mtime), timezone.utc)
    return write_run(
        root,
        probe,
        testbed,
        made,
        parameters=parameters,
        environment={**environment, **reading.environment},
        code=code,
        started=started or stamped,
        finished=now if started else stamped,
        measurements=measurements,
        probe_path=own_file(probe, list(code), probes_dir),
        columns=columns,
        attachments={tool.export: content},
        machine=machine,
    )
