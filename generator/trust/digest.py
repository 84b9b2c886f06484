"""What a published site records of a Report: the registry of runs and the digest of the verdict. Pure.

Every page of a site carries the digest (trust/stamp.py) and the site publishes the registry
(assets/ledger/runs.json); `ledger verify-site` computes both again from a fresh check.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import Report, Run

CODE_PAGES = "code"  # the site's folder of the pages that show a version of a code file


def registry(report: Report) -> dict[str, dict[str, str]]:
    """Run path -> file -> sha256 of its bytes (the manifest's too)."""
    return {
        path: {
            "manifest.json": run.manifest_sha256,
            **{name: digest or "missing" for name, digest in sorted(run.actual_files.items())},
        }
        for path, run in sorted(report.runs.items())
    }


_LAST: list = []  # [report, digest] of the last Report asked about: a build stamps every page with one


def digest(report: Report) -> str:
    """The digest of one Report, computed once however many pages carry it."""
    if not _LAST or _LAST[0] is not report:
        _LAST[:] = [report, _digest(report)]
    return _LAST[1]


def _digest(report: Report) -> str:
    """sha256 of the gate's verdict: findings by place and rule (not their words, some of which name
    today's date), claims by what a page shows of them, computed values, runs by state and bytes."""
    content = {
        "ok": report.ok,
        "findings": [
            [f.where.path, f.where.line, f.where.column, f.claim_id, f.rule, f.severity] for f in report.findings
        ],
        "claims": [[c.id, c.kind, c.status, c.value_text, c.unit, c.testbed] for c in report.claims],
        "computed": sorted([v.id, repr(v.value)] for v in report.verdicts.values() if v.value is not None),
        "runs": {path: [report.run_state(path).label, files] for path, files in registry(report).items()},
    }
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def code_files(run: Run) -> list[tuple[str, str]]:
    """(path, its sha256 today) of each code file the run's manifest hashes that the repository holds as
    its own, the probe first: the versions of code files the run's page links to."""
    paths = sorted(run.declared_code, key=lambda path: (path != run.probe, path))
    current = run.current_code
    return [(path, sha) for path in paths if (sha := current.get(path)) and path not in run.code_problems]


def code_page(path: str, sha256: str) -> str:
    """The site path (no suffix) of the page that shows one version of a code file: code/<digest of its
    path and of its bytes' sha256>, shared by every run whose manifest hashes that file while the
    repository holds these bytes."""
    found = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0" + sha256.encode("ascii", "replace"))
    return f"{CODE_PAGES}/{found.hexdigest()[:16]}"


def code_versions(runs: Iterable[Run]) -> list[tuple[str, str, str]]:
    """(page, path, sha256) of every version of a code file the runs' pages link to, by page."""
    return sorted({(code_page(path, sha), path, sha) for run in runs for path, sha in code_files(run)})
