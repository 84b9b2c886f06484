"""The published registry of runs: where the last site published it (a folder, a file or a URL) -> its
runs, and what differs from the runs about to be published.

Every site publishes assets/ledger/runs.json: each run's files and their sha256, and the runs retired
on purpose (`retired_runs:` in mkdocs.yml, with why). Publishing compares the new site's runs with the
registry the previous site published, so a run that was rewritten after it was published (an
accident, or an unreviewed force-push to main) is refused before it replaces the published one, and so
is a published run that is gone, unless it was retired explicitly (deleting a run and citing a new one
would otherwise replace a number's evidence unnoticed). Nothing published yet (a first publish: no
site at a site's address at all) passes with a note; a site that is there without a registry, a registry
that cannot be read for any other reason (network, malformed), a registry file named that is not there
(a local path or an address ending in .json), an empty --against, and a registry that lists no run while
the ledger holds runs fail: publish does not guess.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from ..trust.stamp import REGISTRY

MAX_BYTES = 64 << 20
TIMEOUT_S = 30


class Unavailable(Exception):
    """The previous registry exists but cannot be read: publishing must stop."""


class Empty(Exception):
    """The previous registry lists no run: nothing to hold a ledger's runs to (an error where it holds some)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def published(source: str) -> tuple[dict[str, dict[str, str]] | None, str]:
    """(runs, note): the runs a previous site published, or None and why there is nothing to compare."""
    if not source.strip():
        raise Unavailable(
            "names no registry (an empty value: is the variable holding the published site's address set?)"
        )
    if source.startswith(("http://", "https://")):
        url = source if source.endswith(".json") else source.rstrip("/") + "/" + REGISTRY
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:  # noqa: S310 (http(s) only)
                data = response.read(MAX_BYTES + 1)
        except urllib.error.HTTPError as error:
            if error.code == 404 and source.endswith(".json"):
                raise Unavailable(
                    f"{url}: HTTP 404: no registry at the file --against names (for a first publish, name the "
                    "site's address: a site that is not there yet is a first publish)"
                ) from None
            if error.code == 404 and not _site_there(source, url):
                return None, f"no site published at {source} yet (HTTP 404): a first publish, nothing to compare"
            if error.code == 404:
                raise Unavailable(
                    f"{url}: HTTP 404, but a site is published at {source}: its registry is gone"
                ) from None
            raise Unavailable(f"{url}: HTTP {error.code} {error.reason}") from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise Unavailable(f"{url}: {getattr(error, 'reason', error)}") from None
        where = url
    else:
        path = Path(source.removeprefix("file://"))
        path = path / REGISTRY if path.is_dir() else path
        if not path.exists():
            raise Unavailable(f"{path}: no such file (a registry named by --against must exist)")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as error:
            raise Unavailable(f"{path}: {error.strerror}") from None
        where = str(path)
    if len(data) > MAX_BYTES:
        raise Unavailable(f"{where}: larger than {MAX_BYTES:,} bytes")
    try:
        runs = json.loads(data.decode("utf-8"))["runs"]
        if not isinstance(runs, dict) or not all(isinstance(files, dict) for files in runs.values()):
            raise ValueError("runs is not a mapping of run folders to files")
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        raise Unavailable(f"{where}: not a registry of runs ({error})") from None
    if not runs:
        raise Empty(where)
    return {str(run): {str(k): str(v) for k, v in files.items()} for run, files in runs.items()}, ""


def _site_there(root: str, registry_url: str) -> bool:
    """Whether a site answers at the address the registry should be under (its root page)."""
    try:
        with urllib.request.urlopen(root, timeout=TIMEOUT_S) as response:  # noqa: S310 (http(s) only)
            return 200 <= response.status < 400
    except urllib.error.HTTPError as error:
        return error.code != 404
    except (urllib.error.URLError, OSError, ValueError):
        return True  # unreachable now, though the registry's own address answered: do not call it a first publish


def differences(
    before: Mapping[str, Mapping[str, str]], now: Mapping[str, Mapping[str, str]], retired: Mapping[str, str] = {}
) -> tuple[list[str], list[str]]:
    """(problems, notes): every published run whose files now differ or that is gone without being retired
    (`retired`: run -> why), and the runs retired on purpose."""
    problems, gone = [], []
    for run, files in sorted(before.items()):
        if run not in now and run in retired:
            gone.append(run)
            continue
        if run not in now:
            problems.append(
                f"{run}: published before, now gone: a published run is retired only explicitly "
                "(`retired_runs: [{run: ..., reason: ...}]` in mkdocs.yml), so the site says why"
            )
            continue
        for name, digest in sorted(files.items()):
            current = now[run].get(name)
            if current != digest:
                shown = f"sha256 {current[:12]}…" if current else "no such file"
                problems.append(
                    f"{run}/{name}: {shown} now; the published registry says {digest[:12]}… (a published run was rewritten)"
                )
        for name in sorted(set(now[run]) - set(files)):
            problems.append(f"{run}/{name}: added to a run after it was published (a published run was rewritten)")
    notes = [f"{run}: published before, retired on purpose: {retired[run]}" for run in gone]
    return problems, notes
