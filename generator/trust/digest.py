"""What a published site records of a Report: the registry of runs and the digest of the verdict. Pure.

Every page of a site carries the digest (trust/stamp.py) and the site publishes the registry
(assets/ledger/runs.json); `ledger verify-site` computes both again from a fresh check.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
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


def code_files(run: Run, sources: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, today's text) of each code file the run's manifest hashes that the repository holds, the
    probe first: what the run's page links to as the source it ran."""
    paths = sorted(run.declared_code, key=lambda path: (path != run.probe, path))
    return [(path, sources[path]) for path in paths if path in sources]


@functools.lru_cache(maxsize=1 << 12)  # every run of a probe asks for its files' pages
def code_page(path: str, text: str) -> str:
    """The site path (no suffix) of the page that shows one version of a code file: code/<digest of its
    path and text>, shared by every run whose manifest hashes that file while the repository holds this text."""
    found = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0" + text.encode("utf-8", "surrogateescape"))
    return f"{CODE_PAGES}/{found.hexdigest()[:16]}"
