"""The smaller items of issue 29 (class 10), each through the real CLI on real files: a diff too large
for GitHub's job summary keeps its counts and the top of each section; `ledger history` shows a cited
run that is rewritten instead of dropping it; moved-since-cited judges the newest level against the
cited run; history is read past every mechanism git has for substituting commits (grafts, the
commit-graph, replace objects); a unit scale out of range is named as such and drops that unit alone."""

import hashlib
import json
from pathlib import Path

import pytest
from helpers import MEASURED, RUN_TIME, SPEEDUP_ROWS, a_run, git, run_ledger, write_tree
from helpers_series import ledger as series_ledger
from helpers_series import runs_of

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


def rewrite(root: Path, run: Path) -> None:
    """A committed run's data changed and its manifest made to match (what `rewritten` catches)."""
    data = (run / "results.csv").read_text().replace("3.6", "3.61")
    (run / "results.csv").write_text(data)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"]["results.csv"]["sha256"] = hashlib.sha256(data.encode()).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def a_history(root: Path) -> Path:
    """A committed ledger: the cited run, a later run of the same measurement; returns the cited run."""
    from datetime import timedelta

    git(root, "init", "-q", "-b", "main")
    a_run(root, SPEEDUP_ROWS)
    a_run(root, [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.58}], when=RUN_TIME + timedelta(hours=1))
    commit(root, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": MEASURED}, "base")
    return root / "measurements/toy/2026-11-29T10-00-00Z-linux-cpu"


@pytest.mark.parametrize("form", ["text", "json", "csv"])
def test_history_shows_a_rewritten_cited_run_instead_of_dropping_it(tmp_path, form):
    cited = a_history(tmp_path)
    rewrite(tmp_path, cited)
    commit(tmp_path, {}, "rewrite the cited run")
    result = run_ledger("history", "moe-speedup-b16", "--format", form, cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert cited.name in result.output and "rewritten" in result.output, result.output


def test_moved_since_cited_judges_the_newest_level_against_the_cited_run(tmp_path):
    levels = [3.6, 3.61, 3.9, 3.59, 3.6, 3.61, 3.59, 3.6] + [3.9, 3.9, 3.91, 3.89]  # the cited run: 3.9
    runs = runs_of(tmp_path, levels)
    series_ledger(tmp_path, runs[2], value="3.9")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "moved-since-cited" not in result.output, result.output  # the newest runs read as the cited one


def test_a_grafts_file_cannot_hide_a_rewritten_run(tmp_path):
    cited = a_history(tmp_path)
    first = git(tmp_path, "rev-parse", "HEAD")
    rewrite(tmp_path, cited)
    second = commit(tmp_path, {}, "rewrite the cited run")
    (tmp_path / ".git/info").mkdir(exist_ok=True)
    (tmp_path / ".git/info/grafts").write_text(f"{second}\n")  # the rewrite as a root: it 'first added' the run
    assert first not in git(
        tmp_path, "log", "--format=%H", env={"GIT_CONFIG_PARAMETERS": "'advice.graftFileDeprecated=false'"}
    )
    result = run_ledger("check", "--require-history", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "rewritten" in result.output


@pytest.mark.parametrize("scale, said", [("1e400", "out of range"), ("1.0e-400", "out of range"), ("-2", "above 0")])
def test_a_unit_scale_out_of_range_is_named_and_drops_that_unit_alone(tmp_path, scale, said):
    config = (
        MKDOCS
        + f"      units:\n        widget: {{dimension: B, scale: {scale}}}\n        gadget: {{dimension: s, scale: 2}}\n"
    )
    claims = "claims:\n  - id: took\n    kind: borrowed\n    value: 3\n    unit: gadget\n    source: {title: a log}\n    status: lead\n"
    write_tree(tmp_path, {"mkdocs.yml": config, "claims/a.yaml": claims})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "Traceback" not in result.errors
    lines = [line for line in result.output.splitlines() if ": invalid: " in line]
    assert len(lines) == 1 and "widget" in lines[0] and said in lines[0], result.output  # gadget still declared
    assert "positive number" not in lines[0]
