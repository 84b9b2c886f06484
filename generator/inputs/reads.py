"""What the gate reads, derived from the policy: the one list behind the check cache's key, serve's
watch list and the Markdown extension's signature.

A file outside these lists can still change a verdict when a run's manifest names it as code (a
probe helper outside `probes_dir`): `declared_code` lists those, from the runs the gate last read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from ..records import Policy, Run

FIGURES = "figures"  # the figure modules' folder (figures.py and the site's drawing stage read it)
# A commit changes what the gate says of history; .gitattributes, whether git would convert runs' bytes.
GIT_FILES = (".git/HEAD", ".git/index", ".git/packed-refs", ".gitattributes")
GIT_FOLDERS = (".git/refs",)


def data_folders(policy: Policy) -> tuple[str, ...]:
    """The folders the gate reads besides the hand-written pages: claims, runs, probes, figures
    (relative to the project root)."""
    return tuple(dict.fromkeys((policy.claims_dir, policy.measurements_dir, policy.probes_dir, FIGURES)))


def as_data(policy: Policy) -> tuple[str, ...]:
    """The folders whose files the gate reads as data and nothing runs: claims and runs (a review lists no
    file in them as code: buildcode.py)."""
    return tuple(dict.fromkeys((policy.claims_dir, policy.measurements_dir)))


def folders(policy: Policy) -> tuple[str, ...]:
    """Every folder the gate reads: data_folders() and the pages."""
    return tuple(dict.fromkeys((*data_folders(policy), policy.docs_dir)))


def files(policy: Policy) -> tuple[str, ...]:
    """Single files the gate reads: every declared probe's code (it may lie outside probes_dir), the
    surfaces (README.md, ...: files outside docs/ read with the prose rules) and the files the configuration
    inherits (INHERIT: the policy is read from them too)."""
    return tuple(
        sorted({*(path for spec in policy.probes for path in spec.code), *policy.surfaces, *policy.config_files})
    )


def declared_code(runs: Iterable[Run] | Mapping[str, Run]) -> tuple[str, ...]:
    """The code files runs' manifests hash (probe-changed compares them), wherever they live in the
    project; a path that leaves it is never read (load refuses it), so it is not listed."""
    found = runs.values() if isinstance(runs, Mapping) else runs
    paths = {path for run in found for path in run.declared_code}
    return tuple(sorted(p for p in paths if not PurePosixPath(p).is_absolute() and ".." not in PurePosixPath(p).parts))
