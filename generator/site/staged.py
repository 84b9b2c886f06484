"""A build's output folder, replaced whole: the folder to replace -> a folder beside it, written, then swapped in.

`mkdocs build` (the plugin) and `ledger pages` write into a new folder beside the one they replace and
rename it into place only once every file is written, so a build that fails half way (a figure that
raises, the gate, a strict warning, a full disk) leaves the previous output byte for byte as it was.
`mkdocs serve` builds in place: its own folder, and the move-aside of pages it keeps (incremental.py).
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

MARK = ".ledger-building-"  # in the new folder's name: `.site.ledger-building-…` beside `site`


@dataclass(frozen=True, slots=True)
class Staged:
    """The folder a build replaces (final) and the one it writes instead (new), beside it."""

    final: Path
    new: Path

    def begin(self) -> Path:
        """Make the new folder (empty); returns it."""
        self.new.parent.mkdir(parents=True, exist_ok=True)
        self.new.mkdir()
        return self.new

    def swap(self) -> None:
        """The new folder in the final one's place; the old one removed once it is out of the way."""
        old = None
        if self.final.exists() or self.final.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.ledger-old-", dir=self.final.parent))
            os.replace(self.final, old)  # onto an empty folder: a rename
        os.replace(self.new, self.final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def abandon(self) -> None:
        """A build that failed: its new folder goes, the final one stays as it was."""
        shutil.rmtree(self.new, ignore_errors=True)


def beside(final: Path) -> Staged:
    """The folder to write instead of final: a new name beside it, made by begin()."""
    final = Path(os.path.abspath(final))
    return Staged(final, final.parent / f".{final.name}{MARK}{os.getpid()}-{secrets.token_hex(4)}")
