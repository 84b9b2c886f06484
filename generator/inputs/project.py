"""A project's root and --config -> the Project one verb works on: its configuration composed once, the
policy it declares; and which folder above holds a ledger (as git finds its repository from a folder inside it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..records import LedgerError, Policy
from . import mkdocs_yml
from .config import DEFAULTS, config_file, plugin_options, policy_of, read_config


@dataclass(frozen=True, slots=True)
class Project:
    """What a verb reads of the project's configuration, read once and handed down (asv's run_from_args
    loads its config once and hands it to the verb): nothing below the verb opens mkdocs.yml again."""

    root: Path  # resolved
    config_file: Path  # --config, else ROOT/mkdocs.yml (which may not exist)
    composed: mkdocs_yml.Composed | None  # as MkDocs composes it (INHERIT merged in); None: there is no such file
    policy: Policy  # what it declares (the defaults where there is no file)

    @property
    def declares_plugin(self) -> bool:
        return self.composed is not None and plugin_options(self.composed.top) is not None

    @property
    def urls(self) -> tuple[bool, str]:
        """(use_directory_urls, the path of site_url ending in /), MkDocs' defaults where it sets neither."""
        return mkdocs_yml.urls(self.composed.top if self.composed else {})


def read(root: Path, config: Path | None = None) -> Project:
    """The project --root and --config name; LedgerError where a named --config is missing or the
    configuration cannot be read (no mkdocs.yml at all: the defaults)."""
    root = root.resolve()
    file = config_file(root, config)
    if config is None and not file.exists():
        return Project(root, file, None, DEFAULTS)
    found = read_config(file)
    return Project(root, file, found, policy_of(found, file.name))


def find(root: Path, config: Path | None) -> Project:
    """The project, refused (LedgerError) where there is no ledger: no root folder, or neither claims/ nor
    the plugin."""
    if not root.is_dir():
        raise LedgerError(f"--root {root}: no such folder; to start a ledger there: `ledger init {root}`")
    project = read(root, config)
    if (root / project.policy.claims_dir).is_dir() or project.declares_plugin:
        return project
    raise LedgerError(
        f"no ledger in {root.resolve()}: looked for {project.policy.claims_dir}/ and the ledger plugin in "
        f"{project.config_file.name}; run `ledger init` to start one, or pass --root"
    )


def above(start: Path) -> Project | None:
    """The project of the nearest folder from start upward whose mkdocs.yml declares the ledger plugin,
    stopping at the top of the git repository start is in (the folder holding .git); None where there is
    none. A mkdocs.yml on the way that cannot be read is refused (LedgerError naming its folder)."""
    for folder in (start, *start.parents):
        if (folder / "mkdocs.yml").is_file():
            try:
                project = read(folder)
            except LedgerError as error:
                raise LedgerError(f"{folder}: {error}") from None
            if project.declares_plugin:
                return project
        if (folder / ".git").exists():
            return None
    return None
