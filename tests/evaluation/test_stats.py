import numpy as np
import pytest

from evaluation import stats


def test_holm_hand_computed():
    # sorted p: 0.01, 0.02, 0.04 (m=3): 0.03, 0.04, 0.04 (monotone), NaN ignored
    out = stats.holm([0.04, 0.01, np.nan, 0.02])
    assert out[1] == pytest.approx(0.03)
    assert out[3] == pytest.approx(0.04)
    assert out[0] == pytest.approx(0.04)
    assert np.isnan(out[2])
    assert stats.holm([0.6, 0.7])[1] == 1.0  # capped


def test_floor_delta_as_in_paper():
    assert stats.floor_delta(-0.03) == -3
    assert stats.floor_delta(0.8 - 0.83) == -3  # not -4 from 1e-17 noise
    assert stats.floor_delta(-0.0001) == -1
    assert stats.floor_delta(0.0299) == 2
    assert stats.floor_delta(float("nan")) is None


def test_bootstrap_seeded_and_sensible():
    rng = np.random.default_rng(1)
    X = rng.random((500, 3))
    X[::7, 1] = np.nan  # undefined values are left out of each replicate
    a = stats.bootstrap_group_means({"all": (X, np.zeros(500, int))}, 500, 400, seed=3)["all"][0]
    b = stats.bootstrap_group_means({"all": (X, np.zeros(500, int))}, 500, 400, seed=3)["all"][0]
    assert np.array_equal(a, b)
    ci = stats.percentile_ci(a)
    means = np.nanmean(X, axis=0)
    assert (ci[0] < means).all() and (means < ci[1]).all()
    # the width is close to the normal-theory width 2 x 1.96 x sd / sqrt(n)
    width = ci[1, 0] - ci[0, 0]
    assert width == pytest.approx(2 * 1.96 * X[:, 0].std() / np.sqrt(500), rel=0.25)


def test_bootstrap_group_means_use_only_the_group_rows():
    X = np.array([[0.0]] * 50 + [[1.0]] * 50)
    groups = np.array([0] * 50 + [1] * 50)
    out = stats.bootstrap_group_means({"g": (X, groups), "h": (X, np.array([-1] * 50 + [1] * 50))}, 100, 50, seed=0)
    assert (out["g"][0] == 0).all() and (out["g"][1] == 1).all()
    assert set(out["h"]) == {1}
    # a group too small to be drawn in some replicates gives NaN there, and the CI ignores them
    tiny = stats.bootstrap_group_means({"t": (np.arange(100.0)[:, None], np.array([0] + [-1] * 99))}, 100, 200)["t"][0]
    assert np.isnan(tiny).any() and (tiny[~np.isnan(tiny)] == 0).all()
    assert list(stats.percentile_ci(tiny)[:, 0]) == [0.0, 0.0]


def test_percentile_ci_matches_numpy():
    rng = np.random.default_rng(0)
    reps = rng.random((301, 4))
    reps[::5, 2] = np.nan
    reps[:, 3] = np.nan
    got = stats.percentile_ci(reps)
    for c in range(3):
        assert got[:, c] == pytest.approx(np.nanpercentile(reps[:, c], [2.5, 97.5]))
    assert np.isnan(got[:, 3]).all()
