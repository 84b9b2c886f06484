"""Benchmark: the gate (`check()`) against the floor of just parsing the same files, in one run.

Generates a synthetic ledger (N measured + N extrapolated + N borrowed claims over N/10 runs) in a
temporary folder, then prints medians and the ratio gate / parse-only. Not a test: run it with
`make bench` or `.venv/bin/python benchmarks/check_time.py [N]`.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.gate import check  # noqa: E402
from generator.records import Policy  # noqa: E402
from generator.runs import write_run  # noqa: E402

WHEN = datetime(2026, 11, 29, tzinfo=timezone.utc)


def synthetic_ledger(root: Path, n: int) -> None:
    (root / "probes").mkdir(parents=True)
    (root / "probes/synthetic.py").write_text("print('synthetic')\n")
    runs = []
    for r in range(max(1, n // 10)):
        rows = [{"batch": b, "speedup": 1 + b * 0.1 + r} for b in range(1, 17)]
        path = write_run(
            root,
            "synthetic",
            f"bench-{r}",
            {"results.csv": rows},
            parameters={},
            environment={},
            code=["probes/synthetic.py"],
            started=WHEN,
            finished=WHEN,
        )
        runs.append(path.relative_to(root).as_posix())
    lines = ["claims:"]
    for i in range(n):
        r = i % len(runs)
        batch = 1 + i % 16
        value = 1 + batch * 0.1 + r
        lines += [
            f"  - id: m-{i}",
            "    kind: measured",
            f"    value: {value:.4f}",
            "    unit: x",
            f"    statement: measured claim {i}",
            f"    evidence: {{run: {runs[r]}, file: results.csv, where: {{batch: {batch}}}, column: speedup}}",
            f"  - id: e-{i}",
            "    kind: extrapolated",
            "    formula: 2 * a",
            f"    inputs: {{a: m-{i}}}",
            f"    value: {2 * float(f'{value:.4f}'):.4f}",
            f"  - id: b-{i}",
            "    kind: borrowed",
            f"    value: {2 * float(f'{value:.4f}'):.4f}",  # the same quantity as its check, e-{i}
            "    source: {title: a write-up, quote: 'the figure'}",
            f"    checked_by: [e-{i}]",
        ]
    (root / "claims").mkdir()
    (root / "claims/synthetic.yaml").write_text("\n".join(lines) + "\n")


def parse_only(root: Path) -> None:
    for path in sorted((root / "claims").glob("*.yaml")):
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    for manifest in (root / "measurements").rglob("manifest.json"):
        json.loads(manifest.read_text())


def median_seconds(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        synthetic_ledger(root, n)
        report = check(root, Policy(), WHEN)
        assert report.ok, report.findings[:3]
        size = (root / "claims/synthetic.yaml").stat().st_size
        floor = median_seconds(lambda: parse_only(root), 5)
        gate = median_seconds(lambda: check(root, Policy(), WHEN), 5)
    print(f"{3 * n} claims ({size / 1e6:.2f} MB of YAML), {max(1, n // 10)} runs")
    print(f"parse only (PyYAML C loader + manifests): {floor * 1000:8.1f} ms")
    print(f"check() (the whole gate):                 {gate * 1000:8.1f} ms")
    print(f"ratio gate / parse-only:                  {gate / floor:8.2f}x")


if __name__ == "__main__":
    main()
