"""The smaller items of issue 29 (class 10), each through the real CLI on real files: a diff too large
for GitHub's job summary, ..."""

from pathlib import Path

from helpers import git, run_ledger, write_tree

MKDOCS = "site_name: test\nplugins:\n  - ledger:\n      max_run_age_days: 36500\n"


def commit(root: Path, files: dict, message: str = "change") -> str:
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def many_claims(count: int) -> str:
    title = "a long source title, as a pasted citation is " + "x" * 300
    rows = [
        f"  - id: borrowed-{n}\n    kind: borrowed\n    status: lead\n    value: {n}\n    unit: ms\n"
        f"    source: {{title: '{title} {n}'}}\n"
        for n in range(count)
    ]
    return "claims:\n" + "".join(rows)


def test_a_diff_too_large_for_a_job_summary_keeps_its_counts_and_the_top_of_each_section(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit(tmp_path, {"mkdocs.yml": MKDOCS, "claims/.keep": ""}, "base")
    head = commit(tmp_path, {"claims/many.yaml": many_claims(3000)}, "three thousand claims")
    whole = tmp_path.parent / f"{tmp_path.name}-whole.md"
    result = run_ledger("diff", base, head, "--max-bytes", "60000", "--full", str(whole), cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert len(result.output.encode()) <= 60000
    assert "3000 added" in result.output  # the counts are whole
    assert "| `borrowed-0` |" in result.output and "| `borrowed-2999` |" not in result.output
    assert "more" in result.output and str(whole) in result.output  # how many more, and where they are
    full = whole.read_text()
    assert len(full.encode()) > 1 << 20  # what GitHub would have dropped
    assert all(f"| `borrowed-{n}` |" in full for n in (0, 1500, 2999))
