"""Coverage of the ledger's intervals, measured, as this repository's probe: `ledger coverage ... --write-run`
(generator/commands/coverage.py; the method in generator/judging/reruns.py), run by `ledger measure coverage`.

    .venv/bin/ledger measure coverage --testbed linux-cpu-amd-epyc    # mkdocs.yml declares it: bandwidth and moe
    .venv/bin/python benchmarks/coverage.py bandwidth moe --testbed linux-cpu-amd-epyc --claims
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.commands import coverage  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(coverage.main(sys.argv[1:]))
