"""A compiled probe: the C example in guide/probes.md, declared with `build:` as the guide declares it,
built and run by `ledger measure`; its run's code hash covers the source the binary was built from,
and its manifest's environment records the compiler and the build command."""

import csv
import json
import re
import shutil

import pytest
from helpers import REPO, project, run_ledger, write_tree

pytestmark = pytest.mark.probes  # it compiles and measures; .ci/run installs a C compiler where there is none

GUIDE = (REPO / "guide/probes.md").read_text().split("## A compiled probe (C)", 1)[1].split("\n## ", 1)[0]


def block(language: str) -> str:
    (found,) = re.findall(rf"```{language}\n(.*?)```", GUIDE, re.S)
    return found


def declared() -> str:
    """mkdocs.yml declaring the guide's probe."""
    return "site_name: t\nplugins:\n  - ledger:\n" + "".join(f"      {line}\n" for line in block("yaml").splitlines())


def test_the_guides_c_probe_is_built_and_run_by_ledger_measure(tmp_path):
    assert shutil.which("cc"), "no C compiler (cc): install one (apt-get install gcc); .ci/run does"
    project(tmp_path, declared(), {"probes/memcpy.c": block("c")})
    result = run_ledger("measure", "memcpy", "--profile", "quick", "--testbed", "bench-box", cwd=tmp_path)
    assert result.exit_code == 0, result.errors
    assert "1 run written by 1 probe(s)" in result.output
    (run,) = (tmp_path / "measurements/memcpy").iterdir()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["probe"]["path"] == "probes/memcpy.c"
    assert list(manifest["probe"]["code"]) == ["probes/memcpy.c"]  # the source, never the binary
    units = manifest["columns"]["results.csv"]  # from the probe's columns.json
    assert units["gb_per_s"] == units["gb_per_s_max"] == {"unit": "GB/s", "kind": "timed"}
    assert units["size_kib"] == {"unit": "KiB", "kind": "exact"} and "columns.json" not in manifest["files"]
    assert manifest["parameters"] == {
        "profile": "quick",
        "sizes_kib": [64, 1024],
        "rounds": 3,
        "bytes_per_sample": 16 << 20,
    }
    with open(run / "results.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["size_kib"] for row in rows] == ["64", "1024"]
    for row in rows:
        low, median, high = float(row["gb_per_s_min"]), float(row["gb_per_s"]), float(row["gb_per_s_max"])
        assert 0 < low <= median <= high, row
    assert (tmp_path / ".cache/ledger/build/memcpy/memcpy").is_file()  # built where {build} points
    environment = manifest["environment"]
    assert re.fullmatch(r"(gcc|clang) \d+\.\d+.*", environment["compiler"]), environment  # the probe says
    assert environment["optimized"] == "yes" and environment["libc"] and environment["cpu_flags"]
    assert environment["build"] == "cc -O2 -o {build}/memcpy probes/memcpy.c"  # ledger measure says
    assert not {"compiler", "libc", "cpu_flags", "build"} & set(manifest["parameters"])  # never defining

    claim = CLAIM.format(run=run.relative_to(tmp_path).as_posix(), value=rows[1]["gb_per_s"])
    write_tree(tmp_path, {"claims/memcpy.yaml": claim})
    assert run_ledger("check", cwd=tmp_path).exit_code == 0
    write_tree(tmp_path, {"probes/memcpy.c": block("c") + "/* edited */\n"})  # the run's source is no longer this
    changed = run_ledger("check", cwd=tmp_path)
    assert (
        changed.exit_code == 1
        and "claims/memcpy.yaml:8: memcpy-1mib: probe-changed: probes/memcpy.c changed since the run" in changed.output
    )


CLAIM = """
claims:
  - id: memcpy-1mib
    statement: memcpy copies a 1 MiB buffer at this rate here
    value: {value}
    unit: GB/s
    kind: measured
    testbed: bench-box
    evidence: {{run: {run}, file: results.csv, where: {{size_kib: 1024}}, column: gb_per_s}}
    tolerance: 1%
"""
