"""schema/claims.schema.json and the loader agree on good and bad claim files."""

import json
import subprocess
import sys

import jsonschema
import pytest
from helpers import REPO

from generator.claims import validate
from generator.inputs.load import RawFile
from generator.lang import yamlread
from generator.records import Source

SCHEMA = json.loads((REPO / "schema/claims.schema.json").read_text())
RUN = "measurements/moe/2026-11-30T10-02-11Z-linux-cpu"

GOOD = {
    "empty": "claims: []\n",
    "measured": f"claims:\n  - id: a\n    kind: measured\n    value: 1.5\n    unit: GB/s\n    testbed: linux-cpu\n"
    f"    evidence: {{run: {RUN}, file: results.csv, where: {{batch: 16, mode: batched}}, column: x}}\n"
    "    tolerance: 5%\n",
    "measured-no-where": f"claims:\n  - id: a\n    kind: measured\n    evidence: {{run: {RUN}, file: r.csv, column: x}}\n",
    "extrapolated": "claims:\n  - id: b\n    kind: extrapolated\n    formula: 1000 / x\n    inputs: {x: c}\n"
    "    value: 15.2\n    tolerance: 0.1\n  - id: c\n    kind: borrowed\n    status: lead\n"
    "    value: 65.7\n    source: {title: t}\n",
    "borrowed-full": "claims:\n  - id: d\n    kind: borrowed\n    statement: s\n    value: 3.59\n    unit: '×'\n"
    "    testbed: apple-m1-max\n    source: {title: t, quote: q, url: 'https://x', retrieved: 2026-11-29,"
    " locator: section 2}\n    status: lead\n    note: n\n    tolerance: precision\n",
    "refuted": "claims:\n  - id: e\n    kind: borrowed\n    source: {title: t}\n    status: refuted\n"
    "    refuted_by: [f]\n  - id: f\n    kind: borrowed\n    status: lead\n    source: {title: t}\n",
    "superseded": "claims:\n  - id: e\n    kind: borrowed\n    source: {title: t}\n    status: superseded\n"
    "    superseded_by: f\n  - id: f\n    kind: borrowed\n    status: lead\n    source: {title: t}\n",
    "numeric-text": "claims:\n  - id: g\n    kind: borrowed\n    status: lead\n    statement: 42\n    source: {title: 2026}\n",
    "mixed-testbed": "claims:\n  - id: h\n    kind: extrapolated\n    formula: a × b\n    inputs: {a: c, b: c}\n"
    "    testbed: mixed\n",
    "relations": "claims:\n  - id: d\n    kind: borrowed\n    source: {title: t}\n    checked_by: [{claim: e, "
    "expects: within 1.05x}, {claim: f, expects: '≥ 0.9'}, {claim: g, expects: '> 10 GB/s'}, {claim: h, expects: above}, "
    "{claim: i, expects: between 0.9 and 1.1}]\n",
    "asserts": f"claims:\n  - id: a\n    kind: measured\n    unit: GB/s\n    asserts: '> 900 MB/s'\n"
    f"    evidence: {{run: {RUN}, file: r.csv, column: x}}\n  - id: b\n    kind: extrapolated\n    formula: 2 * x\n"
    "    inputs: {x: a}\n    unit: GB/s\n    asserts: between 1 and 2\n",
}

BAD = {
    "no-claims-key": "- id: a\n",
    "extra-top-level": "claims: []\nauthor: me\n",
    "claims-not-list": "claims: {id: a}\n",
    "item-not-mapping": "claims:\n  - just text\n",
    "missing-id": "claims:\n  - kind: borrowed\n    source: {title: t}\n",
    "missing-kind": "claims:\n  - id: a\n",
    "bad-id": "claims:\n  - id: Not_Kebab\n    kind: borrowed\n    source: {title: t}\n",
    "unknown-field": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    vaule: 1\n",
    "value-text": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    value: '3×'\n",
    "value-bool": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    value: yes\n",
    "bad-kind": "claims:\n  - id: a\n    kind: guessed\n",
    "bad-status": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    status: maybe\n",
    "bad-testbed": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    testbed: My Mac\n",
    "statement-list": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    statement: [a]\n",
    "measured-no-evidence": "claims:\n  - id: a\n    kind: measured\n",
    "measured-with-source": f"claims:\n  - id: a\n    kind: measured\n    source: {{title: t}}\n"
    f"    evidence: {{run: {RUN}, file: r.csv, column: x}}\n",
    "measured-checked": f"claims:\n  - id: a\n    kind: measured\n    checked_by: [b]\n"
    f"    evidence: {{run: {RUN}, file: r.csv, column: x}}\n",
    "evidence-missing-column": f"claims:\n  - id: a\n    kind: measured\n    evidence: {{run: {RUN}, file: r.csv}}\n",
    "evidence-unknown-field": f"claims:\n  - id: a\n    kind: measured\n    evidence: {{run: {RUN}, file: r.csv, column: x, row: 1}}\n",
    "evidence-absolute": "claims:\n  - id: a\n    kind: measured\n    evidence: {run: /etc/x/y, file: r.csv, column: x}\n",
    "evidence-dotdot": "claims:\n  - id: a\n    kind: measured\n    evidence: {run: measurements/../x, file: r.csv, column: x}\n",
    "evidence-file-path": f"claims:\n  - id: a\n    kind: measured\n    evidence: {{run: {RUN}, file: ../r.csv, column: x}}\n",
    "evidence-where-list": f"claims:\n  - id: a\n    kind: measured\n    evidence: {{run: {RUN}, file: r.csv, column: x, where: [1]}}\n",
    "extrapolated-no-formula": "claims:\n  - id: a\n    kind: extrapolated\n    inputs: {x: b}\n",
    "extrapolated-no-inputs": "claims:\n  - id: a\n    kind: extrapolated\n    formula: '2'\n",
    "formula-number": "claims:\n  - id: a\n    kind: extrapolated\n    formula: 2\n    inputs: {}\n",
    "input-name-bad": "claims:\n  - id: a\n    kind: extrapolated\n    formula: '2'\n    inputs: {2x: b}\n",
    "input-name-min": "claims:\n  - id: a\n    kind: extrapolated\n    formula: '2'\n    inputs: {min: b}\n",
    "borrowed-no-source": "claims:\n  - id: a\n    kind: borrowed\n",
    "source-no-title": "claims:\n  - id: a\n    kind: borrowed\n    source: {quote: q}\n",
    "source-unknown-field": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t, author: me}\n",
    "source-text": "claims:\n  - id: a\n    kind: borrowed\n    source: a blog\n",
    "refuted-without-refuted-by": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    status: refuted\n",
    "refuted-by-on-asserted": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    refuted_by: b\n",
    "superseded-with-refuted-by": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n"
    "    status: superseded\n    refuted_by: b\n",
    "tolerance-negative": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    tolerance: -1\n",
    "tolerance-words": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    tolerance: a bit\n",
    "checked-by-number": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    checked_by: 3\n",
    "formula-full-width": "claims:\n  - id: a\n    kind: extrapolated\n    formula: ｍａｘ(x, x)\n    inputs: {x: b}\n",
    "relation-words": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n"
    "    checked_by: [{claim: b, expects: bigger}]\n",
    "asserts-borrowed": "claims:\n  - id: a\n    kind: borrowed\n    source: {title: t}\n    asserts: '> 1'\n",
    "asserts-against-a-claim": f"claims:\n  - id: a\n    kind: measured\n    asserts: above\n"
    f"    evidence: {{run: {RUN}, file: r.csv, column: x}}\n",
    "asserts-number": f"claims:\n  - id: a\n    kind: measured\n    asserts: 1\n    evidence: {{run: {RUN}, file: r.csv, column: x}}\n",
}


def loader_accepts(text: str) -> bool:
    raw = RawFile(Source("claims/x.yaml", 0), data=yamlread.parse(text.encode()))
    claims, findings, _ = validate.claims([raw])
    # Only per-file structure is compared: references to claims outside the file are the gate's.
    return not [f for f in findings if "names unknown claim" not in f.problem]


def schema_accepts(text: str) -> bool:
    try:
        jsonschema.validate(yamlread.parse(text.encode()), SCHEMA)
    except jsonschema.ValidationError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(GOOD))
def test_schema_and_loader_both_accept_good_file(name):
    assert (loader_accepts(GOOD[name]), schema_accepts(GOOD[name])) == (True, True)


@pytest.mark.parametrize("name", sorted(BAD))
def test_schema_and_loader_both_reject_bad_file(name):
    assert (loader_accepts(BAD[name]), schema_accepts(BAD[name])) == (False, False)


def test_schema_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_check_jsonschema_validates_claim_files_with_the_committed_schema(tmp_path):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(GOOD["borrowed-full"])
    bad.write_text(BAD["unknown-field"])
    command = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(REPO / "schema/claims.schema.json")]
    assert subprocess.run(command + [str(good)], capture_output=True).returncode == 0
    assert subprocess.run(command + [str(bad)], capture_output=True).returncode == 1
