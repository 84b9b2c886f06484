"""The series stage's pure parts: which parameters define a measurement, where segments start."""

from dataclasses import replace

import pytest
from helpers import REPO  # noqa: F401  (puts the repository on sys.path)

from generator.inputs.config import DEFAULTS
from generator.points import Boundary
from generator.records import Run, Source
from generator.rules import WARN_BY_DEFAULT
from generator.series.stage import boundaries, defining


@pytest.mark.parametrize(
    "parameters, expected",
    [
        ({"profile": "default", "rounds": 9, "warmup": 2}, {"profile": "default"}),
        ({"sizes": [1, 16], "max_seconds": 5, "target": 0.05}, {"sizes": [1, 16]}),
        ({}, {}),
    ],
)
def test_only_what_a_run_measured_defines_it(parameters, expected):
    assert defining(parameters) == expected


def run(code: str = "a", **environment) -> Run:
    return Run("measurements/p/r", Source("m", 0), declared_code={"probes/p.py": code}, environment=environment)


@pytest.mark.parametrize(
    "runs, expected",
    [
        ([run(), run(), run()], []),
        ([run(), run("b")], [Boundary(1, "probe changed", ("probes/p.py",))]),
        ([run(backend="cpu"), run(backend="gpu")], [Boundary(1, "environment changed", ("backend cpu → gpu",))]),
        ([run(load_average_at_start=[1, 2]), run(load_average_at_start=[4, 4])], []),  # not what measured
        ([run(os_release="6.1"), run(os_release="6.2")], []),  # a kernel patch: a step, if anything
        (
            [run(device_info={"name": "H200"}), run()],
            [Boundary(1, "environment changed", ('device_info {"name": "H200"} → (none)',))],
        ),
        ([run("a", backend="cpu"), run("b", backend="gpu")], [Boundary(1, "probe changed", ("probes/p.py",))]),
    ],
)
def test_a_segment_starts_where_the_code_or_the_environment_changes(runs, expected):
    assert boundaries(runs) == expected


def test_rules_that_warn_by_default_warn_under_the_default_policy():
    assert WARN_BY_DEFAULT == {"moved-since-cited", "orphaned-run", "undeclared-kind", "unit-undeclared"}
    assert DEFAULTS.severity("orphaned-run") == "warn"
    assert DEFAULTS.severity("undeclared-kind") == "warn"
    assert DEFAULTS.severity("unit-undeclared") == "warn"
    assert replace(DEFAULTS, fail=frozenset({"unit-undeclared"})).severity("unit-undeclared") == "fail"
    assert DEFAULTS.severity("moved-since-cited") == "warn"
    assert replace(DEFAULTS, warn=frozenset({"too-old"})).severity("moved-since-cited") == "warn"
    assert replace(DEFAULTS, fail=frozenset({"moved-since-cited"})).severity("moved-since-cited") == "fail"
