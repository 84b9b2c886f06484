"""Slips fixed with the structure issue: each message asserted whole, through the real command line."""

from datetime import datetime, timezone

import pytest
from helpers import run_ledger, write_tree

from generator.runs import TESTBED_PATTERN, write_run


def test_misplaced_refuted_by_on_a_superseded_claim_is_reported_once(tmp_path):
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: old-figure
            kind: borrowed
            source: {title: x}
            status: superseded
            refuted_by: nope
        """
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.output == (
        "claims/a.yaml:6: old-figure: invalid: a superseded claim names its successor with `superseded_by`\n"
        "  fix: rename `refuted_by` to `superseded_by`\n"
        "1 claim (1 borrowed; 1 superseded) — 1 failure: 1 invalid\n"
    )


def test_unknown_refuted_by_is_reported_once(tmp_path):
    write_tree(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: old-figure
            kind: borrowed
            source: {title: x}
            status: refuted
            refuted_by: nope
        """
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.output == (
        "claims/a.yaml:6: old-figure: invalid: refuted_by names unknown claim 'nope'\n"
        "  fix: name an existing claim id\n"
        "1 claim (1 borrowed; 1 refuted) — 1 failure: 1 invalid\n"
    )


def test_a_bad_figure_file_is_a_finding_with_its_file_and_line_listed_with_the_rest(tmp_path):
    write_tree(
        tmp_path,
        {
            "figures/broken.py": "from generator.site.figure_api import table\n\n@table(some_name)\ndef t(data):\n    pass\n",
            "figures/syntax.py": "def f(:\n",
            "claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n",
        },
    )
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output == (
        "figures/broken.py:3: invalid: @table(...) takes the figure's id as one literal string\n"
        '  fix: write @table("some-id")\n'
        "figures/syntax.py:1: invalid: figure file does not parse: invalid syntax\n"
        "  fix: fix the Python syntax\n"
        "1 claim (1 borrowed; 1 lead) — 2 failures: 2 invalid\n"
    )


def test_the_run_writer_and_the_claim_files_share_one_testbed_pattern(tmp_path):
    for name in ("linux-cpu", "nvidia-h200", "apple-m1-max"):
        assert TESTBED_PATTERN.fullmatch(name)
    for name in ("linux--cpu", "linux-", "-cpu", "Linux-CPU", "linux-cpu\n"):
        assert not TESTBED_PATTERN.fullmatch(name)
    write_tree(tmp_path, {"probes/toy.py": "print('toy')\n"})
    now = datetime.now(timezone.utc)
    with pytest.raises(ValueError) as refused:
        write_run(
            tmp_path,
            "toy",
            "linux--cpu",
            {"results.csv": [{"a": 1}]},
            parameters={},
            environment={},
            code=["probes/toy.py"],
            started=now,
            finished=now,
        )
    assert str(refused.value) == "testbed 'linux--cpu': use lower-case letters, digits and '-'"
