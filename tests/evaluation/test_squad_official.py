"""EM and F1 of the report against the official SQuAD v1.1 evaluation, re-implemented here from
the evaluate-v1.1.py script (independently of evaluation.science.metrics), on the real dev predictions."""

import json
import re
import string
from collections import Counter

import pytest

from evaluation.report.config import ReportConfig
from evaluation.report.inputs import read_inputs
from evaluation.report.pipeline import compute_report
from tests.conftest import SQUAD, require

# README.md of the data: the official figures on the full dev set.
README_TABLE = {
    "bert-ens": (86.21, 92.20),
    "slqa-plus-ens": (81.95, 88.38),
    "rnet-plus-ens": (82.47, 88.48),
    "match-lstm-ens": (67.63, 76.76),
    "logreg-baseline": (40.14, 50.98),
    "coattention": (67.64, 76.92),
    "dcr": (62.52, 71.26),
    "rasor-ens": (66.43, 74.94),
    "span-classifier": (65.71, 74.69),
    "rnet": (65.88, 75.21),
}


# --- evaluate-v1.1.py, as published with SQuAD v1.1 ---------------------------------------------
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def exact_match_score(prediction, ground_truth):
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    return max(metric_fn(prediction, gt) for gt in ground_truths)


def official(folder):
    """{system: (EM, F1)} in %, every dev question counted, a missing prediction scoring 0."""
    answers = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            answers[row["id"]] = row["answers"]
    preds = {}
    with open(folder / "predictions.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            preds.setdefault(row["system"], {})[row["question_id"]] = row["answer"]
    out = {}
    for system, by_q in preds.items():
        em = f1 = 0.0
        for qid, gts in answers.items():
            if qid not in by_q:
                continue
            em += metric_max_over_ground_truths(exact_match_score, by_q[qid], gts)
            f1 += metric_max_over_ground_truths(f1_score, by_q[qid], gts)
        out[system] = (100.0 * em / len(answers), 100.0 * f1 / len(answers))
    return out


# -------------------------------------------------------------------------------------------------


def report_scores(folder):
    q, p, l = read_inputs(folder / "corpus.jsonl", folder / "predictions.jsonl")
    report = compute_report(q, p, l, config=ReportConfig(n_boot=0))
    return {r["system"]: (100 * r["em"], 100 * r["f1"]) for r in report.data["systems"] if r["system"] != "ROVER"}


def compare(folder):
    expected = official(folder)
    got = report_scores(folder)
    assert set(got) == set(expected)
    for system, (em, f1) in expected.items():
        assert got[system][0] == pytest.approx(em, abs=1e-9), system
        assert got[system][1] == pytest.approx(f1, abs=1e-9), system
    return got


def test_small_matches_official(squad_small):
    compare(squad_small)


@pytest.mark.slow
def test_full_dev_matches_official_and_readme():
    require(SQUAD.exists(), f"shared data not found at {SQUAD}")
    got = compare(SQUAD)
    for system, (em, f1) in README_TABLE.items():
        assert round(got[system][0], 2) == em, system
        assert round(got[system][1], 2) == f1, system


def test_small_per_question_f1_is_the_exact_fraction_and_mann_whitney_equals_scipy(squad_small):
    """Every per-question F1 of the report is the float of the exact fraction (so ties are ties),
    and the Mann-Whitney rows of a factor on them equal scipy on those floats."""
    import math
    import random
    from fractions import Fraction

    from scipy.stats import mannwhitneyu

    q, p, _ = read_inputs(squad_small / "corpus.jsonl", squad_small / "predictions.jsonl")
    q["dist"] = [random.Random(qid).randint(0, 4) for qid in q.index]
    report = compute_report(q, p, None, config=ReportConfig(n_boot=0, factors=("dist",)))
    f1 = report.scores.matrices["f1"]
    answers = p.set_index(["system", "question_id"])["answer"]

    def exact(pred, gold):
        a, b = normalize_answer(pred).split(), normalize_answer(gold).split()
        if not a and not b:
            return Fraction(1)
        same = sum((Counter(a) & Counter(b)).values())
        return Fraction(2 * same, len(a) + len(b)) if same else Fraction(0)

    expected = {}
    for c, system in enumerate(report.scores.columns[:-1]):
        column = [float(max(exact(answers[(system, qid)], g) for g in q.at[qid, "answers"])) for qid in q.index]
        assert f1[:, c].tolist() == column, system  # the same floats, bit for bit
        expected[system] = column
    assert (
        len({v for col in expected.values() for v in col if v == float(Fraction(1, 11)) or math.isclose(v, 1 / 11)})
        <= 1
    )
    hard = [d >= 2 for d in q["dist"]]
    entry = next(e for e in report.data["factors"] if e["metric"] == "f1")
    for row in entry["rows"][:-1]:
        col = expected[row["system"]]
        res = mannwhitneyu(
            [v for v, h in zip(col, hard) if h], [v for v, h in zip(col, hard) if not h], alternative="two-sided"
        )
        assert row["u"] == res.statistic and row["p_value"] == pytest.approx(res.pvalue, rel=1e-12, abs=1e-15)
