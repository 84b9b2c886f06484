"""`ledger accept`: takes the computed value into a drifted claim and changes nothing else."""

from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, run_ledger, write_tree

COMMENTED = """
# Figures for the MoE section. Keep the comments: reviewers read them.
claims:
  - id: moe-speedup-b16          # the headline
    statement: >
      MoE expert reads get faster per token
      at B=16 than at B=1
    value: 3.59   # was 3.2 before the probe fix
    unit: "×"
    kind: measured
    evidence: {run: measurements/toy/2026-11-29T10-00-00Z-linux-cpu, file: results.csv, where: {batch: 16}, column: speedup}
  - id: predicted
    kind: extrapolated
    formula: 2 * s
    inputs: {s: moe-speedup-b16}
    value: 7.18
"""


def test_accept_rewrites_only_the_value_and_keeps_comments_and_layout(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.2143}])
    write_tree(tmp_path, {"claims/moe.yaml": COMMENTED})
    before = (tmp_path / "claims/moe.yaml").read_text()
    result = run_ledger("accept", "moe-speedup-b16", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert result.output == "claims/moe.yaml:7: moe-speedup-b16: value 3.59 -> 3.21 (computed 3.2143)\n"
    after = (tmp_path / "claims/moe.yaml").read_text()
    assert after == before.replace("value: 3.59   # was 3.2", "value: 3.21   # was 3.2")
    # The dependent extrapolation now drifts in turn (from the input's computed value, not its
    # rounded stated one), and is accepted the same way.
    assert (
        run_ledger("accept", "predicted", cwd=tmp_path).output
        == "claims/moe.yaml:15: predicted: value 7.18 -> 6.43 (computed 6.4286)\n"
    )
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_accept_fills_in_a_missing_value_under_kind(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace("    value: 3.59\n", "")})
    result = run_ledger("check", cwd=tmp_path)
    assert "claims/moe.yaml:2: moe-speedup-b16: drifted: no value stated; evidence computes 3.6×" in result.output
    assert run_ledger("accept", "moe-speedup-b16", cwd=tmp_path).exit_code == 0
    text = (tmp_path / "claims/moe.yaml").read_text()
    assert "    kind: measured\n    value: 3.600\n    testbed: linux-cpu\n" in text
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_accept_refuses_values_from_stale_evidence(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.0}])
    (tmp_path / "probes/toy.py").write_text("print('edited')\n")
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    before = (tmp_path / "claims/moe.yaml").read_bytes()
    result = run_ledger("accept", "moe-speedup-b16", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.errors.startswith(
        "ledger: claims/moe.yaml:2: moe-speedup-b16: accept: cannot accept a value from "
        "stale evidence (probe-changed: probes/toy.py changed since the run"
    )
    assert result.errors.endswith(
        "\n  fix: mend what makes the evidence stale first (`ledger check` names each), then accept\n"
    )
    assert (tmp_path / "claims/moe.yaml").read_bytes() == before


def test_accept_on_an_agreeing_claim_changes_nothing(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    result = run_ledger("accept", "moe-speedup-b16", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.errors == (
        "ledger: claims/moe.yaml:2: moe-speedup-b16: accept: nothing to accept (its value agrees with its evidence)\n"
        "  fix: nothing to do; accept is for a stated value its evidence no longer computes\n"
    )


def test_accept_dry_run_writes_nothing(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.0}])
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    before = (tmp_path / "claims/moe.yaml").read_bytes()
    result = run_ledger("accept", "--dry-run", "moe-speedup-b16", cwd=tmp_path)
    assert result.output == "would change claims/moe.yaml:4: moe-speedup-b16: value 3.59 -> 3.00 (computed 3.0)\n"
    assert (tmp_path / "claims/moe.yaml").read_bytes() == before


def test_accept_unknown_id_is_a_usage_error(tmp_path):
    write_tree(tmp_path, {"claims/a.yaml": "claims: []\n"})
    result = run_ledger("accept", "nope", cwd=tmp_path)
    assert (result.exit_code, result.errors) == (2, "ledger: no claim 'nope'\n")
    assert RUN  # the toy run path is shared with the other tests


DEPENDENT = """
  - id: doubled
    kind: extrapolated
    formula: 2 * s
    inputs: {s: moe-speedup-b16}
    value: 7.0
    unit: "×"
"""


def test_accept_takes_several_claims_inputs_first_whatever_the_order_named(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.0}])
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + DEPENDENT})
    result = run_ledger("accept", "doubled", "moe-speedup-b16", cwd=tmp_path)
    assert (result.exit_code, result.errors) == (0, "")
    assert result.output == (
        "claims/moe.yaml:4: moe-speedup-b16: value 3.59 -> 3.00 (computed 3.0)\n"
        "claims/moe.yaml:19: doubled: value 7.0 -> 6.00 (computed 6.0)\n"
    )
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_accept_says_per_claim_what_it_did_not_accept_and_accepts_the_rest(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.0}])
    agreeing = DEPENDENT.replace("doubled", "agrees").replace("value: 7.0", "value: 6.0")
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + agreeing})
    result = run_ledger("accept", "nope", "moe-speedup-b16", "agrees", cwd=tmp_path)
    assert result.exit_code == 1  # some accepted, some not
    assert result.output == "claims/moe.yaml:4: moe-speedup-b16: value 3.59 -> 3.00 (computed 3.0)\n"
    assert result.errors == (
        "ledger: no claim 'nope'\n"
        "ledger: claims/moe.yaml:15: agrees: accept: nothing to accept (its value agrees with its evidence)\n"
        "  fix: nothing to do; accept is for a stated value its evidence no longer computes\n"
    )
    assert "value: 3.00" in (tmp_path / "claims/moe.yaml").read_text()


def test_accept_fills_in_a_new_claims_value_written_as_a_tilde_in_place(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace("    value: 3.59\n", "    value: ~   # new: fill me\n")})
    checked = run_ledger("check", cwd=tmp_path)
    assert "invalid" not in checked.output  # `value: ~` is a claim to fill in, not a bad value
    assert "claims/moe.yaml:2: moe-speedup-b16: drifted: no value stated; evidence computes 3.6×" in checked.output
    assert run_ledger("accept", "moe-speedup-b16", cwd=tmp_path).exit_code == 0
    text = (tmp_path / "claims/moe.yaml").read_text()
    assert "    value: 3.600   # new: fill me\n" in text and text.count("value:") == 1
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_accept_dry_run_says_a_dependent_is_judged_once_its_input_is_written(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": 3.0}])
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + DEPENDENT})
    before = (tmp_path / "claims/moe.yaml").read_bytes()
    result = run_ledger("accept", "--dry-run", "moe-speedup-b16", "doubled", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output == "would change claims/moe.yaml:4: moe-speedup-b16: value 3.59 -> 3.00 (computed 3.0)\n"
    assert result.errors == (
        "ledger: claims/moe.yaml:15: doubled: accept: rests on moe-speedup-b16, which this accept would change "
        "first: judged once that is written\n  fix: run it without --dry-run, or accept moe-speedup-b16\n"
    )
    assert (tmp_path / "claims/moe.yaml").read_bytes() == before
