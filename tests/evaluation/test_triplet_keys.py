"""``human.triplet_keys``, the identity of a triplet in every report table: each distinct key built
once and shared by its rows (issue 46: a million separate strings were 178 MiB of the 10x two-way
report's peak), equal row by row to the plain concatenation, missing ids and answers included."""

import random

import numpy as np
import pandas as pd
import pytest

from evaluation.science import human


def _plain(question_ids, answers, policy):
    return question_ids.astype(str) + human.KEY_SEP + human.normalized_answers(answers, policy)


@pytest.mark.parametrize("policy", ["whitespace", "exact"])
def test_keys_equal_the_plain_concatenation_row_by_row(policy):
    rng = random.Random(policy)
    n = 5000
    index = np.arange(n)[::-1] * 3  # an index of its own, not 0..n-1: the keys keep it
    questions = pd.Series([rng.choice([f"q{rng.randrange(300)}", None, 7]) for _ in range(n)], index=index)
    answers = pd.Series(
        [rng.choice(["Warsaw", " Warsaw", "warsaw", None, "", "Denver  Broncos", "été"]) for _ in range(n)], index=index
    )
    keys = human.triplet_keys(questions, answers, policy)
    plain = _plain(questions, answers, policy)
    assert keys.equals(plain) and keys.dtype == plain.dtype
    assert keys.isna().sum() == questions.isna().sum() > 0  # a missing question id: a missing key


def test_rows_of_one_triplet_share_one_key_object():
    questions = pd.Series(["q1", "q1", "q2", "q1"])
    keys = human.triplet_keys(questions, pd.Series(["Warsaw", " Warsaw ", "Warsaw", "Paris"]))
    assert keys.tolist() == [f"q1{human.KEY_SEP}Warsaw"] * 2 + [f"q2{human.KEY_SEP}Warsaw", f"q1{human.KEY_SEP}Paris"]
    values = keys.to_numpy(dtype=object)
    assert values[0] is values[1]  # one string for the triplet, not one per prediction
    assert human.triplet_keys(pd.Series([], dtype=object), pd.Series([], dtype=object)).empty
