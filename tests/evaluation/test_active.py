"""Active statistical inference (SPEC 12): the design and the estimate against hand computations."""

import math

import numpy as np
import pandas as pd
import pytest

from annotation import design
from evaluation.science import active


def test_design_solves_c_with_floor_and_cap_by_hand():
    # T = 5, B = 2: pi_min = 0.1 * 2 / 5 = 0.04. u = 0 sits on the floor; the others get c u with
    # 0.04 + c (0.1 + 0.2 + 0.4 + 0.5) = 2, so c = 1.96 / 1.2.
    pi, reason = design.design([0.0, 0.1, 0.2, 0.4, 0.5], 2)
    c = 1.96 / 1.2
    assert pi == pytest.approx([0.04, 0.1 * c, 0.2 * c, 0.4 * c, 0.5 * c])
    assert reason is None
    # The cap: u = (0.01, 0.02, 5, 9), B = 3.5. The two large ones are capped at 1, leaving 1.5 for
    # the others; c = 50 would give 0.5 + 1.0, the second at the cap too, so 0.5 + 1 + 1 + 1.
    pi, _ = design.design([0.01, 0.02, 5.0, 9.0], 3.5)
    assert pi == pytest.approx([0.5, 1.0, 1.0, 1.0])
    assert pi.sum() == pytest.approx(3.5)


def test_design_sums_to_budget_on_many_triplets_and_keeps_the_floor():
    u = np.random.default_rng(0).random(20_000) ** 3
    pi, _ = design.design(u, 1000)
    assert pi.sum() == pytest.approx(1000, rel=1e-9)
    assert pi.min() == pytest.approx(0.1 * 1000 / 20_000)
    assert pi.max() <= 1
    # the order of u is kept: more uncertain, more likely
    assert np.all(np.diff(pi[np.argsort(u)]) >= -1e-12)


def test_one_hot_judge_falls_back_to_uniform_and_says_so():
    judge = pd.DataFrame({"tkey": ["t1", "t2", "t3", "t4"], "label": ["correct", "partial", "incorrect", "correct"]})
    q, has_probs = design.judge_distribution(judge)
    assert not has_probs
    pi, reason = design.design(design.uncertainty(q.to_numpy()), 2)
    assert pi.tolist() == [0.5, 0.5, 0.5, 0.5]
    assert reason == design.UNIFORM_REASON and "uniform" in reason


def test_too_few_uncertain_triplets_raise_the_floor_of_the_certain_ones():
    pi, _ = design.design([0.0, 0.0, 0.0, 0.5, 0.5], 4.5)
    assert pi.tolist() == pytest.approx([5 / 6, 5 / 6, 5 / 6, 1.0, 1.0])


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


def test_uncertainty_by_hand():
    # q = (0.6, 0.3, 0.1): f = 0.6 + 0.15 = 0.75; u^2 = 0.6 * 0.25^2 + 0.3 * 0.25^2 + 0.1 * 0.75^2 = 0.1125
    assert design.expected_score([0.6, 0.3, 0.1]) == pytest.approx(0.75)
    assert design.uncertainty([0.6, 0.3, 0.1]) == pytest.approx(math.sqrt(0.1125))
    # Hcorrect: f = 0.6, u^2 = 0.6 * 0.4 = 0.24
    assert design.uncertainty([0.6, 0.3, 0.1], "hcorrect") == pytest.approx(math.sqrt(0.24))


def test_estimate_equals_the_hand_computation():
    h = [1.0, 0.0, 0.5, 1.0]  # the last two are not in the sample: their h is never read
    f = [0.9, 0.2, 0.6, 0.8]
    xi, pi = [True, True, False, False], [0.5, 0.5, 0.25, 0.25]
    e = active.estimate(h, f, xi=xi, pi=pi)
    # a = f (1 - xi / pi) = (0.9 (1 - 2), 0.2 (1 - 2), 0.6, 0.8) = (-0.9, -0.2, 0.6, 0.8)
    # b = h xi / pi = (2, 0, 0, 0)
    a, b = np.array([-0.9, -0.2, 0.6, 0.8]), np.array([2.0, 0.0, 0.0, 0.0])
    # cov(a, b) = sum((a - mean a)(b - mean b)) / 3, mean a = 0.075, mean b = 0.5
    cov = ((-0.975) * 1.5 + (-0.275) * -0.5 + 0.525 * -0.5 + 0.725 * -0.5) / 3
    var_a = (0.975**2 + 0.275**2 + 0.525**2 + 0.725**2) / 3
    assert cov == pytest.approx(np.cov(a, b)[0, 1])
    lam = min(1.0, max(0.0, -cov / var_a))  # -cov / var_a = 1.024..., clipped to 1
    assert e["lambda"] == lam == 1.0
    z = b + lam * a  # (1.1, -0.2, 0.6, 0.8)
    assert e["estimate"] == pytest.approx(2.3 / 4)
    var_z = ((1.1 - 0.575) ** 2 + (-0.2 - 0.575) ** 2 + (0.6 - 0.575) ** 2 + (0.8 - 0.575) ** 2) / 3
    assert e["variance"] == pytest.approx(var_z / 4)
    assert z.var(ddof=1) == pytest.approx(var_z)
    assert e["gain"] == pytest.approx(b.var(ddof=1) / var_z)  # var(z(0)) / var(z(lambda)) = 1 / 0.30917
    low, high = active.interval(e)
    assert (low, high) == pytest.approx((0.575 - 1.96 * math.sqrt(var_z / 4), 0.575 + 1.96 * math.sqrt(var_z / 4)))


def test_estimate_is_unbiased_over_draws():
    rng = np.random.default_rng(1)
    h = rng.choice([0.0, 0.5, 1.0], 400)
    f = np.clip(h + rng.normal(0, 0.3, 400), 0, 1)
    pi, _ = design.design(np.abs(h - f) + 0.05, 80)
    means = [active.estimate(h, f, xi=design.draw(pi, seed=s), pi=pi)["estimate"] for s in range(400)]
    assert np.mean(means) == pytest.approx(h.mean(), abs=0.01)


def test_completion_rate_rule_and_rows_say_k_of_b():
    predictions, labels, judge, plan = active._example_frames()
    scores, facts = active.active_scores(predictions, labels, judge, design_frame=plan)
    # t1 and t2 are sampled, t1 is labelled: r = 1/2, every pi halved, xi only for t1
    assert facts["completion"] == 0.5 and facts["n_sampled"] == 2 and facts["n_labeled"] == 1
    assert scores["pi"].tolist() == [0.25, 0.5, 0.05]
    assert scores["xi"].tolist() == [True, False, False]
    (row, _) = active.active_rows(scores)
    # f = (0.8 + 0.1, 0.3 + 0.25, 0) = (0.9, 0.55, 0); a = (0.9 (1 - 4), 0.55, 0) = (-2.7, 0.55, 0)
    # b = (4, 0, 0); lambda clips to 1; z = (1.3, 0.55, 0)
    assert row["lambda"] == 1.0
    assert row["estimate"] == pytest.approx(1.85 / 3)
    assert (row["n_total"], row["n_sampled"], row["n_labeled"]) == (3, 2, 1)


def test_estimate_refuses_a_labelled_item_without_chance():
    with pytest.raises(ValueError, match="pi > 0"):
        active.estimate([1.0, 0.0], [1.0, 0.0], xi=[True, False], pi=[0.0, 0.5])


def test_design_examples_run():
    import doctest

    result = doctest.testmod(design, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
