"""The friction a new user met, each item held: findings alike but for their place print once with a count
in the text output (every one with --full, and always in JSON and GitHub annotations)."""

import json

from helpers import RUN_TIME, run_ledger, write_tree
from helpers_rounds import claim, noisy, rounds_run


def test_findings_alike_but_for_their_place_print_once_with_their_count_and_full_lists_each(tmp_path):
    run = rounds_run(tmp_path, {b: noisy(b * 1.0, cv=0.01, seed=b) for b in (1, 2, 4, 8, 16)}, when=RUN_TIME)
    items = [claim(f"c{b}", run, f"{b}", batch=b) for b in (1, 2, 4, 8, 16)]
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + "".join(items)})
    assert run_ledger("check", "--no-cache", cwd=tmp_path).exit_code == 0
    results = tmp_path / run / "results.csv"
    results.write_text(results.read_text() + "\n")  # one hand edit: every claim citing the run is tampered
    short = run_ledger("check", cwd=tmp_path)
    full = run_ledger("check", "--full", cwd=tmp_path)
    assert short.exit_code == full.exit_code == 1
    assert short.output.count(": tampered: ") == 1
    assert "  … and 4 more alike at other claims or places (`ledger check --full` lists each)" in short.output
    assert full.output.count(": tampered: ") == 5 and "more alike" not in full.output
    assert short.output.splitlines()[-1] == full.output.splitlines()[-1]  # the summary counts all five
    assert "5 tampered" in short.output.splitlines()[-1]
    found = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)["findings"]
    assert [f["claim"] for f in found if f["rule"] == "tampered"] == ["c1", "c2", "c4", "c8", "c16"]
    github = run_ledger("check", "--format", "github", cwd=tmp_path).output
    assert github.count("tampered") >= 5


def test_two_findings_alike_still_print_each(tmp_path):
    run = rounds_run(tmp_path, {b: noisy(b * 1.0, cv=0.01, seed=b) for b in (1, 2)}, when=RUN_TIME)
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + claim("c1", run, "1", batch=1) + claim("c2", run, "2", batch=2)})
    results = tmp_path / run / "results.csv"
    results.write_text(results.read_text() + "\n")
    short = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert short.output.count(": tampered: ") == 2 and "more alike" not in short.output


def test_an_uncited_run_whose_probe_is_gone_is_said_and_one_whose_helper_is_gone_is_history(tmp_path):
    from helpers import a_run

    kept = a_run(tmp_path, [{"batch": 1, "speedup": 1.0}])
    write_tree(tmp_path, {"claims/a.yaml": "claims: []\n"})
    assert "orphaned-run" not in run_ledger("check", "--no-cache", cwd=tmp_path).output
    (tmp_path / "probes/toy.py").unlink()  # the probe renamed away: nothing can measure the run again
    checked = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert checked.exit_code == 0  # a warning by default
    assert (
        f"{kept}/manifest.json: orphaned-run: run {kept}: its code probes/toy.py no longer exists, and no claim "
        "cites the run (warning)"
    ) in checked.output
    assert "fix: restore the code (`git log --diff-filter=D -- probes/toy.py` finds it), or delete the run" in (
        checked.output
    )
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      fail: [orphaned-run]\n"})
    assert run_ledger("check", "--no-cache", cwd=tmp_path).exit_code == 1


def test_a_number_right_after_a_settings_name_is_its_label_and_a_count_elsewhere_a_figure(tmp_path):
    """'config 4 runs 3× slower': configuration 4, no typed figure but 3×; 'we made 9 runs' is a figure; a
    setting's number before a unit other than a counted thing stays a figure ('level 3 GB/s')."""
    config = "site_name: t\nplugins:\n  - ledger\n"
    pages = {
        "docs/label.md": "# Label\n\nConfig 4 runs at level 2 steps; preset #3 runs too.\n",
        "docs/count.md": "# Count\n\nWe made 9 runs.\n",
        "docs/unit.md": "# Unit\n\nAt level 3 GB/s it stalls.\n",
    }
    write_tree(tmp_path, {"mkdocs.yml": config, "claims/a.yaml": "claims: []\n", **pages})
    found = json.loads(run_ledger("check", "--format", "json", "--no-cache", cwd=tmp_path).output)["findings"]
    typed = sorted((f["path"], f["problem"].split("'")[1]) for f in found if f["rule"] == "unbound-number")
    assert typed == [("docs/count.md", "9 runs"), ("docs/unit.md", "3 GB/s")], typed


def test_a_value_in_mb_stated_in_mib_inside_its_tolerance_is_asked_did_you_mean_and_no_surface_gets_it(tmp_path):
    """4.9% apart, inside a 5% tolerance: the gate agreed and refresh --write copied 'MiB/s' into the README."""
    from helpers import a_run

    from generator.runs import Column

    run = a_run(
        tmp_path, [{"size": 1, "rate": 500.0}], columns={"size": Column("", "exact"), "rate": Column("MB/s", "exact")}
    )
    item = (
        "\n  - id: rate\n    value: VALUE\n    unit: UNIT\n    kind: measured\n    testbed: linux-cpu\n"
        f"    evidence: {{run: {run}, file: results.csv, where: {{size: 1}}, column: rate}}\n    tolerance: 5%\n"
    )
    readme = "# R\n\nRate: <!-- ledger: rate -->old<!-- /ledger -->.\n"
    config = "site_name: t\nplugins:\n  - ledger:\n      surfaces: [README.md]\n"
    write_tree(tmp_path, {"mkdocs.yml": config, "README.md": readme})
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + item.replace("VALUE", "500").replace("UNIT", "MiB/s")})
    checked = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert checked.exit_code == 1
    assert "rate: unit-mismatch: stated 500 is what the evidence computes in 'MB/s' (500 MB/s), not in 'MiB/s' (" in (
        checked.output
    )
    assert "did you mean 'MB/s'?" in checked.output
    run_ledger("refresh", "--write", cwd=tmp_path)
    assert (tmp_path / "README.md").read_text() == readme  # no surface written from it
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + item.replace("VALUE", "500").replace("UNIT", "MB/s")})
    assert run_ledger("check", "--no-cache", cwd=tmp_path).exit_code == 1  # the README still says 'old'
    run_ledger("refresh", "--write", cwd=tmp_path)
    assert "<!-- ledger: rate -->500 MB/s<!-- /ledger -->" in (tmp_path / "README.md").read_text()
    assert run_ledger("check", "--no-cache", cwd=tmp_path).exit_code == 0
    write_tree(tmp_path, {"claims/a.yaml": "claims:" + item.replace("VALUE", "477").replace("UNIT", "MiB/s")})
    found = run_ledger("check", "--no-cache", cwd=tmp_path).output  # 500 MB/s is 476.8 MiB/s: it agrees
    assert "did you mean" not in found and ": rate: " not in found  # (the README's '500 MB/s' is another matter)


def test_an_unbound_number_a_claim_states_names_that_claim_in_its_fix(tmp_path):
    from helpers import MEASURED, SPEEDUP_ROWS, a_run

    a_run(tmp_path, SPEEDUP_ROWS)
    page = "# P\n\nThe speedup is 3.59× at 16, and 7.5× elsewhere.\n"
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED, "docs/index.md": page})
    found = json.loads(run_ledger("check", "--format", "json", "--no-cache", cwd=tmp_path).output)["findings"]
    fixes = {f["problem"].split("'")[1]: f["fix"] for f in found if f["rule"] == "unbound-number"}
    assert fixes["3.59×"].startswith('cite {{ claim("moe-speedup-b16") }}, which states 3.59×; or mark a label')
    assert fixes["7.5×"].startswith("cite the claim that holds it with")
