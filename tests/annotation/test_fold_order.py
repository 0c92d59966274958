"""Blindness in ordering (issue 10 point 7, issue 11 point 5), measured on the SQuAD small data.

Pure: folds are built by ``annotation.folds`` from the triplets ``annotation.dedup`` makes of the
real predictions; Spearman's rho between an item's place in its fold and (a) how many systems
gave its answer, (b) when its system was added, must not be significant.
"""

import itertools
import json
import random

import pytest
from scipy.stats import spearmanr

from annotation.dedup import build_triplets
from annotation.folds import build_folds, interleave

SYSTEMS_ORDER = [
    "reference",
    "bert-ens",
    "slqa-plus-ens",
    "rnet-plus-ens",
    "match-lstm-ens",
    "logreg-baseline",
    "coattention",
    "dcr",
    "rasor-ens",
    "span-classifier",
    "rnet",
]


def _rows(squad_small):
    questions = {}
    rows = []
    with open(squad_small / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            questions[q["id"]] = len(questions)
            rows.append((("reference", q["id"]), q["id"], q["answers"][0]))
    with open(squad_small / "predictions.jsonl", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            rows.append(((p["system"], p["question_id"]), p["question_id"], p["answer"]))
    return rows, questions


def _relative_positions(folds, value):
    xs, ys = [], []
    for fold in folds:
        n = len(fold)
        for i, item in enumerate(fold):
            xs.append(i / max(n - 1, 1))
            ys.append(value(item))
    return xs, ys


def test_position_does_not_depend_on_how_many_systems_gave_the_answer(squad_small):
    rows, questions = _rows(squad_small)
    groups = build_triplets(rows)
    n_systems = {i: len(g.prediction_keys) for i, g in enumerate(groups)}
    pairs = sorted(((i, g.question_key) for i, g in enumerate(groups)), key=lambda p: questions[p[1]])
    for seed in (0, 1, 2):
        folds = [f.items for f in build_folds(pairs, k=10, seed=seed, overlap=0.1)]
        xs, ys = _relative_positions(folds, lambda item: n_systems[item[0]])
        rho, p = spearmanr(xs, ys)
        assert p > 0.01, f"seed {seed}: rho={rho:.3f} p={p:.2g}"
        assert abs(rho) < 0.05
        for fold in folds:  # still spread: no two neighbours of one question where avoidable
            assert sum(a[1] == b[1] for a, b in itertools.pairwise(fold)) == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_late_systems_are_interleaved_not_a_tail(squad_small, seed):
    """Folds of the reference and 5 systems, then the 5 other systems imported one by one."""
    rows, questions = _rows(squad_small)
    added_at = {}
    first = {s: k for k, s in enumerate(SYSTEMS_ORDER)}
    early = [r for r in rows if first[r[0][0]] <= 5]
    groups = build_triplets(early)
    known = {(g.question_key, g.normalized): i for i, g in enumerate(groups)}
    for i in range(len(groups)):
        added_at[i] = 0
    pairs = sorted(((i, g.question_key) for i, g in enumerate(groups)), key=lambda p: questions[p[1]])
    folds = [f.items for f in build_folds(pairs, k=10, seed=seed, overlap=0)]
    home = {item[1]: f for f, fold in enumerate(folds) for item in fold}
    rng = random.Random(seed)
    for step, system in enumerate(SYSTEMS_ORDER[6:], start=1):
        new_by_fold = {}
        for g in build_triplets([r for r in rows if r[0][0] == system]):
            if (g.question_key, g.normalized) in known:
                continue
            key = len(known)
            known[(g.question_key, g.normalized)] = key
            added_at[key] = step
            new_by_fold.setdefault(home[g.question_key], []).append((key, g.question_key, False))
        for f, new in new_by_fold.items():
            before = len(folds[f])
            folds[f] = interleave(folds[f], new, rng)
            assert len(folds[f]) == before + len(new)
            batch = {item[0] for item in new}
            # no two of this import's items (one system's block) back to back, none beside its question
            assert not any(a[0] in batch and b[0] in batch for a, b in zip(folds[f], folds[f][1:]))
            assert sum(a[1] == b[1] for a, b in zip(folds[f], folds[f][1:])) == 0
    assert sum(1 for v in added_at.values() if v) > 300  # the late systems did bring many triplets
    for value in (lambda item: added_at[item[0]], lambda item: int(added_at[item[0]] > 0)):
        rho, p = spearmanr(*_relative_positions(folds, value))
        assert p > 0.01 and abs(rho) < 0.05, f"rho={rho:.3f} p={p:.2g}"


def test_interleave_keeps_the_judged_head_and_every_item():
    tail = [(f"t{i}", i % 7, False) for i in range(30)]
    new = [(f"n{i}", 100 + i, False) for i in range(10)]
    out = interleave(tail, new, random.Random(3))
    assert sorted(out) == sorted(tail + new)
    assert [x for x in out if x[0].startswith("t")] == tail  # the existing order is kept
    assert out != tail + new
    assert interleave(tail, new, random.Random(3)) == out  # seeded


@pytest.mark.parametrize("n_new", [0, 1, 31, 40])
def test_interleave_more_new_than_gaps_still_keeps_everything(n_new):
    tail = [(f"t{i}", i, False) for i in range(30)]
    new = [(f"n{i}", 1000 + i, False) for i in range(n_new)]
    out = interleave(tail, new, random.Random(0))
    assert sorted(out) == sorted(tail + new)
