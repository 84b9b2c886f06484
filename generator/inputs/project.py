"""Whether there is a ledger where --root and --config point (claims/ or the plugin in mkdocs.yml), and
which folder above holds one (as git finds its repository from a folder inside it)."""

from __future__ import annotations

from pathlib import Path

from ..records import LedgerError
from . import mkdocs_yml
from .config import _plugin_options, config_file, project_policy


def find(root: Path, config: Path | None) -> None:
    """Refuse (LedgerError) where there is no ledger: no root folder, or neither claims/ nor the plugin."""
    if not root.is_dir():
        raise LedgerError(f"--root {root}: no such folder; to start a ledger there: `ledger init {root}`")
    file, claims_dir = config_file(root, config), project_policy(root, config).claims_dir
    if (root / claims_dir).is_dir() or declares_plugin(file):
        return
    raise LedgerError(
        f"no ledger in {root.resolve()}: looked for {claims_dir}/ and the ledger plugin in {file.name}; "
        "run `ledger init` to start one, or pass --root"
    )


def declares_plugin(config: Path) -> bool:
    """Whether the config file lists the ledger plugin (a malformed file counts: its reader says what is wrong)."""
    if not config.is_file():
        return False
    try:
        top = mkdocs_yml.read(config)
    except mkdocs_yml.Malformed:
        return True
    return top is not None and _plugin_options(top.get("plugins")) is not None


def above(start: Path) -> Path | None:
    """The nearest folder from start upward whose mkdocs.yml declares the ledger plugin, stopping at the
    top of the git repository start is in (the folder holding .git); None where there is none."""
    for folder in (start, *start.parents):
        if declares_plugin(folder / "mkdocs.yml"):
            return folder
        if (folder / ".git").exists():
            return None
    return None
