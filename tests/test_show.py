"""`ledger show ID`: one claim's lineage as a tree, through the real command line."""

from helpers import BORROWED_CHECKED, DOUBLED, MEASURED, RUN, SPEEDUP_ROWS, a_run, run_ledger, write_tree

from generator.runs import sha256_file

BORROWED = BORROWED_CHECKED
PREDICTED = DOUBLED
REFUTED = """
  - id: engine-refuses-batching
    kind: borrowed
    statement: A closed-source engine calls batched MoE "unvalidated"
    source: {title: startup log of a closed-source engine, quote: unvalidated}
    status: refuted
    refuted_by: moe-speedup-b16
"""
RUN_NODE = f"""\
run {RUN} (linux-cpu, finished 2026-11-29T10:00:00Z)
    ├── data results.csv (matches its manifest, row batch=16, column speedup)
    └── probe probes/toy.py (unchanged since the run)"""


def show(tmp_path, claim_id: str, claims: str = MEASURED + BORROWED + PREDICTED + REFUTED):
    if not (tmp_path / RUN).exists():
        a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(tmp_path, {"claims/moe.yaml": claims})
    return run_ledger("show", claim_id, cwd=tmp_path)


def test_show_measured_claim_down_to_its_run_and_probe_and_what_depends_on_it(tmp_path):
    result = show(tmp_path, "moe-speedup-b16")
    assert result.exit_code == 0, result.errors
    assert (
        result.output
        == f"""\
moe-speedup-b16 = 3.59× (measured, fresh)
exact
└── {RUN_NODE}
what depends on it:
├── checks m1max-moe-speedup-b16 = 3.59× (borrowed, agrees, fresh)
├── input s of moe-speedup-doubled = 7.2 (extrapolated, fresh)
└── retired engine-refuses-batching (borrowed, refuted, fresh)
"""
    )


def test_show_extrapolated_claim_through_its_inputs(tmp_path):
    result = show(tmp_path, "moe-speedup-doubled")
    assert (
        result.output
        == f"""\
moe-speedup-doubled = 7.2 (extrapolated, fresh)
exact
└── input s: moe-speedup-b16 = 3.59× (measured, fresh)
    └── {RUN_NODE.replace(chr(10), chr(10) + "    ")}
what depends on it: nothing
"""
    )


def test_show_borrowed_claim_with_its_source_and_what_retired_it(tmp_path):
    result = show(tmp_path, "engine-refuses-batching")
    assert (
        result.output
        == f"""\
engine-refuses-batching (borrowed, refuted, fresh)
├── source: startup log of a closed-source engine — “unvalidated”
└── refuted by moe-speedup-b16 = 3.59× (measured, fresh)
    └── {RUN_NODE.replace(chr(10), chr(10) + "    ")}
what depends on it: nothing
"""
    )


def test_show_marks_stale_nodes_with_the_rule_and_lists_the_findings(tmp_path):
    a_run(tmp_path, SPEEDUP_ROWS)
    data = tmp_path / RUN / "results.csv"
    committed = sha256_file(data)
    data.write_bytes(data.read_bytes().replace(b"3.6", b"3.7"))
    result = show(tmp_path, "moe-speedup-doubled", MEASURED + PREDICTED)
    assert result.exit_code == 0, result.errors
    lines = result.output.splitlines()
    assert lines[:4] == [
        "moe-speedup-doubled = 7.2 (extrapolated, stale: formula-drifted)",
        "└── input s: moe-speedup-b16 = 3.59× (measured, stale: tampered)",
        f"    └── run {RUN} (linux-cpu, finished 2026-11-29T10:00:00Z; tampered: results.csv has sha256 "
        f"{sha256_file(data)[:12]}…, the manifest says {committed[:12]}…)",
        "        ├── data results.csv (tampered: differs from its manifest, row batch=16, column speedup)",
    ]
    assert lines[5:] == [
        "what depends on it: nothing",
        "findings:",
        "  claims/moe.yaml:18: moe-speedup-doubled: formula-drifted: input moe-speedup-b16 is stale (tampered)",
        "    fix: fix moe-speedup-b16 first (`ledger check` lists why)",
    ]


def test_show_a_claim_whose_run_is_gone(tmp_path):
    write_tree(tmp_path, {"claims/moe.yaml": MEASURED})
    result = run_ledger("show", "moe-speedup-b16", cwd=tmp_path)
    assert (
        result.output
        == f"""\
moe-speedup-b16 = 3.59× (measured, stale: invalid)
└── run {RUN} (missing)
what depends on it: nothing
findings:
  claims/moe.yaml:8: moe-speedup-b16: invalid: evidence run {RUN} does not exist
    fix: point evidence.run at an existing run folder
"""
    )


def test_show_unknown_id_suggests_the_closest_and_exits_2(tmp_path):
    result = show(tmp_path, "moe-speedup-b61")
    assert result.exit_code == 2
    assert result.errors == "ledger: show: no claim 'moe-speedup-b61'; did you mean 'moe-speedup-b16'?\n"


def test_show_reads_the_first_of_two_claims_with_one_id_as_the_gate_does(tmp_path):
    twice = MEASURED + BORROWED.replace("id: m1max-moe-speedup-b16", "id: moe-speedup-b16")
    result = show(tmp_path, "moe-speedup-b16", twice)
    assert result.output.startswith("moe-speedup-b16 = 3.59× (measured, ")
