"""`ledger init`'s files: the packaged template and the user's choices -> {path: text}. Pure but for
reading the template.

The template folder holds every project's files; `bare/` holds what replaces the example in a
`--bare` project and `fleet/` what `--fleet` adds. Markers in the files are filled here: the pip
requirement (`__SOURCE__` for the pre-commit hook's lean gate, `__REQUIREMENT__` with the site stack
for requirements.txt, `__LEAN_REQUIREMENT__` without it for the fleet's requirements-measure.txt), the site's name, and the testbeds; the claims' values are filled later, from
the run the example probe writes.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

from ..records import LedgerError

DEFAULT_SOURCE = "evidence-ledger"  # the pip requirement the workflows install (see --source)
SITE_EXTRA = "site"  # MkDocs, Material, pandas, Altair: what building the site needs beyond the gate
RENAMED = {
    "gitignore": ".gitignore",
    "gitattributes": ".gitattributes",
}  # names a wheel would drop or a tool would read
EXAMPLE = ("probes/hashing.py", "claims/hashing.yaml", "figures/hashing.py", "docs/index.md", "README.md")
BARE, FLEET = "bare/", "fleet/"  # template subfolders written only with --bare, --fleet

# The example's probe declaration in the template's mkdocs.yml, and what a bare project has instead.
EXAMPLE_PROBES = """\
      probes:                      # what `ledger measure [NAME...] [--profile P]` runs, one process each
        - name: hashing
          command: "{python} probes/hashing.py --profile {profile}"
"""
NO_PROBES = """\
      probes: []                   # what `ledger measure [NAME...] [--profile P]` runs, one process each, e.g.
                                   # - {name: hashing, command: "{python} probes/hashing.py --profile {profile}"}
"""
TESTBEDS_MARKER = "      # __TESTBEDS__\n"
TESTBEDS = "      testbeds: [{names}]{pad}# where measure.yml measures: a self-hosted runner labelled with each name\n"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NAME = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[(?P<extras>[^\]]*)\])?\s*(?P<rest>.*)$"
)
_DIRECT = re.compile(r"^[A-Za-z0-9._-]+\s*(?:\[[^\]]*\])?\s*@")  # name @ URL: a direct reference
_ARCHIVE = (".whl", ".tar.gz", ".zip")


def template_files() -> dict[str, bytes]:
    """Template path (bare/ and fleet/ included) -> the template's bytes."""
    base = resources.files("generator.commands").joinpath("template")
    found: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            name = f"{prefix}{child.name}"
            if child.is_dir():
                if child.name != "__pycache__":
                    walk(child, name + "/")
            elif not child.name.endswith(".pyc"):
                found[name] = child.read_bytes()

    walk(base, "")
    return found


def chosen(template: dict[str, bytes], *, bare: bool, fleet: bool) -> dict[str, bytes]:
    """The project's paths and template bytes: the example or the bare page, and the fleet's workflow."""
    found: dict[str, bytes] = {}
    for name, content in template.items():
        if name.startswith(BARE):
            if bare:
                found[name.removeprefix(BARE)] = content
        elif name.startswith(FLEET):
            if fleet:
                found[name.removeprefix(FLEET)] = content
        elif not (bare and name in EXAMPLE):
            found[RENAMED.get(name, name)] = content
    return found


def filled(files: dict[str, bytes], *, source: str, name: str, bare: bool, testbeds: tuple[str, ...]) -> dict[str, str]:
    """Each file's text with the requirement, the site's name and the policy's choices written in."""
    markers = {
        "__SOURCE__": json.dumps(lean(source)),  # a YAML flow string in the pre-commit config
        "__REQUIREMENT__": requirement(source, SITE_EXTRA),
        "__LEAN_REQUIREMENT__": requirement(source, ""),  # requirements-measure.txt: no site stack
        "__SITE_NAME__": json.dumps(name, ensure_ascii=False),  # a YAML string in mkdocs.yml
        "__TITLE__": title(name),
    }
    texts = {}
    for path, content in files.items():
        text = content.decode("utf-8")
        for marker, value in markers.items():
            text = text.replace(marker, value)
        if path == "mkdocs.yml":
            text = policy_text(text, bare=bare, testbeds=testbeds)
        texts[path] = text
    return texts


def policy_text(text: str, *, bare: bool, testbeds: tuple[str, ...]) -> str:
    """mkdocs.yml without the example's probe (bare) and with the fleet's testbeds (if any)."""
    if EXAMPLE_PROBES not in text or TESTBEDS_MARKER not in text:
        raise RuntimeError("the template's mkdocs.yml lost the lines `ledger init` edits")
    if bare:
        text = text.replace(EXAMPLE_PROBES, NO_PROBES)
    names = ", ".join(testbeds)
    line = TESTBEDS.format(names=names, pad=" " * max(1, 19 - len(names))) if testbeds else ""
    return text.replace(TESTBEDS_MARKER, line)


def requirement(source: str, extra: str) -> str:
    """The pip requirement (PEP 508) for `source` with an extra ('': the lean package alone): a name, a
    name with a version or a direct reference keep their form; a URL or a path becomes
    `evidence-ledger[extra] @ URL`."""
    checked_source(source)
    named = f"{DEFAULT_SOURCE}[{extra}]" if extra else DEFAULT_SOURCE
    if is_url(source):
        return f"{named} @ {source}"
    if is_path(source):
        return f"{named} @ {Path(source).expanduser().resolve().as_uri()}"
    found = _NAME.match(source)
    if not found or (found.group("rest") and not found.group("rest").startswith(("@", "<", ">", "=", "!", "~", ";"))):
        raise LedgerError(
            f"--source {source!r}: not a pip requirement, URL or path; e.g. evidence-ledger==0.1.0 or "
            "git+https://github.com/OWNER/REPO@COMMIT"
        )
    extras = [e.strip() for e in (found.group("extras") or "").split(",") if e.strip()]
    extras += [extra] if extra and extra not in extras else []
    rest = found.group("rest")
    name = f"{found.group('name')}[{','.join(extras)}]" if extras else found.group("name")
    return name + (f" {rest}" if rest else "")


def lean(source: str) -> str:
    """The source as the pre-commit hook installs it (the gate alone): as given, a path made absolute."""
    return str(Path(source).expanduser().resolve()) if is_path(source) else source


def checked_source(source: str) -> str:
    """The source, refused if it could not be one line of a requirements file."""
    if not source.strip() or len(source) > 2000 or any(ord(c) < 32 or ord(c) == 127 for c in source):
        raise LedgerError("--source must be one pip requirement on one line (a name, a URL or a path)")
    return source


def is_url(source: str) -> bool:
    """git+https://…, https://…, file:…: a scheme (a Windows drive letter is not one)."""
    return bool(_SCHEME.match(source)) and not re.match(r"^[A-Za-z]:[\\/]", source)


def is_path(source: str) -> bool:
    """A local path (not a URL, not a name): what pip would read from this machine's disk."""
    if is_url(source) or _DIRECT.match(source):
        return False
    return source.startswith((".", "~", "/", "\\")) or "/" in source or "\\" in source or source.endswith(_ARCHIVE)


def source_warning(source: str) -> str:
    """Why a local source will fail on GitHub and on a teammate's machine, and what to give instead ('' if fine)."""
    if source.lower().startswith("file:"):
        what = "a file: URL"
    elif is_path(source):
        what = "a local path"
    else:
        return ""
    return (
        f"warning: --source {source} is {what}: it resolves neither on GitHub's runners nor on a teammate's machine, "
        "so the workflows and the pre-commit hook would fail there; give a git URL pinned to a commit "
        "(git+https://github.com/OWNER/REPO@COMMIT), a wheel's https:// URL, or a PyPI requirement "
        "(evidence-ledger==0.1.0), or edit requirements.txt and .pre-commit-config.yaml before you push"
    )


def title(name: str) -> str:
    """The site's name as the index page's heading: one line, literal text, never markup or a reference."""
    text = html.escape(" ".join(name.split()), quote=False)
    text = re.sub(r"([\\`*_{}\[\]()#+\-.!|])", r"\\\1", text)
    return f'<span class="ledger-label">{text}</span>'  # a label: "A 5 GB/s box" is a name, not a figure
