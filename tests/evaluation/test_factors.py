import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu

from evaluation.science import factors as fx
from stats import significance


def questions(**columns):
    n = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=[f"q{i + 1}" for i in range(n)])


def test_missing_attribute_is_on_neither_side():
    qs = questions(dist=[1, 3, None, 2, 0, 5])
    side, threshold = fx.factor_side(qs, fx.FACTORS_BY_NAME["dist"])
    assert threshold == 2
    assert list(side[[0, 1, 3, 4, 5]]) == [0, 1, 1, 0, 1]
    assert math.isnan(side[2])


def test_factor_effect_hand_computed():
    side = np.array([0, 1, np.nan, 1, 0, 1])
    X = np.array([[1.0], [0.0], [1.0], [0.5], [1.0], [0.0]])
    eff = fx.factor_effect(X, side)
    assert eff["s_hard"][0] == pytest.approx(1 / 6)
    assert eff["s_easy"][0] == pytest.approx(1.0)
    assert eff["diff"][0] == pytest.approx(-5 / 6)
    assert eff["u"][0] == 0  # no hard score beats an easy one
    assert eff["p_value"][0] == pytest.approx(mannwhitneyu([0, 0.5, 0], [1, 1]).pvalue)
    assert eff["size_pct"] == pytest.approx(60.0)
    assert (eff["n_hard"], eff["n_easy"]) == (3, 2)


def test_unlabeled_scores_left_out_of_means_and_test():
    side = np.array([1, 1, 0, 0])
    X = np.array([[0.0], [np.nan], [1.0], [0.5]])
    eff = fx.factor_effect(X, side)
    assert eff["s_hard"][0] == 0.0 and eff["n_hard_scored"][0] == 1
    assert eff["p_value"][0] == pytest.approx(mannwhitneyu([0.0], [1.0, 0.5]).pvalue)


def test_empty_side_gives_nan_not_error():
    eff = fx.factor_effect(np.array([[1.0], [0.0]]), np.array([0.0, 0.0]))
    assert math.isnan(eff["s_hard"][0]) and math.isnan(eff["diff"][0]) and math.isnan(eff["p_value"][0])
    assert not fx.is_significant(float(eff["p_value"][0]))


def test_predefined_factors():
    qs = questions(
        frame_freq=[1.0, 2.0, 3.0, 4.0, None],
        coref=[True, False, None, True, False],
        lu_pos=["noun", "verb", "noun", None, "adj"],
        trigger_in_question=[False, True, True, None, False],
        frame_elements=[["A"], ["A", "B"], ["A", "B", "C"], None, []],
    )
    sides, thresholds = fx.factor_sides(
        qs, [fx.FACTORS_BY_NAME[n] for n in ("bias", "coref", "trigger", "lu_in_q", "nb_fes")]
    )
    assert thresholds["bias"] == 3.0  # balanced: the rare values below 3 are 2 of the 4 questions
    assert list(sides["bias"].fillna(-1)) == [1, 1, 0, 0, -1]
    assert list(sides["coref"].fillna(-1)) == [1, 0, -1, 1, 0]
    assert list(sides["trigger"].fillna(-1)) == [1, 0, 1, -1, 0]
    assert list(sides["lu_in_q"].fillna(-1)) == [1, 0, 0, -1, 1]
    assert list(sides["nb_fes"].fillna(-1)) == [1, 1, 0, -1, 1]


def test_entropy_from_corpus_and_lexicon():
    qs = questions(
        frame=["F1", "F1", "F1", "F1", "F2", "F2", "F3", "F3", "F3", "F3", None],
        lu=["a.v", "a.v", "b.n", "b.n", "c.v", "c.v", "d.v", "e.v", "f.v", "g.v", None],
    )
    ent = fx.frame_entropy(qs)
    assert ent.to_dict() == pytest.approx({"F1": 1.0, "F2": 0.0, "F3": 2.0})
    side, threshold = fx.factor_side(qs, fx.FACTORS_BY_NAME["entropy"], ent)
    assert threshold == 1.0  # median over frames, not over questions
    assert list(np.nan_to_num(side, nan=-1)) == [0] * 6 + [1] * 4 + [-1]
    lex = fx.frame_entropy(qs, "lexicon", {"F1": ["a.v", "b.n", "c.n", "d.n"], "F2": ["x.v"], "F9": ["y.v", "z.v"]})
    assert lex.to_dict() == pytest.approx({"F1": 2.0, "F2": 0.0, "F9": 1.0})
    side, threshold = fx.factor_side(qs, fx.FACTORS_BY_NAME["entropy"], lex)
    assert threshold == 1.0  # median over the lexicon's frames
    assert list(np.nan_to_num(side, nan=-1)) == [1] * 4 + [0] * 2 + [-1] * 5  # F3 not in the lexicon


def test_custom_factor_from_text_and_meta_attribute():
    f = fx.parse_factor("long:ctx_len:>=:median")
    assert f == fx.Factor("long", "ctx_len", ">=", "median")
    qs = questions(meta=[{"ctx_len": 10}, {"ctx_len": 30}, {}, {"ctx_len": 20}])
    side, threshold = fx.factor_side(qs, f)
    assert threshold == 20
    assert list(np.nan_to_num(side, nan=-1)) == [0, 1, -1, 1]
    assert fx.parse_factor("yes:coref:==:true").threshold is True
    with pytest.raises(ValueError, match="comparison"):
        fx.parse_factor("x:dist:=~:2")
    with pytest.raises(ValueError, match="predefined"):
        fx.parse_factor("nonsense")


def test_share_by_group_and_combinations():
    side_a = np.array([1, 1, 0, 0, np.nan, 1])
    side_b = np.array([1, 0, 1, 0, 1, np.nan])
    part = np.array([1, 1, 2, 2, 2, 3])
    shares = fx.share_by_group(side_a, part, [1, 2, 3, 4])
    assert shares[1] == 1.0 and shares[2] == 0.0 and shares[3] == 1.0 and math.isnan(shares[4])
    masks = fx.combination_masks(side_a, side_b)
    assert [np.flatnonzero(m).tolist() for m in masks.values()] == [[3], [1], [2], [0]]


def test_mann_whitney_from_tie_groups_equals_scipy_on_random_data():
    # the report's Mann-Whitney (tie-group counts, ranked once per matrix) must give scipy's own
    # U and p-value for every column: ties, NaN left out, small sides (scipy's exact test), one
    # empty side, a constant column, and one split tested many times against one tie_groups()
    rng = np.random.default_rng(0)
    for trial in range(120):
        n, cols = int(rng.integers(2, 150)), int(rng.integers(1, 5))
        X = [rng.integers(0, 4, (n, cols)) / 3.0, rng.random((n, cols)), np.round(rng.random((n, cols)), 1)][trial % 3]
        if trial % 2:
            X[rng.random((n, cols)) < 0.25] = np.nan
        if trial % 7 == 0:
            X[:, 0] = 0.5
        side = (
            rng.choice([0.0, 1.0, np.nan], n, p=[0.5, 0.4, 0.1])
            if trial % 4
            else rng.choice([0.0, 1.0], n, p=[0.93, 0.07])
        )
        ties = significance.tie_groups(X)
        for hard, easy in ((side == 1, side == 0), (side == 0, side == 1)):
            u, p = significance.mann_whitney(X, hard, easy, ties=ties)
            # the straightforward call the report made before (scipy on the two sub-matrices)
            ru, rp = significance._mwu(X[hard], X[easy])
            assert np.array_equal(u, ru, equal_nan=True), trial
            assert np.allclose(p, rp, rtol=1e-12, atol=0, equal_nan=True), trial
            for c in range(cols):
                x, y = X[hard, c], X[easy, c]
                x, y = x[~np.isnan(x)], y[~np.isnan(y)]
                if not len(x) or not len(y):
                    assert math.isnan(u[c]) and math.isnan(p[c])
                elif len(x) > 8 and len(y) > 8:  # asymptotic: scipy per column, whatever the others
                    expected = mannwhitneyu(x, y, alternative="two-sided")
                    assert u[c] == expected.statistic, (trial, c)
                    assert p[c] == pytest.approx(expected.pvalue, rel=1e-12) or np.isnan(expected.pvalue), (trial, c)


def test_mann_whitney_many_distinct_values_large_sample():
    # continuous scores (a tie group per value, compacted) and sizes where scipy is asymptotic
    rng = np.random.default_rng(1)
    X = np.r_[rng.random((3000, 3)), np.full((5, 3), 0.25)]
    X[rng.random(X.shape) < 0.05] = np.nan
    side = (rng.random(len(X)) < 0.3).astype(float)
    u, p = significance.mann_whitney(X, side == 1, side == 0)
    for c in range(3):
        x, y = X[side == 1, c], X[side == 0, c]
        expected = mannwhitneyu(x[~np.isnan(x)], y[~np.isnan(y)], alternative="two-sided")
        assert u[c] == expected.statistic
        assert p[c] == pytest.approx(expected.pvalue, rel=1e-12)


def test_bias_balanced_threshold_never_splits_a_frame_and_is_closest_to_half():
    # frames with their frequency in the adaptation corpus; questions per frame: A 3, B 1, C 2, D 4
    frames = ["A"] * 3 + ["B"] + ["C"] * 2 + ["D"] * 4
    freq = {"A": 5, "B": 9, "C": 12, "D": 40}
    qs = questions(frame=frames, frame_freq=[freq[f] for f in frames])
    sides, thresholds = fx.factor_sides(qs, [fx.FACTORS_BY_NAME["bias"]])
    # candidate thresholds and the share of questions below: 5 -> 0/10, 9 -> 3/10, 12 -> 4/10,
    # 40 -> 6/10: 12 and 40 are both 1/10 from half, the smaller wins
    assert thresholds["bias"] == 12.0
    hard = sides["bias"].to_numpy() == 1.0
    assert hard.sum() == 4
    for frame in set(frames):  # every frame entirely on one side
        assert len({h for h, f in zip(hard, frames) if f == frame}) == 1
    # the old default, the median over the questions (5, 5, 5, 9, 9): < 5 puts nobody in E_f
    qs = questions(frame=["A"] * 3 + ["B"] * 2, frame_freq=[5] * 3 + [9] * 2)
    median = fx.Factor("bias_median", "frame_freq", "<", "median")
    both, thr = fx.factor_sides(qs, [median, fx.FACTORS_BY_NAME["bias"]])
    assert thr["bias_median"] == 5.0 and (both["bias_median"] == 1.0).sum() == 0
    assert thr["bias"] == 9.0 and list(both["bias"]) == [1.0, 1.0, 1.0, 0.0, 0.0]  # 60%, the closest to half


def test_balanced_threshold_from_integer_counts():
    assert fx.balanced_threshold(pd.Series([1, 1, 2, 2]), "<") == 2.0  # exactly half below 2
    assert fx.balanced_threshold(pd.Series([1, 1, 2, 2]), "<=") == 1.0  # the same split
    assert fx.balanced_threshold(pd.Series([], dtype=float)) is None
    with pytest.raises(ValueError, match="balanced"):
        fx.balanced_threshold(pd.Series([1.0]), ">")


def test_factor_size_against_corpus_and_against_questions_with_attribute():
    qs = questions(coref=[True, False, None, None])
    sides, _ = fx.factor_sides(qs, [fx.FACTORS_BY_NAME["coref"]])
    eff = fx.factor_effect(np.ones((4, 1)), sides["coref"].to_numpy())
    assert eff["size_pct"] == 50.0 and eff["size_pct_corpus"] == 25.0


def test_skip_reason_names_the_attribute_and_the_remedy():
    qs = questions(coref=[True, False])
    assert "frame_elements" in fx.skip_reason(qs, fx.FACTORS_BY_NAME["nb_fes"])
    assert "import frame annotation or predict frames" in fx.skip_reason(qs, fx.FACTORS_BY_NAME["nb_fes"])
    assert fx.skip_reason(qs, fx.FACTORS_BY_NAME["dist"]).startswith("no question has `dist`")


@pytest.mark.parametrize("n_values", [7, 5000])  # one group per (column, value), or only those that occur
def test_side_means_from_tie_counts_equal_nanmean_and_are_order_free(n_values):
    # the means of a side come from the tie groups' counts (sum of count x value per column):
    # equal to nanmean, and two systems with the same scores in another order get the same float
    rng = np.random.default_rng(3)
    values = rng.integers(1, 40, n_values) / rng.integers(40, 80, n_values)
    X = values[rng.integers(0, n_values, (3000, 30))]
    X[rng.random((3000, 30)) < 0.1] = np.nan
    X[:, 2] = X[rng.permutation(3000), 0]  # system 2: system 0's scores on other questions
    side = np.ones(3000)
    side[rng.random(3000) < 0.4] = 0.0
    side[rng.random(3000) < 0.05] = np.nan
    ties = significance.tie_groups(X)
    eff = fx.factor_effect(X, np.where(np.arange(3000) < 3000, 1.0, 0.0), ties)  # every question hard
    assert eff["s_hard"][0] == eff["s_hard"][2]  # same multiset of scores: same float
    eff = fx.factor_effect(X, side, ties)
    for c in range(3):
        assert eff["s_hard"][c] == pytest.approx(np.nanmean(X[side == 1.0, c]), rel=1e-13)
        assert eff["s_easy"][c] == pytest.approx(np.nanmean(X[side == 0.0, c]), rel=1e-13)
    assert (ties.n_groups == 30 * n_values) == (n_values == 7)
