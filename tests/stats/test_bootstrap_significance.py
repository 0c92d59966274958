"""The bootstrap (``stats.bootstrap``) and the tests of significance (``stats.significance``)."""

import numpy as np
import pytest

from stats import bootstrap, significance


def test_holm_hand_computed():
    # sorted p: 0.01, 0.02, 0.04 (m=3): 0.03, 0.04, 0.04 (monotone), NaN ignored
    out = significance.holm([0.04, 0.01, np.nan, 0.02])
    assert out[1] == pytest.approx(0.03)
    assert out[3] == pytest.approx(0.04)
    assert out[0] == pytest.approx(0.04)
    assert np.isnan(out[2])
    assert significance.holm([0.6, 0.7])[1] == 1.0  # capped


def test_floor_delta_as_in_paper():
    assert significance.floor_delta(-0.03) == -3
    assert significance.floor_delta(0.8 - 0.83) == -3  # not -4 from 1e-17 noise
    assert significance.floor_delta(-0.0001) == -1
    assert significance.floor_delta(0.0299) == 2
    assert significance.floor_delta(float("nan")) is None


def test_bootstrap_seeded_and_sensible():
    rng = np.random.default_rng(1)
    X = rng.random((500, 3))
    X[::7, 1] = np.nan  # undefined values are left out of each replicate
    a = bootstrap.bootstrap_group_means({"all": (X, np.zeros(500, int))}, 500, 400, seed=3)["all"][0]
    b = bootstrap.bootstrap_group_means({"all": (X, np.zeros(500, int))}, 500, 400, seed=3)["all"][0]
    assert np.array_equal(a, b)
    ci = bootstrap.percentile_ci(a)
    means = np.nanmean(X, axis=0)
    assert (ci[0] < means).all() and (means < ci[1]).all()
    # the width is close to the normal-theory width 2 x 1.96 x sd / sqrt(n)
    width = ci[1, 0] - ci[0, 0]
    assert width == pytest.approx(2 * 1.96 * X[:, 0].std() / np.sqrt(500), rel=0.25)


def test_bootstrap_group_means_use_only_the_group_rows():
    X = np.array([[0.0]] * 50 + [[1.0]] * 50)
    groups = np.array([0] * 50 + [1] * 50)
    out = bootstrap.bootstrap_group_means({"g": (X, groups), "h": (X, np.array([-1] * 50 + [1] * 50))}, 100, 50, seed=0)
    assert (out["g"][0] == 0).all() and (out["g"][1] == 1).all()
    assert set(out["h"]) == {1}
    # a group too small to be drawn in some replicates gives NaN there, and the CI ignores them
    tiny = bootstrap.bootstrap_group_means({"t": (np.arange(100.0)[:, None], np.array([0] + [-1] * 99))}, 100, 200)[
        "t"
    ][0]
    assert np.isnan(tiny).any() and (tiny[~np.isnan(tiny)] == 0).all()
    assert list(bootstrap.percentile_ci(tiny)[:, 0]) == [0.0, 0.0]


def test_percentile_ci_matches_numpy():
    rng = np.random.default_rng(0)
    reps = rng.random((301, 4))
    reps[::5, 2] = np.nan
    reps[:, 3] = np.nan
    got = bootstrap.percentile_ci(reps)
    for c in range(3):
        assert got[:, c] == pytest.approx(np.nanpercentile(reps[:, c], [2.5, 97.5]))
    assert np.isnan(got[:, 3]).all()


def straightforward_bootstrap(tasks, n_rows, n_boot, seed, block):
    """Each replicate: draw n_rows row indices (the documented stream: blocks of `block`
    replicates of rng.integers), take the drawn rows, and nanmean each group's defined values."""
    rng = np.random.default_rng(seed)
    draws = np.vstack(
        [
            rng.integers(0, n_rows, size=(min(block, n_boot - i), n_rows), dtype=np.int32)
            for i in range(0, n_boot, block)
        ]
    )
    out = {}
    for name, (X, codes) in tasks.items():
        out[name] = {}
        for g in np.unique(codes[codes >= 0]):
            reps = np.full((n_boot, X.shape[1]), np.nan)
            for r, idx in enumerate(draws):
                rows = X[idx][codes[idx] == g]
                defined = ~np.isnan(rows)
                counts = defined.sum(axis=0)
                reps[r, counts > 0] = np.nansum(rows, axis=0)[counts > 0] / counts[counts > 0]
            out[name][int(g)] = reps
    return out


def test_bootstrap_equals_the_straightforward_resampling():
    # weights-matrix products (batched, on threads, largest group by subtraction) must give the
    # means of the straightforwardly resampled rows, replicate by replicate
    rng = np.random.default_rng(4)
    n = 300
    X = rng.random((n, 4))
    X[rng.random((n, 4)) < 0.2] = np.nan  # undefined values, different per column
    X[:, 3] = np.where(rng.random(n) < 0.5, 1.0, 0.0)
    metric = X[:, :2].copy()
    tasks = {
        "systems": (X, np.zeros(n, dtype=int)),
        "factor": (X, (rng.random(n) < 0.7).astype(int)),  # covers every row: largest side derived
        "factor_missing": (X, rng.choice([-1, 0, 1], n)),  # some rows in no group
        "frames": (metric, rng.integers(0, 12, n)),  # many small groups on another matrix
        "rare": (metric, np.where(np.arange(n) < 2, 0, -1)),  # a group some replicates never draw
    }
    n_boot = 57
    got = bootstrap.bootstrap_group_means(tasks, n, n_boot, seed=11, cells=10 * n, batch_cells=30 * n, workers=2)
    expected = straightforward_bootstrap(tasks, n, n_boot, seed=11, block=10)
    assert got.keys() == expected.keys()
    for name in tasks:
        assert got[name].keys() == expected[name].keys(), name
        for g in expected[name]:
            np.testing.assert_allclose(got[name][g], expected[name][g], rtol=2e-6, atol=2e-7, err_msg=f"{name} {g}")
    assert np.isnan(got["rare"][0]).any() and not np.isnan(got["rare"][0]).all()
    # the same seed gives the same replicates whatever the batching and the threads
    again = bootstrap.bootstrap_group_means(tasks, n, n_boot, seed=11, cells=10 * n, batch_cells=10 * n, workers=1)
    for name in tasks:
        for g in got[name]:
            np.testing.assert_allclose(again[name][g], got[name][g], rtol=2e-6, atol=2e-7)


def test_bootstrap_by_cells_equals_the_straightforward_resampling():
    # the factors of one matrix split the rows into few cells: one product per cell, each side's
    # sums from its cells; the replicates must still be those of resampled rows
    rng = np.random.default_rng(5)
    n = 2000
    X = rng.random((n, 3))
    X[rng.random((n, 3)) < 0.1] = np.nan
    tasks = {
        "systems": (X, np.zeros(n, dtype=int)),
        "f1": (X, (rng.random(n) < 0.3).astype(int)),
        "f2": (X, rng.choice([-1, 0, 1], n)),
        "f3": (X, rng.choice([-1, 0, 1], n, p=[0.1, 0.45, 0.45])),
        "frames": (X[:, :2].copy(), rng.integers(0, 7, n)),
    }
    _, plans = bootstrap._plan(tasks, n)
    assert all(plans[name][3] is not None for name in ("systems", "f1", "f2", "f3"))
    assert plans["frames"][3] is None  # alone on its matrix: its own products
    got = bootstrap.bootstrap_group_means(tasks, n, 30, seed=2, cells=10 * n, batch_cells=20 * n, workers=2)
    expected = straightforward_bootstrap(tasks, n, 30, seed=2, block=10)
    for name in tasks:
        assert got[name].keys() == expected[name].keys(), name
        for g in expected[name]:
            np.testing.assert_allclose(got[name][g], expected[name][g], rtol=2e-5, atol=2e-6, err_msg=f"{name} {g}")


def test_tie_counts_by_cells_equal_the_row_counts():
    # a side that is a union of cells is summed from the cells' counts; any other mask counts rows
    rng = np.random.default_rng(6)
    X = rng.integers(0, 5, (800, 4)) / 4
    X[rng.random((800, 4)) < 0.1] = np.nan
    sides = [rng.choice([-1, 0, 1], 800) for _ in range(3)]
    plain, by_cells = significance.tie_groups(X), significance.tie_groups(X)
    assert by_cells.count_by_cells(bootstrap.cells_of(sides, 800))
    for side in sides:
        for g in (0, 1):
            assert np.array_equal(by_cells.counts(side == g), plain.counts(side == g))
    other = rng.random(800) < 0.5  # not a union of cells
    assert np.array_equal(by_cells.counts(other), plain.counts(other))
    assert not significance.tie_groups(X).count_by_cells(bootstrap.cells_of(sides, 800), max_entries=10)
