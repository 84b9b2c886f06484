"""A pull request's preview: .github/pages.py (the script the Publish and Preview workflows run) against a local
bare repository standing in for GitHub, and a preview build opened from disk in Chromium, every link a page."""

import os
import shutil
import subprocess
import sys
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import REPO, git, init_project, run_ledger, run_mkdocs, write_tree

SCRIPT = REPO / ".github" / "pages.py"
ISOLATED = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def pages(*args: str | Path, remote: Path | None = None) -> subprocess.CompletedProcess:
    """The script as a workflow step runs it: `python .github/pages.py ...`, PAGES_REMOTE the repository."""
    env = {**os.environ, **ISOLATED, "PAGES_REMOTE": str(remote or "")}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env)


def a_site(root: Path, title: str) -> Path:
    write_tree(root, {"index.html": f"<html><head></head><body>{title}</body></html>", "sub/page.html": title})
    return root


def branch(remote: Path) -> dict[str, str]:
    """The gh-pages branch's files -> their text, read from the bare repository."""
    names = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines()
    return {name: git(remote, "show", f"gh-pages:{name}") for name in names}


@pytest.fixture
def remote(tmp_path):
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", str(bare))
    return bare


def test_publish_and_remove_keep_the_site_at_the_root_and_each_preview_under_pr_n(tmp_path, remote):
    main_v1, main_v2 = a_site(tmp_path / "m1", "main one"), a_site(tmp_path / "m2", "main two")
    preview_5, preview_7 = a_site(tmp_path / "p5", "five"), a_site(tmp_path / "p7", "seven")
    for args in [
        ("publish", main_v1),
        ("publish", preview_5, "--preview", "5"),
        ("publish", preview_7, "--preview", "7"),
    ]:
        done = pages(*args, remote=remote)
        assert done.returncode == 0, done.stderr
    done = pages("publish", main_v2, remote=remote)  # a main publish replaces the root, keeps the previews
    assert (done.returncode, done.stdout) == (0, "published at the root\n"), done.stderr
    assert branch(remote) == {
        ".nojekyll": "",
        "index.html": "<html><head></head><body>main two</body></html>",
        "sub/page.html": "main two",
        "pr-5/index.html": "<html><head></head><body>five</body></html>",
        "pr-5/sub/page.html": "five",
        "pr-7/index.html": "<html><head></head><body>seven</body></html>",
        "pr-7/sub/page.html": "seven",
    }
    done = pages("remove", "5", remote=remote)
    assert (done.returncode, done.stdout) == (0, "pr-5/ removed\n"), done.stderr
    assert sorted(branch(remote)) == [
        ".nojekyll",
        "index.html",
        "pr-7/index.html",
        "pr-7/sub/page.html",
        "sub/page.html",
    ]
    done = pages("remove", "5", remote=remote)  # a close after the label was taken off: nothing to do
    assert (done.returncode, done.stdout) == (0, "pr-5/ was not there\n")
    assert git(remote, "rev-list", "--count", "gh-pages") == "5"  # one commit per change, none for no change


def test_writers_racing_for_the_branch_never_overwrite_each_other(tmp_path, remote):
    pages("publish", a_site(tmp_path / "m", "main"), remote=remote)
    jobs = [("publish", a_site(tmp_path / f"p{n}", f"pr {n}"), "--preview", str(n)) for n in range(1, 5)]
    jobs.append(("publish", a_site(tmp_path / "m2", "main again")))
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results = list(pool.map(lambda job: pages(*job, remote=remote), jobs))
    assert [result.returncode for result in results] == [0] * len(jobs), [result.stderr for result in results]
    files = branch(remote)
    assert [files[f"pr-{n}/sub/page.html"] for n in range(1, 5)] == ["pr 1", "pr 2", "pr 3", "pr 4"]
    assert files["sub/page.html"] == "main again"


def test_publish_refuses_what_is_not_a_site_and_a_site_holding_a_preview_folder(tmp_path, remote):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = pages("publish", empty, remote=remote)
    assert done.returncode == 1
    assert f"pages.py publish: {empty} holds no index.html: not a built site" in done.stderr
    clash = a_site(tmp_path / "clash", "x")
    write_tree(clash, {"pr-3/index.html": "a page named like a preview"})
    done = pages("publish", clash, remote=remote)
    assert done.returncode == 1
    assert "pages.py publish: the site has pr-3/ at its root, where previews live" in done.stderr
    linked = a_site(tmp_path / "linked", "x")
    (linked / "sub" / "secret").symlink_to("/etc/hostname")
    done = pages("publish", linked, "--preview", "2", remote=remote)
    assert done.returncode == 1
    assert "pages.py: sub/secret is a link: a site is regular files only" in done.stderr
    assert git(remote, "branch", "--list") == ""  # nothing pushed by any of them
    assert "set PAGES_REMOTE" in pages("remove", "2").stderr


def test_mark_puts_the_banner_and_noindex_on_every_page_and_refuses_a_commit_that_is_no_hash(tmp_path):
    site = tmp_path / "site"
    write_tree(
        site,
        {
            "index.html": '<HTML><head lang="en"><title>t</title></head><body class="x">hi</body>',
            "a/b.html": "<head></head><body></body>",
        },
    )
    done = pages("mark", site, "12", "0123456789abcdef0123")
    assert (done.returncode, done.stdout) == (0, "2 pages marked as the preview of #12\n"), done.stderr
    page = (site / "index.html").read_text()
    assert page.startswith('<HTML><head lang="en"><meta name="robots" content="noindex, nofollow"><title>')
    assert '<body class="x"><div role="note" data-preview-banner' in page
    assert "Preview of pull request #12 (commit 0123456789ab), not the published report</div>hi" in page
    done = pages("mark", site, "12", "<script>")
    assert done.returncode == 1
    assert "pages.py mark: '<script>' is not a commit (7 to 40 lowercase hex digits)" in done.stderr


@pytest.fixture(scope="module")
def preview_site(tmp_path_factory):
    """A `ledger init` project built as a preview: the config .github/pages.py writes, mkdocs build --strict,
    verify-site with that config (as Review does), then marked as the Preview workflow marks it."""
    root = init_project(tmp_path_factory)
    assert pages("config", root).returncode == 0
    site = root.parent / "preview"
    built = run_mkdocs("build", "--strict", "--config-file", "mkdocs.preview.yml", "--site-dir", str(site), cwd=root)
    assert built.exit_code == 0, built.errors
    verified = run_ledger("--config", "mkdocs.preview.yml", "verify-site", str(site), cwd=root)
    assert verified.exit_code == 0, verified.output + verified.errors
    assert pages("mark", site, "7", "abcdef1").returncode == 0
    return site


@pytest.mark.site
def test_a_published_build_fails_verify_site_as_a_preview(preview_site):
    # The preview's page.html links are the preview config's: verify-site with the published config refuses them.
    root = preview_site.parent / "p"
    refused = run_ledger("verify-site", str(preview_site), cwd=root)
    assert refused.exit_code == 1


MACHINE_FILES = ("/claims.json", "/llms.txt")  # what the site publishes for machines (issue 53)


@pytest.mark.browser
@pytest.mark.site
def test_the_preview_opened_from_disk_links_only_to_pages(preview_site, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(chromium):
        pytest.skip("needs chromium (scripts/ensure-chromium)")
    start = (preview_site / "index.html").as_uri()
    seen, queue, listings = set(), [start], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        while queue:
            url = queue.pop()
            if url in seen:
                continue
            if url.endswith(MACHINE_FILES):  # claims.json, llms.txt: files for machines, linked as files
                assert Path(urllib.parse.unquote(urllib.parse.urlparse(url).path)).is_file(), url
                continue
            seen.add(url)
            page.goto(url)
            # A page of the site carries the banner; Chromium's folder listing of file:// does not.
            if page.locator("[data-preview-banner]").count() != 1 or not url.endswith(".html"):
                listings.append(url)
                continue
            hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
            queue += [href.split("#")[0] for href in hrefs if href.startswith("file://")]
        page.goto(start)
        page.screenshot(path=str(tmp_path / "preview-1280.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(tmp_path / "preview-390.png"))
        banner = page.locator("[data-preview-banner]").bounding_box()
        browser.close()
    assert listings == []
    built = {path.as_uri() for path in preview_site.rglob("*.html") if path.name != "404.html"}
    assert len(seen) >= 10 and seen <= built
    assert banner and banner["y"] == 0 and banner["width"] == 390  # on top, the whole width, on a phone too
