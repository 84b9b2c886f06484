"""Numbers on every surface: files outside docs/ (README.md, llms.txt) read with the prose rules; a claim's
value between markers that `ledger check` holds to the claim and `ledger refresh --write` rewrites; the
claims in Bencher's metric format for a dashboard."""

import json
import os

import jsonschema
import pytest
from helpers import MEASURED, SPEEDUP_KINDS, SPEEDUP_ROWS, a_run, run_ledger, verdict_of, write_tree

from generator.prose import surfaces
from generator.records import Claim, ClaimVerdict, Source

MKDOCS = "site_name: t\nplugins:\n  - ledger:\n      surfaces: [README.md]\n"
LEAD = """
  - id: a-lead
    kind: borrowed
    status: lead
    value: 2.0
    unit: "×"
    source: {title: x}
"""


def project(root, readme: str, claims: str = MEASURED, mkdocs: str = MKDOCS) -> None:
    a_run(root, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    write_tree(root, {"mkdocs.yml": mkdocs, "claims/moe.yaml": claims, "README.md": readme})


def marked(claim_id: str, text: str) -> str:
    return f"<!-- ledger: {claim_id} -->{text}<!-- /ledger -->"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("at <!-- ledger: a-b -->3.6×<!-- /ledger --> now", [("a-b", "3.6×", 1, 24)]),
        ("<!--ledger:a-->x<!--/ledger--> and <!-- ledger: b --><!-- /ledger -->", [("a", "x", 1, 16), ("b", "", 1, 54)]),
        ("`<!-- ledger: a -->1 s<!-- /ledger -->` in code", []),
        ("```\n<!-- ledger: a -->1 s<!-- /ledger -->\n```\n", []),
        ("x\n<!-- ledger: a -->1 s\n<!-- /ledger -->", [("", "no closing <!-- /ledger --> on its line", 2, 1), ("", "a closing marker with no opening one", 3, 1)]),
        ("<!-- /ledger --> alone", [("", "a closing marker with no opening one before it", 1, 1)]),
        ("<!-- ledger: a --><!-- ledger: b -->1<!-- /ledger -->", [("", "another marker comes before", 1, 1), ("b", "1", 1, 37)]),
        ("<!-- Ledger: Not_An_Id -->1<!-- /ledger -->", [("", "not a marker this reads", 1, 1), ("", "a closing marker", 1, 28)]),
    ],
)  # fmt: skip
def test_markers_pair_on_one_line_outside_code_and_anything_else_that_reads_as_one_is_malformed(text, found):
    got = surfaces.markers(text, "README.md")
    assert [(m.claim_id, m.where.line, m.where.column) for m in got] == [(c, line, col) for c, _, line, col in found]
    for mark, (claim_id, inner, _, _) in zip(got, found, strict=True):
        assert mark.text == inner if claim_id else inner in mark.text


def claim(claim_id: str, value: float | None, text: str, unit: str = "×", status: str = "asserted") -> ClaimVerdict:
    return verdict_of(Claim(
        id=claim_id, kind="measured", where=Source("claims/a.yaml", 1), value=value, value_text=text, unit=unit,
        status=status,
    ))  # fmt: skip


@pytest.mark.parametrize(
    ("text", "claims", "expected", "changed"),
    [
        ("x <!-- ledger: a -->1.0×<!-- /ledger --> y", {"a": ("1.25", 1.25)}, "x <!-- ledger: a -->1.25×<!-- /ledger --> y", ["a"]),
        ("<!-- ledger: a -->1.25×<!-- /ledger -->", {"a": ("1.25", 1.25)}, "<!-- ledger: a -->1.25×<!-- /ledger -->", []),
        ("<!-- ledger: a -->?<!-- /ledger -->\r\n<!-- kept -->\r\n", {"a": ("2", 2.0)}, "<!-- ledger: a -->2×<!-- /ledger -->\r\n<!-- kept -->\r\n", ["a"]),
        ("<!-- ledger: gone -->1×<!-- /ledger -->", {}, "<!-- ledger: gone -->1×<!-- /ledger -->", []),
        ("<!-- ledger: a -->1×<!-- /ledger -->", {"a": ("", None)}, "<!-- ledger: a -->1×<!-- /ledger -->", []),
    ],
)  # fmt: skip
def test_rewrite_sets_only_the_text_between_markers_to_the_stated_value(text, claims, expected, changed):
    by_id = {cid: claim(cid, value, value_text) for cid, (value_text, value) in claims.items()}
    after, changes = surfaces.rewrite(text, "README.md", by_id)
    assert after == expected
    assert [change.claim_id for change in changes] == changed


def test_rewrite_leaves_a_lead_or_retired_claim_as_written():
    text = "<!-- ledger: a -->1×<!-- /ledger -->"
    for status in ("lead", "refuted"):
        after, changes = surfaces.rewrite(text, "README.md", {"a": claim("a", 2.0, "2", status=status)})
        assert (after, changes) == (text, [])


def test_a_readme_figure_that_drifts_fails_at_its_line_and_refresh_write_rewrites_it(tmp_path):
    readme = f"# Toy\n\n<!-- a comment kept -->\nThe speedup is {marked('moe-speedup-b16', '3.1×')} at B=16.\n"
    project(tmp_path, readme)
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    assert checked.output.splitlines()[:2] == [
        "README.md:4:48: surface-drifted: '3.1×' stands for moe-speedup-b16, which states '3.59×'",
        "  fix: `ledger refresh --write` rewrites the text between the markers",
    ]
    shown = run_ledger("refresh", cwd=tmp_path)
    assert "README.md:4:48: moe-speedup-b16: '3.1×' -> '3.59×'" in shown.output
    assert (tmp_path / "README.md").read_text() == readme  # nothing written without --write
    written = run_ledger("refresh", "--write", cwd=tmp_path)
    assert written.exit_code == 0, written.output
    assert "wrote README.md" in written.output
    assert (tmp_path / "README.md").read_text() == readme.replace("3.1×", "3.59×")
    assert run_ledger("check", cwd=tmp_path).exit_code == 0


def test_refresh_write_moves_a_claim_and_its_readme_figure_together(tmp_path):
    from datetime import timedelta

    from helpers import RUN_TIME

    project(tmp_path, f"Speedup {marked('moe-speedup-b16', '3.59×')}.\n")
    newer = a_run(tmp_path, [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 4.2}], when=RUN_TIME + timedelta(1))
    written = run_ledger("refresh", "--write", cwd=tmp_path)
    assert written.exit_code == 0, written.output
    assert "wrote claims/moe.yaml, README.md" in written.output
    assert newer in (tmp_path / "claims/moe.yaml").read_text()
    assert (
        tmp_path / "README.md"
    ).read_text() == f"Speedup {marked('moe-speedup-b16', '4.20×')}.\n"  # at the stated precision


# 9 rounds of a speedup whose median is 3.591×: its interval (3.1–4.1×, every round) supports one decimal.
NOISY = {16: [3.1, 3.3, 3.45, 3.5, 3.591, 3.7, 3.8, 3.9, 4.1]}


def noisy_project(root, readme: str) -> None:
    from helpers_rounds import claim, rounds_run

    run = rounds_run(root, NOISY)
    write_tree(
        root,
        {
            "mkdocs.yml": MKDOCS,
            "claims/moe.yaml": "claims:" + claim("moe-speedup-b16", run, "3.591"),
            "README.md": readme,
        },
    )


@pytest.mark.parametrize("text", ["3.591×", "3.6×"])
def test_a_marker_may_hold_the_stated_value_or_the_value_as_the_site_displays_it(tmp_path, text):
    noisy_project(tmp_path, f"Speedup {marked('moe-speedup-b16', text)}.\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output


def test_a_marker_that_is_neither_form_fails_naming_both_and_refresh_write_writes_the_displayed_one(tmp_path):
    noisy_project(tmp_path, f"Speedup {marked('moe-speedup-b16', '3.59×')}.\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    assert checked.output.splitlines()[0] == (
        "README.md:1:41: surface-drifted: '3.59×' stands for moe-speedup-b16, which states '3.591×' "
        "(the site shows '3.6×')"
    )
    written = run_ledger("refresh", "--write", cwd=tmp_path)
    assert "README.md:1:41: moe-speedup-b16: '3.59×' -> '3.6×'" in written.output
    assert (tmp_path / "README.md").read_text() == f"Speedup {marked('moe-speedup-b16', '3.6×')}.\n"
    assert written.exit_code == 0, written.output


def test_refresh_write_turns_a_marker_in_the_stated_form_into_the_displayed_one(tmp_path):
    noisy_project(tmp_path, f"Speedup {marked('moe-speedup-b16', '3.591×')}.\n")
    shown = run_ledger("refresh", cwd=tmp_path)
    assert "README.md:1:41: moe-speedup-b16: '3.591×' -> '3.6×'" in shown.output
    assert run_ledger("refresh", "--write", cwd=tmp_path).exit_code == 0
    assert (tmp_path / "README.md").read_text() == f"Speedup {marked('moe-speedup-b16', '3.6×')}.\n"


@pytest.mark.parametrize(
    ("before", "after", "column", "seen"),
    [
        ("1", "", 9, "'1' is written against the marker of moe-speedup-b16: a reader sees '13.59×'"),
        ("-", "", 9, "'-' is written against the marker of moe-speedup-b16: a reader sees '-3.59×'"),
        ("−", "", 9, "'−' is written against the marker of moe-speedup-b16: a reader sees '−3.59×'"),
        ("2.", "", 9, "'2.' is written against the marker of moe-speedup-b16: a reader sees '2.3.59×'"),
        ("**7**", "", 11, "'7' is written against the marker of moe-speedup-b16: a reader sees '73.59×'"),
        ("", "5", 62, "'5' is written against the marker of moe-speedup-b16: a reader sees '3.59×5'"),
        ("", ".5", 62, "'.5' is written against the marker of moe-speedup-b16: a reader sees '3.59×.5'"),
        ("", "_+1_", 63, "'+1' is written against the marker of moe-speedup-b16: a reader sees '3.59×+1'"),
    ],
)  # fmt: skip
def test_a_digit_sign_or_number_against_a_marker_fails_at_its_line_and_column(tmp_path, before, after, column, seen):
    project(tmp_path, f"# Toy\n\nSpeedup {before}{marked('moe-speedup-b16', '3.59×')}{after} here.\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    assert checked.output.splitlines()[:2] == [
        f"README.md:3:{column}: surface-drifted: {seen}, not its value (the markers do not show)",
        "  fix: put a space or a word between the marker and the figure beside it, or take the figure out",
    ]


@pytest.mark.parametrize(
    ("before", "after"), [("(", ")"), ("about ", "."), ("x", ", then"), ("*", "*-fold"), ("", "-ish")]
)
def test_punctuation_and_words_against_a_marker_pass(tmp_path, before, after):
    project(tmp_path, f"Speedup {before}{marked('moe-speedup-b16', '3.59×')}{after} here.\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output


def test_a_typed_figure_in_a_surface_is_unbound_and_code_is_not_read(tmp_path):
    project(tmp_path, "# Toy\n\nThe suite runs in about 40 s.\n\n```\n$ ledger measure\n3.4 s\n```\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    assert checked.output.splitlines()[:2] == [
        "README.md:3:25: unbound-number: '40 s' is typed into the file; the gate cannot keep it true",
        "  fix: put the claim's value between markers, <!-- ledger: some-id -->…<!-- /ledger --> "
        '(`ledger refresh --write` fills it in), or mark a label: <span class="ledger-label">…</span>',
    ]
    assert "3.4 s" not in checked.output
    assert "1 failure: 1 unbound-number" in checked.output.splitlines()[-1]


def test_migration_mode_holds_a_surfaces_figures_as_warnings(tmp_path):
    warn = MKDOCS + "      warn: [unbound-number]\n"
    project(tmp_path, "The suite runs in about 40 s.\n", mkdocs=warn)
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 0
    assert "0 failures — 1 warning: 1 unbound-number" in checked.output.splitlines()[-1]


def test_a_marker_for_a_lead_an_unknown_claim_or_a_failing_claim_fails_at_its_line(tmp_path):
    readme = (
        f"{marked('a-lead', '2.0×')}\n{marked('nope', '1 s')}\n{marked('moe-speedup-b16', '3.59×')}\n"
        '{{ claim("moe-speedup-b16") }}\n'
    )
    project(tmp_path, readme, claims=MEASURED.replace("value: 3.59", "value: 3.0") + LEAD)
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    lines = [line for line in checked.output.splitlines() if line.startswith("README.md")]
    assert lines == [
        "README.md:1:24: surface-drifted: '2.0×' stands for a-lead, which is a lead: a surface shows no badge, "
        "so it would read as fact",
        "README.md:2:22: unknown-reference: marker names unknown claim 'nope'",
        "README.md:3:33: surface-drifted: '3.59×' stands for moe-speedup-b16, which the gate does not hold "
        "(stale: drifted)",
        "README.md:4:1: unknown-reference: {{ claim(...) }} in a surface is shown as written: no site build "
        "renders it here",
    ]
    assert "claims/moe.yaml:4: moe-speedup-b16: drifted: stated 3×" in checked.output  # the claim's own finding, apart


def test_a_surface_that_is_missing_under_docs_or_outside_the_project_is_invalid(tmp_path):
    mkdocs = "site_name: t\nplugins:\n  - ledger:\n      surfaces: [llms.txt, docs/index.md, out.md]\n"
    project(tmp_path, "", mkdocs=mkdocs)
    write_tree(tmp_path, {"docs/index.md": "# Toy\n"})
    (tmp_path.parent / f"{tmp_path.name}-outside.md").write_text("12 ms\n")
    os.symlink(tmp_path.parent / f"{tmp_path.name}-outside.md", tmp_path / "out.md")
    checked = run_ledger("check", cwd=tmp_path)
    assert checked.exit_code == 1
    lines = [line for line in checked.output.splitlines() if " invalid: " in line]
    assert lines == [
        "docs/index.md: invalid: surface listed under `surfaces:` in mkdocs.yml is a page under docs/: the site's "
        "pages are read already",
        "llms.txt: invalid: surface listed under `surfaces:` in mkdocs.yml does not exist",
        "out.md: invalid: surface listed under `surfaces:` in mkdocs.yml leads outside the project",
    ]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("README.md", "must be a list of file paths inside the repository"),
        ("[../x.md]", "must be a list of file paths inside the repository"),
        ("[/etc/motd]", "must be a list of file paths inside the repository"),
        ("[README.md, README.md]", "names a file twice"),
    ],
)
def test_the_surfaces_option_takes_paths_inside_the_repository(tmp_path, value, problem):
    project(tmp_path, "", mkdocs=f"site_name: t\nplugins:\n  - ledger:\n      surfaces: {value}\n")
    checked = run_ledger("check", cwd=tmp_path)
    assert f"mkdocs.yml:4: invalid: ledger option surfaces: {problem}" in checked.output


def test_refresh_writes_no_surface_through_a_link(tmp_path):
    project(tmp_path, "")
    (tmp_path / "README.md").unlink()
    (tmp_path / "real.md").write_text(f"{marked('moe-speedup-b16', '1×')}\n")
    os.symlink("real.md", tmp_path / "README.md")
    written = run_ledger("refresh", "--write", cwd=tmp_path)
    assert written.exit_code == 2
    assert "README.md:1:33: moe-speedup-b16: refresh: README.md is a link: refresh writes no file through one" in (
        written.errors
    )
    assert (tmp_path / "real.md").read_text() == f"{marked('moe-speedup-b16', '1×')}\n"
    assert (tmp_path / "README.md").is_symlink()


def test_the_check_cache_sees_an_edit_to_a_surface(tmp_path):
    project(tmp_path, f"{marked('moe-speedup-b16', '3.59×')}\n")
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    (tmp_path / "README.md").write_text(f"{marked('moe-speedup-b16', '3.58×')}\n")
    assert run_ledger("check", cwd=tmp_path).exit_code == 1


# Bencher Metric Format, as https://bencher.dev/docs/reference/bencher-metric-format/ gives its JSON Schema.
BMF_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema",
    "type": "object",
    "patternProperties": {
        ".+": {
            "type": "object",
            "patternProperties": {
                ".+": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "number"},
                        "lower_value": {"type": "number"},
                        "upper_value": {"type": "number"},
                    },
                    "required": ["value"],
                }
            },
        }
    },
}


def test_check_format_bencher_writes_every_measured_and_extrapolated_claim_with_its_interval(tmp_path):
    doubled = '\n  - id: doubled\n    kind: extrapolated\n    formula: 2 * s\n    inputs: {s: moe-speedup-b16}\n    value: 7.2\n    unit: "×"\n'
    retired = (
        "\n  - id: old\n    kind: measured\n    status: refuted\n    refuted_by: moe-speedup-b16\n    value: 1.0\n"
        "    unit: \"×\"\n    testbed: linux-cpu\n    evidence:\n      run: measurements/toy/2026-11-29T10-00-00Z-linux-cpu\n"
        "      file: results.csv\n      where: {batch: 1}\n      column: speedup\n"
    )  # fmt: skip
    rows = [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.6, "speedup_min": 3.5, "speedup_max": 3.7}]
    a_run(tmp_path, rows)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED + doubled + retired + LEAD})
    done = run_ledger("check", "--format", "bencher", cwd=tmp_path)
    assert done.exit_code == 0, done.output
    found = json.loads(done.output)
    jsonschema.validate(found, BMF_SCHEMA)
    assert sorted(found) == ["doubled", "moe-speedup-b16"]  # not the retired claim, not the borrowed lead
    # the measure names the quantity and its unit: never one measure "×" for every ratio, never Bencher's own
    # `latency` (ns) or `throughput` (ops/s) in other units
    assert found["moe-speedup-b16"] == {"ratio-x": {"value": 3.6, "lower_value": 3.5, "upper_value": 3.7}}
    assert found["doubled"]["ratio-x"]["value"] == 7.2
    assert found["doubled"]["ratio-x"]["lower_value"] == pytest.approx(7.0)
    assert found["doubled"]["ratio-x"]["upper_value"] == pytest.approx(7.4)


@pytest.mark.parametrize(
    "unit, measure",
    [("GB/s", "throughput-gb-s"), ("MB/s", "throughput-mb-s"), ("ms", "time-ms"), ("ns", "time-ns"),
     ("tok/s", "tokens-per-second-tok-s"), ("%", "ratio-percent"), ("W", "power-w"), ("GiB", "size-gib")],
)  # fmt: skip
def test_a_bencher_measure_is_a_slug_of_the_quantity_and_its_unit(tmp_path, unit, measure):
    rows = [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.6}]
    a_run(tmp_path, rows)
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace('unit: "×"', f'unit: "{unit}"')})
    run = json.loads(run_ledger("check", "--format", "bencher", cwd=tmp_path).output)
    assert list(run["moe-speedup-b16"]) == [measure]
