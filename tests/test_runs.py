"""write_run(): atomic, complete, never overwriting; the manifest probes leave behind."""

import json

import pytest
from helpers import REPO, RUN_TIME, TOY_PROBE, write_tree

from generator.runs import Column, Manifest, code_hash, columns_sha256, csv_bytes, sha256_bytes, write_run
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
        "revision": {"commit": "", "clean": None},  # tmp_path is no git work tree
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


def test_a_run_records_each_declared_columns_unit_and_kind_with_their_hash(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    columns = {"results.csv": {"ms": Column("ms", "timed"), "batch": Column("", "exact")}}
    manifest_bytes = (write(tmp_path, columns=columns) / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    assert manifest["columns"] == {
        "results.csv": {"ms": {"unit": "ms", "kind": "timed"}, "batch": {"unit": "", "kind": "exact"}}
    }
    canonical = '{"results.csv":{"batch":{"kind":"exact","unit":""},"ms":{"kind":"timed","unit":"ms"}}}'
    assert manifest["columns_sha256"] == sha256_bytes(canonical.encode()) == columns_sha256(columns)
    assert list(manifest)[-4:] == ["files", "columns", "columns_sha256", "revision"]
    assert shape(manifest) == []
    record = Manifest.read(manifest)
    assert record.columns == columns and record.as_bytes() == manifest_bytes


def test_a_run_without_declarations_has_neither_key(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    manifest = json.loads((write(tmp_path, columns={}) / "manifest.json").read_text())
    assert "columns" not in manifest and "columns_sha256" not in manifest


@pytest.mark.parametrize(
    "columns, message",
    [
        (
            {"other.csv": {"ms": Column("ms", "timed")}},
            "columns: 'other.csv' is not a table of the run (results.csv, samples.csv)",
        ),
        ({"results.csv": {"us": Column("us", "timed")}}, "columns: results.csv has no column 'us'"),
        ({"results.csv": {"ms": "ms"}}, "columns: results.csv, ms: declare it as Column(unit, kind), not 'ms'"),
        (
            {"samples.csv": {"ms": Column("ms", "timed")}},
            "columns: declare the columns of the table, not of samples.csv: its rounds share them",
        ),
    ],
)
def test_write_run_refuses_a_declaration_that_names_no_column_of_its_table(tmp_path, columns, message):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    tables = {"results.csv": [{"batch": 1, "ms": 0.5}], "samples.csv": [{"batch": 1, "round": 0, "ms": 0.5}]}
    with pytest.raises(ValueError) as error:
        write(tmp_path, tables=tables, columns=columns)
    assert str(error.value) == message
    assert not (tmp_path / "measurements").exists()


@pytest.mark.parametrize(
    "unit, kind, message",
    [
        ("ms", "noisy", "kind 'noisy': a column is timed or exact"),
        (" ms", "timed", "unit ' ms': a unit's text, at most 40 printable characters, no spaces around it"),
        ("m\ns", "timed", "unit 'm\\ns': a unit's text, at most 40 printable characters, no spaces around it"),
        (3, "timed", "unit '3' is not text"),
    ],
)
def test_a_column_declaration_is_a_unit_text_and_timed_or_exact(unit, kind, message):
    with pytest.raises(ValueError) as error:
        Column(unit, kind)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda m: m.update(columns_sha256="0" * 63), "`columns_sha256` is missing or not a 64-digit hex sha256"),
        (lambda m: m.pop("columns_sha256"), "`columns_sha256` is missing or not a 64-digit hex sha256"),
        (lambda m: m.pop("columns"), "`columns`: must hold a JSON object"),
        (lambda m: m["columns"]["results.csv"]["ms"].update(kind="x"), "results.csv, column 'ms': kind 'x'"),
        (lambda m: m["columns"]["results.csv"]["ms"].update(note=1), "results.csv, column 'ms': write {\"unit\""),
        (lambda m: m["columns"].update({"x.csv": m["columns"]["results.csv"]}), "declares 'x.csv', which is not"),
    ],
)
def test_the_shape_check_refuses_a_malformed_declaration(tmp_path, change, problem):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    columns = {"results.csv": {"ms": Column("ms", "timed")}}
    manifest = json.loads((write(tmp_path, columns=columns) / "manifest.json").read_text())
    change(manifest)
    found = shape(manifest)
    assert len(found) == 1 and problem in found[0], found


EXPORT = b'{"results": [{"command": "a", "times": [0.5]}]}\n'  # a tool's export, kept byte for byte


def test_an_attachment_is_written_as_given_and_hashed_under_attachments_last(tmp_path):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    run = write(tmp_path, attachments={"hyperfine.json": EXPORT})
    assert (run / "hyperfine.json").read_bytes() == EXPORT
    manifest_bytes = (run / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    assert manifest["attachments"] == {"hyperfine.json": {"sha256": sha256_bytes(EXPORT)}}
    assert list(manifest)[-1] == "attachments" and "hyperfine.json" not in manifest["files"]
    assert shape(manifest) == []
    record = Manifest.read(manifest)
    assert record.attachments == {"hyperfine.json": sha256_bytes(EXPORT)} and record.as_bytes() == manifest_bytes
    plain = json.loads((write(tmp_path, started=RUN_TIME.replace(second=1)) / "manifest.json").read_text())
    assert "attachments" not in plain  # a run without one has no key


@pytest.mark.parametrize(
    "attachments, message",
    [
        ({"x.csv": EXPORT}, "attachment name 'x.csv': a .csv file is a table and manifest.json the manifest; name it otherwise"),
        ({"manifest.json": EXPORT}, "attachment name 'manifest.json': a .csv file is a table and manifest.json the manifest; name it otherwise"),
        ({"../x.json": EXPORT}, "attachment name '../x.json': use a plain file name (letters, digits, '_', '.', '-')"),
        ({".x": EXPORT}, "attachment name '.x': use a plain file name (letters, digits, '_', '.', '-')"),
        ({"x.json": "text"}, "attachment 'x.json': give its bytes, as the tool wrote them"),
    ],
)  # fmt: skip
def test_write_run_refuses_an_attachment_without_a_plain_name_of_its_own_or_bytes(tmp_path, attachments, message):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    with pytest.raises(ValueError) as error:
        write(tmp_path, attachments=attachments)
    assert str(error.value) == message
    assert not (tmp_path / "measurements").exists()


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda m: m.update(attachments=[]), '`attachments` must be {name: {"sha256": ...}}'),
        (lambda m: m["attachments"]["x.json"].update(sha256="0" * 63), "attachments['x.json'] must be {\"sha256\": a 64-digit"),
        (lambda m: m["attachments"]["x.json"].update(rows=1), "attachments['x.json'] must be {\"sha256\": a 64-digit"),
        (lambda m: m["attachments"].update({"results.csv": {"sha256": "0" * 64}}), "`attachments`: attachment name 'results.csv'"),
        (lambda m: m["attachments"].update({"a/b": {"sha256": "0" * 64}}), "`attachments`: attachment name 'a/b': use a plain"),
    ],
)  # fmt: skip
def test_the_shape_check_refuses_a_malformed_attachment(tmp_path, change, problem):
    write_tree(tmp_path, {"probes/toy.py": TOY_PROBE})
    manifest = json.loads((write(tmp_path, attachments={"x.json": EXPORT}) / "manifest.json").read_text())
    change(manifest)
    found = shape(manifest)
    assert len(found) == 1 and problem in found[0], found
