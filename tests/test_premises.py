"""What a claim rests on: a retirement needs measured evidence, and a page may forbid leads."""

from __future__ import annotations

import pytest
from helpers import MEASURED, SPEEDUP_ROWS, a_run, ledger, run_ledger, write_tree

from generator.judging.leads import forbids_leads

RETIRED = """
  - id: killer-claim
    kind: borrowed
    value: 1.26
    unit: "×"
    source: {title: a write-up}
    status: refuted
    refuted_by: [RETIRER]
"""
OTHER_BORROWED = """
  - id: other-write-up
    kind: borrowed
    value: 3.59
    unit: "×"
    source: {title: another write-up}
    STATUS
"""


def test_a_refutation_by_a_measured_claim_passes(tmp_path):
    assert ledger(tmp_path, MEASURED + RETIRED.replace("RETIRER", "moe-speedup-b16")).exit_code == 0


@pytest.mark.parametrize(
    "status, why",
    [
        ("status: lead", "is a lead"),
        ("checked_by: [{claim: moe-speedup-b16, expects: '> 1'}]", "is borrowed, and no check here agrees with it"),
        ("status: refuted\n    refuted_by: [killer-claim]", "is refuted"),
    ],
)
def test_borrowed_claims_refuting_each_other_fail_unsupported_refutation(tmp_path, status, why):
    claims = MEASURED + RETIRED.replace("RETIRER", "other-write-up") + OTHER_BORROWED.replace("STATUS", status)
    result = ledger(tmp_path, claims)
    assert result.exit_code == 1 and not result.errors
    assert (
        f"claims/moe.yaml:21: killer-claim: unsupported-refutation: refuted by other-write-up, which {why}; a "
        "retirement must rest on a fresh measured run\n"
        "  fix: name a claim measured here (or one a measured check agrees with) in `refuted_by`, or keep the claim "
        "as a lead with a note until something here settles it\n"
    ) in result.output


def test_a_refutation_by_a_borrowed_claim_a_measurement_agrees_with_passes(tmp_path):
    agreed = OTHER_BORROWED.replace("STATUS", "checked_by: [{claim: moe-speedup-b16, expects: within 1.05x}]")
    assert ledger(tmp_path, MEASURED + RETIRED.replace("RETIRER", "other-write-up") + agreed).exit_code == 0


def test_a_refutation_by_a_stale_claim_fails(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    (tmp_path / "probes/toy.py").write_text("print('edited')\n")
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + RETIRED.replace("RETIRER", "moe-speedup-b16")})
    result = run_ledger("check", cwd=tmp_path)
    assert (
        "killer-claim: unsupported-refutation: refuted by moe-speedup-b16, which is stale (probe-changed)"
    ) in result.output


def test_every_claim_named_as_a_retirer_must_reach_a_measured_run(tmp_path):
    claims = (
        MEASURED
        + RETIRED.replace("RETIRER", "moe-speedup-b16, other-write-up")
        + OTHER_BORROWED.replace("STATUS", "status: lead")
    )
    assert "refuted by other-write-up, which is a lead" in ledger(tmp_path, claims).output


LEAD = """
  - id: hub-requests
    kind: borrowed
    status: lead
    value: 143141
    unit: requests
    source: {title: serving hub statistics}
"""
PAGE = '---\nledger: {leads: forbid}\n---\n# Conclusions\n\nMeasured: {{ claim("moe-speedup-b16") }}; hub: {{ claim("hub-requests") }}.\n'


def test_a_lead_cited_on_a_page_that_forbids_leads_fails_with_file_line_and_column(tmp_path):
    result = ledger(tmp_path, MEASURED + LEAD, **{"docs/conclusions.md": PAGE})
    assert result.exit_code == 1 and not result.errors
    assert (
        "docs/conclusions.md:6:48: lead-premise: cites hub-requests, a lead, on a page whose front matter forbids "
        "leads (`ledger: {leads: forbid}`)\n"
        "  fix: cite a claim checked here instead, check hub-requests here and make it asserted, or move the "
        "sentence to a page that allows leads\n"
    ) in result.output
    assert "moe-speedup-b16" not in result.output.split("lead-premise")[0]


def test_a_page_that_allows_leads_may_cite_one(tmp_path):
    page = PAGE.replace("leads: forbid", "leads: allow")
    assert ledger(tmp_path, MEASURED + LEAD, **{"docs/conclusions.md": page}).exit_code == 0
    write_tree(tmp_path, {"docs/conclusions.md": PAGE.split("---\n", 2)[2]})  # no front matter at all
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


@pytest.mark.parametrize(
    "front, message",
    [
        ("ledger: {leads: maybe}\n", "docs/p.md:2: invalid: front matter `ledger: leads:` is 'maybe'"),
        ("ledger: forbid\n", "docs/p.md:2: invalid: front matter `ledger:` must be a mapping with `leads:`"),
        ("title: t\nledger: {lead: forbid}\n", "docs/p.md:3: invalid: front matter `ledger:` must be a mapping"),
        ("title: [unclosed\n", "docs/p.md:3: invalid: front matter: malformed YAML"),
        ("ledger: &a {leads: forbid}\nx: *a\n", "docs/p.md:3: invalid: front matter: YAML aliases"),  # at the *a
    ],
)
def test_a_malformed_ledger_front_matter_is_invalid_never_silently_allowing_leads(tmp_path, front, message):
    page = f'---\n{front}---\n{{{{ claim("hub-requests") }}}}\n'
    result = ledger(tmp_path, MEASURED + LEAD, **{"docs/p.md": page})
    assert result.exit_code == 1 and not result.errors
    assert message in result.output


@pytest.mark.parametrize(
    "text, forbids",
    [
        ("---\nledger: {leads: forbid}\n---\n", True),
        ("---\nledger:\n  leads: forbid\n...\n", True),
        ("---\ntitle: x\n---\n", False),
        ("# no front matter\n---\nledger: {leads: forbid}\n---\n", False),
        ("---\nledger: {leads: forbid}\n", False),  # never closed: not front matter (MkDocs reads it as text)
    ],
)
def test_the_front_matter_says_whether_a_page_forbids_leads(text, forbids):
    assert forbids_leads(text, "docs/p.md") == (forbids, [])
