"""One record per claim (ClaimVerdict): the gate decides it once and every display reads it; no unit or
tolerance is parsed after load; `ledger check --format json` gives the verdicts as data."""

import json
import sys
from datetime import datetime, timedelta, timezone

import pytest
from helpers import MEASURED, RUN, RUN_TIME, SPEEDUP_ROWS, a_run, run_ledger, verdict_of, write_tree

from generator.gate import check_project
from generator.lang import units
from generator.lang.values import Tolerance
from generator.records import AssertResult, CheckResult, CheckSpec, Claim, ClaimInterval, Evidence, Report, Source

PROMPTS = """site_name: t
plugins:
  - ledger:
      units:
        prompts: {dimension: prompts}
"""
COUNTED = """
claims:
  - id: prompts-served
    kind: measured
    value: 1234567
    unit: prompts
    statement: prompts served in the run
    evidence: {run: RUN, file: results.csv, where: {batch: 1}, column: served}
  - id: tokens-served
    kind: measured
    value: 1234567
    unit: tokens
    statement: tokens served in the run
    evidence: {run: RUN, file: results.csv, where: {batch: 1}, column: served}
""".replace("RUN", RUN)


def test_a_project_unit_shows_with_thousands_separators_like_a_built_in_count(tmp_path):
    """The one display that changed with the record: a project's own unit is read with the project's unit
    table, so a count of it shows as a built-in count does (it showed as `1234567 prompts`)."""
    a_run(tmp_path, [{"batch": 1, "served": 1234567}])
    write_tree(tmp_path, {"mkdocs.yml": PROMPTS, "claims/c.yaml": COUNTED})
    report = check_project(tmp_path, None, RUN_TIME + timedelta(days=1))
    assert report.ok, report.failures
    for claim_id, unit in (("prompts-served", "prompts"), ("tokens-served", "tokens")):
        assert run_ledger("show", claim_id, cwd=tmp_path).output.startswith(f"{claim_id} = 1,234,567 {unit} (")
    verdict = report.verdicts["prompts-served"]
    assert (verdict.unit.text, verdict.unit.is_count, verdict.value) == ("prompts", True, 1234567.0)


def test_check_json_gives_each_claims_verdict_as_data(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace("value: 3.59", "value: 3.0")})
    result = run_ledger("check", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert {"ok", "claims", "findings", "intervals", "no_raw_rounds", "exact", "asserts", "summary"} <= set(data)
    assert data["verdicts"] == {
        "moe-speedup-b16": {
            "kind": "measured",
            "status": "asserted",
            "testbed": "linux-cpu",
            "value": 3.0,
            "computed": 3.6,
            "unit": "×",
            "interval": None,  # the toy run keeps no raw rounds and no min–max columns
            "prediction": None,  # and it has no replicates
            "replicates": [],
            "pooled_with": [],
            "one_run": False,  # an exact value: no run-to-run variation to leave out
            "exact": True,
            "outcome": "drifted",
            "cause": "",
            "strength": "",
            "fresh": "stale",
            "failing": ["drifted"],
            "warned": [],
        }
    }


def test_check_json_verdicts_carry_the_interval_and_the_strength_of_a_check(tmp_path):
    from helpers import BORROWED_CHECKED

    rows = [{"batch": 16, "speedup": 3.6, "speedup_min": 3.5, "speedup_max": 3.7, "rounds": 7}]
    a_run(tmp_path, rows)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + BORROWED_CHECKED})
    data = json.loads(run_ledger("check", "--format", "json", cwd=tmp_path).output)
    measured, borrowed = data["verdicts"]["moe-speedup-b16"], data["verdicts"]["m1max-moe-speedup-b16"]
    interval = {"low": 3.5, "high": 3.7, "level": 0.984375, "basis": "min-max", "rounds": 7, "runs": 1}
    assert measured["interval"] == interval
    assert (measured["outcome"], measured["fresh"], measured["exact"], measured["one_run"]) == (
        "agrees",
        "fresh",
        False,
        True,
    )
    assert (borrowed["kind"], borrowed["strength"], borrowed["outcome"], borrowed["cause"]) == (
        "borrowed",
        "agrees",
        "",
        "borrowed",
    )


def _page_of(verdict) -> str:
    from generator.site.claimpage import build
    from generator.site.report_pages import Page

    page = build(Page(f"claim/{verdict.id}.md", verdict.id, True), verdict).done(in_nav=False)
    return "".join(page.slots.fragments)


def test_a_claim_page_is_built_from_its_record_alone():
    where = Source("claims/moe.yaml", 2)
    evidence = Evidence(RUN, "results.csv", (("batch", 16),), "speedup")
    measured = Claim(
        "moe-speedup",
        "measured",
        where,
        statement="MoE reads get faster at B=16",
        value=3.59,
        value_text="3.59",
        unit="×",
        evidence=evidence,
        tolerance=Tolerance("5%", relative=0.05),
        asserts="> 1",
    )
    interval = ClaimInterval(3.41, 3.79, 0.996, "rounds", 9)
    held = AssertResult("> 1", True, "its 99.6% interval is 3.41–3.79× (9 rounds)")
    html = _page_of(verdict_of(measured, value=3.6, rows=(1,), interval=interval, outcome="agrees", asserted=held))
    for shown in (
        "MoE reads get faster at B=16",
        "<strong>3.59×</strong>",  # as stated
        "<th>evidence computes</th><td>3.6×</td>",
        "<th>interval</th><td>99.6% interval 3.41–3.79× (9 rounds)</td>",
        "<th>asserts</th><td>&gt; 1: holds: its 99.6% interval is 3.41–3.79× (9 rounds)</td>",
        "<th>tolerance</th><td>5%</td>",
        "the median's order-statistic interval of its 9 raw rounds",
        f"<code>{RUN}</code>",
        "Defined at <code>claims/moe.yaml:2</code>",
    ):
        assert shown in html, shown
    borrowed = Claim(
        "quoted",
        "borrowed",
        Source("claims/moe.yaml", 14),
        value=3.6,
        value_text="3.6",
        unit="×",
        checked_by=("moe-speedup",),
        checks=(CheckSpec("moe-speedup"),),
    )
    check = CheckResult("moe-speedup", "the same quantity", True, True, "3.6×", "3.6×", strength="agrees")
    html = _page_of(verdict_of(borrowed, cause="borrowed", checks=(check,)))
    assert '<span class="ledger-badge ledger-badge--agrees">agrees</span>' in html  # its support, and the check's
    assert '<td>the same quantity</td><td><span class="ledger-badge ledger-badge--agrees">agrees</span></td>' in html
    assert '<a class="ledger-claim-id" href="../moe-speedup/"><code>moe-speedup</code></a>' in html


def _tripwire(monkeypatch) -> list[str]:
    """Make the unit and tolerance parsers raise, and record it, when called outside load (reading the
    policy from mkdocs.yml, validating the claim files, reading the runs' declared units): every name bound to them in every module."""
    from generator.claims import validate, vocabulary
    from generator.inputs import config
    from generator.lang import values

    parsers = {units.parse: "units.parse", values.parse_tolerance: "parse_tolerance"}
    loaders = [config.read_policy, config.policy_from_options, validate.claims, vocabulary.read_run_units]
    after_load: list[str] = []
    loading = [0]

    def guarded(parser, name):
        def parse(*args, **kwargs):
            if not loading[0]:
                after_load.append(f"{name}{args[:1]!r}")
                raise AssertionError(f"{name}{args[:1]!r} after load")
            return parser(*args, **kwargs)

        return parse

    def load(loader):
        def read(*args, **kwargs):
            loading[0] += 1
            try:
                return loader(*args, **kwargs)
            finally:
                loading[0] -= 1

        return read

    swaps = {**{p: guarded(p, n) for p, n in parsers.items()}, **{f: load(f) for f in loaders}}
    for name, module in list(sys.modules.items()):
        if name.startswith("generator"):
            for attribute, value in list(vars(module).items()):
                if callable(value) and value in swaps:
                    monkeypatch.setattr(module, attribute, swaps[value])
    return after_load


@pytest.mark.site
def test_no_unit_or_tolerance_is_parsed_after_load_by_a_check_or_any_page_of_an_init_project(tmp_path, monkeypatch):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    import generator.site.plugin  # noqa: F401  (loaded before the parsers are swapped, as mkdocs loads it)

    root = tmp_path / "p"
    assert run_ledger("init", str(root), cwd=tmp_path).exit_code == 0
    monkeypatch.chdir(root)
    after_load = _tripwire(monkeypatch)
    report = check_project(root, None, datetime.now(timezone.utc))
    assert report.ok, report.failures
    build(load_config(str(root / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True))
    assert after_load == []
    built = {path.parent.relative_to(tmp_path / "site").as_posix() for path in (tmp_path / "site").rglob("index.html")}
    claim_pages = {f"claim/{claim_id}" for claim_id in report.verdicts}
    assert claim_pages | {".", "claims", "claims/fell", "measurements", "gate"} <= built
    assert {f"run/{path.split('/', 1)[1]}" for path in report.runs} <= built


def test_the_record_holds_no_untyped_field():
    from dataclasses import fields

    import attrs

    from generator.records import ClaimVerdict

    for record, declared in ((Report, fields(Report)), (ClaimVerdict, attrs.fields(ClaimVerdict))):
        loose = [f.name for f in declared if "Any" in str(f.type) or str(f.type) == "object"]
        assert loose == [], record.__name__


def test_every_key_of_a_verdict_in_the_json_is_documented_in_the_cli_guide():
    import re

    from helpers import REPO

    from generator.text import verdict_json

    section = (REPO / "guide/cli.md").read_text().split("## ledger check", 1)[1].split("\n## ", 1)[0]
    documented = {key for cell in re.findall(r"^\| (`[^|]+) \|", section, re.M) for key in re.findall(r"`(\w+)`", cell)}
    claim = Claim("c", "borrowed", Source("claims/c.yaml", 1))
    assert set(verdict_json(verdict_of(claim))) == documented
