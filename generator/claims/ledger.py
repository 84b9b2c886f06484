"""Validate the whole ledger: Claims -> "invalid" findings that need every claim at once.

Duplicate ids, references to claims that do not exist or to the claim itself, and cycles among
formula inputs (found iteratively, so a chain thousands of claims deep is checked).
"""

from __future__ import annotations

import difflib

from ..records import Claim, Finding


def ledger_problems(found: list[Claim]) -> list[Finding]:
    """Problems that need every claim: duplicate ids, dangling references, formula cycles."""
    findings: list[Finding] = []
    first: dict[str, Claim] = {}
    for claim in found:
        if claim.id in first:
            findings.append(
                Finding(
                    claim.where,
                    claim.id,
                    "invalid",
                    f"duplicate id {claim.id!r}, first defined at {first[claim.id].where}",
                    "rename one of the two claims",
                )
            )
        else:
            first[claim.id] = claim
    for claim in found:
        references = [("inputs", target) for _, target in claim.inputs]
        references += [("checked_by", target) for target in claim.checked_by]
        references += [
            ("refuted_by" if claim.status != "superseded" else "superseded_by", target) for target in claim.retired_by
        ]
        for field_name, target in references:
            if target not in first:
                close = difflib.get_close_matches(target, list(first), n=1)
                fix = f"did you mean {close[0]!r}?" if close else "name an existing claim id"
                findings.append(
                    Finding(
                        claim.at(field_name), claim.id, "invalid", f"{field_name} names unknown claim {target!r}", fix
                    )
                )
            elif target == claim.id:
                findings.append(
                    Finding(
                        claim.at(field_name),
                        claim.id,
                        "invalid",
                        f"{field_name} names the claim itself",
                        "name another claim",
                    )
                )
    findings += _cycles(first)
    return findings


def _cycles(by_id: dict[str, Claim]) -> list[Finding]:
    """Each cycle among formula inputs, reported once at its first claim. Iterative (a 3,000-deep chain is fine)."""
    findings = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    for root in by_id:
        if root in state:
            continue
        path = [root]
        state[root] = 1
        pending = [iter(by_id[root].inputs)]
        while pending:
            for _, target in pending[-1]:
                if target not in by_id or target == path[-1]:
                    continue
                if state.get(target) == 1:
                    cycle = path[path.index(target) :] + [target]
                    head = by_id[target]
                    findings.append(
                        Finding(
                            head.at("inputs"),
                            head.id,
                            "invalid",
                            "formula cycle: " + " -> ".join(cycle),
                            "break the cycle: one of these claims must not use the other",
                        )
                    )
                elif target not in state:
                    state[target] = 1
                    path.append(target)
                    pending.append(iter(by_id[target].inputs))
                    break
            else:
                state[path.pop()] = 2
                pending.pop()
    return findings
