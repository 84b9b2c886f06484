"""The mark the ledger leaves on every page it renders, read back by `ledger verify-site`. Pure.

A page built by the plugin or through the Markdown extension carries one stamp saying whether the
gate passed and the digest of the gate's report it was rendered from (Report.digest); a page built
by any other means carries none, and a page rendered from another state of the ledger (or edited
after) carries another digest, so `ledger verify-site` refuses both before publishing.
"""

from __future__ import annotations

import json
import re

from ..records import Report
from ..trust.digest import digest, registry

STAMP_CLASS = "ledger-stamp"
REGISTRY = "assets/ledger/runs.json"  # every run's file hashes, published with the site
_STAMP = re.compile(
    r'<span class="ledger-stamp" data-ledger-gate="(pass|fail)" data-ledger-report="([0-9a-f]{64})" hidden></span>'
)


def stamp(report: Report) -> str:
    gate = "pass" if report.ok else "fail"
    return f'<span class="{STAMP_CLASS}" data-ledger-gate="{gate}" data-ledger-report="{digest(report)}" hidden></span>'


def read(page_html: str) -> tuple[str, str] | None:
    """('pass' or 'fail', the report's digest) from a page's stamp; None when the ledger did not render it."""
    found = _STAMP.search(page_html)
    return (found.group(1), found.group(2)) if found else None


def registry_json(report: Report) -> str:
    """The registry a site publishes: every run's files and their sha256 (verify-site --against reads it)."""
    return json.dumps({"format": 1, "runs": registry(report)}, indent=1, sort_keys=True) + "\n"
