"""Claim log: git -> one claim's stated value (and cited run) at each commit that changed it.

Only `ledger history` reads this; the gate never does. Git is read as the gate reads the runs'
history (inputs/gitlog.py: HEAD's first-parent line, a merge's changes against its first parent, oldest
first in topological order, as bytes, replace objects ignored; a shallow clone is not read): one
`git log --raw` over the claims folder and one `git cat-file --batch` for every version of a claim
file it names. Claim files are untrusted: each version is read with the gate's YAML reader and size
cap, and a version that does not parse is skipped.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..inputs import gitlog
from ..lang import yamlread

NO_BLOB = "0" * 40


@dataclass(frozen=True, slots=True)
class Stated:
    """The claim as one commit left it (a row of the history): its value as written and the run it cited."""

    commit: str  # full id
    date: str  # the commit's date, ISO 8601
    subject: str
    value: str  # as written, with its unit; "" when the claim states none; "(removed)" when gone
    run: str = ""  # evidence.run, for a measured claim


@dataclass(frozen=True, slots=True)
class ClaimLog:
    status: str  # "read", or why not ("not a git repository", ...)
    stated: tuple[Stated, ...] = ()


def read(root: Path, claims_dir: str, claim_id: str, max_bytes: int) -> ClaimLog:
    """Each commit on HEAD's first-parent line where the claim's stated value or cited run changed."""
    why = gitlog.unreadable(root)
    if why:
        return ClaimLog(f"not read: {why}")
    try:
        log = gitlog.first_parent_log(root, "HEAD", claims_dir, "--format=%x00%H%x09%cI%x09%s")
    except (OSError, subprocess.SubprocessError):
        return ClaimLog("not read: no commits yet")
    commits = parse_log(log)
    blobs = {blob for _, changes in commits for blob in changes.values() if blob != NO_BLOB}
    texts = _cat(root, sorted(blobs), max_bytes)
    files: dict[str, str] = {}  # path -> blob, as of the commit being replayed
    parsed: dict[str, dict] = {}  # blob -> claim id -> (value, run), the first claim of each id in it
    found: list[Stated] = []
    last = ("", "")
    for (commit, date, subject), changes in commits:
        for path, blob in changes.items():
            if blob == NO_BLOB:
                files.pop(path, None)
            else:
                files[path] = blob
        now = _find(claim_id, files, texts, parsed)
        state = now if now is not None else (("(removed)", "") if last != ("", "") else ("", ""))
        if state != last:
            found.append(Stated(commit, date, subject, *state))
            last = state
    return ClaimLog("read", tuple(found))


def parse_log(log: bytes) -> list[tuple[tuple[str, str, str], dict[str, str]]]:
    """`git log --raw -z --format=%x00%H%x09%cI%x09%s` -> [((commit, date, subject), {path: new blob})]."""
    found: list[tuple[tuple[str, str, str], dict[str, str]]] = []
    for header, changes in gitlog.raw_entries(log):
        commit, date, subject = ([part.decode("utf-8", "replace") for part in header.split(b"\t", 2)] + ["", ""])[:3]
        blobs = {
            path: NO_BLOB if parts[4].startswith(b"D") else parts[3].decode("ascii", "replace")
            for parts, path in changes
            if len(parts) >= 5
        }
        found.append(((commit, date, subject), blobs))
    return found


def _find(
    claim_id: str, files: dict[str, str], texts: dict[str, bytes], parsed: dict[str, dict]
) -> tuple[str, str] | None:
    """The claim as the first claim file (by path) holding it states it; None when none does."""
    for _, blob in sorted(files.items()):
        claims = _claims(texts.get(blob), parsed, blob)
        if claim_id in claims:
            return claims[claim_id]
    return None


def _claims(text: bytes | None, parsed: dict[str, dict], blob: str) -> dict[str, tuple[str, str]]:
    """Claim id -> (value as written with its unit, evidence.run) in one version of a claim file."""
    if blob in parsed:
        return parsed[blob]
    found: dict[str, tuple[str, str]] = {}
    try:
        data = yamlread.parse(text) if text is not None else None
    except (yamlread.YamlProblem, ValueError):
        data = None
    items = data.get("claims") if isinstance(data, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, yamlread.LocatedDict) or not isinstance(item.get("id"), str):
            continue
        value = str(item.texts.get("value", item["value"])) if item.get("value") is not None else ""
        unit = item.get("unit") if isinstance(item.get("unit"), str) else ""
        evidence = item.get("evidence")
        run = evidence.get("run") if isinstance(evidence, dict) else None
        gap = "" if unit in ("×", "%", "") else " "
        found.setdefault(item["id"], (f"{value}{gap}{unit}" if value else "", run if isinstance(run, str) else ""))
    parsed[blob] = found
    return found


def _cat(root: Path, blobs: list[str], max_bytes: int) -> dict[str, bytes]:
    """The blobs' contents, one git call; a blob over max_bytes (or missing) is left out."""
    if not blobs:
        return {}
    data = gitlog.git(root, "cat-file", "--batch", input="".join(f"{blob}\n" for blob in blobs).encode())
    found, offset = {}, 0
    for blob in blobs:
        end = data.index(b"\n", offset)
        header = data[offset:end].split(b" ")
        if len(header) != 3:  # "<blob> missing"
            offset = end + 1
            continue
        size = int(header[2])
        if size <= max_bytes:
            found[blob] = data[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1
    return found
