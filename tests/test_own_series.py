"""This repository's own series: a copy of its report (claims, runs, probes, figures, pages, mkdocs.yml and
the code its runs hash) in a git repository, plus one newer run of a cited claim's probe, derived from the
cited run's own files and written by the run writer. With the claim's column shifted far beyond noise,
`ledger check` warns moved-since-cited and names every sentence citing the claim; with the same values,
nothing moves. Built on whatever runs the repository holds: the claim is chosen from its report."""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import REPO, restore_measured_code, run_ledger
from test_diff import commit, git

from generator.gate import check, check_pages
from generator.inputs.config import read_policy
from generator.lang.rows import spread_columns
from generator.lang.values import parse_number
from generator.records import Claim, Report
from generator.runs import MANIFEST, write_run
from generator.timing import samples_file

# the report's files, with every surface the policy lists (guide/coverage.md)
REPORT = ("claims", "measurements", "probes", "figures", "docs", "mkdocs.yml", "README.md", ".gitattributes", "guide")
SHIFT = 3.0  # the newer run reads three times the cited value: far beyond any run's noise or tolerance
PREFERRED = ("measurements/bandwidth/", "measurements/moe/")  # the probes the issue names, when cited


@pytest.fixture(scope="module")
def report_copy(tmp_path_factory) -> Path:
    """The report as committed, with every code file its runs hash (generator/timing.py in newer runs)."""
    template = tmp_path_factory.mktemp("own")
    for name in REPORT:
        source = REPO / name
        if source.exists():
            (shutil.copytree if source.is_dir() else shutil.copy)(source, template / name)
    for manifest in (template / "measurements").glob(f"*/*/{MANIFEST}"):
        for path in json.loads(manifest.read_text())["probe"]["code"]:
            if not (template / path).exists() and (REPO / path).is_file():
                (template / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / path, template / path)
    restore_measured_code(template)  # a probe branch before its re-measure: the code the runs were measured with
    return template


def committed_copy(report_copy: Path, tmp_path: Path) -> Path:
    root = tmp_path / "own"
    shutil.copytree(report_copy, root)
    git(root, "init", "-q", "-b", "main")
    commit(root, message="the report as committed")
    return root


def gate(root: Path) -> Report:
    report = check(root, read_policy(root / "mkdocs.yml"), datetime.now(timezone.utc))
    return check_pages(report, root)


def cited_claim(report: Report) -> Claim:
    """A measured, fresh claim a page cites, whose cited run is the newest point of its series and holds
    only tables (bandwidth or moe first); its value is positive so a shift is a shift."""
    cited = {ref.name for ref in report.page_refs if ref.kind == "claim"}
    chosen = [
        claim
        for claim in report.claims
        if claim.evidence is not None
        and claim.id in cited
        and not report.fresh(claim.id).failing
        and (claim.value or 0) > 0
        and (line := report.verdicts[claim.id].series) is not None
        and line.cited == len(line.points) - 1
        and all(name.endswith(".csv") for name in report.runs[claim.evidence.run].blob_ids if name != MANIFEST)
    ]
    assert chosen, "no page cites a fresh measured claim on its newest run"
    return min(chosen, key=lambda c: (not c.evidence.run.startswith(PREFERRED), c.evidence.run, c.id))


def beyond_its_noise(report: Report, claim: Claim) -> float:
    """SHIFT, or more where the cited run's replicates predict a next run further out than that."""
    verdict = report.verdicts[claim.id]
    found = verdict.prediction
    if found is None or verdict.value is None:
        return SHIFT
    return max(SHIFT, 2 * found.high / verdict.value)


def rows_of(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def newer_run(root: Path, claim: Claim, factor: float) -> str:
    """A run of the cited run's probe, testbed, parameters and environment, started after every run of
    that probe: its tables are the cited run's, the claim's column (its spread and raw rounds too) times
    factor, and each round's start (the samples' `started`) as late as the run started later: a
    measurement of its own, never a byte copy of the cited run, which the gate refuses. Returns its path
    relative to root."""
    assert claim.evidence is not None
    cited = root / claim.evidence.run
    manifest = json.loads((cited / MANIFEST).read_text())
    column = claim.evidence.column
    newest = max(
        datetime.fromisoformat(json.loads(path.read_text())["started"].replace("Z", "+00:00"))
        for path in cited.parent.glob(f"*/{MANIFEST}")
    )
    started = min(newest + timedelta(hours=1), datetime.now(timezone.utc) - timedelta(minutes=1))
    assert started > newest
    later = (started - datetime.fromisoformat(manifest["started"].replace("Z", "+00:00"))).total_seconds()
    tables = {}
    for name in manifest["files"]:
        rows = rows_of(cited / name)
        shifted = {column} if name in (claim.evidence.file, samples_file(claim.evidence.file)) else set()
        spread = spread_columns(tuple(rows[0]), column) if shifted else None
        shifted |= set(spread or ())
        tables[name] = [
            {
                key: _times(cell, factor) if key in shifted else _later(cell, later) if key == "started" else cell
                for key, cell in row.items()
            }
            for row in rows
        ]
    folder = write_run(
        root,
        cited.parent.name,
        manifest["testbed"],
        tables,
        parameters=manifest["parameters"],
        environment=manifest["environment"],
        code=list(manifest["probe"]["code"]),
        started=started,
        finished=started + timedelta(minutes=1),
        probe_path=manifest["probe"]["path"],
    )
    return folder.relative_to(root).as_posix()


def _later(cell: str, seconds: float) -> str:
    number = parse_number(cell)
    return cell if number is None else repr(number + seconds)


def _times(cell: str, factor: float) -> str:
    number = parse_number(cell)
    return cell if number is None else repr(number * factor)


def test_a_newer_run_with_a_shifted_value_fires_moved_since_cited_naming_the_sentences(report_copy, tmp_path):
    root = committed_copy(report_copy, tmp_path)
    before = gate(root)
    claim = cited_claim(before)
    sentences = sorted(str(ref.where) for ref in before.page_refs if ref.kind == "claim" and ref.name == claim.id)
    for where in sentences:  # each is a place in a page that names the claim
        path, line, _ = where.split(":")
        assert claim.id in (root / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    run = newer_run(root, claim, beyond_its_noise(before, claim))
    commit(root, message="a newer run, shifted")

    result = run_ledger("check", "--no-cache", cwd=root)
    assert result.exit_code == 0, result.output  # a warning by default
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if f": {claim.id}: moved-since-cited: " in line)
    finding = "\n".join(lines[at : at + 3])  # the finding, the sentences citing it, the fix
    assert f"cited on {', '.join(sentences)}" in finding
    assert f"moves it to the newest run ({run.rsplit('/', 1)[-1]})" in finding
    history = json.loads(run_ledger("history", claim.id, "--format", "json", cwd=root).output)
    assert history["points"][-1]["run"] == run
    assert history["points"][-1]["added_by"].endswith("(a newer run, shifted)")


def test_a_newer_run_with_the_same_values_moves_nothing(report_copy, tmp_path):
    root = committed_copy(report_copy, tmp_path)
    claim = cited_claim(gate(root))
    newer_run(root, claim, 1.0)
    commit(root, message="a newer run, the same values")

    result = run_ledger("check", "--no-cache", cwd=root)
    assert result.exit_code == 0, result.output
    assert "moved-since-cited" not in result.output
    series = gate(root).verdicts[claim.id].series
    assert series is not None
    assert series.points[-1].run.startswith(claim.evidence.run.rsplit("/", 1)[0]) and series.moved is None
