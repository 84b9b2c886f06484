"""A run's stability, pure: planted rounds and machine records -> the signs of noise each shows and where;
the machine record summarised from planted readings; tests of the tests (quiet rounds seldom flagged).

Everything seeded; the whole file runs in about a second.
"""

import math
import random
import statistics

import pytest
from helpers import REPO

from generator import machine
from generator.lang import stability
from generator.lang.stability import Sign
from generator.trust.verdicts import stability_text

QUIET = {name: None for name in machine.NAMES} | {"sampled_by": "ledger measure", "seconds": 2.0, "readings": 3}


def rounds(cv: float, n: int = 20, seed: int = 1) -> tuple[float, ...]:
    rng = random.Random(seed)
    return tuple(100 * math.exp(rng.gauss(0, cv)) for _ in range(n))


def test_a_run_whose_other_processes_took_the_cpu_reads_unstable_and_says_how_much():
    loaded = QUIET | {"other_cpu_share": 0.64}
    found = stability.judge([("samples.csv size=1, ms", rounds(0.01))], loaded)
    assert found.stable is False and found.loaded
    assert found.signs == (Sign("load", 0.64, 0.10),)
    assert stability_text(found) == "unstable: other processes took 64% of the CPU time while it ran (limit 10%)"


@pytest.mark.parametrize(
    "field, value, sign",
    [
        ("other_cpu_share", 0.11, "load"),
        ("steal_share", 0.25, "steal"),
        ("thermal_state", "serious", "thermal"),
        ("thermal_state", "critical", "thermal"),
    ],
)
def test_each_sign_of_the_machine_is_named(field, value, sign):
    found = stability.judge([], QUIET | {field: value})
    assert [s.kind for s in found.signs] == [sign] and found.loaded


@pytest.mark.parametrize("field, value", [("other_cpu_share", 0.10), ("steal_share", 0.02), ("thermal_state", "fair")])
def test_a_machine_at_its_limits_shows_no_sign(field, value):
    found = stability.judge([], QUIET | {field: value})
    assert found.signs == () and found.stable is True


@pytest.mark.parametrize(
    "values, kind",
    [
        ((100, 130, 80, 110, 95, 120, 70, 105, 90, 125), "cv"),  # CV ~18%
        ((100, 101, 99, 100, 102, 98, 100, 170, 101), "extreme"),  # one round 1.7x the median
        ((100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.4, 99.6, 100.0, 104, 95), "outliers"),
    ],
)
def test_each_sign_of_the_rounds_is_found_in_a_planted_setting(values, kind):
    found = stability.judge([("samples.csv size=1, ms", tuple(map(float, values)))], QUIET)
    assert kind in [sign.kind for sign in found.signs]
    sign = next(sign for sign in found.signs if sign.kind == kind)
    assert (sign.settings, sign.where) == (1, "samples.csv size=1, ms") and not found.loaded


def test_quiet_rounds_on_a_quiet_machine_read_stable():
    found = stability.judge([(f"s{i}", rounds(0.01, seed=i)) for i in range(8)], QUIET | {"other_cpu_share": 0.01})
    assert found.stable is True and found.settings == 8
    assert stability_text(found) == (
        "stable: other processes took 1% of the CPU time; no sign of noise in the rounds of 8 settings"
    )


def test_a_noisy_setting_among_many_quiet_ones_is_not_the_runs_noise_but_one_of_two_is():
    noisy = ("noisy", (100.0, 130, 80, 110, 95, 120, 70, 105, 90, 125))
    many = [noisy, *((f"s{i}", rounds(0.01, seed=i)) for i in range(10))]
    assert stability.judge(many, QUIET).signs == ()  # 1 of 11: not more than 10%
    two = stability.judge([noisy, ("quiet", rounds(0.01))], QUIET)
    assert [(s.kind, s.settings) for s in two.signs] == [("cv", 1)]


def test_a_setting_with_fewer_than_five_rounds_is_not_judged():
    found = stability.judge([("few", (1.0, 5.0, 9.0, 20.0))], None)
    assert (found.settings, found.stable, found.rounds) == (0, None, "no setting has 5 rounds or more")


def test_a_run_without_a_record_or_rounds_is_not_judged_and_says_why():
    found = stability.judge([], None, "it keeps no raw rounds")
    assert found.stable is None
    assert stability_text(found) == (
        "not judged: machine not recorded (not measured by `ledger measure`); rounds not judged (it keeps no raw rounds)"
    )


@pytest.mark.parametrize("n", range(5, 40))
def test_the_quartiles_are_statistics_quantiles_default(n):
    values = rounds(0.3, n, seed=n)
    figures = stability.figures(values)
    q1, _, q3 = statistics.quantiles(values, n=4)
    outside = sum(1 for x in values if not q1 - 1.5 * (q3 - q1) <= x <= q3 + 1.5 * (q3 - q1))
    assert figures["outliers"] == (outside / n if outside >= 2 else 0.0)
    assert figures["cv"] == pytest.approx(statistics.stdev(values) / statistics.fmean(values), rel=1e-12)
    assert figures["extreme"] == pytest.approx(
        max(max(values), statistics.median(values) ** 2 / min(values)) / statistics.median(values)
    )


QUIET_FLAGGED = {5: 0.0, 7: 0.013, 9: 0.004, 15: 0.03825, 20: 0.014, 50: 0.0025}  # guide/checks.md's figures


@pytest.mark.parametrize("n, share", QUIET_FLAGGED.items())
def test_quiet_normal_rounds_seldom_show_the_outliers_sign(n, share):
    """Tests of the tests: 4,000 seeded samples of quiet normal rounds (1% CV): the share showing the
    outliers sign is what guide/checks.md states, and under 5% at every size."""
    rng = random.Random(5 + n)
    flagged = sum(
        stability.figures([rng.gauss(1, 0.01) for _ in range(n)])["outliers"] > stability.LIMIT["outliers"].default
        for _ in range(4000)
    )
    assert flagged / 4000 == share and share < 0.05


def test_the_guide_states_every_limit_with_its_default():
    text = (REPO / "guide" / "checks.md").read_text()
    for limit in stability.LIMITS:
        shown = {"load": "10%", "steal": "10%", "thermal": "above fair", "cv": "10%", "extreme": "1.5×"}.get(
            limit.name, "10%"
        )
        assert f"| `{limit.name}` |" in text and shown in text.split(f"| `{limit.name}` |")[1].split("\n")[0]


# -- the machine record ------------------------------------------------------------------------------------


def reading(at, busy, total, tree, runner, **more):
    return {"at": at, "busy_s": busy, "total_s": total, "steal_s": 0.0, "tree_cpu_s": tree, "runner_cpu_s": runner,
            "load_1m": 0.5, "mhz": [], "governors": [], "zone": None, "celsius": None, "thermal_state": None,
            "cpus": 2} | more  # fmt: skip


def test_the_record_counts_what_the_machine_did_beyond_the_runners_process_tree():
    """Two cores for 10 s (20 s of CPU): 15 s busy, 5 s of it the runner's tree (0.1 s the runner itself):
    other processes took 10 of 20 s, the probe 4.9."""
    before = reading(100.0, 50.0, 200.0, 2.0, 1.0, load_1m=0.2)
    during = reading(105.0, 57.0, 210.0, 4.0, 1.05, load_1m=1.7, mhz=[2400.0, 3100.0], governors=["powersave"])
    after = reading(110.0, 65.0, 220.0, 7.0, 1.1, load_1m=1.9, zone="x86_pkg_temp", celsius=71.5)
    record = machine.summary([before, during, after])
    assert record == {
        "sampled_by": "ledger measure",
        "seconds": 10.0,
        "readings": 3,
        "cpus": 2,
        "load_1m_before": 0.2,
        "load_1m_during": 1.9,
        "other_cpu_share": 0.5,
        "probe_cpu_share": 0.245,
        "steal_share": 0.0,
        "cpu_mhz_min": 2400.0,
        "cpu_mhz_max": 3100.0,
        "governor": "powersave",
        "temperature_c_max": 71.5,
        "temperature_zone": "x86_pkg_temp",
        "thermal_state": None,
    }
    assert machine.problems(record) == []


def test_what_the_system_does_not_say_is_null_never_a_guess():
    blind = {key: None for key in reading(0, 0, 0, 0, 0)} | {"at": 1.0}
    record = machine.summary([blind, blind | {"at": 2.0}])
    assert record["other_cpu_share"] is None and record["probe_cpu_share"] is None and record["cpus"] is None
    assert machine.problems(record) == []


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"other_cpu_share": "lots"}, "`machine.other_cpu_share` is 'lots', not a number >= 0 or null"),
        ({"readings": 2.5}, "`machine.readings` is '2.5', not a integer >= 0 or null"),
        ({"hostname": "box"}, "`machine` has a field 'hostname' the record does not have"),
        ({"governor": "x" * 81}, "`machine.governor` is"),
    ],
)
def test_a_malformed_record_is_named_field_by_field(change, problem):
    assert any(found.startswith(problem) for found in machine.problems(QUIET | change))


def test_a_record_without_a_field_is_named():
    assert machine.problems({k: v for k, v in QUIET.items() if k != "seconds"}) == ["`machine` has no field 'seconds'"]


def test_the_guide_lists_every_field_of_the_record():
    text = (REPO / "guide" / "probes.md").read_text()
    assert [name for name in machine.NAMES if f"| `{name}` | " not in text] == []
