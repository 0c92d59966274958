import numpy as np
import pytest

from evaluation.science.rover import rover


def run(answers_by_question, alpha=5, order=None):
    """answers_by_question: list of dicts system -> answer; order: system tie-break order."""
    order = order or sorted({s for qa in answers_by_question for s in qa})
    q, s, a = [], [], []
    for i, qa in enumerate(answers_by_question):
        for name, answer in qa.items():
            q.append(i), s.append(order.index(name)), a.append(answer)
    out = rover(np.array(q), np.array(s), np.array(a, dtype=object), n_questions=len(answers_by_question), alpha=alpha)
    return out, order


def test_all_differ_tie_broken_by_sum_of_distances():
    # d(s1,s2)=10, d(s1,s3)=5, d(s2,s3)=5: nothing agrees (< 5), sums 15, 15, 10 -> s3
    out, order = run([{"s1": "x" * 10, "s2": "y" * 10, "s3": "xxxxxyyyyy"}])
    assert out.loc[0, "k"] == 1
    assert order[out.loc[0, "system"]] == "s3"
    assert out.loc[0, "sum_dist"] == 10


def test_full_tie_goes_to_first_system_in_configured_order():
    answers = [{"s1": "a" * 10, "s2": "b" * 10}]
    out, order = run(answers, order=["s1", "s2"])
    assert order[out.loc[0, "system"]] == "s1"
    out, order = run(answers, order=["s2", "s1"])
    assert order[out.loc[0, "system"]] == "s2"


def test_agreement_is_strictly_below_alpha():
    out, _ = run([{"s1": "abcd", "s2": "abcdefgh"}])  # distance 4 < 5
    assert out.loc[0, "k"] == 2
    out, _ = run([{"s1": "abc", "s2": "abcdefgh"}])  # distance 5, not < 5
    assert out.loc[0, "k"] == 1
    out, _ = run([{"s1": "abc", "s2": "abcdefgh"}], alpha=6)
    assert out.loc[0, "k"] == 2


def test_support_is_not_transitive_and_counts_itself():
    # a~b (4), b~c (4), a !~ c (8): supports 2, 3, 2 -> ROVER b, k = 3
    out, order = run([{"s1": "aaaa", "s2": "aaaabbbb", "s3": "aaaabbbbcccc"}])
    assert out.loc[0, "k"] == 3
    assert order[out.loc[0, "system"]] == "s2"


def test_identical_answers_weigh_each_system():
    out, order = run([{"s1": "Carolina Panthers", "s2": "Denver Broncos", "s3": "Denver Broncos", "s4": "x"}])
    assert out.loc[0, "k"] == 2
    assert order[out.loc[0, "system"]] == "s2"  # first system of the winning answer


def test_missing_predictions_do_not_vote_and_empty_question_has_no_partition():
    out, _order = run([{"s1": "Warsaw", "s3": "Warsaw"}, {}], order=["s1", "s2", "s3"])
    assert out.loc[0, "k"] == 2 and out.loc[0, "n_voters"] == 2
    assert out.loc[1, "k"] == 0 and out.loc[1, "system"] == -1


def test_all_agree_gives_pn():
    out, _ = run([{"s1": "Paris", "s2": "Paris.", "s3": "paris"}])
    assert out.loc[0, "k"] == 3


def test_bad_alpha_and_duplicates_rejected():
    with pytest.raises(ValueError, match="alpha"):
        run([{"s1": "a"}], alpha=0)
    with pytest.raises(ValueError, match="two predictions"):
        rover(np.array([0, 0]), np.array([0, 0]), np.array(["a", "b"], dtype=object), n_questions=1)


def brute_force(answers_by_question, order, alpha):
    """SPEC 5 read literally, one question and one system at a time."""
    from rapidfuzz.distance import Levenshtein

    out = []
    for qa in answers_by_question:
        voters = [s for s in order if s in qa]
        if not voters:
            out.append((0, None, 0.0))
            continue
        scored = []
        for s in voters:
            d = [Levenshtein.distance(qa[s], qa[o]) for o in voters]
            scored.append((-sum(x < alpha for x in d), sum(d), order.index(s), s))
        support, dist, _, s = min(scored)
        # identical answers tie on support and distance: the first system giving that answer
        out.append((-support, s, float(dist)))
    return out


def test_rover_equals_a_brute_force_reading_of_spec5_on_random_answers():
    rng = np.random.default_rng(0)
    pool = [
        "Denver",
        "Denver Broncos",
        "the Denver Broncos",
        "Broncos",
        "Carolina",
        "Carolina Panthers",
        "1990",
        "in 1990",
        "",
        "x",
    ]
    order = [f"s{i}" for i in range(7)]
    questions = []
    for _ in range(400):
        n_voters = int(rng.integers(0, 8))
        chosen = rng.choice(order, n_voters, replace=False)
        questions.append({str(s): str(rng.choice(pool[: int(rng.integers(1, 11))])) for s in chosen})
    order_shuffled = list(rng.permutation(order))
    for alpha in (1, 5, 9):
        out, _ = run(questions, alpha=alpha, order=order_shuffled)
        expected = brute_force(questions, order_shuffled, alpha)
        for i, (k, system, dist) in enumerate(expected):
            assert out.loc[i, "k"] == k, (i, alpha)
            assert (order_shuffled[out.loc[i, "system"]] if system is not None else None) == system, (i, alpha)
            assert out.loc[i, "sum_dist"] == dist, (i, alpha)
            assert out.loc[i, "n_voters"] == len(questions[i])
    assert {1, 2, 3} <= set(out["k"])


def test_rover_codes_with_the_callers_pairs_equals_without():
    # the report passes its own factorization of the (question, answer) pairs: the same result
    import pandas as pd

    from evaluation.science.rover import rover_codes

    rng = np.random.default_rng(3)
    n_q, n_s = 300, 6
    q = np.repeat(np.arange(n_q), n_s)
    s = np.tile(np.arange(n_s), n_q)
    texts = np.array(["Denver", "Denver Broncos", "Broncos", "1990", "in 1990", ""], dtype=object)
    a = rng.integers(0, len(texts), n_q * n_s)
    plain = rover_codes(q, s, a, texts=texts, n_questions=n_q, alpha=5)
    given = rover_codes(q, s, a, texts=texts, n_questions=n_q, alpha=5, pairs=pd.factorize(q * len(texts) + a))
    pd.testing.assert_frame_equal(plain, given)
    assert (plain["k"] > 0).all()
