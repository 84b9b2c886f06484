"""Numbers that mean what they say (issue 28), in a fresh `ledger init` project: formulas evaluated in
units, inputs judged by what moves the result, project units that cannot respell known ones."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import run_ledger, write_tree

SOURCE = "git+https://example.invalid/evidence-ledger@0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("init") / "hashes"
    result = run_ledger("init", str(root), "--source", SOURCE, cwd=root.parent)
    assert result.exit_code == 0, result.errors
    return root


@pytest.fixture
def project(made, tmp_path) -> Path:
    """A copy of the init project for one test to edit."""
    copy = tmp_path / "p"
    shutil.copytree(made, copy)
    return copy


def measured(root: Path) -> dict[str, dict]:
    claims = yaml.safe_load((root / "claims/hashing.yaml").read_text())["claims"]
    return {c["id"]: c for c in claims if c["kind"] == "measured"}


def add_claims(root: Path, text: str) -> str:
    write_tree(root, {"claims/extra.yaml": "claims:\n" + text})
    return run_ledger("check", cwd=root).output


def extrapolated(claim_id: str, formula: str, inputs: dict[str, str], value: float, unit: str) -> str:
    shown = ", ".join(f"{name}: {target}" for name, target in inputs.items())
    return (
        f"  - id: {claim_id}\n    kind: extrapolated\n    formula: {formula}\n    inputs: {{{shown}}}\n"
        f'    value: {value!r}\n    unit: "{unit}"\n    tolerance: 0.5%\n'
    )


def throughputs(project: Path) -> tuple[float, float, dict[str, str]]:
    """The two hashing throughputs as a formula reads them (their computed values: the stated ones are
    rounded), and inputs naming them s and b."""
    computed = json.loads(run_ledger("check", "--format", "json", cwd=project).output)["verdicts"]
    sha, blake = computed["sha256-1mib-throughput"]["computed"], computed["blake2b-1mib-throughput"]["computed"]
    return sha, blake, {"s": "sha256-1mib-throughput", "b": "blake2b-1mib-throughput"}


def test_a_percent_formula_gives_the_percentage_or_fails(project):
    sha, blake, inputs = throughputs(project)
    share = 1 - sha / blake  # a plain fraction
    right = extrapolated("gap-right", "1 - s / b", inputs, round(100 * share, 4), "%")
    as_fraction = extrapolated("gap-fraction", "1 - s / b", inputs, round(share, 6), "%")
    output = add_claims(project, right + as_fraction)
    assert "gap-right:" not in output
    found = re.search(r"gap-fraction: formula-drifted: stated (\S+)%, formula gives (\S+)%", output)
    assert found, output  # the quantity in %, a hundred times the fraction stated with a % sign
    assert float(found[2]) == pytest.approx(100 * float(found[1]), rel=0.02)


def fix_of(output: str, claim_id: str) -> str:
    """The fix line under a claim's formula-drifted finding."""
    found = re.search(rf"{claim_id}: formula-drifted: .*\n.*\n  fix: (.*)", output)
    assert found, output
    return found[1]


@pytest.mark.parametrize("written", ["100 * (1 - s / b)", "(1 - s / b) * 100", "(1 - s / b) / 0.01"])
def test_a_percent_formula_that_converts_itself_gets_a_fix_naming_its_factor(project, written):
    sha, blake, inputs = throughputs(project)
    output = add_claims(project, extrapolated("gap", written, inputs, round(100 * (1 - sha / blake), 4), "%"))
    factor = "0.01" if "0.01" in written else "100"
    said, fix = fix_of(output, "gap").split(", the stated value: ")
    assert said.startswith("the formula's plain numbers give ")
    assert fix == (
        f"it converts units itself with the factor {factor}, but a formula is evaluated in its inputs' units and its "
        f"result converted to '%', so drop that factor from `{written}`"
    )


def test_a_fraction_stated_under_percent_gets_a_fix_that_states_the_percentage(project):
    sha, blake, inputs = throughputs(project)
    share = round(1 - sha / blake, 6)
    output = add_claims(project, extrapolated("gap-fraction", "1 - s / b", inputs, share, "%"))
    fix = fix_of(output, "gap-fraction")
    assert "conversion factor" not in fix and "drop" not in fix, fix  # the formula writes none
    found = re.fullmatch(
        r"the formula's plain numbers give (\S+), the stated value in its inputs' units; in '%' that is (\S+)%: "
        r"state the value in '%' \(`ledger accept gap-fraction` writes (\S+)\), or state the claim as a plain "
        r"ratio \(`unit: '×'`\)",
        fix,
    )
    assert found, fix
    assert float(found[1]) == pytest.approx(share, rel=1e-3) and found[2] == found[3]
    assert float(found[3]) == pytest.approx(100 * share, rel=1e-3)  # the percentage, never a hundredfold one


def test_a_formula_in_another_dimension_than_its_unit_is_refused_naming_both(project):
    output = add_claims(project, extrapolated("per-s", "1 / r", {"r": "sha256-1mib-throughput"}, 1.0, "ms"))
    assert "per-s: invalid: formula 1 / r gives seconds per byte, but the claim's unit 'ms' is seconds" in output
    assert "per-s: formula-drifted" not in output  # no value is computed in a unit it does not have


def test_a_formula_converts_between_units_of_one_dimension(project):
    rate = measured(project)["sha256-1mib-throughput"]["value"]  # GB/s
    inputs = {"r": "sha256-1mib-throughput"}
    claims = extrapolated("mb-per-s", "r", inputs, round(rate * 1000, 1), "MB/s")
    claims += extrapolated("ms-per-mib", "1 / r", inputs, round(1048.576 / (rate * 1000) * 1, 4), "ms/MiB")
    output = add_claims(project, claims)
    assert "mb-per-s:" not in output and "ms-per-mib:" not in output, output


def generated(seed: int) -> tuple[str, str, bool]:
    """A formula over the two throughputs (dimensionless, as a ratio of them) that depends on both, or
    one that flattens, clamps or cancels `s`; (formula, the input it loses or "", whether it loses one)."""
    rng = random.Random(seed)
    # depends on s at any ratio of the two throughputs: a sum of a rising and a falling power (as before) has a
    # minimum where doubling or halving s moves it less than the tolerance, at a ratio a loaded machine can measure
    p = rng.choice((1, 2, -1, -2, 1.5))
    depends = f"{rng.uniform(0.5, 2):.3f} * (s / b) ** {p}"
    losing = [
        f"(b / b) ** {p} * {rng.uniform(0.5, 2):.3f} + (s - s) / b",  # cancels
        f"{rng.uniform(0.5, 2):.3f} * (s / b) ** 1e-12",  # flattens
        "max(s, 1000 * b) / b",  # clamps: s never reaches a thousand times b
        f"{rng.uniform(0.5, 2):.3f} + (s + b - s) / b",  # cancels
    ]
    if seed % 2:
        return depends, "", False
    return losing[seed // 2 % len(losing)], "sha256-1mib-throughput", True


def test_generated_formulas_that_lose_an_input_fail_unused_input_and_the_rest_pass(project):
    inputs = {"s": "sha256-1mib-throughput", "b": "blake2b-1mib-throughput"}
    cases = [generated(seed) for seed in range(16)]
    claims = "".join(
        extrapolated(f"generated-{i}", text, inputs, 1.0, "×").replace("    tolerance: 0.5%\n", "    tolerance: 50%\n")
        for i, (text, _, _) in enumerate(cases)
    )
    output = add_claims(project, claims)
    for i, (text, lost, loses) in enumerate(cases):
        found = f"generated-{i}: unused-input: input s ({lost})" if loses else f"generated-{i}: unused-input"
        assert (found in output) == loses, (text, output)


def test_one_claim_under_two_names_is_one_unused_input(project):
    inputs = {"x": "sha256-1mib-throughput", "y": "sha256-1mib-throughput", "b": "blake2b-1mib-throughput"}
    output = add_claims(project, extrapolated("twice-named", "x / y * b", inputs, 1.0, "GB/s"))
    assert (
        "twice-named: unused-input: input sha256-1mib-throughput (as x and y) does not move the result: x / y * b "
        "stays within the claim's tolerance whether sha256-1mib-throughput is multiplied (as each of x and y) by "
        "0.5 or 2"
    ) in output
    assert output.count("twice-named: unused-input") == 1


def test_a_project_unit_that_respells_a_prefixed_known_unit_is_refused_at_its_line(project):
    config = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(
        config.replace(
            "  - ledger:\n", "  - ledger:\n      units:\n        Mtok: {dimension: tokens, scale: 1000}\n", 1
        )
    )
    output = run_ledger("check", cwd=project).output
    line = next(i for i, text in enumerate((project / "mkdocs.yml").read_text().splitlines(), 1) if "Mtok" in text)
    assert (
        f"mkdocs.yml:{line}: invalid: ledger option units: Mtok: 'Mtok' reads as 'M' on 'tok' (1e+06 tok), not as "
        "declared\n  fix: declare it as `Mtok: {dimension: tok, scale: 1e+06}`, or choose a name that is not a prefix "
        "on a unit\n"
    ) in output


def restated(root: Path, claim_id: str, unit: str, value: float) -> str:
    """The claim file with one measured claim's unit and value changed, its other lines as they were."""
    path = root / "claims/hashing.yaml"
    text = path.read_text()
    start = text.index(f"- id: {claim_id} ")
    block = text[start : text.index("\n\n", start)]
    changed = re.sub(r"\n(\s+)unit: .*", rf'\n\1unit: "{unit}"', block, count=1)
    changed = re.sub(r"\n(\s+)value: .*", rf"\n\1value: {value!r}", changed, count=1)
    assert changed != block
    path.write_text(text.replace(block, changed))
    return run_ledger("check", cwd=root).output


def test_a_measured_claim_in_another_unit_of_its_dimension_is_converted(project):
    claim = measured(project)["sha256-1mib-throughput"]  # its run declares gb_per_s in GB/s
    assert claim["unit"] == "GB/s"
    output = restated(project, claim["id"], "MB/s", claim["value"] * 1000)
    assert f"{claim['id']}:" not in output, output  # the same quantity in MB/s agrees


def test_a_measured_claim_restated_in_another_scale_at_the_same_number_drifts_by_the_factor(project):
    claim = measured(project)["sha256-1mib-throughput"]
    output = restated(project, claim["id"], "MB/s", claim["value"])
    found = re.search(rf"{claim['id']}: drifted: stated (\S+) MB/s, evidence computes (\S+) MB/s", output)
    assert found, output
    stated, computed = (float(text.replace(",", "")) for text in found.groups())
    assert computed / stated == pytest.approx(1000, rel=0.05)
    assert "in 'GB/s'" in output and "converted to 'MB/s'" in output  # the detail says from what


def test_a_measured_claim_in_another_dimension_than_its_column_fails_unit_mismatch(project):
    claim = measured(project)["sha256-1mib-throughput"]
    output = restated(project, claim["id"], "ms", claim["value"])
    assert f"{claim['id']}: unit-mismatch: unit 'ms' is seconds, but " in output, output
    assert "in 'GB/s' (bytes per second)" in output  # the column's unit, and the fix names it
    assert "fix: state the claim in 'GB/s'" in output
    assert f"{claim['id']}: drifted" not in output  # no value is compared in a unit it does not have


def test_a_run_without_declared_units_still_checks_and_is_named_by_a_warning(project):
    for manifest in (project / "measurements").glob("*/*/manifest.json"):
        data = json.loads(manifest.read_text())
        data.pop("columns", None), data.pop("columns_sha256", None)
        manifest.write_text(json.dumps(data, indent=2) + "\n")
    output = run_ledger("check", cwd=project).output
    claim = measured(project)["sha256-1mib-throughput"]
    assert f"{claim['id']}: unit-undeclared: unit not declared by the run: " in output, output
    assert "(warning)" in output and " 0 failures" in output
