"""Data safety (issue 29, class 1): no command follows a link it did not make. A link committed into
the project (or left by a probe) can point anywhere on the machine; a command that deletes, writes or
copies through it loses or leaks files outside the project. Each attack is made with real links in a
temporary project and the real CLI: the command must refuse with a one-line error naming the link, and
nothing outside the project (nor the project's own files) may be deleted, written or copied."""

import os
from pathlib import Path

from helpers import git, project, run_ledger, run_python, write_tree

BUILT = """
site_name: t
plugins:
  - ledger:
      probes:
        - name: {name}
          build: "sh probes/build.sh {{build}}"
          command: "sh probes/run.sh {{out}} {{build}}"
          code: [probes/build.sh, probes/run.sh]
"""
BUILD_SH = 'echo built > "$1/binary"\n'
RUN_SH = 'printf \'made_by\\n%s\\n\' "$(cat "$2/binary")" > "$1/results.csv"\n'
SCRIPTED = """
site_name: t
plugins:
  - ledger:
      probes:
        - name: p
          command: "sh probes/p.sh {out}"
"""


def built(root: Path, name: str = "p") -> Path:
    return project(root / "project", BUILT.format(name=name), {"probes/build.sh": BUILD_SH, "probes/run.sh": RUN_SH})


def scripted(root: Path, script: str) -> Path:
    return project(root / "project", SCRIPTED, {"probes/p.sh": script})


def outside(root: Path, files: dict[str, str] | None = None) -> Path:
    """A folder beside the project holding files nothing in the project may touch."""
    folder = root / "outside"
    write_tree(folder, files or {"keep.txt": "precious\n"})
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(result, *words: str) -> None:
    """Exit non-zero with a one-line error naming what was refused, never a traceback."""
    assert result.exit_code != 0, result.output + result.errors
    assert "Traceback" not in result.errors + result.output, result.errors
    said = result.output + result.errors
    for word in words:
        assert word in said, said


def test_a_linked_build_folder_cannot_make_measure_delete_the_projects_own_files(tmp_path):
    root = built(tmp_path, name="docs")  # a probe named like a folder of the project
    write_tree(root, {"docs/index.md": "# The report\n"})
    os.makedirs(root / ".cache/ledger")
    os.symlink("../..", root / ".cache/ledger/build")  # .cache/ledger/build/docs is then root/docs
    result = run_ledger("measure", cwd=root)
    refused(result, ".cache/ledger/build", "link")
    assert (root / "docs/index.md").read_text() == "# The report\n"
    assert "1 run written" not in result.output


def test_a_linked_cache_folder_cannot_make_measure_delete_outside_the_project(tmp_path):
    root = built(tmp_path)
    away = outside(tmp_path, {"ledger/build/p/keep.txt": "precious\n"})
    os.symlink(away, root / ".cache")
    result = run_ledger("measure", cwd=root)
    refused(result, ".cache", "link")
    assert snapshot(away) == {"ledger/build/p/keep.txt": b"precious\n"}


def test_a_build_folder_that_is_itself_a_link_is_refused_not_a_traceback(tmp_path):
    root = built(tmp_path)
    away = outside(tmp_path)
    os.makedirs(root / ".cache/ledger/build")
    os.symlink(away, root / ".cache/ledger/build/p")
    result = run_ledger("measure", cwd=root)
    refused(result, ".cache/ledger/build/p", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}  # no binary built into it, nothing deleted


def test_a_linked_probe_runs_folder_cannot_make_measure_write_outside_the_project(tmp_path):
    root = scripted(tmp_path, "printf 'x,ms\\n1,2\\n' > \"$1/results.csv\"\n")
    away = outside(tmp_path)
    os.makedirs(root / "measurements")
    os.symlink(away, root / "measurements/p")
    result = run_ledger("measure", cwd=root)
    refused(result, "measurements/p", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_a_probe_output_that_links_to_a_file_anywhere_is_not_copied_into_a_run(tmp_path):
    away = outside(tmp_path, {"secret.csv": "user,key\nme,hunter2\n"})
    root = scripted(tmp_path, f'ln -s "{away}/secret.csv" "$1/results.csv"\n')
    result = run_ledger("measure", cwd=root)
    refused(result, "results.csv", "link")
    copied = [p for p in (root / "measurements").rglob("*") if p.is_file() and b"hunter2" in p.read_bytes()]
    assert copied == []
    assert snapshot(away) == {"secret.csv": b"user,key\nme,hunter2\n"}


def test_a_probe_that_swaps_its_output_folder_for_a_link_is_refused_and_nothing_is_deleted_through_it(tmp_path):
    away = outside(tmp_path, {"results.csv": "x,ms\n1,2\n"})
    root = scripted(tmp_path, f'rm -r "$1" && ln -s "{away}" "$1"\n')
    result = run_ledger("measure", cwd=root)
    refused(result, "link")
    assert snapshot(away) == {"results.csv": b"x,ms\n1,2\n"}
    assert not list((root / "measurements").rglob("manifest.json"))


def test_a_probe_folder_holding_a_linked_folder_is_refused(tmp_path):
    away = outside(tmp_path, {"inner/results.csv": "x,ms\n1,2\n"})
    root = scripted(tmp_path, f'printf \'x,ms\\n1,2\\n\' > "$1/results.csv"; ln -s "{away}/inner" "$1/more"\n')
    result = run_ledger("measure", cwd=root)
    refused(result, "more", "link")
    assert snapshot(away) == {"inner/results.csv": b"x,ms\n1,2\n"}


def test_a_build_input_reached_through_a_link_is_refused_before_anything_runs(tmp_path):
    root = built(tmp_path)
    away = outside(tmp_path, {"build.sh": BUILD_SH + 'echo ran > "$0.ran"\n'})
    os.remove(root / "probes/build.sh")
    os.symlink(away / "build.sh", root / "probes/build.sh")
    result = run_ledger("measure", cwd=root)
    refused(result, "probes/build.sh", "link")
    assert snapshot(away) == {"build.sh": (BUILD_SH + 'echo ran > "$0.ran"\n').encode()}


def test_finalize_refuses_a_folder_holding_a_link(tmp_path):
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n", {"probes/c.sh": "true\n"})
    away = outside(tmp_path, {"secret.csv": "a,b\n1,2\n"})
    folder = tmp_path / "out"
    folder.mkdir()
    os.symlink(away / "secret.csv", folder / "results.csv")
    done = run_python(
        "-m", "generator.probe", "finalize", str(folder), "--probe", "c", "--code", "probes/c.sh", "--root", str(root),
        cwd=root,
    )  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "results.csv" in done.stderr and "is a link" in done.stderr, done.stderr
    assert not (root / "measurements").exists() or not list((root / "measurements").rglob("manifest.json"))
    assert snapshot(away) == {"secret.csv": b"a,b\n1,2\n"}


def test_init_never_writes_through_a_linked_folder_in_its_target(tmp_path):
    away = outside(tmp_path)
    target = tmp_path / "new"
    target.mkdir()
    os.symlink(away, target / "docs")
    result = run_ledger("init", str(target), "--bare", cwd=tmp_path)
    refused(result, "docs", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}
    assert sorted(p.name for p in target.iterdir()) == ["docs"]  # nothing written, the link left as it was


def test_init_never_writes_through_a_dangling_link(tmp_path):
    away = outside(tmp_path)
    target = tmp_path / "new"
    target.mkdir()
    os.symlink(away / "mkdocs.yml", target / "mkdocs.yml")  # points at nothing yet: exists() is False
    result = run_ledger("init", str(target), "--bare", cwd=tmp_path)
    refused(result, "mkdocs.yml", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_init_fleet_never_writes_through_a_linked_github_folder(tmp_path):
    away = outside(tmp_path)
    target = tmp_path / "new"
    assert run_ledger("init", str(target), "--bare", cwd=tmp_path).exit_code == 0
    for path in sorted((target / ".github").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (target / ".github").rmdir()
    os.symlink(away, target / ".github")
    result = run_ledger("init", str(target), "--fleet", cwd=tmp_path)
    refused(result, ".github", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_the_check_cache_is_never_written_through_a_linked_cache_folder(tmp_path):
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n")
    away = outside(tmp_path)
    os.symlink(away, root / ".cache")
    result = run_ledger("check", cwd=root)
    assert result.exit_code == 0, result.output + result.errors
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_ledger_pages_never_writes_through_a_link_in_its_folder(tmp_path):
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n", {"docs/index.md": "# Hi\n"})
    away = outside(tmp_path)
    write_tree(root, {"out/index.md": "# Hi\n"})
    os.symlink(away, root / "out/claims")
    result = run_ledger("pages", "out", cwd=root)
    refused(result, "claims", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_ledger_pages_never_writes_into_a_folder_reached_through_a_committed_link(tmp_path):
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n", {"docs/index.md": "# Hi\n"})
    away = outside(tmp_path)
    os.symlink(away, root / "generated")
    result = run_ledger("pages", "generated/docs", cwd=root)
    refused(result, "generated", "link")
    assert snapshot(away) == {"keep.txt": b"precious\n"}


def test_ledger_pages_never_copies_a_page_that_links_anywhere(tmp_path):
    away = outside(tmp_path, {"secret.md": "hunter2\n"})
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n", {"docs/index.md": "# Hi\n"})
    os.symlink(away / "secret.md", root / "docs/secret.md")
    result = run_ledger("pages", "out", cwd=root)
    refused(result, "secret.md", "link")
    copied = [p for p in (root / "out").rglob("*") if p.is_file() and b"hunter2" in p.read_bytes()]
    assert copied == []


def test_the_whole_diff_is_never_written_through_a_link_in_its_place(tmp_path):
    root = project(tmp_path / "project", "site_name: t\nplugins:\n  - ledger\n")
    away = outside(tmp_path)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    os.symlink(away / "keep.txt", root / "ledger-diff.md")  # as a pull request can commit one
    result = run_ledger("diff", "HEAD", "--full", "ledger-diff.md", cwd=root)
    refused(result, "ledger-diff.md")
    assert snapshot(away) == {"keep.txt": b"precious\n"}
