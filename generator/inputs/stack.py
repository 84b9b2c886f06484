"""The site stack: the packages that building the site needs beyond the gate -> whether they are here.

`pip install evidence-ledger` installs the gate, the probe API and the CLI (PyYAML, Python-Markdown,
pymdown-extensions); `pip install "evidence-ledger[site]"` adds MkDocs, Material, pandas, Altair,
vl-convert and Pygments, which the site wing (generator/site/: the plugin, the generated pages, the
figures) imports. Standard library only: the gate asks without importing any of them.
"""

from __future__ import annotations

from importlib.util import find_spec

MODULES = ("mkdocs", "material", "pandas", "altair", "vl_convert", "pygments")  # what [site] installs, by import name
INSTALL = 'pip install "evidence-ledger[site]"'


class SiteStackMissing(ImportError):
    """The site wing was imported where the [site] extra is not installed."""


def missing() -> tuple[str, ...]:
    """The site stack's modules that cannot be imported here (none imported to find out)."""
    return tuple(name for name in MODULES if _absent(name))


def _absent(name: str) -> bool:
    try:
        return find_spec(name) is None
    except (ImportError, ValueError):  # a broken or half-removed install
        return True


def message(absent: tuple[str, ...]) -> str:
    return f"the site needs {', '.join(absent)}, not installed here: install evidence-ledger[site] ({INSTALL})"


def require() -> None:
    """Raise SiteStackMissing, saying what to install, unless the whole site stack is importable.

    Inside `mkdocs build` (MkDocs importable, another package not) the error is also MkDocs' own
    ValidationError, so MkDocs reports it as a configuration error instead of a traceback.
    """
    absent = missing()
    if not absent:
        return
    try:
        from mkdocs.config.base import ValidationError
    except ImportError:
        raise SiteStackMissing(message(absent)) from None

    class SiteStackMissingInBuild(SiteStackMissing, ValidationError):
        pass

    raise SiteStackMissingInBuild(message(absent)) from None
