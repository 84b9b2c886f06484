"""Benchmark tools as probes: the examples of guide/probes.md ("Benchmark tools as probes"), declared in a
fresh `ledger init` project as the guide declares them and run for real by `ledger measure`: hyperfine,
pytest-benchmark and Google Benchmark. Each becomes a run whose rounds are every sample the tool kept,
in the tool's units, with the tool's export kept and hashed in it; a claim cites it with its interval, a
replicate set pools, a tampered export fails; bad input fails cleanly and writes nothing."""

import csv
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, project, run_ledger, write_tree

from generator.commands.measure import command_line
from generator.inputs.config import read_policy
from generator.records import ProbeSpec

GUIDE = (REPO / "guide/probes.md").read_text().split("## Benchmark tools as probes", 1)[1].split("\n## ", 1)[0]
TESTBED = "bench-box"
# tool -> (its section in the guide, its probe, the probe's source and its language, the export's name in the run)
TOOLS = {
    "hyperfine": ("hyperfine", "count_words", "probes/count_words.py", "python", "hyperfine.json"),
    "pytest-benchmark": ("pytest-benchmark", "bench_words", "probes/bench_words.py", "python", "pytest-benchmark.json"),
    "google-benchmark": ("Google Benchmark", "sort_ints", "probes/sort_ints.cc", "cpp", "google-benchmark.json"),
}  # fmt: skip


def block(section: str, language: str) -> str:
    part = GUIDE.split(f"### {section}\n", 1)[1].split("\n### ", 1)[0]
    (found,) = re.findall(rf"```{language}\n(.*?)```", part, re.S)
    return found


def declarations() -> str:
    """The guide's `probes:` entries of the three tools, as items of a `probes:` list under the plugin."""
    items = []
    for section, *_ in TOOLS.values():
        first, *rest = block(section, "yaml").splitlines()
        assert first == "probes:"
        items += rest
    return "".join(f"      {line}\n" for line in items)


def specs(root: Path) -> dict[str, ProbeSpec]:
    policy = read_policy(root / "mkdocs.yml")
    assert not policy.problems, policy.problems
    return {spec.name: spec for spec in policy.probes}


@pytest.fixture(scope="module")
def initialized(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("init") / "project"
    result = run_ledger("init", str(root), cwd=root.parent)
    assert result.exit_code == 0, result.errors
    return root


@pytest.fixture
def fresh(initialized, tmp_path) -> Path:
    """A fresh `ledger init` project that declares the guide's three tool probes, their sources beside them."""
    root = tmp_path / "project"
    shutil.copytree(initialized, root)
    anchor = '          command: "{python} probes/hashing.py --profile {profile}"\n'
    config = (root / "mkdocs.yml").read_text()
    assert anchor in config
    write_tree(root, {"mkdocs.yml": config.replace(anchor, anchor + declarations())})
    write_tree(root, {source: block(section, language) for section, _, source, language, _ in TOOLS.values()})
    return root


def runs(root: Path, probe: str) -> list[Path]:
    folder = root / "measurements" / probe
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_guides_tool_probes_are_declared_as_written(fresh):
    assert [(spec.name, spec.tool, spec.code) for spec in specs(fresh).values()][1:] == [
        ("count_words", "hyperfine", ("probes/count_words.py",)),
        ("bench_words", "pytest-benchmark", ("probes/bench_words.py",)),
        ("sort_ints", "google-benchmark", ("probes/sort_ints.cc",)),
    ]


# What each tool kept, from its own export: each benchmark's every round of one value column.
def hyperfine_rounds(export: dict) -> dict[str, list[float]]:
    return {entry["command"]: entry["times"] for entry in export["results"]}


def pytest_rounds(export: dict) -> dict[str, list[float]]:
    return {entry["name"]: entry["stats"]["data"] for entry in export["benchmarks"]}


def google_rounds(export: dict) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for row in export["benchmarks"]:
        if row["run_type"] == "iteration":
            found.setdefault(row["run_name"], []).append(row["real_time"])
    return found


# probe -> (its key column, a value column, the unit the tool's output gives it, its rounds in the export,
# the `where` of a claim and the key it selects)
KEPT = {
    "count_words": ("command", "time", lambda export: "s", hyperfine_rounds, "{command: split}", "split"),
    "bench_words": ("name", "time", lambda export: "s", pytest_rounds, "{method: split}", "test_count_words[split]"),
    "sort_ints": (
        "name", "real_time", lambda export: export["benchmarks"][0]["time_unit"], google_rounds,
        "{name: sort_ints/1024}", "sort_ints/1024",
    ),
}  # fmt: skip

CLAIMS = """
claims:
  - id: one-run
    statement: the benchmark takes this long here, from one run's rounds
    value: 1
    unit: {unit}
    kind: measured
    testbed: bench-box
    evidence: {{run: {first}, file: results.csv, where: {where}, column: {column}}}
    tolerance: 1%
  - id: pooled
    statement: the benchmark takes this long here, pooled over two runs
    value: 1
    unit: {unit}
    kind: measured
    testbed: bench-box
    evidence: {{run: {second}, file: results.csv, where: {where}, column: {column}, replicates: 2}}
    tolerance: 1%
"""


@pytest.mark.slow  # each tool runs twice, for real (Google Benchmark's probe is compiled first)
@pytest.mark.parametrize("tool", TOOLS)
def test_a_tool_run_for_real_becomes_runs_a_claim_cites_with_rounds_interval_and_units_and_a_set_pools(fresh, tool):
    section, probe, _, _, export_name = TOOLS[tool]
    key, column, unit_of, kept_of, where, selected = KEPT[probe]
    measured = run_ledger("measure", probe, "--replicates", "2", "--testbed", TESTBED, cwd=fresh, timeout=300)
    assert measured.exit_code == 0, measured.errors
    assert "2 runs written by 1 probe(s)" in measured.output
    first, second = runs(fresh, probe)
    export_bytes = (first / export_name).read_bytes()
    export = json.loads(export_bytes)
    manifest = json.loads((first / "manifest.json").read_text())
    # The export is in the run, hashed; every sample the tool kept is a raw round, in the tool's unit.
    assert manifest["attachments"] == {export_name: {"sha256": hashlib.sha256(export_bytes).hexdigest()}}
    assert set(manifest["files"]) == {"results.csv", "samples.csv"}
    unit = unit_of(export)
    declared = manifest["columns"]["results.csv"]
    assert declared[column] == declared[f"{column}_min"] == declared[f"{column}_max"] == {"unit": unit, "kind": "timed"}
    samples = rows(first / "samples.csv")
    kept = kept_of(export)
    assert {name: [float(row[column]) for row in samples if row[key] == name] for name in kept} == kept
    assert [int(row["round"]) for row in samples] == list(range(1, sum(map(len, kept.values())) + 1))
    environment = manifest["environment"]
    assert re.fullmatch(rf"{section} \d+\.\d+\.\d+", environment["tool"]), environment["tool"]
    assert environment["command"] == specs(fresh)[probe].command  # as declared: no paths of this machine
    assert not {"node", "host_name", "executable"} & set(environment)

    names = {"first": first.relative_to(fresh).as_posix(), "second": second.relative_to(fresh).as_posix()}
    write_tree(fresh, {"claims/tool.yaml": CLAIMS.format(unit=unit, where=where, column=column, **names)})
    accepted = run_ledger("accept", "one-run", "pooled", cwd=fresh)
    assert accepted.exit_code == 0, accepted.output + accepted.errors
    checked = run_ledger("check", "--format", "json", cwd=fresh)
    assert checked.exit_code == 0, checked.output
    one, pooled = (json.loads(checked.output)["verdicts"][name] for name in ("one-run", "pooled"))
    assert one["unit"] == pooled["unit"] == unit
    assert one["interval"]["basis"] == "rounds" and one["interval"]["rounds"] == len(kept[selected])
    assert one["interval"]["low"] <= one["computed"] <= one["interval"]["high"]
    assert pooled["interval"]["basis"] == "replicates" and pooled["interval"]["runs"] == 2
    assert pooled["replicates"] == [names["first"], names["second"]]

    (first / export_name).write_bytes(export_bytes.replace(b"{", b"{ ", 1))  # one byte more, the same JSON
    failed = run_ledger("check", cwd=fresh)
    assert failed.exit_code == 1
    for claim, line in (("one-run", 8), ("pooled", 16)):  # each at its evidence
        assert f"claims/tool.yaml:{line}: {claim}: tampered: {names['first']}/{export_name} has sha256" in failed.output


@pytest.mark.slow  # runs pytest-benchmark for real
def test_a_run_pytest_benchmark_saved_without_its_rounds_has_no_interval_and_cannot_carry_asserts(fresh, tmp_path):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "probes/bench_words.py"]
    storage = ["--benchmark-save=words", f"--benchmark-storage=file://{tmp_path}", "--benchmark-min-rounds=30"]
    done = subprocess.run([*command, *storage, "--benchmark-max-time=0"], cwd=fresh, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    (saved,) = tmp_path.glob("*/0001_words.json")  # without --benchmark-save-data: statistics only
    read = run_ledger("measure", "bench_words", "--from", str(saved), "--testbed", TESTBED, cwd=fresh)
    assert read.exit_code == 0, read.errors
    (run,) = runs(fresh, "bench_words")
    assert set(json.loads((run / "manifest.json").read_text())["files"]) == {"results.csv"}  # no samples.csv
    (row,) = [row for row in rows(run / "results.csv") if row["method"] == "split"]
    export = json.loads(saved.read_text())
    (stats,) = [entry["stats"] for entry in export["benchmarks"] if entry["params"] == {"method": "split"}]
    assert "data" not in stats
    assert [float(row[name]) for name in ("time", "time_mean", "time_stddev")] == [
        stats["median"],
        stats["mean"],
        stats["stddev"],
    ]
    assert row["rounds"] == "30" and row["reps"] == str(stats["iterations"]) and "time_min" not in row
    claim = CLAIMS.split("  - id: pooled")[0].format(
        unit="s", first=run.relative_to(fresh).as_posix(), where="{method: split}", column="time"
    )
    claim = claim.replace("value: 1", f"value: {row['time']}")
    write_tree(fresh, {"claims/tool.yaml": claim})
    checked = run_ledger("check", "--format", "json", cwd=fresh)
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["verdicts"]["one-run"]["interval"] is None
    write_tree(fresh, {"claims/tool.yaml": claim + '    asserts: "< 1 s"\n'})
    asserting = run_ledger("check", cwd=fresh)
    assert asserting.exit_code == 1 and "claims/tool.yaml:10: one-run: not-significant:" in asserting.output


@pytest.mark.slow  # runs hyperfine for real
def test_an_export_hyperfine_wrote_elsewhere_becomes_one_run_stamped_with_its_file_and_read_once(fresh, tmp_path):
    export = tmp_path / "ci" / "hyperfine.json"
    export.parent.mkdir()
    spec = specs(fresh)["count_words"]
    argv = command_line(spec, {"python": sys.executable, "export": str(export)})
    assert subprocess.run(argv, cwd=fresh, capture_output=True).returncode == 0, shlex.join(argv)
    read = run_ledger("measure", "count_words", "--from", str(export), "--testbed", "ci-linux", cwd=fresh)
    assert read.exit_code == 0, read.errors
    (run,) = runs(fresh, "count_words")
    assert (run / "hyperfine.json").read_bytes() == export.read_bytes()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["testbed"] == "ci-linux" and manifest["started"] == manifest["finished"]
    assert manifest["environment"] == {
        "tool": "hyperfine (its version is not in the export)",
        "command": "not recorded: read by --from",
    }  # nothing of this machine: the export was made elsewhere
    again = run_ledger("measure", "count_words", "--from", str(export), "--testbed", "ci-linux", cwd=fresh)
    assert again.exit_code == 1
    assert f"count_words: FAILED: {export} made a run of count_words already: one export is one run" in again.errors
    assert runs(fresh, "count_words") == [run]


PYTEST_EXPORT = {
    "machine_info": {"node": "alices-laptop", "system": "Linux", "machine": "x86_64", "python_version": "3.12.1"},
    "commit_info": {"id": "0" * 40, "author_time": "2026-11-30T12:00:00+01:00"},
    "benchmarks": [
        {
            "group": None,
            "name": "test_count_words[split]",
            "params": {"method": "split"},
            "stats": {"rounds": 3, "iterations": 8, "median": 0.2, "mean": 0.2, "stddev": 0.1, "data": [0.3, 0.2, 0.1]},
        }
    ],
    "datetime": "2026-12-01T10:00:00.123456+00:00",
    "version": "5.3.1",
}


def google_row(name: str, index: int, real: float, unit: str = "ns", **more) -> dict:
    return {
        "name": name, "run_name": name, "run_type": "iteration", "repetitions": 3, "repetition_index": index,
        "threads": 1, "iterations": 100, "real_time": real, "cpu_time": real / 2, "time_unit": unit, **more,
    }  # fmt: skip


GOOGLE_EXPORT = {
    "context": {"date": "2026-12-01T11:00:00+01:00", "host_name": "alices-laptop", "executable": "/home/alice/x",
                "num_cpus": 8, "library_build_type": "release"},
    "benchmarks": [
        *(google_row("fast/8", i, x, items_per_second=1e6 / x) for i, x in enumerate((30.0, 10.0, 20.0))),
        *(google_row("slow/8", i, x, "ms") for i, x in enumerate((2.0, 3.0, 1.0))),
        {**google_row("slow/8", 0, 2.0, "ms"), "name": "slow/8_median", "run_type": "aggregate", "aggregate_name": "median"},
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    "probe, export, name",
    [("bench_words", PYTEST_EXPORT, "pytest-benchmark.json"), ("sort_ints", GOOGLE_EXPORT, "google-benchmark.json")],
)
def test_an_export_made_elsewhere_is_read_in_its_units_with_its_own_time_and_no_host_name(
    fresh, tmp_path, probe, export, name
):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    result = run_ledger("measure", probe, "--from", str(path), "--testbed", "ci-linux", cwd=fresh)
    assert result.exit_code == 0, result.errors
    (run,) = runs(fresh, probe)
    assert run.name == "2026-12-01T10-00-00Z-ci-linux"  # the export's own time, in UTC
    assert (run / name).read_text() == json.dumps(export)
    manifest = json.loads((run / "manifest.json").read_text())
    assert "alices-laptop" not in json.dumps(manifest) and "/home/alice" not in json.dumps(manifest)
    results, samples = rows(run / "results.csv"), rows(run / "samples.csv")
    if probe == "bench_words":
        assert manifest["environment"] == {
            "os": "Linux", "machine": "x86_64", "python": "3.12.1", "tool": "pytest-benchmark 5.3.1",
            "command": "not recorded: read by --from",
        }  # fmt: skip
        assert results == [{"name": "test_count_words[split]", "method": "split", "rounds": "3", "time": "0.2",
                            "time_min": "0.1", "time_max": "0.3"}]  # fmt: skip
        assert [(row["round"], row["reps"], row["time"]) for row in samples] == [
            ("1", "8", "0.3"),
            ("2", "8", "0.2"),
            ("3", "8", "0.1"),
        ]
        return
    assert manifest["environment"]["tool"] == "Google Benchmark (its version is not in the export)"
    assert manifest["environment"]["cpu_count"] == 8 and manifest["environment"]["library_build_type"] == "release"
    assert manifest["columns"]["results.csv"]["real_time"] == {"unit": "ns", "kind": "timed"}  # the finest unit used
    assert manifest["columns"]["results.csv"]["items_per_second"] == {"unit": "items/s", "kind": "timed"}
    slow = [row for row in results if row["name"] == "slow/8"]
    assert [(row["real_time"], row["real_time_min"], row["real_time_max"]) for row in slow] == [
        ("2000000.0", "1000000.0", "3000000.0")
    ]
    assert [row["round"] for row in samples] == ["1", "2", "3", "4", "5", "6"]  # the aggregate is no round
    assert [row["items_per_second"] for row in samples][3:] == ["", "", ""]


def bad(export: dict, change) -> str:
    copied = json.loads(json.dumps(export))
    change(copied)
    return json.dumps(copied)


HYPERFINE_EXPORT = {"results": [{"command": "split", "mean": 0.2, "times": [0.3, 0.2, 0.1], "exit_codes": [0, 0, 0]}]}


@pytest.mark.parametrize(
    "probe, text, problem",
    [
        ("count_words", json.dumps(HYPERFINE_EXPORT)[:40], "is not JSON (Expecting ':' delimiter: line 1 column 41 (char 40)): a truncated export? run the tool again"),
        ("bench_words", bad(PYTEST_EXPORT, lambda e: e["benchmarks"][0]["stats"]["data"].pop()), "benchmarks[0].stats.data: holds 2 rounds, stats.rounds says 3: a truncated or edited export"),
        ("count_words", json.dumps(GOOGLE_EXPORT), "is a Google Benchmark export, not hyperfine's: the probe declares `tool: hyperfine`"),
        ("count_words", '{"runs": []}', "results: is missing (not a hyperfine export: `--export-json {export}` writes one)"),
        ("sort_ints", bad(GOOGLE_EXPORT, lambda e: e["benchmarks"][4].pop("time_unit")), "benchmarks[4].time_unit: is missing: the export names no unit for real_time and cpu_time"),
        ("sort_ints", bad(GOOGLE_EXPORT, lambda e: e["benchmarks"][0].update(time_unit="ps")), "benchmarks[0].time_unit: 'ps' is not a unit Google Benchmark writes (ns, us, ms, s)"),
        ("sort_ints", bad(GOOGLE_EXPORT, lambda e: e["benchmarks"][1].update(error_occurred=True, error_message="boom")), "benchmarks[1].error_message: 'boom': the benchmark failed; fix it"),
        ("sort_ints", bad(GOOGLE_EXPORT, lambda e: e.update(benchmarks=e["benchmarks"][6:])), "benchmarks: slow/8 has only aggregates: run it without --benchmark_report_aggregates_only, so that every repetition is kept"),
        ("bench_words", bad(PYTEST_EXPORT, lambda e: e["benchmarks"][0]["stats"]["data"].__setitem__(1, "fast")), "benchmarks[0].stats.data[1]: 'fast' is not a finite number"),
        ("count_words", bad(HYPERFINE_EXPORT, lambda e: e["results"][0]["exit_codes"].__setitem__(1, 2)), "results[0].exit_codes[1]: run 2 of 'split' exited 2: its time measures a failure; fix the command (hyperfine -i times failing commands)"),
        ("count_words", bad(HYPERFINE_EXPORT, lambda e: e["results"][0].update(times=[0.1] * 251, exit_codes=[])), "results[0]: 251 rounds; a claim's interval is read from at most 250: pass --runs N (or --max-runs N)"),
        ("count_words", '{"results": [{"command": "split", "times": [0.1, NaN]}]}', "results[0].times[1]: 'nan' is not a finite number"),
    ],
)  # fmt: skip
def test_a_bad_export_fails_naming_the_file_and_field_and_writes_nothing(fresh, tmp_path, probe, text, problem):
    path = tmp_path / "export.json"
    path.write_text(text)
    result = run_ledger("measure", probe, "--from", str(path), "--testbed", "ci-linux", cwd=fresh)
    assert result.exit_code == 1
    assert f"{probe}: FAILED: its export could not be read: {path}: {problem}\n" in result.errors
    assert runs(fresh, probe) == [] and not list((fresh / "measurements").rglob(".partial-*"))


@pytest.mark.parametrize(
    "probe, install",
    [
        ("count_words", "hyperfine is not installed (`hyperfine --version` failed): install it with `apt-get install hyperfine`"),
        ("bench_words", "pytest-benchmark is not installed (`{bare} -c 'import pytest_benchmark as p; print(p.__version__)'` failed): install it with `{bare} -m pip install pytest-benchmark`"),
        ("sort_ints", "Google Benchmark is not installed (`pkg-config --modversion benchmark` failed): install it with `apt-get install libbenchmark-dev pkg-config`"),
    ],
)  # fmt: skip
def test_a_tool_that_is_not_installed_is_named_with_its_install_command_and_nothing_runs(
    fresh, tmp_path, probe, install
):
    bare = tmp_path / "bin" / "python-without-site"  # a Python that has no pytest-benchmark
    write_tree(tmp_path, {"bin/python-without-site": f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S "$@"\n'})
    bare.chmod(0o755)
    config = (fresh / "mkdocs.yml").read_text().replace('"{python} -m pytest', f'"{bare} -m pytest')
    write_tree(fresh, {"mkdocs.yml": config})
    hidden = {"PATH": str(tmp_path / "bin"), "PKG_CONFIG_LIBDIR": str(tmp_path / "none"), "PKG_CONFIG_PATH": ""}
    result = run_ledger("measure", probe, "--testbed", TESTBED, cwd=fresh, env=hidden)
    assert result.exit_code == 1
    assert f"s, FAILED: {install.format(bare=bare)}" in result.errors
    assert runs(fresh, probe) == [] and not (fresh / ".cache/ledger/build" / probe).exists()  # not even built


@pytest.mark.parametrize(
    "entry, problem",
    [
        ("{name: p, tool: vmstat, command: 'vmstat {export}', code: [p.sh]}", "probe p: `tool` 'vmstat' is not one the ledger reads: pytest-benchmark, hyperfine, google-benchmark"),
        ("{name: p, tool: hyperfine, command: 'hyperfine true', code: [p.sh]}", "probe p: a hyperfine probe's command writes its export to {export} (`--export-json {export}`), not CSV files to {out}"),
        ("{name: p, tool: hyperfine, command: 'hyperfine --export-json {out}/h.json true', code: [p.sh]}", "probe p: a hyperfine probe's command writes its export to {export}"),
        ("{name: p, command: 'hyperfine --export-json {export} true'}", "probe p: {export} is a tool's export: add `tool:` (pytest-benchmark, hyperfine, google-benchmark)"),
        ("{name: p, tool: hyperfine, command: 'hyperfine --export-json {export} true'}", "probe p: a probe with `tool` lists the files it measures under `code` (its code hash)"),
    ],
)  # fmt: skip
def test_a_bad_tool_declaration_names_what_to_fix(tmp_path, entry, problem):
    project(tmp_path, f"site_name: t\nplugins:\n  - ledger:\n      probes:\n        - {entry}\n")
    result = run_ledger("measure", cwd=tmp_path)
    assert result.exit_code == 2 and problem in result.errors, result.errors


def test_from_names_one_tool_probe_and_the_testbed_it_was_measured_on(fresh, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(HYPERFINE_EXPORT))
    for args, problem in [
        (["count_words"], "--from FILE reads an export made elsewhere: name the testbed it was measured on"),
        (["hashing", "--testbed", "t"], "--from FILE reads one tool probe's export: name that probe"),
        (["--testbed", "t"], "--from FILE reads one tool probe's export: name that probe"),
        (["count_words", "--testbed", "t", "--replicates", "2"], "--from FILE makes one run from one export"),
    ]:
        result = run_ledger("measure", *args, "--from", str(path), cwd=fresh)
        assert result.exit_code == 2 and problem in result.errors, (args, result.errors)
    assert runs(fresh, "count_words") == []
