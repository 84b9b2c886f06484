"""A fresh `ledger init` project, as a new user takes it further: a lead and a borrowed claim with an
inconclusive check build and verify; a build that fails (a crash planted in a figure
module, a warning under --strict) leaves the previous site/ byte for byte as it was, as a failing
`ledger pages` leaves its folder; a figure glued to the README's marker fails at its line and column."""

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import init_project, run_ledger, run_mkdocs, write_tree
from helpers_site import article

pytestmark = pytest.mark.site


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """One project made by `ledger init`; each test works on a copy of it."""
    return init_project(tmp_path_factory)


def copy_of(fresh: Path, tmp_path: Path) -> Path:
    root = tmp_path / "hashes"
    shutil.copytree(fresh, root)
    return root


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def left_beside(root: Path) -> list[str]:
    """What a build left beside the folders it replaces (staged.py's new and old folders)."""
    return sorted(p.name for p in root.iterdir() if ".ledger-" in p.name)


def example(root: Path) -> tuple[dict, str, float]:
    """The init claims by id, the cited run, and its SHA-256 rate as the run wrote it (every digit)."""
    claims = {c["id"]: c for c in yaml.safe_load((root / "claims/hashing.yaml").read_text())["claims"]}
    run = claims["sha256-1mib-throughput"]["evidence"]["run"]
    with open(root / run / "results.csv", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if (r["algorithm"], r["size_kib"]) == ("sha256", "1024"))
    return claims, run, float(row["gb_per_s"])


def inconclusive_claims(root: Path) -> str:
    """A lead demoted from an unconfirmed figure and an asserted borrowed claim, each with a check whose band (within 1.0001x of the measured median) is far narrower than the measurement's
    interval: inconclusive, however quiet the machine. The asserted one's other check agrees with its
    source's bound (init's, at or below the run's slowest round)."""
    claims, run, rate = example(root)
    testbed, floor = claims["sha256-1mib-throughput"]["testbed"], claims["sha256-timeit-estimate"]["states"]
    narrow = "{claim: sha256-1mib-again, expects: 'within 1.0001x'}"
    borrowed = f"    kind: borrowed\n    unit: GB/s\n    testbed: {testbed}\n    source: {{title: a log line}}\n"
    return f"""claims:
  - id: sha256-1mib-again
    statement: the same row as sha256-1mib-throughput, cited again
    value: {claims["sha256-1mib-throughput"]["value"]}
    unit: GB/s
    kind: measured
    testbed: {testbed}
    evidence: {{run: {run}, file: results.csv, where: {{algorithm: sha256, size_kib: 1024}}, column: gb_per_s}}
    tolerance: 5%
  - id: demoted-estimate
    value: {rate!r}
    status: lead
{borrowed}    checked_by: [{narrow}]
  - id: two-checks
    value: {rate!r}
    states: "{floor}"
{borrowed}    checked_by: [sha256-1mib-throughput, {narrow}]
"""


INCONCLUSIVE = '<span class="ledger-badge ledger-badge--inconclusive">inconclusive</span>'


def test_a_lead_and_a_borrowed_claim_with_an_inconclusive_check_build_and_verify(fresh, tmp_path):
    root = copy_of(fresh, tmp_path)
    cited = " ".join(f'{{{{ claim("{i}") }}}}' for i in ("demoted-estimate", "two-checks"))
    write_tree(root, {"claims/inconclusive.yaml": inconclusive_claims(root), "docs/more.md": f"# More\n\n{cited}\n"})
    checked = run_ledger("check", "--format", "json", cwd=root)
    assert checked.exit_code == 0, checked.output
    strengths = {i: v["strength"] for i, v in json.loads(checked.output)["verdicts"].items()}
    assert strengths["demoted-estimate"] == "inconclusive" and strengths["two-checks"] == "agrees"

    built = run_mkdocs("build", "--strict", cwd=root)
    assert built.exit_code == 0, built.errors
    assert "Traceback" not in built.errors
    verified = run_ledger("verify-site", "site", cwd=root)
    assert verified.exit_code == 0, verified.output
    for claim_id in ("demoted-estimate", "two-checks"):
        checks = article(root / "site", f"claim/{claim_id}").split("<th>verdict</th>", 1)[1]
        assert checks.count(INCONCLUSIVE) == 2, claim_id  # its strength and its verdict
        assert "the measurement&#x27;s 99" in checks and "is wider than a factor of 1.0001" in checks, claim_id
    index = article(root / "site", "claims")
    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*claim/demoted-estimate/(?:(?!</tr>).)*</tr>", index, re.S)
    assert row is not None and INCONCLUSIVE in row.group(0)
    shown = run_ledger("show", "two-checks", cwd=root)
    assert "(borrowed, agrees, fresh)" in shown.output.splitlines()[0]
    assert "checked by (inconclusive: within 1.0001× of the claim, the measurement's" in shown.output


def plant_crash(root: Path) -> None:
    figures = root / "figures/hashing.py"
    text = figures.read_text()
    figures.write_text(
        text.replace("    frame = data.frame(", "    raise RuntimeError('planted')\n    frame = data.frame(", 1)
    )


def test_a_build_that_fails_leaves_the_previous_site_byte_for_byte_as_it_was(fresh, tmp_path):
    root = copy_of(fresh, tmp_path)
    assert run_mkdocs("build", "--strict", cwd=root).exit_code == 0
    before = tree_bytes(root / "site")
    assert "index.html" in before and left_beside(root) == []

    plant_crash(root)
    failed = run_mkdocs("build", "--strict", cwd=root)
    assert failed.exit_code == 1
    assert "table 'hash-throughput' raised RuntimeError: planted" in failed.errors
    assert tree_bytes(root / "site") == before
    assert left_beside(root) == []

    (root / "figures/hashing.py").write_text((fresh / "figures/hashing.py").read_text())
    write_tree(root, {"docs/index.md": (fresh / "docs/index.md").read_text() + "\n[a page](nowhere.md)\n"})
    warned = run_mkdocs("build", "--strict", cwd=root)  # MkDocs stops after the last plugin event
    assert warned.exit_code == 1 and "Aborted with 1 warnings in strict mode!" in warned.output
    assert tree_bytes(root / "site") == before
    assert left_beside(root) == []


def test_a_ledger_pages_that_fails_leaves_its_folder_as_it_was(fresh, tmp_path):
    root = copy_of(fresh, tmp_path)
    assert run_ledger("pages", "built-docs", cwd=root).exit_code == 0
    write_tree(root, {"built-docs/notes.txt": "the builder's own file\n"})
    before = tree_bytes(root / "built-docs")
    plant_crash(root)
    failed = run_ledger("pages", "built-docs", cwd=root)
    assert failed.exit_code == 1
    assert "table 'hash-throughput' raised RuntimeError: planted" in failed.errors
    assert failed.output.startswith("wrote nothing: 1 figure problem (6 claims")
    assert tree_bytes(root / "built-docs") == before
    assert left_beside(root) == []


def test_a_figure_glued_to_the_readme_marker_fails_at_its_line_and_column(fresh, tmp_path):
    root = copy_of(fresh, tmp_path)
    readme = (root / "README.md").read_text()
    lines = readme.splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("<!-- ledger: sha256-1mib-throughput -->"))
    (root / "README.md").write_text(readme.replace("<!-- ledger: sha256", "2<!-- ledger: sha256", 1))
    checked = run_ledger("check", cwd=root)
    assert checked.exit_code == 1
    assert checked.output.startswith(
        f"README.md:{line}:1: surface-drifted: '2' is written against the marker of sha256-1mib-throughput: "
        "a reader sees '2"
    )
    built = run_mkdocs("build", "--strict", cwd=root)
    assert built.exit_code == 1 and "1 failure: 1 surface-drifted" in built.errors
