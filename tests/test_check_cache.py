"""The check cache may speed a second `ledger check`, and can never make a changed file pass."""

import json
import os

import pytest
from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, run_ledger, write_tree

from generator.inputs import hashcache

CACHE = ".cache/ledger/check.json"


def passing_ledger(root):
    a_run(root, SPEEDUP_ROWS)
    write_tree(root, {"claims/moe.yaml": MEASURED})
    first = run_ledger("check", cwd=root)
    assert first.exit_code == 0, first.output
    return first


def test_an_edit_that_keeps_size_and_mtime_still_fails_the_gate_with_the_cache_on(tmp_path):
    passing_ledger(tmp_path)
    data = tmp_path / RUN / "results.csv"
    before = data.stat()
    data.write_bytes(data.read_bytes().replace(b"3.6", b"3.7"))  # same size, same inode
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the mtime put back
    after = data.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"moe-speedup-b16: tampered: {RUN}/results.csv has sha256 " in result.output


def test_a_second_check_reuses_the_verdict_until_any_input_changes(tmp_path):
    first = passing_ledger(tmp_path)
    cache = tmp_path / CACHE
    data = json.loads(cache.read_text())  # data, not pickle
    assert data["verdict"]["output"] + "\n" == first.output and data["verdict"]["exit"] == 0
    data["verdict"]["output"] = "REUSED"
    cache.write_text(json.dumps(data))
    assert run_ledger("check", cwd=tmp_path).output == "REUSED\n"  # nothing changed: the verdict is reused
    claims = tmp_path / "claims/moe.yaml"
    claims.write_text(claims.read_text().replace("value: 3.59", "value: 9.99"))
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1 and "moe-speedup-b16: drifted: stated 9.99×" in result.output


def test_a_warm_check_answers_from_the_cache_loading_neither_the_gate_nor_yaml(tmp_path):
    """Deciding "cached or not" needs the cache alone: it keeps the list of what the last check read."""
    import subprocess
    import sys

    from helpers import REPO

    first = passing_ledger(tmp_path)
    write_tree(tmp_path, {"mkdocs.yml": "site_name: t\nplugins:\n  - ledger:\n      claims_dir: claims\n"})
    cold = run_ledger("check", cwd=tmp_path)  # the config changed: the key did too, and the gate ran
    assert cold.output == first.output
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, first.output)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "generator.commands.check" in imported
    loaded = ("generator.gate", "generator.records", "generator.lang", "generator.claims", "generator.judging", "yaml")
    assert sorted(m for m in imported if m.startswith(loaded)) == []


def test_no_cache_neither_reads_nor_writes_it(tmp_path):
    first = passing_ledger(tmp_path)
    cache = tmp_path / CACHE
    data = json.loads(cache.read_text())
    data["verdict"]["output"] = "REUSED"
    cache.write_text(json.dumps(data))
    result = run_ledger("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 0 and result.output == first.output
    assert json.loads(cache.read_text())["verdict"]["output"] == "REUSED"  # not written either
    cache.unlink()
    run_ledger("check", "--no-cache", cwd=tmp_path)
    assert not cache.exists()


def test_the_cache_lives_in_an_ignored_folder(tmp_path):
    passing_ledger(tmp_path)
    assert (tmp_path / ".cache/.gitignore").read_text().splitlines()[-1] == "*"


@pytest.mark.parametrize(
    "stat, written_ns, is_racy",
    [
        ([10, 99, 99, 7], 100, False),  # older than the cache: trusted
        ([10, 100, 99, 7], 100, True),  # modified in the cache's own tick: hashed again
        ([10, 99, 100, 7], 100, True),  # changed (ctime) in that tick
        ([10, 101, 101, 7], 100, True),
    ],
)
def test_git_racy_entry_rule(stat, written_ns, is_racy):
    assert hashcache.racy(stat, written_ns) is is_racy


TOOLS_CONFIG = "site_name: t\nplugins:\n  - ledger:\n      probes_dir: tools\n"
# A run's code outside the probes folder must be declared (guide/security.md): the probe's `code:`.
HELPER_CONFIG = (
    "site_name: t\nplugins:\n  - ledger:\n      probes:\n"
    "        - {name: toy, command: '{python} probes/toy.py', code: [lib/helper.py]}\n"
)


def ledger_with_probe_code_at(root, code: list[str], config: str = "") -> None:
    """A passing ledger whose run hashes `code` (its probe first) instead of probes/toy.py."""
    from datetime import datetime, timezone

    from generator.runs import write_run

    write_tree(root, {path: f"# {path}\nprint('toy')\n" for path in code})
    if config:
        write_tree(root, {"mkdocs.yml": config})
    when = datetime(2026, 11, 29, 10, 0, 0, tzinfo=timezone.utc)
    write_run(
        root, "toy", "linux-cpu", {"results.csv": SPEEDUP_ROWS}, parameters={}, environment={},
        code=code, started=when, finished=when, probe_path=code[0],
    )  # fmt: skip
    write_tree(root, {"claims/moe.yaml": MEASURED})
    first = run_ledger("check", cwd=root)
    assert first.exit_code == 0, first.output


@pytest.mark.parametrize(
    "code, config",
    [
        (["tools/toy.py"], TOOLS_CONFIG),  # the policy's probes_dir, not a hard-coded probes/
        (["probes/toy.py", "lib/helper.py"], HELPER_CONFIG),  # a declared helper outside every folder
    ],
)
def test_an_edit_to_code_a_run_hashes_fails_the_gate_with_the_cache_on(tmp_path, code, config):
    ledger_with_probe_code_at(tmp_path, code, config)
    edited = tmp_path / code[-1]
    edited.write_text(edited.read_text() + "# changed\n")
    result = run_ledger("check", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert f"moe-speedup-b16: probe-changed: {code[-1]} changed since the run" in result.output


@pytest.mark.parametrize(
    "options, folders",
    [
        ({}, ("claims", "measurements", "probes", "figures", "docs")),
        ({"probes_dir": "tools", "claims_dir": "ledger"}, ("ledger", "measurements", "tools", "figures", "docs")),
    ],
)
def test_one_list_of_what_the_gate_reads_follows_the_policy(options, folders):
    from dataclasses import replace

    from generator.inputs import reads
    from generator.inputs.config import DEFAULTS
    from generator.records import ProbeSpec

    policy = replace(DEFAULTS, **options, probes=(ProbeSpec("c", "make", ("src/bench.c", "Makefile")),))
    assert reads.folders(policy) == folders
    assert reads.data_folders(policy) == folders[:-1]
    assert reads.files(policy) == ("Makefile", "src/bench.c")
