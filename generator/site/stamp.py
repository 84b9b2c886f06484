"""The mark the ledger leaves on every page it renders, read back by `ledger verify-site`. Pure.

A page built by the plugin or through the Markdown extension carries one stamp saying whether the
gate passed; a page built by any other means carries none, so a site builder that skipped the
ledger is caught before publishing.
"""

from __future__ import annotations

import re

STAMP_CLASS = "ledger-stamp"
_STAMP = re.compile(r'<span class="ledger-stamp" data-ledger-gate="(pass|fail)" hidden></span>')


def stamp(gate_passed: bool) -> str:
    return f'<span class="{STAMP_CLASS}" data-ledger-gate="{"pass" if gate_passed else "fail"}" hidden></span>'


def read(page_html: str) -> str | None:
    """'pass' or 'fail' from a page's stamp; None when the ledger did not render the page."""
    found = _STAMP.search(page_html)
    return found.group(1) if found else None
