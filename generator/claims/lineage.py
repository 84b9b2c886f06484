"""Lineage: how claims depend on each other (inputs, checks, retirements). Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from ..records import Claim, ordered

INPUT, CHECK, RETIREMENT = "input", "checked by", "retired by"


@ordered
@attrs.frozen(weakref_slot=False)
class Edge:
    claim_id: str  # the claim that names another
    target_id: str  # the claim it names
    relation: str  # INPUT: claim uses target in its formula; CHECK: target checks claim;
    # RETIREMENT: target retired claim


def edges(claims: Iterable[Claim]) -> list[Edge]:
    """Every reference from one claim to another, in claim order."""
    found = []
    for claim in claims:
        found += [Edge(claim.id, target, INPUT) for _, target in claim.inputs]
        found += [Edge(claim.id, target, CHECK) for target in claim.checked_by]
        found += [Edge(claim.id, target, RETIREMENT) for target in claim.retired_by]
    return found


def upstream(claim_id: str, by_id: Mapping[str, Claim]) -> list[Edge]:
    """What a claim names directly (its inputs, checks, retirer)."""
    claim = by_id.get(claim_id)
    return edges([claim]) if claim else []


def downstream(claim_id: str, claims: Iterable[Claim]) -> list[Edge]:
    """Claims that name this one: use it as an input, are checked by it, or were retired by it."""
    return [edge for edge in edges(claims) if edge.target_id == claim_id]


def upstream_closure(claim_id: str, by_id: Mapping[str, Claim]) -> set[str]:
    """Every claim a claim rests on, through inputs, checks and retirements, and theirs (not itself)."""
    seen: set[str] = set()
    stack = [edge.target_id for edge in upstream(claim_id, by_id)]
    while stack:
        current = stack.pop()
        if current not in seen and current != claim_id:
            seen.add(current)
            stack += [edge.target_id for edge in upstream(current, by_id)]
    return seen


def input_closure(claim_id: str, by_id: Mapping[str, Claim]) -> list[str]:
    """Every claim reachable through inputs (depth first, each once), not including the claim."""
    seen: list[str] = []
    stack = [target for _, target in reversed(by_id[claim_id].inputs)] if claim_id in by_id else []
    while stack:
        current = stack.pop()
        if current in seen or current == claim_id or current not in by_id:
            continue
        seen.append(current)
        stack += [target for _, target in reversed(by_id[current].inputs)]
    return seen
