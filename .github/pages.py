"""The pages branch: a built site -> the gh-pages branch, the site at its root and each pull request's preview
under pr-N/ (standard library only; the workflows run it from the base branch's checkout).

    python .github/pages.py config DIR            DIR/mkdocs.preview.yml: the preview build's links work
                                                  under pr-N/ and from disk (no folder URLs)
    python .github/pages.py mark SITE N COMMIT    every page says "preview of #N, not the published report"
                                                  and asks search engines not to index it
    python .github/pages.py publish SITE          the site at the branch's root, every pr-N/ kept
    python .github/pages.py publish SITE --preview N    the site as pr-N/, the rest kept
    python .github/pages.py remove N              pr-N/ gone, the rest kept

publish and remove clone the branch from $PAGES_REMOTE, change only their own paths, commit, and push without
force: a push refused because the branch moved (another publish or preview won the race) starts again from
the new tip, so no writer ever overwrites another's paths.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BRANCH = "gh-pages"
PREVIEW = re.compile(r"pr-[0-9]+")  # the branch's top-level folders a publish of the root keeps
ATTEMPTS = 5
CONFIG = "mkdocs.preview.yml"
# INHERIT is read relative to this file, so it sits beside mkdocs.yml (docs_dir resolves as in mkdocs.yml).
PREVIEW_CONFIG = """\
# Written by .github/pages.py for a pull request's preview build; never committed.
INHERIT: mkdocs.yml
use_directory_urls: false  # page.html, not page/: links work under pr-N/ and from disk
extra:
  homepage: index.html  # the logo's link, else "." (a folder listing from disk)
"""
BANNER = (
    '<div role="note" data-preview-banner style="background:#b3261e;color:#fff;padding:.5em 1em;'
    'font:600 .8rem/1.4 system-ui,sans-serif;text-align:center">Preview of pull request #{number} '
    "(commit {commit}), not the published report</div>"
)
NOINDEX = '<meta name="robots" content="noindex, nofollow">'


def write_config(folder: Path) -> Path:
    """folder/mkdocs.preview.yml, replacing whatever is there (a link included: it is never written through)."""
    target = folder / CONFIG
    target.unlink(missing_ok=True)
    target.write_text(PREVIEW_CONFIG, encoding="utf-8")
    return target


def mark(site: Path, number: int, commit: str) -> int:
    """The banner after each page's <body> and noindex after its <head>; the number of pages marked."""
    if not re.fullmatch(r"[0-9a-f]{7,40}", commit):
        raise SystemExit(f"pages.py mark: {commit!r} is not a commit (7 to 40 lowercase hex digits)")
    banner = BANNER.format(number=number, commit=html.escape(commit[:12]))
    marked = 0
    for page in sorted(site.rglob("*.html")):
        if page.is_symlink() or not page.is_file():
            raise SystemExit(f"pages.py mark: {page} is not a regular file: refusing the site")
        text = page.read_text(encoding="utf-8", errors="replace")
        text, heads = re.subn(r"<head\b[^>]*>", lambda m: m.group(0) + NOINDEX, text, count=1, flags=re.I)
        text, bodies = re.subn(r"<body\b[^>]*>", lambda m: m.group(0) + banner, text, count=1, flags=re.I)
        if heads and bodies:
            page.write_text(text, encoding="utf-8")
            marked += 1
    return marked


def _git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def _checkout(remote: str, into: Path) -> None:
    """The branch's tip (one commit deep) in `into`, or a new empty branch where the remote has none."""
    has = _git("ls-remote", "--heads", remote, BRANCH, cwd=into.parent).stdout.strip()
    if has:
        _git("clone", "--quiet", "--depth", "1", "--branch", BRANCH, remote, str(into), cwd=into.parent)
    else:
        _git("init", "--quiet", str(into), cwd=into.parent)
        _git("checkout", "--quiet", "--orphan", BRANCH, cwd=into)
        _git("remote", "add", "origin", remote, cwd=into)
    _git("config", "user.name", "github-actions[bot]", cwd=into)
    _git("config", "user.email", "41898282+github-actions[bot]@users.noreply.github.com", cwd=into)


def _place(site: Path | None, target: Path) -> None:
    """target replaced by a copy of site (links refused), or removed where site is None."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    if site is not None:
        shutil.copytree(site, target, symlinks=True)
        links = [path for path in target.rglob("*") if path.is_symlink()]
        if links:
            raise SystemExit(f"pages.py: {links[0].relative_to(target)} is a link: a site is regular files only")


def _apply(site: Path | None, preview: int | None, tree: Path) -> None:
    if preview is not None:
        _place(site, tree / f"pr-{preview}")
        return
    assert site is not None
    clash = sorted(path.name for path in site.iterdir() if PREVIEW.fullmatch(path.name))
    if clash:
        raise SystemExit(f"pages.py publish: the site has {clash[0]}/ at its root, where previews live")
    for entry in tree.iterdir():
        if entry.name != ".git" and not (PREVIEW.fullmatch(entry.name) and entry.is_dir()):
            _place(None, entry)
    for entry in site.iterdir():
        if entry.is_dir():
            _place(entry, tree / entry.name)
        else:
            shutil.copy2(entry, tree / entry.name)
    (tree / ".nojekyll").touch()  # Pages serves the files as they are (no Jekyll: _-prefixed files kept)


def update(remote: str, site: Path | None, preview: int | None, message: str) -> bool:
    """The branch with site at its root (preview None) or at pr-N/ (site None: removed); False where nothing
    changed. Each attempt starts from the remote's tip; a push is never forced."""
    for _ in range(ATTEMPTS):
        with tempfile.TemporaryDirectory() as scratch:
            tree = Path(scratch) / "pages"
            _checkout(remote, tree)
            _apply(site, preview, tree)
            _git("add", "--all", cwd=tree)
            if not _git("status", "--porcelain", cwd=tree).stdout.strip():
                return False
            _git("commit", "--quiet", "-m", message, cwd=tree)
            if _git("push", "--quiet", "origin", f"HEAD:refs/heads/{BRANCH}", cwd=tree, check=False).returncode == 0:
                return True
        print(f"pages.py: {BRANCH} moved while this one was written; starting again from its new tip")
    raise SystemExit(f"pages.py: {BRANCH} kept moving: gave up after {ATTEMPTS} attempts")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pages.py", description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("config").add_argument("folder", type=Path)
    marking = verbs.add_parser("mark")
    marking.add_argument("site", type=Path)
    marking.add_argument("number", type=int)
    marking.add_argument("commit")
    publishing = verbs.add_parser("publish")
    publishing.add_argument("site", type=Path)
    publishing.add_argument("--preview", type=int, metavar="N")
    verbs.add_parser("remove").add_argument("number", type=int)
    args = parser.parse_args(argv)
    if args.verb == "config":
        print(write_config(args.folder))
        return 0
    if args.verb == "mark":
        print(f"{mark(args.site, args.number, args.commit)} pages marked as the preview of #{args.number}")
        return 0
    remote = _remote()
    if args.verb == "remove":
        gone = update(remote, None, args.number, f"Remove the preview of #{args.number}")
        print(f"pr-{args.number}/ removed" if gone else f"pr-{args.number}/ was not there")
        return 0
    if not (args.site / "index.html").is_file():
        raise SystemExit(f"pages.py publish: {args.site} holds no index.html: not a built site")
    where = f"pr-{args.preview}/" if args.preview is not None else "the root"
    changed = update(remote, args.site, args.preview, f"Publish {where}")
    print(f"published at {where}" if changed else f"{where} unchanged")
    return 0


def _remote() -> str:
    remote = os.environ.get("PAGES_REMOTE", "")
    if not remote:
        raise SystemExit("pages.py: set PAGES_REMOTE to the repository to push the pages branch to")
    return remote


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
