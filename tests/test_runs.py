"""write_run(): atomic, complete, never overwriting; the manifest probes leave behind."""

import json

import pytest
from helpers import REPO, RUN_TIME, TOY_PROBE, write_tree

from generator.runs import Manifest, code_hash, csv_bytes, sha256_bytes, write_run
from generator.trust.integrity import shape


def write(tmp_path, **overrides):
    args = dict(
        root=tmp_path,
        probe="toy",
        testbed="linux-cpu",
        tables={"results.csv": [{"batch": 1, "ms": 0.5}]},
        parameters={"rounds": 7},
        environment={"mlx": "0.32.4"},
        code=["probes/toy.py"],
        started=RUN_TIME,
        finished=RUN_TIME,
    )
    args.update(overrides)
    return write_run(**args)


def test_run_holds_tables_and_a_manifest_with_every_hash(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    run = write(tmp_path)
    assert run == tmp_path / "measurements/toy/2026-11-29T10-00-00Z-linux-cpu"
    manifest = json.loads((run / "manifest.json").read_text())
    data = (run / "results.csv").read_bytes()
    assert data == b"batch,ms\n1,0.5\n"
    probe_hash = sha256_bytes(TOY_PROBE.encode())
    assert manifest == {
        "format": 1,
        "probe": {
            "path": "probes/toy.py",
            "sha256": code_hash({"probes/toy.py": probe_hash}),
            "code": {"probes/toy.py": probe_hash},
        },
        "testbed": "linux-cpu",
        "started": "2026-11-29T10:00:00Z",
        "finished": "2026-11-29T10:00:00Z",
        "parameters": {"rounds": 7},
        "environment": {"mlx": "0.32.4"},
        "files": {"results.csv": {"sha256": sha256_bytes(data), "rows": 1}},
    }


def test_a_rerun_is_a_new_run_never_an_overwrite(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    first = write(tmp_path)
    before = (first / "results.csv").read_bytes()
    with pytest.raises(FileExistsError):
        write(tmp_path, tables={"results.csv": [{"batch": 1, "ms": 9.9}]})
    assert (first / "results.csv").read_bytes() == before


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})

    class Unserialisable:
        pass

    with pytest.raises(TypeError):
        write(tmp_path, parameters={"bad": Unserialisable()})
    assert list((tmp_path / "measurements/toy").iterdir()) == []


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"probe": "../x"}, "probe name '../x': use lower-case letters, digits and '_'"),
        ({"testbed": "My Mac"}, "testbed 'My Mac': use lower-case letters, digits and '-'"),
        ({"tables": {"../x.csv": [{"a": 1}]}}, "table name '../x.csv': use a plain file name ending in .csv"),
        ({"tables": {"r.csv": []}}, "table 'r.csv' has no rows"),
        ({"code": ["probes/other.py"]}, "code must include the probe itself (probes/toy.py)"),
    ],
)
def test_write_run_refuses_bad_arguments_before_writing(tmp_path, overrides, message):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE, "probes/other.py": "x = 1\n"})
    with pytest.raises(ValueError) as error:
        write(tmp_path, **overrides)
    assert str(error.value) == message
    assert not (tmp_path / "measurements").exists() or not any((tmp_path / "measurements").rglob("*.csv"))


def test_csv_keeps_full_float_precision_and_union_of_columns():
    assert csv_bytes([{"a": 0.1 + 0.2}, {"b": True}]) == b"a,b\n0.30000000000000004,\n,true\n"


@pytest.mark.parametrize(
    "path", sorted((REPO / "measurements").rglob("manifest.json")), ids=lambda p: p.parent.relative_to(REPO).as_posix()
)
def test_every_committed_manifest_reads_back_to_its_own_bytes_and_folder(path):
    data = path.read_bytes()
    manifest = Manifest.read(json.loads(data))
    assert manifest.as_bytes() == data
    assert manifest.folder == path.parent.name


def test_a_manifest_of_another_format_is_refused_with_the_fix(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    manifest = json.loads((write(tmp_path) / "manifest.json").read_text())
    assert shape(manifest) == []
    assert shape({**manifest, "format": 2}) == ["`format` is 2: this ledger reads format 1; upgrade the ledger"]
    del manifest["format"]
    assert shape(manifest) == []  # written before `format` was: format 1
