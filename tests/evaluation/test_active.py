"""Active statistical inference (SPEC 12 as amended): the two-phase design and the estimate with two
control variates, against computations made here independently with numpy."""

import math

import numpy as np
import pytest

from annotation import human_metrics
from evaluation.science import active
from evaluation.science.rows import as_json, records
from stats import active as stats_active
from stats import design, intervals


def test_pilot_and_main_budgets_make_the_chances_sum_to_b():
    p1 = design.pilot_chance(100, 1000)  # rho B / T = 0.2 * 100 / 1000
    assert p1 == pytest.approx(0.02)
    b2 = design.main_budget(100, 1000, p1)
    assert b2 == pytest.approx((100 - 20) / 0.98)
    pi2 = np.random.default_rng(0).dirichlet(np.ones(1000)) * b2  # any pi2 summing to B2
    assert design.combine(p1, pi2).sum() == pytest.approx(100)
    with pytest.raises(ValueError, match="rho"):
        design.pilot_chance(100, 1000, rho=1.0)


def test_residual_model_is_the_two_least_squares_fits():
    rng = np.random.default_rng(3)
    n = 120
    f, u = rng.random(n), rng.random(n) * 0.5
    h = np.clip(np.round(2 * (f + rng.normal(0, 0.2, n))) / 2, 0, 1)
    model, reason = design.fit_residual_model(h, f, u)
    assert reason is None and model["n_pilot"] == n
    # by hand: normal equations for h ~ 1 + f, then r^2 ~ 1 + u^2 + f (1 - f)
    x1 = np.column_stack([np.ones(n), f])
    beta0, lambda0 = np.linalg.solve(x1.T @ x1, x1.T @ h)
    r2 = (h - beta0 - lambda0 * f) ** 2
    x2 = np.column_stack([np.ones(n), u**2, f * (1 - f)])
    gamma = np.linalg.solve(x2.T @ x2, x2.T @ r2)
    assert (model["beta0"], model["lambda0"]) == pytest.approx((beta0, lambda0))
    assert model["gamma"] == pytest.approx(gamma.tolist())
    assert model["floor"] == pytest.approx(0.05 * r2.mean())
    s = design.residual_scale(model, f, u)
    assert s == pytest.approx(np.sqrt(np.maximum(x2 @ gamma, 0.05 * r2.mean())))


def test_fallbacks_say_why_and_give_the_uniform_design():
    f = np.tile([0.9, 0.5, 0.1], 40)
    u = np.tile([0.1, 0.4, 0.1], 40)
    h = np.tile([1.0, 0.5, 0.0], 40) * (np.arange(120) % 7 != 0)
    few = np.arange(120) < 49
    pi2, info = design.main_design(f, u, pilot=few, h=h, budget=30, p1=0.05)
    assert info["kind"] == "uniform" and "only 49 labelled pilot triplets" in info["reason"]
    assert design.combine(0.05, pi2) == pytest.approx(np.full(120, 30 / 120))
    flat = np.full(120, 0.7)  # f does not vary: (1, f) is singular
    pi2, info = design.main_design(flat, u, pilot=np.ones(120, bool), h=h, budget=30, p1=0.05)
    assert info["kind"] == "uniform" and "cannot be fitted" in info["reason"]
    assert design.combine(0.05, pi2) == pytest.approx(np.full(120, 0.25))


def test_solve_scale_water_fills_by_hand():
    # s = (1, 1, 10), total 2: c = 0.5 caps the third (10 * 0.5 = 5 -> 1) and gives 0.5 + 0.5 + 1
    assert design.solve_scale([1.0, 1.0, 10.0], 2.0) == pytest.approx(0.5)
    s = np.random.default_rng(1).random(5000) ** 4 + 1e-3
    c = design.solve_scale(s, 1500)
    assert np.minimum(1, c * s).sum() == pytest.approx(1500)
    assert (c * s >= 1).sum() > 0  # some capped


def test_main_chances_keep_the_defensive_share_and_the_budget():
    s = np.random.default_rng(2).random(2000) + 0.01
    pi2, c = design.main_chances(s, 150.0, alpha=0.1)
    assert pi2.sum() == pytest.approx(150.0)
    assert pi2.min() >= 0.1 * 150 / 2000 - 1e-12
    assert pi2 == pytest.approx(0.1 * 150 / 2000 + 0.9 * np.minimum(1, c * s))


def test_one_hot_judge_still_separates_partial_answers():
    # u = 0 everywhere, f in {0, 0.5, 1}: f (1 - f) = 0.25 on partial answers, where humans disagree most
    rng = np.random.default_rng(4)
    f = rng.choice([0.0, 0.5, 1.0], 3000)
    u = np.zeros(3000)
    h = np.where(f == 0.5, rng.choice([0.0, 0.5, 1.0], 3000), np.where(rng.random(3000) < 0.9, f, 0.5))
    pilot = rng.random(3000) < 0.1
    pi2, info = design.main_design(f, u, pilot=pilot, h=h, budget=300, p1=0.02)
    assert info["kind"] == "active"
    assert pi2[f == 0.5].min() > 2 * pi2[f != 0.5].max()
    assert design.combine(0.02, pi2).sum() == pytest.approx(300)


def _by_numpy(h, f, xi, pi):
    """SPEC 12's estimate computed directly: the 2x2 covariance of (a, c) and its solve."""
    w = np.where(xi, 1 / pi, 0.0)
    a, c, b = f * (1 - w), 1 - w, np.where(xi, h, 0.0) * w
    cov = np.cov(np.vstack([a, c, b]))  # ddof=1
    lam, beta = -np.linalg.solve(cov[:2, :2], cov[:2, 2])
    z = b + lam * a + beta * c
    return {
        "lambda": lam,
        "beta": beta,
        "estimate": z.mean(),
        "variance": z.var(ddof=1) / len(z),
        "gain": b.var(ddof=1) / z.var(ddof=1),
    }


def test_estimate_equals_the_2x2_solve_by_numpy():
    rng = np.random.default_rng(5)
    n = 200
    f = rng.random(n)
    h = np.clip(f + rng.normal(0, 0.25, n), 0, 1)
    pi = np.clip(0.05 + 0.5 * np.abs(h - f), 0, 1)
    xi = rng.random(n) < pi
    e = stats_active.estimate(np.where(xi, h, np.nan), f, xi=xi, pi=pi)
    expected = _by_numpy(h, f, xi, pi)
    for key, value in expected.items():
        assert e[key] == pytest.approx(value, rel=1e-9)
    assert e["n"] == n and e["n_labeled"] == xi.sum()
    low, high = intervals.normal(e["estimate"], stats_active.interval_variance(e))
    assert (low, high) == pytest.approx(
        (e["estimate"] - 1.96 * math.sqrt(e["variance"]), e["estimate"] + 1.96 * math.sqrt(e["variance"]))
    )


def test_five_items_by_hand():
    # the docstring's example, with every number written out
    h, f = np.array([1.0, 0.0, 0.5, 1.0, 0.5]), np.array([0.9, 0.2, 0.6, 0.8, 0.4])
    xi, pi = np.array([True, True, False, False, True]), np.array([0.5, 0.5, 0.25, 0.25, 0.8])
    w = np.array([2.0, 2.0, 0.0, 0.0, 1.25])
    a = f * (1 - w)  # (-0.9, -0.2, 0.6, 0.8, -0.1)
    c = 1 - w  # (-1, -1, 1, 1, -0.25)
    b = np.array([2.0, 0.0, 0.0, 0.0, 0.625])
    assert a == pytest.approx([-0.9, -0.2, 0.6, 0.8, -0.1]) and c == pytest.approx([-1, -1, 1, 1, -0.25])
    s = np.array([[np.var(a, ddof=1), np.cov(a, c)[0, 1]], [np.cov(a, c)[0, 1], np.var(c, ddof=1)]])
    lam, beta = -np.linalg.inv(s) @ np.array([np.cov(a, b)[0, 1], np.cov(c, b)[0, 1]])
    e = stats_active.estimate(h, f, xi=xi, pi=pi)
    assert (e["lambda"], e["beta"]) == pytest.approx((lam, beta))
    assert lam > 1  # not clipped
    assert e["estimate"] == pytest.approx(np.mean(b + lam * a + beta * c))


def test_uniform_variance_is_the_weighted_residual_variance_by_numpy():
    rng = np.random.default_rng(8)
    n = 400
    f = rng.random(n)
    h = np.clip(f + rng.normal(0, 0.2, n), 0, 1)
    pi = np.clip(0.1 + 0.6 * np.abs(h - f), 0, 1)
    xi = rng.random(n) < pi
    # weighted least squares of h on (1, f) with weights 1 / pi over the labelled, by the normal equations
    w = 1 / pi[xi]
    x = np.column_stack([np.ones(xi.sum()), f[xi]])
    coef = np.linalg.solve(x.T @ (w[:, None] * x), x.T @ (w * h[xi]))
    r = h[xi] - x @ coef
    m = xi.sum()
    sigma2 = (w * r**2).sum() / w.sum() * m / (m - 1)
    assert stats_active.uniform_variance(h, f, xi=xi, pi=pi) == pytest.approx(sigma2 * (1 / m - 1 / n))
    assert stats_active.uniform_variance(h, f, xi=np.arange(n) < 9, pi=pi) is None  # too few to measure


def test_an_exact_fit_has_no_gain_to_speak_of():
    # two labelled items and two control variates: z is fitted exactly, var(z) = 0 up to rounding
    e = stats_active.estimate([1.0, 0.0, 0.5], [0.8, 0.3, 0.5], xi=[True, True, False], pi=[0.5, 0.25, 0.5])
    assert e["variance"] == 0.0 and e["gain"] is None


def test_singular_s_drops_c_then_a():
    # f constant: a = 0.4 c, S singular -> beta = 0, lambda = -cov(a, b) / var(a)
    h = np.array([1.0, 0.0, 0.5, 1.0, 0.0, 1.0])
    f = np.full(6, 0.4)
    xi, pi = np.array([True, True, False, True, False, False]), np.array([0.5, 0.5, 0.5, 0.25, 0.25, 0.25])
    w = np.where(xi, 1 / pi, 0)
    a, b = f * (1 - w), np.where(xi, h, 0) * w
    e = stats_active.estimate(h, f, xi=xi, pi=pi)
    assert e["beta"] == 0.0
    assert e["lambda"] == pytest.approx(-np.cov(a, b)[0, 1] / np.var(a, ddof=1))
    # every item labelled with pi = 1: a = c = 0, the Horvitz-Thompson estimate is the mean
    e = stats_active.estimate(h, np.linspace(0, 1, 6), xi=np.ones(6, bool), pi=np.ones(6))
    assert (e["lambda"], e["beta"], e["estimate"]) == (0.0, 0.0, pytest.approx(h.mean()))


def test_groups_give_each_group_its_own_estimate():
    rng = np.random.default_rng(6)
    n = 300
    f, groups = rng.random(n), rng.integers(0, 3, n)
    h = np.clip(f + rng.normal(0, 0.3, n), 0, 1)
    pi = np.full(n, 0.3)
    xi = rng.random(n) < pi
    together = stats_active.estimate(h, f, xi=xi, pi=pi, groups=groups)
    for g in range(3):
        alone = stats_active.estimate(h[groups == g], f[groups == g], xi=xi[groups == g], pi=pi[groups == g])
        for key in ("estimate", "variance", "lambda", "beta", "gain"):
            assert together[key][g] == pytest.approx(alone[key], rel=1e-9)


def test_two_phase_design_is_unbiased_and_covers():
    rng = np.random.default_rng(7)
    n, budget = 3000, 300
    f = rng.random(n)
    u = 0.05 + 0.4 * f * (1 - f)
    h = np.clip(np.round(2 * (f + rng.normal(0, u))) / 2, 0, 1)
    estimates, covered = [], 0
    for seed in range(200):
        p1 = design.pilot_chance(budget, n)
        pilot = design.draw(np.full(n, p1), seed)
        pi2, info = design.main_design(f, u, pilot=pilot, h=h, budget=budget, p1=p1)
        main = design.draw(pi2, [seed, 2])
        pi = design.combine(p1, pi2)
        e = stats_active.estimate(h, f, xi=pilot | main, pi=pi)
        estimates.append(e["estimate"])
        low, high = intervals.normal(e["estimate"], stats_active.interval_variance(e))
        covered += low <= h.mean() <= high
    assert info["kind"] == "active"
    assert np.mean(estimates) == pytest.approx(h.mean(), abs=0.004)
    assert 0.9 <= covered / 200 <= 0.99


def test_completion_rates_apply_per_phase():
    pi = np.array([0.1, 0.1, 0.1, 0.5, 0.5, 0.28])
    sampled = np.array([True, True, False, True, True, False])
    phase = np.array(["pilot", "pilot", None, "main", "main", None], dtype=object)
    labeled = np.array([True, False, False, True, True, False])
    xi, live, rates = design.live_design(pi, sampled, labeled, phase=phase, p1=0.1)
    # r1 = 1/2, r2 = 2/2; pi2 = (pi - 0.1) / 0.9; pi = 0.05 + 0.95 pi2
    pi2 = (pi - 0.1) / 0.9
    assert (rates["pilot"], rates["main"]) == (0.5, 1.0)
    assert live == pytest.approx(0.05 + 0.95 * pi2)
    assert xi.tolist() == [True, False, False, True, True, False]
    # one phase: pi r, r = 3 / 4
    _, live, rates = design.live_design(pi, sampled, labeled)
    assert live == pytest.approx(pi * 0.75) and rates["pilot"] is None


def test_rows_carry_beta_and_the_design_its_pilot():
    predictions, labels, judge, plan = active._example_frames()
    plan = plan.assign(phase=["pilot", "main", None], p1=0.2)
    rows, summary, table = active.active_section(predictions, labels, judge, design_frame=plan)
    assert list(active.ROW_KEYS) == list(as_json(rows[0])) and "beta" in table.columns
    assert summary["pilot"] == {"size": 1, "labeled": 1, "main": 1, "progress": "pilot 1 of 1 labelled"}
    assert summary["rates"] == {"pilot": 1.0, "main": 0.0}


def test_a_system_with_no_prediction_in_the_design_has_an_undefined_row():
    """A report's system that has no judged prediction in the design (the report crashed on it)."""
    predictions, labels, judge, plan = active._example_frames()
    scores, _ = active.active_scores(predictions, labels, judge, design_frame=plan)
    rows = records(active.active_rows(scores, ["a", "nobody"]))
    empty = [r for r in rows if r["system"] == "nobody"]
    assert len(empty) == len(rows) // 2 and all(r["n_total"] == 0 and r["estimate"] is None for r in empty)
    assert all(r["estimate"] is not None for r in rows if r["system"] == "a")
    nothing = stats_active.estimate([], [], xi=[], pi=[])
    assert nothing["estimate"] is None and nothing["n"] == 0 and nothing["n_labeled"] == 0


@pytest.mark.parametrize(
    ("budget", "message"),
    [(0, "positive"), ("-3", "positive"), ("x", "count"), ("2.5", "whole"), (11, "more than the 10")],
)
def test_budget_errors(budget, message):
    with pytest.raises(ValueError, match=message):
        design.budget_count(budget, 10)


def test_probs_are_checked():
    with pytest.raises(ValueError, match="unknown label"):
        design.check_probs({"right": 1})
    with pytest.raises(ValueError, match="number >= 0"):
        design.check_probs({"correct": -0.1, "incorrect": 1})
    with pytest.raises(ValueError, match="all 0"):
        design.check_probs({"correct": 0})


def test_uncertainty_by_hand_and_metric_values_from_the_registry():
    # q = (0.6, 0.3, 0.1): f = 0.6 + 0.15 = 0.75; u^2 = 0.6 * 0.25^2 + 0.3 * 0.25^2 + 0.1 * 0.75^2 = 0.1125
    assert design.expected_score([0.6, 0.3, 0.1]) == pytest.approx(0.75)
    assert design.uncertainty([0.6, 0.3, 0.1]) == pytest.approx(math.sqrt(0.1125))
    # Hcorrect: f = 0.6, u^2 = 0.6 * 0.4 = 0.24
    assert design.uncertainty([0.6, 0.3, 0.1], human_metrics.values("hcorrect")) == pytest.approx(math.sqrt(0.24))


def test_a_new_human_metric_reaches_the_active_rows():
    from evaluation.science import metric_registry as registry

    def lenient(counts, aggregate="mean"):  # partial counts as correct
        counts = np.asarray(counts, dtype=float)
        total = counts.sum(axis=1)
        return np.where(total > 0, (counts[:, 0] + counts[:, 1]) / np.where(total > 0, total, 1), np.nan)

    registry.register(registry.Metric(key="lenient", title="L", latex="L", axis="L", human=True, per_triplet=lenient))
    try:
        assert human_metrics.values("lenient") == (1.0, 1.0, 0.0)
        predictions, labels, judge, plan = active._example_frames()
        rows, _, _ = active.active_section(predictions, labels, judge, design_frame=plan)
        assert [r.metric for r in rows] == ["hscore", "hcorrect", "lenient"]
    finally:
        registry.unregister("lenient")
    with pytest.raises(ValueError, match="metric must be one of"):
        human_metrics.values("lenient")


def test_estimate_refuses_a_labelled_item_without_chance():
    with pytest.raises(ValueError, match="pi > 0"):
        stats_active.estimate([1.0, 0.0], [1.0, 0.0], xi=[True, False], pi=[0.0, 0.5])


def test_design_examples_run():
    import doctest

    result = doctest.testmod(design, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_fixed_intervals_never_claim_zero_width_or_an_impossible_score():
    """SPEC 16 (amended) on SPEC 12's estimate: one labelled item says "too few" instead of [1, 1]; 40
    labelled items all correct get a floored width; N = 2 clips an impossible estimate and flags it; a
    near-singular S falls back (condition number above 1e6) instead of printing lambda = -9,873."""
    one = records(active.active_rows(_rows_frame(h=[1.0] + [np.nan] * 9, xi=[True] + [False] * 9)))
    assert all(r["too_few"] and r["ci_low"] is None and r["estimate"] is not None for r in one)
    forty = records(active.active_rows(_rows_frame(h=[1.0] * 40 + [np.nan] * 60, xi=[True] * 40 + [False] * 60)))
    hscore = forty[0]
    assert not hscore["too_few"] and hscore["ci_high"] - hscore["ci_low"] >= 2 * 1.96 / 41 - 1e-12
    # N = 2: weights and control variates give an impossible Hscore (5.0 [5.0, 5.0]): clipped, flagged
    two = stats_active.estimate([0.0, 1.0], [0.5, 0.0], xi=[True, True], pi=[0.2, 0.2])
    mean, _low, _high, flag = intervals.clipped(
        two["estimate"], *intervals.normal(two["estimate"], stats_active.interval_variance(two))
    )
    assert two["estimate"] > 1 and flag and mean == 1.0
    rows = records(active.active_rows(_rows_frame(h=[0.0, 1.0], xi=[True, True], f=[0.5, 0.0], pi=[0.2, 0.2])))
    assert rows[0]["estimate"] == 1.0 and rows[0]["clipped"] and not rows[0]["too_few"]
    # a near-singular S: a and c almost collinear (f nearly constant)
    rng = np.random.default_rng(4)
    n = 400
    f = 0.5 + 1e-4 * rng.standard_normal(n)
    xi = rng.random(n) < 0.3
    e = stats_active.estimate(np.where(xi, rng.choice([0.0, 1.0], n), np.nan), f, xi=xi, pi=np.full(n, 0.3))
    assert e["beta"] == 0.0 and abs(e["lambda"]) < 1e3  # c dropped: no lambda in the thousands


def _rows_frame(*, h, xi, f=None, pi=None):
    import pandas as pd

    n = len(h)
    f = f if f is not None else [0.9] * n
    h = np.asarray(h, dtype=float)
    return pd.DataFrame(
        {
            "system": "s",
            "tkey": [f"t{i}" for i in range(n)],
            "h_hscore": h,
            "h_hcorrect": np.where(np.isnan(h), np.nan, h == 1.0),
            "f_hscore": f,
            "f_hcorrect": f,
            "xi": xi,
            "pi": pi if pi is not None else [0.4] * n,
            "sampled": xi,
        }
    )
