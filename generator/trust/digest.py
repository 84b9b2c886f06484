"""What a published site records of a Report: the registry of runs and the digest of the verdict. Pure.

Every page of a site carries the digest (trust/stamp.py) and the site publishes the registry
(assets/ledger/runs.json); `ledger verify-site` computes both again from a fresh check.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import Report


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
