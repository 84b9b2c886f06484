"""`ledger diff`: real git repositories with scripted histories, the real command line."""

import json
from datetime import datetime, timezone

from helpers import (
    BORROWED_CHECKED,
    DOUBLED,
    MEASURED,
    RUN,
    SPEEDUP_KINDS,
    SPEEDUP_ROWS,
    a_run,
    git,
    run_ledger,
    write_tree,
)

from generator.records import Claim, Source
from generator.review.renames import find_renames

LATER = datetime(2026, 11, 29, 11, 0, 0, tzinfo=timezone.utc)
M1_RUN = "measurements/toy/2026-11-29T11-00-00Z-apple-m1-max"
LATER_RUN = "measurements/toy/2026-11-29T11-00-00Z-linux-cpu"
# A policy whose runs never get too old, so the expected outputs do not depend on today's date.
MKDOCS = """
site_name: test
plugins:
  - ledger:
      max_run_age_days: 36500
"""
BORROWED = BORROWED_CHECKED
PREDICTED = DOUBLED
GATE_ONE = "1 claim (1 measured; 1 asserted) — 0 failures"


def commit(root, files: dict | None = None, message: str = "change") -> str:
    """Write files (if any), commit everything, return the commit id."""
    write_tree(root, files or {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def ledger_repo(tmp_path, claims: str = MEASURED) -> str:
    """A repository whose first commit holds a policy, the toy probe, its run and the claims."""
    git(tmp_path, "init", "-q", "-b", "main")
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    return commit(tmp_path, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": claims}, "base")


def flagged(output: str) -> list[str]:
    """The rows of the 'Flagged for review' table, without their last column (the fields that changed)."""
    if "### Flagged for review" not in output:
        return []
    table = output.split("### Flagged for review\n\n", 1)[1].split("\n\n", 1)[0]
    return [row.rsplit(" | ", 1)[0] + " |" for row in table.splitlines()[2:]]


def row(output: str, claim_id: str) -> str:
    """The one row that names a claim, whichever table it is in (there is one row per claim)."""
    rows = [line for line in output.splitlines() if line.startswith("| ") and f"| `{claim_id}` " in line]
    assert len(rows) == 1, rows
    return rows[0]


def test_diff_flags_a_kind_downgrade_from_measured_to_borrowed(tmp_path):
    base = ledger_repo(tmp_path)
    write_tree(
        tmp_path,
        {
            "claims/moe.yaml": """
        claims:
          - id: moe-speedup-b16
            statement: MoE expert reads get faster per token at B=16 than at B=1
            value: 3.59
            unit: "×"
            kind: borrowed
            testbed: linux-cpu
            source: {title: a colleague's notebook}
            tolerance: 5%
        """
        },
    )
    result = run_ledger("diff", base, cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert (
        result.output
        == f"""\
## Ledger diff: {base[:12]} → working tree

**1 flagged · 1 changed**

### Flagged for review

| review | claim | what | fields |
| --- | --- | --- | --- |
| kind downgraded | `moe-speedup-b16` | measured → borrowed; nothing here checks it | kind measured → **borrowed**; evidence {RUN} → **source: a colleague's notebook**; freshness fresh → **fails: only-borrowed**; also changed: row, source |

Gate at base: {GATE_ONE}  
Gate at head: 1 claim (1 borrowed; 1 asserted) — 1 failure: 1 only-borrowed
"""
    )


def test_diff_flags_new_borrowed_claims_with_what_checks_them(tmp_path):
    base = ledger_repo(tmp_path)
    write_tree(
        tmp_path,
        {
            "claims/moe.yaml": MEASURED
            + BORROWED
            + """
  - id: engine-refuses-batching
    kind: borrowed
    statement: A closed-source engine calls batched MoE "unvalidated"
    source: {title: startup log of a closed-source engine, quote: unvalidated}
"""
        },
    )
    result = run_ledger("diff", base, cwd=tmp_path)
    assert flagged(result.output) == [
        "| new borrowed claim | `m1max-moe-speedup-b16` | source: What is batching actually saving?; "
        "checked by moe-speedup-b16 (measured, agrees, fresh) |",
        "| new borrowed claim | `engine-refuses-batching` | source: startup log of a closed-source engine; "
        "nothing here checks it |",
    ]
    assert row(result.output, "m1max-moe-speedup-b16").endswith(
        "| value 3.59×; kind borrowed; status asserted; testbed apple-m1-max; "
        "evidence source: What is batching actually saving?; freshness fresh |"
    )  # one row: the flag and the added claim's fields


def test_diff_flags_a_value_that_moved_beyond_its_tolerance_and_lists_the_re_measure(tmp_path):
    base = ledger_repo(tmp_path)
    a_run(tmp_path, [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.21}], when=LATER)
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "3.21").replace(RUN, LATER_RUN)})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    # Neither run has raw rounds or a spread, nor rounds: the value is exact, so its move is a change, flagged.
    # The same probe, testbed and parameters: re-measured, not evidence swapped; all of it in the claim's one row.
    assert flagged(result.output) == [
        "| value moved | `moe-speedup-b16` | 3.59× → 3.21× (-10.6%; 5% allowed; exact, changed); "
        "re-measured (same probe, testbed and defining parameters): "
        "run 2026-11-29T10-00-00Z-linux-cpu → 2026-11-29T11-00-00Z-linux-cpu; "
        "exact, changed; "
        "new point 3.21× in 2026-11-29T11-00-00Z-linux-cpu: **step**, exact, changed |"  # its move, one verdict
    ]
    assert row(result.output, "moe-speedup-b16").endswith(
        f"| value 3.59× → **3.21×**; evidence {RUN} → **{LATER_RUN}** |"
    )
    assert "### Other changes" not in result.output
    assert f"### Runs\n\n- added `{LATER_RUN}` (linux-cpu)\n" in result.output


def test_diff_lists_but_does_not_flag_a_value_that_moved_within_its_tolerance(tmp_path):
    base = ledger_repo(tmp_path)
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "3.62")})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == []
    assert "**1 changed**" in result.output
    assert row(result.output, "moe-speedup-b16") == "| changed | `moe-speedup-b16` |  | value 3.59× → **3.62×** |"


def test_diff_flags_a_claim_whose_own_tolerance_was_loosened(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + PREDICTED)
    commit(
        tmp_path, {"claims/moe.yaml": MEASURED.replace("5%", "50%") + PREDICTED + "    tolerance: 0.001\n"}
    )  # tighter than the default ±0.005
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == ["| tolerance loosened | `moe-speedup-b16` | 5% → 50% |"]
    assert row(result.output, "moe-speedup-b16").endswith("| also changed: tolerance |")
    assert (
        row(result.output, "moe-speedup-doubled") == "| changed | `moe-speedup-doubled` |  | also changed: tolerance |"
    )


def test_diff_lists_a_claim_whose_asserted_relation_changed(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + PREDICTED + '    asserts: "> 1"\n')
    commit(tmp_path, {"claims/moe.yaml": MEASURED + PREDICTED + '    asserts: "> 7"\n'})  # what the prose relies on
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert row(result.output, "moe-speedup-doubled") == "| changed | `moe-speedup-doubled` |  | also changed: asserts |"
    changed = json.loads(run_ledger("diff", base, "HEAD", "--format", "json", cwd=tmp_path).output)["changed"]
    assert changed[0]["fields"] == {"asserts": {"old": "> 1", "new": "> 7"}}


def test_diff_shows_a_policy_that_turns_failures_into_warnings(tmp_path):
    base = ledger_repo(tmp_path)
    commit(tmp_path, {"mkdocs.yml": MKDOCS + "      warn: [drifted, too-old]\n"})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert "**1 flagged · policy changed**" in result.output
    assert "| policy weakened | mkdocs.yml: warn | drifted, too-old now only warn |" in result.output
    assert "### Policy (the gate's settings)\n\n- warn: none → **drifted, too-old**\n" in result.output


def test_diff_shows_declared_units_and_testbeds_in_the_policy(tmp_path):
    base = ledger_repo(tmp_path)
    policy = (
        MKDOCS + "      testbeds: [linux-cpu, nvidia-h200]\n      units:\n        kWh: {dimension: J, scale: 3600000}\n"
    )
    result = run_ledger("diff", base, commit(tmp_path, {"mkdocs.yml": policy}), cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "- testbeds: none → **linux-cpu; nvidia-h200**\n- units: none → **kWh = 3.6e+06 J**\n" in result.output


def test_diff_flags_evidence_swapped_to_a_run_on_another_testbed(tmp_path):
    base = ledger_repo(tmp_path)
    a_run(tmp_path, SPEEDUP_ROWS, testbed="apple-m1-max", when=LATER)
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace(RUN, M1_RUN).replace("linux-cpu", "apple-m1-max")})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == [
        f"| evidence swapped | `moe-speedup-b16` | run {RUN} (linux-cpu) → {M1_RUN} (apple-m1-max); "
        "testbed linux-cpu → apple-m1-max; new point 3.6× in 2026-11-29T11-00-00Z-apple-m1-max: no step, "
        "the run the claim cites now (under 8 runs, the newest run is compared with the cited one) |",
    ]


def test_diff_flags_a_claim_reading_another_row_of_the_same_run(tmp_path):
    base = ledger_repo(tmp_path)
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("batch: 16", "batch: 1").replace("3.59", "1.0")})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == [  # two flags, one row
        "| value moved, evidence swapped | `moe-speedup-b16` | value moved: 3.59× → 1.0× (-72.1%; 5% allowed; exact, "
        "changed); "
        "evidence swapped: row results.csv, batch=16, column speedup → results.csv, batch=1, column speedup |"
    ]


def test_diff_flags_claims_that_became_stale_and_the_claims_resting_on_them(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + PREDICTED)
    commit(tmp_path, {"probes/toy.py": "print('toy, with the timing bug fixed')\n"})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == [
        "| became stale | `moe-speedup-b16` | probe-changed: probes/toy.py changed since the run "
        "(run 2026-11-29T10-00-00Z-linux-cpu) |",
        "| became stale | `moe-speedup-doubled` | formula-drifted: input moe-speedup-b16 is stale (probe-changed) |",
    ]
    assert row(result.output, "moe-speedup-b16").endswith("| freshness fresh → **stale: probe-changed** |")


def test_diff_flags_claims_whose_run_was_deleted(tmp_path):
    base = ledger_repo(tmp_path)
    git(tmp_path, "rm", "-q", "-r", RUN)
    commit(tmp_path, message="drop the old run")
    result = run_ledger("diff", base, cwd=tmp_path)
    assert flagged(result.output) == [
        f"| became stale | `moe-speedup-b16` | invalid: evidence run {RUN} does not exist |",
    ]
    assert f"### Runs\n\n- removed `{RUN}` (linux-cpu)\n" in result.output


def test_diff_flags_a_retired_claim_and_one_brought_back(tmp_path):
    engine = """
  - id: engine-refuses-batching
    kind: borrowed
    source: {title: startup log of a closed-source engine, quote: unvalidated}
    checked_by: [{claim: moe-speedup-b16, expects: "> 1"}]
"""
    base = ledger_repo(tmp_path, MEASURED + engine)
    retired = engine.replace(
        'checked_by: [{claim: moe-speedup-b16, expects: "> 1"}]', "status: refuted\n    refuted_by: moe-speedup-b16"
    )
    head = commit(tmp_path, {"claims/moe.yaml": MEASURED + retired})
    assert flagged(run_ledger("diff", base, head, cwd=tmp_path).output) == [
        "| retired | `engine-refuses-batching` | asserted → refuted by moe-speedup-b16 |",
    ]
    assert flagged(run_ledger("diff", head, base, cwd=tmp_path).output) == [
        "| rests on borrowed figures, un-retired | `engine-refuses-batching` | rests on borrowed figures: borrowed, "
        "and no check here agrees with its value: its check moe-speedup-b16 only gives a sign (greater than 1); "
        "un-retired: refuted → asserted |",  # a bound on the check alone supports a sign
    ]


def test_diff_flags_an_extrapolation_that_now_rests_on_a_borrowed_figure(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + BORROWED + PREDICTED)
    commit(
        tmp_path,
        {"claims/moe.yaml": MEASURED + BORROWED + PREDICTED.replace("s: moe-speedup-b16", "s: m1max-moe-speedup-b16")},
    )
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert flagged(result.output) == [
        "| rests on borrowed figures | `moe-speedup-doubled` | now rests on borrowed m1max-moe-speedup-b16, "
        "checked by moe-speedup-b16 (measured, agrees, fresh); rests only on borrowed claims, and no check here "
        "agrees with its value |",
    ]
    assert row(result.output, "moe-speedup-doubled").endswith(
        "| freshness fresh → **fails: only-borrowed**; also changed: inputs |"
    )


def test_diff_recognises_a_renamed_claim_and_the_references_to_it(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + PREDICTED)
    renamed = (MEASURED + PREDICTED).replace("moe-speedup-b16", "moe-speedup-batch16")
    commit(tmp_path, {"claims/moe.yaml": renamed})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert (
        result.output
        == f"""\
## Ledger diff: {base[:12]} → HEAD ({git(tmp_path, "rev-parse", "HEAD")[:12]})

**1 renamed**

### Other changes (listed, not flagged)

| review | claim | what | fields |
| --- | --- | --- | --- |
| renamed | `moe-speedup-batch16` (was `moe-speedup-b16`) |  |  |

Gate at base: 2 claims (1 measured, 1 extrapolated; 2 asserted) — 0 failures  
Gate at head: 2 claims (1 measured, 1 extrapolated; 2 asserted) — 0 failures
"""
    )


def test_diff_shows_a_renamed_claim_whose_value_also_changed_as_removed_and_added(tmp_path):
    base = ledger_repo(tmp_path)
    commit(
        tmp_path, {"claims/moe.yaml": MEASURED.replace("moe-speedup-b16", "moe-speedup-batch16").replace("3.59", "3.6")}
    )
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert "**1 added · 1 removed**" in result.output
    assert "(was `moe-speedup-b16`)" not in result.output


def test_diff_against_a_revision_without_a_ledger_lists_every_claim_as_added(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit(tmp_path, {"README.md": "# A report, before it had claims\n"}, "first")
    a_run(tmp_path, SPEEDUP_ROWS, columns=SPEEDUP_KINDS)
    write_tree(tmp_path, {"mkdocs.yml": MKDOCS, "claims/moe.yaml": MEASURED})
    git(tmp_path, "add", "probes")  # a run's code is a tracked file
    result = run_ledger("diff", base, cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert (
        result.output
        == f"""\
## Ledger diff: {base[:12]} → working tree

**1 flagged · 1 added · runs: 1 added · policy changed · 3 code that installs or runs**

### Flagged for review

| review | claim | what | fields |
| --- | --- | --- | --- |
| policy weakened | mkdocs.yml: max\\_run\\_age\\_days | 365 → 36500: passes more than at the base |  |

### Code that installs or runs (read it as code)

| file or setting | why |
| --- | --- |
| `probes/toy.py` | a probe: \\`ledger measure\\` runs it on the measuring machine |
| mkdocs.yml: plugins | loads code into the build or the reader's browser |
| mkdocs.yml: site\\_name | MkDocs writes it into every page as HTML, or it decides what the build reads and writes |

### Other changes (listed, not flagged)

| review | claim | what | fields |
| --- | --- | --- | --- |
| added | `moe-speedup-b16` |  | value 3.59×; kind measured; status asserted; testbed linux-cpu; evidence {RUN}; freshness fresh |

### Policy (the gate's settings)

- max_run_age_days: 365 → **36500**

### Runs

- added `{RUN}` (linux-cpu)

Gate at base: 0 claims — 0 failures  
Gate at head: {GATE_ONE}
"""
    )


def test_diff_removed_claims_are_listed_with_their_last_values(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + BORROWED)
    commit(tmp_path, {"claims/moe.yaml": MEASURED})
    result = run_ledger("diff", base, "HEAD", cwd=tmp_path)
    assert row(result.output, "m1max-moe-speedup-b16") == (
        "| removed | `m1max-moe-speedup-b16` |  | value 3.59×; kind borrowed; status asserted; testbed apple-m1-max; "
        "evidence source: What is batching actually saving?; freshness fresh |"
    )


def test_diff_of_two_revisions_reads_git_and_leaves_the_working_tree_alone(tmp_path):
    base = ledger_repo(tmp_path)
    head = commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "3.62")})
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "9.99"), "notes.txt": "untracked\n"})
    status = git(tmp_path, "status", "--porcelain")
    result = run_ledger("diff", base, head, cwd=tmp_path)
    assert "3.59× → **3.62×**" in result.output and "9.99" not in result.output
    assert git(tmp_path, "status", "--porcelain") == status
    assert git(tmp_path, "rev-parse", "HEAD") == head
    assert "value: 9.99" in (tmp_path / "claims/moe.yaml").read_text()


def test_diff_reads_a_ledger_in_a_subfolder_of_the_repository(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    project = tmp_path / "report"
    a_run(project, SPEEDUP_ROWS)
    base = commit(
        tmp_path,
        {"report/mkdocs.yml": MKDOCS, "report/claims/moe.yaml": MEASURED, "claims/unrelated.yaml": "not: a ledger\n"},
    )
    commit(tmp_path, {"report/claims/moe.yaml": MEASURED.replace("3.59", "3.62")})
    result = run_ledger("--root", "report", "diff", base, "HEAD", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert row(result.output, "moe-speedup-b16") == "| changed | `moe-speedup-b16` |  | value 3.59× → **3.62×** |"


def test_diff_says_so_when_nothing_changed(tmp_path):
    base = ledger_repo(tmp_path)
    result = run_ledger("diff", base, cwd=tmp_path)
    assert (
        result.output
        == f"""\
## Ledger diff: {base[:12]} → working tree

No claim or run changed.

Gate at base: {GATE_ONE}  
Gate at head: {GATE_ONE}
"""
    )


def test_diff_escapes_markdown_and_html_in_claim_text(tmp_path):
    base = ledger_repo(tmp_path)
    write_tree(
        tmp_path,
        {
            "claims/moe.yaml": MEASURED
            + """
  - id: odd-source
    kind: borrowed
    source: {title: "a | b <script>alert(1)</script> *bold* [link](x)"}
    checked_by: [{claim: moe-speedup-b16, expects: "> 1"}]
"""
        },
    )
    result = run_ledger("diff", base, cwd=tmp_path)
    assert flagged(result.output) == [
        r"| new borrowed claim | `odd-source` | source: a \| b &lt;script&gt;alert(1)&lt;/script&gt; \*bold\* "
        r"\[link\](x); checked by moe-speedup-b16 (measured, direction only, fresh) |",
    ]


def test_diff_json_gives_flags_and_old_and_new_fields(tmp_path):
    base = ledger_repo(tmp_path)
    a_run(tmp_path, [{"batch": 1, "speedup": 1.0}, {"batch": 16, "speedup": 3.21}], when=LATER, columns=SPEEDUP_KINDS)
    head = commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "3.21").replace(RUN, LATER_RUN)})
    result = run_ledger("diff", "main~1", "main", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert json.loads(result.output) == {
        "base": {"revision": "main~1", "commit": base, "label": f"main~1 ({base[:12]})", "gate": GATE_ONE},
        "head": {"revision": "main", "commit": head, "label": f"main ({head[:12]})", "gate": GATE_ONE},
        "flags": [
            {
                "flag": "value-moved",
                "title": "value moved",
                "claim": "moe-speedup-b16",
                "message": "3.59× → 3.21× (-10.6%; 5% allowed; exact, changed)",
                "state": "exact-changed",
                "allowed": 0.05,
            },
        ],
        "within_noise": [],
        "remeasured": [
            {
                "claim": "moe-speedup-b16",
                "message": "run 2026-11-29T10-00-00Z-linux-cpu → 2026-11-29T11-00-00Z-linux-cpu; exact, changed",
                "state": "exact-changed",
                "allowed": 0.05,
            }
        ],
        "insufficient": [],
        "series": [
            {
                "claim_id": "moe-speedup-b16",
                "run": LATER_RUN,
                "value": "3.21×",
                "verdict": "step",
                "what": "exact, changed",
                "moved": False,
                "state": "exact-changed",
                "allowed": 0.05,
            }
        ],
        "added": [],
        "removed": [],
        "renamed": [],
        "changed": [
            {
                "claim": "moe-speedup-b16",
                "old_id": "moe-speedup-b16",
                "fields": {"value": {"old": "3.59×", "new": "3.21×"}, "evidence": {"old": RUN, "new": LATER_RUN}},
            }
        ],
        "runs": {"added": [LATER_RUN], "removed": []},
        "policy": {},
        "build_code": [],
        "surface_figures": [],
    }


def test_diff_names_an_unknown_revision_and_exits_2(tmp_path):
    ledger_repo(tmp_path)
    result = run_ledger("diff", "no-such-branch", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.output == ""
    assert result.errors == (
        "ledger: diff: unknown revision 'no-such-branch': no such branch, tag or commit "
        "here (in CI, check out the whole history: fetch-depth: 0)\n"
    )


def test_diff_outside_a_git_repository_is_a_usage_error(tmp_path):
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    result = run_ledger("diff", "main", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.errors.startswith(f"ledger: diff: {tmp_path} is not in a git repository (")
    assert result.errors.endswith("); `ledger diff` compares git revisions\n")


def claim(claim_id: str, value: float, line: int = 2) -> Claim:
    return Claim(claim_id, "borrowed", Source("claims/a.yaml", line), value=value, value_text=str(value))


def test_renames_need_one_unchanged_match_on_each_side():
    cases = [
        ({"a": claim("a", 1.0)}, {"b": claim("b", 1.0, line=9)}, {"a": "b"}),  # moved and renamed
        ({"a": claim("a", 1.0)}, {"b": claim("b", 2.0)}, {}),  # value changed too
        ({"a": claim("a", 1.0), "c": claim("c", 1.0)}, {"b": claim("b", 1.0)}, {}),  # which one?
        ({"a": claim("a", 1.0)}, {"b": claim("b", 1.0), "d": claim("d", 1.0)}, {}),  # which one?
        ({"a": claim("a", 1.0)}, {"a": claim("a", 1.0), "b": claim("b", 1.0)}, {}),  # a copy, not a rename
    ]
    for old, new, expected in cases:
        assert find_renames(old, new) == expected


def rewrite_run(root, old=b"3.6", new=b"3.59"):
    """A run's cell and its manifest hash changed together, as a careful rewriter would."""
    import hashlib

    path = root / RUN / "results.csv"
    data = path.read_bytes().replace(old, new)
    path.write_bytes(data)
    manifest = root / RUN / "manifest.json"
    fields = json.loads(manifest.read_text())
    fields["files"]["results.csv"]["sha256"] = hashlib.sha256(data).hexdigest()
    manifest.write_text(json.dumps(fields, indent=2))


def test_diff_flags_a_base_run_whose_bytes_differ_at_head_even_on_rewritten_history(tmp_path):
    base = ledger_repo(tmp_path)
    # The pull request's branch starts a new history in which the run was "always" the other bytes.
    git(tmp_path, "checkout", "-q", "--orphan", "rewritten")
    rewrite_run(tmp_path)
    head = commit(tmp_path, {"claims/moe.yaml": MEASURED.replace("3.59", "3.59")}, "the run, as it always was")
    result = run_ledger("diff", base, head, cwd=tmp_path)
    assert result.exit_code == 0
    assert (
        f"| run rewritten | `{RUN}` | manifest.json differs; results.csv differs since the base (runs are immutable) |"
        in flagged(result.output)
    )


def test_diff_runs_the_history_rules_on_head_as_ledger_check_does(tmp_path):
    base = ledger_repo(tmp_path)
    rewrite_run(tmp_path)
    head = commit(tmp_path, message="tidy a cell")
    assert run_ledger("check", cwd=tmp_path).exit_code == 1  # rewritten
    result = run_ledger("diff", base, head, cwd=tmp_path)
    assert "Gate at head: 1 claim (1 measured; 1 asserted) — 1 failure: 1 rewritten" in result.output
    assert flagged(result.output)[0].startswith(f"| run rewritten | `{RUN}` | manifest.json differs; results.csv")


def test_diff_lists_changed_code_the_build_runs(tmp_path):
    base = ledger_repo(tmp_path)
    commit(tmp_path, {"figures/toy.py": "X = 1\n", "docs/index.md": "# Toy\n"}, "a figure")
    base = git(tmp_path, "rev-parse", "HEAD")
    config = MKDOCS + "hooks: [hooks.py]\nmarkdown_extensions: [admonition]\n"
    files = {
        "figures/toy.py": "X = 2\n",
        "hooks.py": "def on_page_content(html, **kwargs):\n    return html\n",
        "mkdocs.yml": config,
        "docs/extra.js": "document.body.textContent = '9.9x'\n",
        "docs/index.md": "# Toy, again\n",
    }
    head = commit(tmp_path, files, "code")
    result = run_ledger("diff", base, head, cwd=tmp_path)
    section = result.output.split("### Code that installs or runs (read it as code)\n\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines()[2:] == [
        "| `docs/extra.js` | shipped to every reader's browser as is |",
        "| `figures/toy.py` | a figure module: Python the build imports and runs |",
        "| `hooks.py` | an MkDocs hook: Python the build runs |",
        "| mkdocs.yml: markdown\\_extensions | loads code into the build or the reader's browser |",
        "| mkdocs.yml: hooks | loads code into the build or the reader's browser |",
    ]
    assert "3 code that installs or runs" not in result.output and "5 code that installs or runs" in result.output


def test_diff_lists_every_policy_setting_and_judges_a_move_with_the_base_policy(tmp_path):
    base = ledger_repo(tmp_path, MEASURED + PREDICTED)  # moe-speedup-doubled: 7.2, the precision default (±0.05)
    looser = MKDOCS + "      default_tolerance: 50%\n      max_check_factor: 3\n      check_tolerance: 20%\n"
    moved = (MEASURED + PREDICTED).replace("value: 7.2", "value: 9")  # within 50% at head: passes the head gate
    result = run_ledger("diff", base, commit(tmp_path, {"mkdocs.yml": looser, "claims/moe.yaml": moved}), cwd=tmp_path)
    assert (
        "### Policy (the gate's settings)\n\n"
        "- default_tolerance: precision → **50%**\n"
        "- check_tolerance: 10% → **20%**\n"
        "- max_check_factor: 2 → **3**\n"
    ) in result.output
    assert "| value moved | `moe-speedup-doubled` | 7.2 → 9 (+25.0%; ±0.05 allowed) |" in result.output


def test_diff_flags_a_unit_change_as_a_value_change_with_its_factor(tmp_path):
    base = ledger_repo(tmp_path)  # the toy run declares its speedup column in ×
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace('unit: "×"', 'unit: "%"')})  # the same number, in %
    rows = flagged(run_ledger("diff", base, "HEAD", cwd=tmp_path).output)
    assert rows == [  # one row for the claim: both flags, each with why
        "| unit changed, became stale | `moe-speedup-b16` | unit changed: '×' → '%': the same number is a 100× "
        "smaller quantity (stated 3.59× → 3.59%: the quantity 0.01×); became stale: drifted: stated 3.59%, "
        "evidence computes 360% (5% allowed) |"
    ], rows


def test_diff_flags_a_unit_change_restated_at_the_converted_number_as_the_same_quantity(tmp_path):
    base = ledger_repo(tmp_path)
    commit(tmp_path, {"claims/moe.yaml": MEASURED.replace('unit: "×"', 'unit: "%"').replace("3.59", "359")})
    rows = flagged(run_ledger("diff", base, "HEAD", cwd=tmp_path).output)
    assert rows == ["| unit changed | `moe-speedup-b16` | '×' → '%': the same number is a 100× smaller quantity "
                    "(stated 3.59× → 359%: the quantity 1×) |"], rows  # fmt: skip
