"""Renames: the claims at base and at head -> which removed claim reappears under a new id. Pure.

A claim is renamed when it is removed at head and one added claim equals it in everything but its
id and position (the claims it names renamed too), and no other claim does.
"""

from __future__ import annotations

from collections import Counter

import attrs

from ..records import Claim, Source


def find_renames(old_by_id: dict[str, Claim], new_by_id: dict[str, Claim]) -> dict[str, str]:
    """Old id -> new id for each removed claim that reappears, unchanged but for its id (one match only)."""
    removed = [c for i, c in old_by_id.items() if i not in new_by_id]
    added = [c for i, c in new_by_id.items() if i not in old_by_id]
    renames: dict[str, str] = {}
    while True:  # again after each round: renaming one claim can make another's references match
        found = {}
        for old in removed:
            if old.id in renames:
                continue
            key = _identity(renamed_references(old, renames))
            matches = [new.id for new in added if new.id not in renames.values() and _identity(new) == key]
            if len(matches) == 1:
                found[old.id] = matches[0]
        taken = Counter(found.values())
        found = {old: new for old, new in found.items() if taken[new] == 1}
        if not found:
            return renames
        renames.update(found)


def _identity(claim: Claim) -> Claim:
    """The claim without its id and position: equal for a claim that was only renamed or moved."""
    return attrs.evolve(claim, id="", where=Source("", 0), field_lines=())


def renamed_references(claim: Claim, renames: dict[str, str]) -> Claim:
    def new(target: str) -> str:
        return renames.get(target, target)

    return attrs.evolve(
        claim,
        inputs=tuple((name, new(target)) for name, target in claim.inputs),
        checked_by=tuple(map(new, claim.checked_by)),
        checks=tuple(attrs.evolve(spec, claim_id=new(spec.claim_id)) for spec in claim.checks),
        retired_by=tuple(map(new, claim.retired_by)),
    )
