"""Lead premises: pages + their claim references + claims -> lead-premise findings. Pure.

A page whose conclusions must rest on evidence forbids leads in its front matter:

    ---
    ledger: {leads: forbid}
    ---

and then every claim reference on it that names a lead fails `lead-premise` at file:line:column.
The same mapping may ask for replicates (`ledger: {replicates: 3}`: judging/replicated.py reads it).
The front matter is read by the same safe YAML reader as claim files; a malformed one, or a
`ledger:` setting we do not know, is `invalid` rather than quietly allowing leads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..lang import yamlread
from ..records import Claim, Finding, PageRef, Policy, Source

SETTINGS = {"leads": ("allow", "forbid"), "replicates": "a whole number of runs"}  # the page's `ledger:` keys
FORBID = "ledger: {leads: forbid}"
MAX_PAGE_REPLICATES = 100


@dataclass(frozen=True, slots=True)
class PageSettings:
    """What a page's front matter `ledger:` asks of the claims it cites."""

    forbids_leads: bool = False
    replicates: int = 1  # replicate runs every measured or extrapolated claim it cites must rest on


def front_matter(text: str) -> tuple[str, int] | None:
    """(the YAML between the opening and closing `---`, the line it starts on), or None without one."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[1:index]), 2
    return None


def page_settings(text: str, path: str) -> tuple[PageSettings, list[Finding]]:
    """A page's `ledger:` front matter (`leads: forbid`, `replicates: 3`), and any problem with it."""
    found = front_matter(text)
    if found is None:
        return PageSettings(), []
    body, first = found
    try:
        data = yamlread.parse(body.encode("utf-8"))
    except yamlread.YamlProblem as problem:
        return PageSettings(), [
            _invalid(Source(path, first + problem.line - 1), f"front matter: {problem.message}", problem.fix)
        ]
    if not isinstance(data, yamlread.LocatedDict) or "ledger" not in data:
        return PageSettings(), []
    at = Source(path, first + data.key_lines["ledger"] - 1)
    settings = data["ledger"]
    if not isinstance(settings, dict) or any(key not in SETTINGS for key in settings):
        shape = "front matter `ledger:` must be a mapping with `leads:` or `replicates:`"
        return PageSettings(), [_invalid(at, shape, f"write `{FORBID}` or `ledger: {{replicates: 3}}`")]
    leads = settings.get("leads", "allow")
    if leads not in SETTINGS["leads"]:
        return PageSettings(), [
            _invalid(at, f"front matter `ledger: leads:` is {leads!r}", "write `leads: forbid` or `allow`")
        ]
    replicates = settings.get("replicates", 1)
    if isinstance(replicates, bool) or not isinstance(replicates, int) or not 1 <= replicates <= MAX_PAGE_REPLICATES:
        asked = f"front matter `ledger: replicates:` is {str(replicates)[:40]!r}"
        fix = f"write a whole number of runs from 1 to {MAX_PAGE_REPLICATES}, e.g. `ledger: {{replicates: 3}}`"
        return PageSettings(leads == "forbid"), [_invalid(at, asked, fix)]
    return PageSettings(leads == "forbid", replicates), []


def forbids_leads(text: str, path: str) -> tuple[bool, list[Finding]]:
    """Whether a page's front matter says `ledger: {leads: forbid}`, and any problem with its `ledger:` key."""
    settings, problems = page_settings(text, path)
    return settings.forbids_leads, problems


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
