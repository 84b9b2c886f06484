"""lang/pooling.py: a set's cells pooled where their run-to-run variances agree, against published values (NIST's
gear data for Bartlett's test, chi-square and F tables) and planted sets: pooled where alike, alone where not."""

import math
import random
import statistics

import pytest
from helpers import REPO  # noqa: F401

from generator.lang import between, pooling

# NIST/SEMATECH e-Handbook §1.3.5.7 (and §1.3.5.10): GEAR.DAT, ten batches of ten gear diameters.
GEAR = [
    [1.006, 0.996, 0.998, 1.000, 0.992, 0.993, 1.002, 0.999, 0.994, 1.000],
    [0.998, 1.006, 1.000, 1.002, 0.997, 0.998, 0.996, 1.000, 1.006, 0.988],
    [0.991, 0.987, 0.997, 0.999, 0.995, 0.994, 1.000, 0.999, 0.996, 0.996],
    [1.005, 1.002, 0.994, 1.000, 0.995, 0.994, 0.998, 0.996, 1.002, 0.996],
    [0.998, 0.998, 0.982, 0.990, 1.002, 0.984, 0.996, 0.993, 0.980, 0.996],
    [1.009, 1.013, 1.009, 0.997, 0.988, 1.002, 0.995, 0.998, 0.981, 0.996],
    [0.990, 1.004, 0.996, 1.001, 0.998, 1.000, 1.018, 1.010, 0.996, 1.002],
    [0.998, 1.000, 1.006, 1.000, 1.002, 0.996, 0.998, 0.996, 1.002, 1.006],
    [1.002, 0.998, 0.996, 0.995, 0.996, 1.004, 1.004, 0.998, 0.999, 0.991],
    [0.991, 0.995, 0.984, 0.994, 0.997, 0.997, 0.991, 0.998, 1.004, 0.997],
]


def test_bartletts_statistic_on_nists_gear_data_is_the_handbooks():
    """The handbook: T = 20.78580 on 9 degrees of freedom, above the 5% critical value 16.919 (scipy's own test of
    the same data: T = 20.78587342806484, p = 0.0136358632781)."""
    found = pooling.bartlett([(statistics.variance(batch), len(batch) - 1) for batch in GEAR])
    assert found.df == 9
    assert found.statistic == pytest.approx(20.78587342806484, abs=1e-9)
    assert found.p == pytest.approx(0.0136358632781, abs=1e-10)


@pytest.mark.parametrize(
    "x, df, p",
    [
        (16.919, 9, 0.05),  # the handbook's critical value for the gear data
        (3.841, 1, 0.05),
        (6.635, 1, 0.01),
        (5.991, 2, 0.05),
        (9.210, 2, 0.01),
        (124.342, 100, 0.05),  # the series and the continued fraction both, at a large df
    ],
)
def test_chi_square_tails_match_the_tables(x, df, p):
    assert pooling.chi2_sf(x, df) == pytest.approx(p, abs=2e-5)


@pytest.mark.parametrize(
    "x, d1, d2, p",
    [
        (4.103, 2, 10, 0.05),  # F tables (Snedecor & Cochran, Table A 14)
        (4.938, 3, 20, 0.01),
        (2.690, 4, 30, 0.05),
        (161.4, 1, 1, 0.05),
    ],
)
def test_f_tails_match_the_tables(x, d1, d2, p):
    assert pooling.f_sf(x, d1, d2) == pytest.approx(p, abs=5e-4)


def cells(rng: random.Random, sigmas: dict[str, float], runs: int = 3, order: dict[str, float] | None = None):
    """One Cell per name: `runs` normal values of its sigma, ordered as given (else by name)."""
    return [
        pooling.Cell(name, tuple(rng.gauss(0, sigma) for _ in range(runs)), (order or {}).get(name, index))
        for index, (name, sigma) in enumerate(sigmas.items())
    ]


def test_cells_that_vary_alike_pool_their_degrees_of_freedom():
    rng = random.Random(1)
    found = pooling.groups(cells(rng, {f"b={i}": 0.04 for i in range(30)}))
    shared = found["b=0"]
    assert len(shared.cells) >= 28 and shared.df >= 56 and shared.p >= pooling.HOMOGENEITY_P
    assert math.sqrt(shared.variance) == pytest.approx(0.04, rel=0.25)


def test_a_wandering_cell_borrows_no_steadiness_it_lacks():
    """Among thirty steady cells, one whose runs vary ten times as much stands alone, however it is ordered."""
    for seed in range(20):
        rng = random.Random(seed)
        sigmas = {f"b={i}": 0.01 for i in range(30)} | {"b=1, wandering": 0.10}
        found = pooling.groups(cells(rng, sigmas, order={"b=1, wandering": 15.5}))
        alone = found["b=1, wandering"]
        assert alone.cells == ("b=1, wandering",), seed
        assert alone.variance == pytest.approx(pooling.variance_of(next(
            c for c in cells(random.Random(seed), sigmas, order={"b=1, wandering": 15.5}) if c.name == "b=1, wandering"
        ).values))  # fmt: skip


def test_two_regimes_in_order_pool_apart():
    """Steady cells first in order, noisy ones after (a B=64 beside a B=1): each pools with its own kind."""
    rng = random.Random(7)
    sigmas = {f"steady {i}": 0.005 for i in range(20)} | {f"noisy {i}": 0.08 for i in range(20)}
    found = pooling.groups(cells(rng, sigmas))
    steady, noisy = found["steady 3"], found["noisy 3"]
    assert not set(steady.cells) & set(noisy.cells)
    assert math.sqrt(steady.variance) < 0.02 < math.sqrt(noisy.variance)


def test_a_cell_every_run_read_alike_pools_with_nothing():
    found = pooling.groups([pooling.Cell("exact", (0.5, 0.5, 0.5), 0.0), pooling.Cell("timed", (0.1, 0.2, 0.15), 1.0)])
    assert found["exact"] == pooling.Shared(0.0, 2, ("exact",))
    assert not found["exact"].pooled and not found["timed"].pooled


def test_the_pooled_prediction_holds_a_new_run_at_its_level_and_sees_a_change_six_times_narrower():
    """Tests of the tests: 300 sets of 24 cells, 3 runs each at a run-to-run CV of 4%, and a fourth run of one cell.
    The 99% prediction interval with the pooled spread holds the fourth run at least 96% of the time, and the change
    it detects with 3 replicates is at most six times the CV (one cell alone: about 27 times)."""
    rng = random.Random(48)
    sigma, held = 0.04, 0
    for _ in range(300):
        made = cells(rng, {f"c{i}": sigma for i in range(24)})
        shared = pooling.groups(made)["c0"]
        values = [between.RunValue(math.exp(y)) for y in made[0].values]
        pooled = between.pool(values, shared=(shared.variance, shared.df, len(shared.cells)))
        assert pooled is not None
        held += between.inside(pooled, math.exp(rng.gauss(0, sigma)))
    assert held >= 0.96 * 300
    assert between.detectable_change(3, sigma, df=2 * 24) <= 6 * sigma < between.detectable_change(3, sigma) / 4


@pytest.mark.parametrize("bad", [[(0.1, 2)], [(0.0, 2), (0.1, 2)], [(0.1, 0), (0.1, 2)]])
def test_bartlett_refuses_what_it_cannot_test(bad):
    with pytest.raises(ValueError):
        pooling.bartlett(bad)
