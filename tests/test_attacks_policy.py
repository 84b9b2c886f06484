"""The project's own policy cannot switch off integrity (issue 29, class 4). The rules that guard the
evidence's bytes or where they come from (rules.py's table marks them: `invalid`, `tampered`,
`probe-changed`, `rewritten`, `unverified-history`) cannot be made warnings, and any change to the
policy that lets something pass that failed before is flagged by `ledger diff` under *Flagged*. Real
git histories and runs, the real CLI."""

import json

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, git, run_ledger, write_tree

MKDOCS = "site_name: test\nplugins:\n  - ledger:\n      max_run_age_days: 36500\n"


def commit(root, files, message="change"):
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def repository(root):
    git(root, "init", "-q", "-b", "main")
    a_run(root, SPEEDUP_ROWS)
    return commit(root, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": MEASURED}, "base")


def rewrite_the_run(root):
    """Change a committed run's data and its manifest's hash to match (what `rewritten` catches)."""
    import hashlib

    run = next((root / "measurements/toy").iterdir())
    data = (run / "results.csv").read_text().replace("3.6", "3.61")
    (run / "results.csv").write_text(data)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"]["results.csv"]["sha256"] = hashlib.sha256(data.encode()).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


@pytest.mark.parametrize("rule", ["rewritten", "tampered", "probe-changed", "unverified-history", "invalid"])
def test_an_integrity_rule_cannot_be_made_a_warning(tmp_path, rule):
    repository(tmp_path)
    write_tree(tmp_path, {"mkdocs.yml": MKDOCS + f"      warn: [{rule}]\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "mkdocs.yml:" in result.output and rule in result.output and "Traceback" not in result.errors


def test_a_rewritten_run_fails_the_gate_whatever_the_policy_says(tmp_path):
    repository(tmp_path)
    rewrite_the_run(tmp_path)
    write_tree(tmp_path, {"mkdocs.yml": MKDOCS + "      warn: [rewritten, tampered]\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "rewritten" in result.output
    assert "0 failures" not in result.output.splitlines()[-1]


def test_a_tampered_run_fails_the_gate_whatever_the_policy_says(tmp_path):
    repository(tmp_path)
    run = next((tmp_path / "measurements/toy").iterdir())
    (run / "results.csv").write_text((run / "results.csv").read_text().replace("3.6", "3.61"))
    write_tree(tmp_path, {"mkdocs.yml": MKDOCS + "      warn: [tampered, rewritten]\n"})
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "tampered" in result.output, result.output


def flagged(root, base, head):
    result = run_ledger("diff", base, head, "--format", "json", cwd=root)
    assert result.exit_code == 0, result.errors
    return {flag["claim"]: flag for flag in json.loads(result.output)["flags"]}


@pytest.mark.parametrize(
    "setting, flagged_as",
    [
        ("      warn: [drifted]\n", "mkdocs.yml: warn"),
        ("      warn: [too-old, unbound-number]\n", "mkdocs.yml: warn"),
        ("      default_tolerance: 50%\n", "mkdocs.yml: default_tolerance"),
        ("      check_tolerance: 40%\n", "mkdocs.yml: check_tolerance"),
        ("      max_tolerance: 50%\n      default_tolerance: 20%\n", "mkdocs.yml: default_tolerance"),
        ("      max_check_factor: 10\n", "mkdocs.yml: max_check_factor"),
        ("      claims_dir: elsewhere\n", "mkdocs.yml: claims_dir"),
    ],
)
def test_a_policy_change_that_weakens_a_rule_is_flagged(tmp_path, setting, flagged_as):
    base = repository(tmp_path)
    head = commit(tmp_path, {"mkdocs.yml": MKDOCS + setting})
    assert flagged_as in flagged(tmp_path, base, head)


def test_a_policy_change_that_makes_a_warning_a_failure_is_not_flagged(tmp_path):
    base = repository(tmp_path)
    head = commit(tmp_path, {"mkdocs.yml": MKDOCS.replace("36500", "3650") + "      fail: [moved-since-cited]\n"})
    assert not [claim for claim in flagged(tmp_path, base, head) if claim.startswith("mkdocs.yml")]


def test_a_shorter_maximum_age_turned_longer_again_is_flagged(tmp_path):
    repository(tmp_path)
    base = commit(tmp_path, {"mkdocs.yml": MKDOCS.replace("36500", "30")})
    head = commit(tmp_path, {"mkdocs.yml": MKDOCS})
    assert "mkdocs.yml: max_run_age_days" in flagged(tmp_path, base, head)
