"""Runs with raw rounds, as the probes write them: results.csv holds each setting's median, samples.csv
(or NAME.samples.csv) every round of it, keyed by the same columns plus `round` and `reps`."""

from __future__ import annotations

import random
import statistics
from datetime import datetime
from pathlib import Path

from helpers import RUN_TIME, TOY_PROBE, write_tree

from generator.lang import stats
from generator.runs import Column, write_run
from generator.timing import samples_file


def rounds_run(
    root: Path,
    settings: dict[int, list[float]],
    *,
    column: str = "speedup",
    key: str = "batch",
    probe: str = "toy",
    testbed: str = "linux-cpu",
    when: datetime = RUN_TIME,
    file: str = "results.csv",
    parameters: dict | None = None,
    summary: dict[int, float] | None = None,  # a results value other than the median (a broken run)
    environment: dict | None = None,
    unit: str | None = "×",  # the unit it declares for `column` (None: a run that declares no units)
) -> str:
    """A real run whose `column` at each `key` value is the median of the given rounds."""
    if not (root / "probes" / f"{probe}.py").exists():
        write_tree(root, {f"probes/{probe}.py": TOY_PROBE})
    results = [
        {key: k, "rounds": len(values), column: (summary or {}).get(k, statistics.median(values))}
        for k, values in settings.items()
    ]
    samples = [
        {key: k, "round": r, "reps": 1, column: value}
        for k, values in settings.items()
        for r, value in enumerate(values)
    ]
    path = write_run(
        root, probe, testbed, {file: results, samples_file(file): samples}, parameters=parameters or {"rounds": 9},
        environment=environment or {"backend": "cpu"}, code=[f"probes/{probe}.py"], started=when, finished=when,
        columns={file: {column: Column(unit, "timed")}} if unit is not None else None,
    )  # fmt: skip
    return path.relative_to(root).as_posix()


def noisy(median: float, n: int = 9, cv: float = 0.10, seed: int = 0) -> list[float]:
    """n lognormal rounds around a median, seeded."""
    return stats.lognormal_rounds(random.Random(seed), n, cv, scale=median)


def claim(claim_id: str, run: str, value: str, batch: int = 16, extra: str = "", column: str = "speedup") -> str:
    """A measured claim (YAML, one list item) citing one row of a run."""
    return f"""
  - id: {claim_id}
    value: {value}
    unit: "×"
    kind: measured
    testbed: linux-cpu
    evidence: {{run: {run}, file: results.csv, where: {{batch: {batch}}}, column: {column}}}
    tolerance: 5%{extra}
"""


def rewrite_rounds(root: Path, run: str, edit, name: str = "samples.csv") -> None:
    """Edit a run's raw rounds (a list of lines -> a list of lines) and its manifest's hash to match,
    as a probe that wrote them so would have: the gate then judges the rounds themselves."""
    import json

    from generator.runs import sha256_file

    data = root / run / name
    data.write_text("\n".join(edit(data.read_text().splitlines())) + "\n")
    manifest_path = root / run / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"][name]["sha256"] = sha256_file(data)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
