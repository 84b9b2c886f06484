"""Bad claim files: each gets one clear error naming file, line and fix; nothing runs, nothing is lost."""

import sys
import time

import pytest
from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, run_ledger, write_tree


def check(tmp_path, files):
    write_tree(tmp_path, files)
    return run_ledger("check", cwd=tmp_path)


def test_malformed_yaml_names_file_line_and_column(tmp_path):
    result = check(tmp_path, {"claims/bad.yaml": "claims:\n  - id: a\n    kind: [borrowed\n"})
    assert result.exit_code == 1
    assert result.output.startswith(
        "claims/bad.yaml:4:1: invalid: malformed YAML: did not find expected ',' or ']'\n"
        "  fix: fix the YAML syntax at that position\n"
    )


def test_misspelled_field_suggests_the_right_one(tmp_path):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: engine-log
            kind: borrowed
            vaule: 3
            source: {title: a startup log}
            status: lead
        """
        },
    )
    assert "claims/a.yaml:4: engine-log: invalid: unknown field `vaule`\n  fix: did you mean `value`?" in result.output
    assert result.exit_code == 1


@pytest.mark.parametrize(
    "field, yaml_value, message, fix",
    [
        (
            "value",
            '"3.59×"',
            "value must be a number, found text '3.59×'",
            "write the number alone and put the unit in `unit:`",
        ),
        (
            "value",
            "true",
            "value must be a number, found a boolean 'True'",
            "write the number alone and put the unit in `unit:`",
        ),
        ("statement", "[a, b]", "`statement` must be text, found a list", "write `statement` as plain text"),
        (
            "kind",
            "guessed",
            "kind 'guessed' is not one of measured, extrapolated, borrowed",
            "set `kind:` to one of those",
        ),
        (
            "status",
            "maybe",
            "status 'maybe' is not one of asserted, lead, refuted, superseded, retracted",
            "set `status:` to one of those, or remove it (asserted)",
        ),
        (
            "tolerance",
            "lots",
            "tolerance lots must be a number, a percentage like '5%', or 'precision'",
            "write e.g. `tolerance: 5%` or `tolerance: 0.01`",
        ),
        ("testbed", "My Mac", "testbed 'My Mac' is not lower-kebab-case", "e.g. linux-cpu, apple-m1-max"),
    ],
)
def test_wrong_types_and_values_are_named_at_their_line(tmp_path, field, yaml_value, message, fix):
    fields = {
        "kind": "borrowed",
        "status": "lead",
        "value": "1",
        "statement": "s",
        "tolerance": "1%",
        "testbed": "linux-cpu",
        field: yaml_value,
    }
    body = "".join(f"    {k}: {v}\n" for k, v in fields.items())
    result = check(tmp_path, {"claims/a.yaml": f"claims:\n  - id: c\n    source: {{title: t}}\n{body}"})
    line = 4 + list(fields).index(field)
    assert f"claims/a.yaml:{line}: c: invalid: {message}\n  fix: {fix}\n" in result.output
    assert result.exit_code == 1


def test_duplicate_ids_across_files_name_both_places(tmp_path):
    lead = "claims:\n  - id: same\n    kind: borrowed\n    status: lead\n    source: {title: t}\n"
    result = check(tmp_path, {"claims/a.yaml": lead, "claims/b.yaml": lead})
    assert (
        "claims/b.yaml:2: same: invalid: duplicate id 'same', first defined at claims/a.yaml:2\n"
        "  fix: rename one of the two claims"
    ) in result.output


def test_duplicate_key_in_one_claim_is_an_error_not_a_silent_overwrite(tmp_path):
    result = check(tmp_path, {"claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    kind: measured\n"})
    assert "claims/a.yaml:4:5: invalid: duplicate key 'kind' (first at line 3)" in result.output


@pytest.mark.parametrize(
    "field, target, message",
    [
        ("checked_by", "[no-such-claim]", "checked_by names unknown claim 'no-such-claim'"),
        ("refuted_by", "no-such-claim", "refuted_by names unknown claim 'no-such-claim'"),
    ],
)
def test_dangling_claim_references_are_invalid(tmp_path, field, target, message):
    status = "    status: refuted\n" if field == "refuted_by" else ""
    result = check(
        tmp_path,
        {
            "claims/a.yaml": (
                f"claims:\n  - id: a\n    kind: borrowed\n    source: {{title: t}}\n{status}    {field}: {target}\n"
            )
        },
    )
    line = 6 if status else 5
    assert f"claims/a.yaml:{line}: a: invalid: {message}\n  fix: name an existing claim id" in result.output


def test_dangling_input_suggests_a_close_id(tmp_path):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: bandwidth-ratio
            kind: borrowed
            status: lead
            source: {title: t}
            value: 2
          - id: doubled
            kind: extrapolated
            formula: 2 * r
            inputs: {r: bandwith-ratio}
            value: 4
        """
        },
    )
    assert (
        "claims/a.yaml:10: doubled: invalid: inputs names unknown claim 'bandwith-ratio'\n"
        "  fix: did you mean 'bandwidth-ratio'?"
    ) in result.output


@pytest.mark.parametrize(
    "evidence_lines, message",
    [
        (
            "run: measurements/toy/nope",
            f"evidence run measurements/toy/nope does not exist (latest run of that probe: {RUN})",
        ),
        (
            f"run: {RUN}\n      file: other.csv",
            f"other.csv is not a file of run {RUN.split('/')[-1]} (it has: results.csv)",
        ),
        (f"run: {RUN}\n      column: speed", "results.csv has no column 'speed' (columns: batch, speedup)"),
        (f"run: {RUN}\n      where: {{batch: 12}}", "no row of results.csv matches where {batch=12}"),
        (f"run: {RUN}\n      where: {{}}", "2 rows of results.csv match where {no filter}; it must select one"),
    ],
)
def test_dangling_evidence_is_invalid(tmp_path, evidence_lines, message):
    a_run(tmp_path, SPEEDUP_ROWS)
    fields = {"run": None, "file": "results.csv", "where": "{batch: 16}", "column": "speedup"}
    lines = dict(line.split(": ", 1) for line in evidence_lines.split("\n      "))
    fields.update(lines)
    body = "".join(f"      {k}: {v}\n" for k, v in fields.items())
    result = check(
        tmp_path, {"claims/a.yaml": (f"claims:\n  - id: m\n    kind: measured\n    value: 3.6\n    evidence:\n{body}")}
    )
    assert f"claims/a.yaml:5: m: invalid: {message}\n" in result.output
    assert result.exit_code == 1


@pytest.mark.parametrize("run", ["../../etc", "/etc/passwd", "measurements/../claims/x", "measurements/toy"])
def test_evidence_paths_that_leave_measurements_are_refused(tmp_path, run):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": (
                f"claims:\n  - id: m\n    kind: measured\n    value: 1\n    evidence:\n      run: {run}\n"
                "      file: results.csv\n      column: x\n"
            )
        },
    )
    assert (
        f"claims/a.yaml:5: m: invalid: evidence.run {run!r} must be a run folder "
        "measurements/<probe>/<run> inside the repository\n"
    ) in result.output


def test_evidence_run_that_is_a_symlink_out_of_measurements_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    a_run(outside, SPEEDUP_ROWS)
    (tmp_path / "measurements" / "toy").mkdir(parents=True)
    (tmp_path / RUN).symlink_to(outside / RUN)
    write_tree(tmp_path, {"probes/toy.py": (outside / "probes/toy.py").read_text()})
    result = check(tmp_path, {"claims/a.yaml": MEASURED})
    assert (
        f"claims/a.yaml:8: moe-speedup-b16: invalid: evidence run {RUN} is a link: a run folder is committed as it "
        "is, never linked" in result.output
    )


def test_data_file_that_is_a_symlink_is_not_read(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    data = tmp_path / RUN / "results.csv"
    secret = tmp_path / "secret.csv"
    secret.write_bytes(data.read_bytes())
    data.unlink()
    data.symlink_to(secret)
    result = check(tmp_path, {"claims/a.yaml": MEASURED})
    assert f"{RUN}/results.csv cannot be read: it is a link: a run's files are committed as they are" in result.output


def test_formula_cycle_is_reported_once_with_its_path(tmp_path):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: a
            kind: extrapolated
            formula: b + 1
            inputs: {b: b}
            value: 1
          - id: b
            kind: extrapolated
            formula: a + 1
            inputs: {a: a}
            value: 1
        """
        },
    )
    assert "claims/a.yaml:5: a: invalid: formula cycle: a -> b -> a\n" in result.output
    assert result.output.count("formula cycle") == 1


@pytest.mark.parametrize(
    "formula, message",
    [
        ("__import__('os').system('touch pwned')", "calls are not allowed (__import__('os').system)"),
        ("x.__class__", "attribute access is not allowed (x.__class__)"),
        ("x[0]", "indexing is not allowed (x[0])"),
    ],
)
def test_formulas_that_call_index_or_reach_attributes_are_refused_and_never_run(tmp_path, formula, message):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": f"""
        claims:
          - id: x
            kind: borrowed
            status: lead
            source: {{title: t}}
            value: 2
          - id: y
            kind: extrapolated
            formula: "{formula}"
            inputs: {{x: x}}
            value: 4
        """
        },
    )
    assert (
        f"claims/a.yaml:9: y: invalid: invalid formula: {message}\n"
        "  fix: use only + - * / ** min max, numbers and the names listed under `inputs`"
    ) in result.output
    assert not (tmp_path / "pwned").exists()


def test_alias_bomb_is_refused_quickly(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for level in range(1, 30):
        bomb += (
            f"{chr(97 + level % 26)}{level}: &{chr(97 + level % 26)}{level} ["
            + ", ".join([f"*{chr(97 + (level - 1) % 26)}{level - 1 if level > 1 else ''}"] * 9)
            + "]\n"
        )
    bomb = bomb.replace("*a0", "*a")
    started = time.perf_counter()
    result = check(tmp_path, {"claims/bomb.yaml": bomb})
    assert time.perf_counter() - started < 10
    assert "invalid: YAML aliases (*name) are not allowed in claim files" in result.output


def test_oversized_file_is_refused_before_parsing(tmp_path):
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      max_claim_file_bytes: 1000\n"})
    result = check(tmp_path, {"claims/big.yaml": "claims: []\n" + "# padding\n" * 200})
    assert (
        "claims/big.yaml: invalid: file is 2,011 bytes; the limit is 1,000\n"
        "  fix: split it into several files, or raise max_claim_file_bytes in mkdocs.yml"
    ) in result.output


def test_non_utf8_file_names_the_line_of_the_bad_byte(tmp_path):
    result = check(tmp_path, {"claims/latin1.yaml": b"claims:\n  - id: a\n    statement: caf\xe9\n"})
    assert "claims/latin1.yaml:3:19: invalid: not UTF-8 (byte 0xe9)\n  fix: save the file as UTF-8" in result.output


def test_python_tags_are_refused_not_constructed(tmp_path):
    result = check(
        tmp_path, {"claims/a.yaml": "claims:\n  - id: a\n    kind: !!python/object/apply:os.system [touch pwned]\n"}
    )
    assert (
        "claims/a.yaml:3:11: invalid: tag tag:yaml.org,2002:python/object/apply:os.system is not allowed"
        in result.output
    )
    assert not (tmp_path / "pwned").exists()


def test_data_file_with_non_numeric_cell_is_invalid(tmp_path):
    a_run(tmp_path, [{"batch": 16, "speedup": "fast"}])
    result = check(tmp_path, {"claims/a.yaml": MEASURED})
    assert (
        "claims/a.yaml:8: moe-speedup-b16: invalid: results.csv, batch=16, column speedup: "
        "cell 'fast' is not a number\n"
    ) in result.output


def test_retired_claim_without_refuted_by_is_invalid(tmp_path):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: killer
            kind: borrowed
            source: {title: my old ledger}
            status: refuted
        """
        },
    )
    assert (
        "claims/a.yaml:5: killer: invalid: a refuted claim must name the claim that retired it\n"
        "  fix: add `refuted_by: some-claim-id`"
    ) in result.output


def test_claim_text_is_data_never_templated(tmp_path):
    result = check(
        tmp_path,
        {
            "claims/a.yaml": """
        claims:
          - id: t
            kind: borrowed
            status: lead
            statement: "{{ 7 * 7 }} {% include '/etc/passwd' %} <script>alert(1)</script>"
            source: {title: "{{ config }}"}
        """
        },
    )
    assert result.exit_code == 0
    assert "49" not in result.output


def test_a_file_without_claims_list_says_how_to_start(tmp_path):
    result = check(tmp_path, {"claims/a.yaml": "- id: a\n"})
    assert (
        "claims/a.yaml:1: invalid: a claim file needs a top-level `claims:` list\n"
        "  fix: start the file with `claims:` and list the claims under it"
    ) in result.output


def test_the_total_input_cap_refuses_what_passes_it_with_a_finding(tmp_path):
    rows = [{"batch": b, "speedup": 1.0 + b / 1e6, "pad": "x" * 200} for b in range(1, 8000)]
    rows[15]["speedup"] = 3.6
    a_run(tmp_path, rows)
    config = "site_name: t\nplugins:\n  - ledger:\n      max_input_bytes: 1048576\n"
    result = check(tmp_path, {"claims/a.yaml": MEASURED, "mkdocs.yml": config})
    assert result.exit_code == 1
    assert (
        f"{RUN}/results.csv cannot be read: it would pass the gate's total input cap (max_input_bytes)" in result.output
    )


def test_a_streamed_table_reports_the_line_of_a_bad_byte(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    data = tmp_path / RUN / "results.csv"
    body = data.read_bytes() + b"x" * (3 << 20) + b"\n1,2\xff,3\n"  # past the first megabyte read
    data.write_bytes(body)
    result = check(tmp_path, {"claims/a.yaml": MEASURED})
    line = body.count(b"\n")
    assert f"results.csv is not UTF-8 (line {line})" in result.output


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds memory this way on Linux")
def test_a_table_too_large_for_memory_is_a_finding_not_a_crash(tmp_path):
    import resource

    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/a.yaml": MEASURED})
    data = tmp_path / RUN / "results.csv"
    data.write_bytes(data.read_bytes() + b"".join(b"%d,1.0\n" % (i + 100) for i in range(6_000_000)))

    def small_memory():
        resource.setrlimit(resource.RLIMIT_AS, (600 << 20, 600 << 20))

    done = run_ledger("check", "--no-cache", cwd=tmp_path, preexec_fn=small_memory)
    assert done.exit_code == 1 and "Traceback" not in done.errors
    assert f"evidence run {RUN} needs more memory to read than there is" in done.output


def test_a_mkdocs_yml_nested_too_deeply_is_a_usage_error_not_a_crash(tmp_path):
    result = check(
        tmp_path, {"claims/a.yaml": "claims: []\n", "mkdocs.yml": "site_name: t\nextra: " + "[" * 5000 + "]" * 5000}
    )
    assert result.exit_code == 2
    assert result.errors == "ledger: mkdocs.yml: nested too deeply to read; flatten it\n"
