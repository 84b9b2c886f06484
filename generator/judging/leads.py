"""Lead premises: pages + their claim references + claims -> lead-premise findings. Pure.

A page whose conclusions must rest on evidence forbids leads in its front matter:

    ---
    ledger: {leads: forbid}
    ---

and then every claim reference on it that names a lead fails `lead-premise` at file:line:column.
The front matter is read by the same safe YAML reader as claim files; a malformed one, or a
`ledger:` setting we do not know, is `invalid` rather than quietly allowing leads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..lang import yamlread
from ..records import Claim, Finding, PageRef, Policy, Source

SETTINGS = {"leads": ("allow", "forbid")}  # the page's `ledger:` mapping: key -> allowed values
FORBID = "ledger: {leads: forbid}"


def front_matter(text: str) -> tuple[str, int] | None:
    """(the YAML between the opening and closing `---`, the line it starts on), or None without one."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[1:index]), 2
    return None


def forbids_leads(text: str, path: str) -> tuple[bool, list[Finding]]:
    """Whether a page's front matter says `ledger: {leads: forbid}`, and any problem with its `ledger:` key."""
    found = front_matter(text)
    if found is None:
        return False, []
    body, first = found
    try:
        data = yamlread.parse(body.encode("utf-8"))
    except yamlread.YamlProblem as problem:
        return False, [
            _invalid(Source(path, first + problem.line - 1), f"front matter: {problem.message}", problem.fix)
        ]
    if not isinstance(data, yamlread.LocatedDict) or "ledger" not in data:
        return False, []
    at = Source(path, first + data.key_lines["ledger"] - 1)
    settings = data["ledger"]
    if not isinstance(settings, dict) or any(key not in SETTINGS for key in settings):
        return False, [_invalid(at, "front matter `ledger:` must be a mapping with `leads:`", f"write `{FORBID}`")]
    leads = settings.get("leads", "allow")
    if leads not in SETTINGS["leads"]:
        return False, [_invalid(at, f"front matter `ledger: leads:` is {leads!r}", "write `leads: forbid` or `allow`")]
    return leads == "forbid", []


def lead_premises(
    pages: Mapping[str, str], refs: Iterable[PageRef], by_id: Mapping[str, Claim], policy: Policy
) -> list[Finding]:
    """A lead cited on a page that forbids leads; and any problem with a page's `ledger:` front matter."""
    findings: list[Finding] = []
    forbidding = set()
    for path, text in pages.items():
        forbids, problems = forbids_leads(text, path)
        findings += problems
        if forbids:
            forbidding.add(path)
    for ref in refs:
        claim = by_id.get(ref.name) if ref.kind == "claim" else None
        if ref.where.path in forbidding and claim is not None and claim.status == "lead":
            findings.append(
                Finding(
                    ref.where,
                    "",
                    "lead-premise",
                    f"cites {claim.id}, a lead, on a page whose front matter forbids leads (`{FORBID}`)",
                    f"cite a claim checked here instead, check {claim.id} here and make it asserted, "
                    "or move the sentence to a page that allows leads",
                    severity=policy.severity("lead-premise"),
                )
            )
    return findings


def _invalid(where: Source, problem: str, fix: str) -> Finding:
    return Finding(where, "", "invalid", problem, fix)
