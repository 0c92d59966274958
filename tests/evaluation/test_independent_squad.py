"""Every figure of the full SQuAD v1.1 dev report, recomputed independently.

The data: the real corpus and the 10 systems' predictions, the reference system added from the
corpus (as the offline command does), simulated SPEC 6 attributes (frames, LUs, FEs, coref, dist,
trigger, frame_freq; some questions lack some) and simulated labels (one annotator per answer, a
second on ~10% of them, ~3% of the answers unlabeled, so coverage is partial), all seeded.

The recomputation reads SPEC 3-7 literally, in plain Python on exact fractions: the official SQuAD
normalization and F1 as a ``Fraction``, ROUGE-L by a dynamic-programming LCS, triplet scores as
fractions, ROVER with a brute-force vote, factor sides and thresholds from their definitions, and
``scipy.stats.mannwhitneyu`` on the floats of those fractions. Only Levenshtein distances
(``rapidfuzz``, one pair at a time) and Krippendorff's alpha (the ``krippendorff`` package, on a
reliability matrix built here) come from libraries. Everything must agree: per-question scores and
U exactly, means and p-values to 1e-9.
"""

import json
import math
import random
import re
import string
import unicodedata
from collections import Counter, defaultdict
from fractions import Fraction
from functools import cache

import krippendorff
import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein
from scipy.stats import mannwhitneyu

from evaluation.report.config import ReportConfig
from evaluation.report.inputs import read_inputs, with_reference
from evaluation.report.pipeline import compute_report
from tests.conftest import SQUAD, require

pytestmark = pytest.mark.slow

VALUES = {"correct": Fraction(1), "partial": Fraction(1, 2), "incorrect": Fraction(0)}
FACTORS = ("bias", "coref", "trigger", "lu_in_q", "dist", "nb_fes", "entropy")


# --- inputs --------------------------------------------------------------------------------------


def simulate(corpus, predictions):
    rng = random.Random(15)
    frames = [f"Frame_{i}" for i in range(40)]
    freq = {f: rng.choice([3, 8, 15, 40, 90, 200]) for f in frames}
    for q in corpus:
        r = random.Random(q["id"])
        frame = r.choice(frames)
        if r.random() < 0.95:
            q.update(
                frame=frame,
                lu=f"{frame.lower()}_{r.randint(0, r.randint(0, 5))}.v",
                lu_pos=r.choice(["noun", "verb", "adj"]),
                frame_freq=freq[frame],
            )
            if r.random() < 0.9:
                q["frame_elements"] = ["FE"] * r.randint(0, 5)
        if r.random() < 0.9:
            q["coref"] = r.random() < 0.15
        if r.random() < 0.9:
            q["dist"] = r.randint(0, 5)
        if r.random() < 0.9:
            q["trigger_in_question"] = r.random() < 0.6
    labels = []
    seen = set()
    refs = {q["id"]: q["answers"] for q in corpus}
    for p in [{"question_id": q["id"], "answer": q["answers"][0]} for q in corpus] + predictions:
        key = (p["question_id"], ws(p["answer"]))
        if key in seen:
            continue
        seen.add(key)
        r = random.Random(f"{key[0]}|{key[1]}")
        if r.random() < 0.03:
            continue  # unlabeled
        quality = max(official_f1(p["answer"], g) for g in refs[p["question_id"]])
        annotators = r.sample(["ann1", "ann2", "ann3", "ann4"], 2 if r.random() < 0.1 else 1)
        for ann in annotators:
            noise = r.random()
            label = "correct" if quality == 1 else "partial" if quality > Fraction(1, 2) else "incorrect"
            if noise < 0.1:
                label = r.choice(list(VALUES))
            labels.append({"question_id": p["question_id"], "answer": p["answer"], "annotator": ann, "label": label})
    return corpus, labels


def ws(text):
    """SPEC 2 whitespace policy: NFC, strip, whitespace runs to one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


# --- SPEC 4, independently -----------------------------------------------------------------------


def squad_normalize(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def official_f1(pred, gold):
    p, g = squad_normalize(pred).split(), squad_normalize(gold).split()
    if not p and not g:
        return Fraction(1)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return Fraction(0)
    return Fraction(2 * same, len(p) + len(g))


def rouge_tokens(text):
    return tuple(re.findall(r"[^\W_]+", unicodedata.normalize("NFC", text).lower()))


@cache
def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(pred, gold):
    p, g = rouge_tokens(pred), rouge_tokens(gold)
    if p == g:
        return Fraction(1)
    if not p or not g:
        return Fraction(0)
    common = lcs(p, g)
    return Fraction(2 * common, len(p) + len(g)) if common else Fraction(0)


# --- helpers -------------------------------------------------------------------------------------


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values, Fraction(0)) / len(values) if values else None


def close(a, b, tol=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)


def holm(ps):
    idx = [i for i, p in enumerate(ps) if p is not None]
    m = len(idx)
    order = sorted(idx, key=lambda i: ps[i])
    out, running = [None] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def alpha(matrix, level):
    m = np.array(matrix, dtype=float)
    if m.shape[1] < 2 or len(np.unique(m[~np.isnan(m)])) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=m, level_of_measurement=level, value_domain=[0, 1, 2]))


# --- the test ------------------------------------------------------------------------------------


def test_full_squad_dev_report_recomputed_independently():
    require(SQUAD.exists(), f"shared data not found at {SQUAD}")
    with open(SQUAD / "corpus.jsonl", encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f]
    with open(SQUAD / "predictions.jsonl", encoding="utf-8") as f:
        raw_predictions = [json.loads(line) for line in f]
    corpus, labels = simulate(corpus, raw_predictions)

    # the report, through the same readers as the offline command

    from evaluation.report.inputs import labels_frame, predictions_frame, questions_frame

    questions = questions_frame(corpus)
    predictions = with_reference(questions, predictions_frame(raw_predictions))
    report = compute_report(questions, predictions, labels_frame(labels), config=ReportConfig(n_boot=0)).data
    assert read_inputs  # (the file readers are tested elsewhere)

    qids = [q["id"] for q in corpus]
    refs = {q["id"]: q["answers"] for q in corpus}
    answers = defaultdict(dict)  # system -> qid -> answer
    systems = ["reference"]
    for q in corpus:
        answers["reference"][q["id"]] = q["answers"][0]
    for p in raw_predictions:
        if p["system"] not in answers:
            systems.append(p["system"])
        answers[p["system"]][p["question_id"]] = p["answer"]
    voters = systems[1:]

    # labels -> triplet scores (fractions), latest per annotator (one each here)
    by_triplet = defaultdict(dict)
    for lab in labels:
        by_triplet[(lab["question_id"], ws(lab["answer"]))][lab["annotator"]] = lab["label"]
    triplet_score = {k: mean([VALUES[v] for v in d.values()]) for k, d in by_triplet.items()}
    triplet_correct = {k: Fraction(sum(v == "correct" for v in d.values()), len(d)) for k, d in by_triplet.items()}

    # per-question scores per system (None = undefined): SPEC 3 and 4
    scores = {m: {} for m in ("hscore", "hcorrect", "rouge_l", "f1", "em")}
    for s in systems:
        for m in scores:
            scores[m][s] = []
        for qid in qids:
            a = answers[s].get(qid)
            if a is None:
                for m, v in (("em", 0), ("f1", 0), ("rouge_l", 0), ("hscore", None), ("hcorrect", None)):
                    scores[m][s].append(Fraction(v) if v is not None else None)
                continue
            golds = refs[qid]
            scores["em"][s].append(Fraction(max(squad_normalize(a) == squad_normalize(g) for g in golds)))
            scores["f1"][s].append(max(official_f1(a, g) for g in golds))
            scores["rouge_l"][s].append(max(rouge_l(a, g) for g in golds))
            if not a.strip():  # no triplet: scored by rule, incorrect against a reference (docs/report.md)
                rule = Fraction(0 if any(g.strip() for g in golds) else 1)
                scores["hscore"][s].append(rule)
                scores["hcorrect"][s].append(rule)
                continue
            key = (qid, ws(a))
            scores["hscore"][s].append(triplet_score.get(key))
            scores["hcorrect"][s].append(triplet_correct.get(key))

    # ROVER (SPEC 5): brute force over the voters
    partition, rover_src = [], []
    for qid in qids:
        cands = [(s, ws(answers[s][qid])) for s in voters if qid in answers[s]]
        best = None
        for i, (s, a) in enumerate(cands):
            dists = [Levenshtein.distance(a, b) for _, b in cands]
            support = sum(d < 5 for d in dists)
            key = (-support, sum(dists), i)
            if best is None or key < best[0]:
                best = (key, s, support)
        rover_src.append(best[1])
        partition.append(best[2])
    for m in scores:
        scores[m]["ROVER"] = [scores[m][src][i] for i, src in enumerate(rover_src)]
    columns = [*systems, "ROVER"]

    # systems table
    rows = {r["system"]: r for r in report["systems"]}
    assert [r["system"] for r in report["systems"]] == columns
    n_q = len(qids)
    for s in columns:
        r = rows[s]
        present = [i for i, qid in enumerate(qids) if s == "ROVER" or qid in answers[s]]
        assert r["n"] == len(present)
        for m in ("rouge_l", "f1", "em"):
            assert close(r[m], mean(scores[m][s])), (s, m)
        labeled = [i for i in present if scores["hscore"][s][i] is not None]
        assert r["coverage"] == pytest.approx(len(labeled) / len(present), abs=1e-15)
        assert close(r["hscore"], mean(scores["hscore"][s])), s
        assert close(r["hcorrect"], 100 * mean(scores["hcorrect"][s])), s
        known = sum(scores["hscore"][s][i] for i in labeled)
        assert close(r["hscore_low"], known / len(present)) and close(
            r["hscore_high"], (known + len(present) - len(labeled)) / len(present)
        )
    assert rows["logreg-baseline"]["missing"] == 13

    # partitions
    part = report["partitions"]
    assert part["counts"] == {str(k): partition.count(k) for k in range(1, len(voters) + 1)}
    for s in columns:
        for k in range(1, len(voters) + 1):
            expected = mean([scores["hscore"][s][i] for i in range(n_q) if partition[i] == k])
            assert close(part["by_system"][s][str(k)], expected), (s, k)

    # factor sides (SPEC 6)
    def attr(q, name):
        return q.get(name)

    freqs = sorted(q["frame_freq"] for q in corpus if "frame_freq" in q)
    cands = sorted(set(freqs))
    below = [sum(f < t for f in freqs) for t in cands]
    bias_t = min(zip(cands, below), key=lambda tb: (abs(Fraction(tb[1], len(freqs)) - Fraction(1, 2)), tb[0]))[0]
    lus = defaultdict(Counter)
    for q in corpus:
        if q.get("frame") and q.get("lu"):
            lus[q["frame"]][q["lu"]] += 1
    entropy = {
        f: -sum((c / sum(cnt.values())) * math.log2(c / sum(cnt.values())) for c in cnt.values())
        for f, cnt in lus.items()
    }
    median_entropy = float(np.median(list(entropy.values())))
    rules = {
        "bias": lambda q: None if "frame_freq" not in q else q["frame_freq"] < bias_t,
        "coref": lambda q: None if "coref" not in q else q["coref"] is True,
        "trigger": lambda q: None if "lu_pos" not in q else q["lu_pos"] == "noun",
        "lu_in_q": lambda q: None if "trigger_in_question" not in q else q["trigger_in_question"] is False,
        "dist": lambda q: None if "dist" not in q else q["dist"] >= 2,
        "nb_fes": lambda q: None if "frame_elements" not in q else len(q["frame_elements"]) <= 2,
        "entropy": lambda q: None if q.get("frame") not in entropy else entropy[q["frame"]] > median_entropy,
    }
    sides = {f: [rules[f](q) for q in corpus] for f in FACTORS}

    factors = {(e["factor"], e["metric"]): e for e in report["factors"]}
    assert {f for f, _ in factors} == set(FACTORS)
    n_tests = n_mismatch = 0
    family = defaultdict(list)
    for f in FACTORS:
        side = sides[f]
        hard = [i for i in range(n_q) if side[i] is True]
        easy = [i for i in range(n_q) if side[i] is False]
        for m in ("hscore", "hcorrect", "rouge_l", "f1", "em"):
            e = factors[(f, m)]
            assert e["n_hard"] == len(hard) and e["n_easy"] == len(easy)
            assert close(e["size_pct"], 100 * Fraction(len(hard), len(hard) + len(easy)))
            assert close(e["size_pct_corpus"], 100 * Fraction(len(hard), n_q))
            if f == "bias":
                assert e["threshold"] == bias_t
            for r, s in zip(e["rows"], columns):
                assert r["system"] == s
                x = [scores[m][s][i] for i in hard if scores[m][s][i] is not None]
                y = [scores[m][s][i] for i in easy if scores[m][s][i] is not None]
                mh, me = mean(x), mean(y)
                if mh is None or me is None:
                    assert r["delta"] is None
                    family[m].append((r, None))
                    continue
                diff = mh - me
                assert r["delta"] == math.floor(100 * diff), (f, m, s)
                assert close(r["diff"], diff)
                res = mannwhitneyu([float(v) for v in x], [float(v) for v in y], alternative="two-sided")
                n_tests += 1
                if not (r["u"] == float(res.statistic) and close(r["p_value"], res.pvalue, 1e-9)):
                    n_mismatch += 1
                assert r["significant"] == (res.pvalue < 0.05)
                family[m].append((r, float(res.pvalue)))
    assert n_tests > 300 and n_mismatch == 0, f"{n_mismatch} of {n_tests} Mann-Whitney rows differ"
    for m, items in family.items():
        for (r, _), p in zip(items, holm([p for _, p in items])):
            assert close(r["p_holm"], p), m

    # P(f | P_k)
    for f in FACTORS:
        for k in range(1, len(voters) + 1):
            known = [sides[f][i] for i in range(n_q) if partition[i] == k and sides[f][i] is not None]
            expected = Fraction(sum(known), len(known)) if known else None
            assert close(report["factor_by_partition"][f][str(k)], expected), (f, k)

    # per frame (ROVER's hscore), sorted by ROVER's value
    frames = defaultdict(list)
    for i, q in enumerate(corpus):
        if q.get("frame"):
            frames[q["frame"]].append(i)
    got = {r["frame"]: r for r in report["per_frame"]}
    assert set(got) == set(frames)
    for frame, idx in frames.items():
        assert got[frame]["n"] == len(idx)
        for s in columns:
            assert close(got[frame]["by_system"][s], mean([scores["hscore"][s][i] for i in idx])), (frame, s)
    values = [r["by_system"]["ROVER"] for r in report["per_frame"]]
    assert values == sorted(values, reverse=True)

    # combinations of nb_fes and entropy
    a, b = sides["nb_fes"], sides["entropy"]
    subsets = {"neither": (False, False), "only_f1": (True, False), "only_f2": (False, True), "both": (True, True)}
    for name, (va, vb) in subsets.items():
        idx = [i for i in range(n_q) if a[i] is va and b[i] is vb]
        sub = report["combinations"]["subsets"][name]
        assert sub["n"] == len(idx)
        for s in columns:
            assert close(sub["by_system"][s], mean([scores["hscore"][s][i] for i in idx])), (name, s)

    # agreement on the doubly labeled triplets, ordinal and nominal, and per pair
    rank = {"incorrect": 0, "partial": 1, "correct": 2}
    multi = [k for k, d in by_triplet.items() if len(d) >= 2]
    annotators = sorted({ann for d in by_triplet.values() for ann in d})
    matrix = [[rank[by_triplet[k][ann]] if ann in by_triplet[k] else np.nan for k in multi] for ann in annotators]
    agreement = report["agreement"]
    assert agreement["n_items"] == len(multi) and agreement["n_labels"] == sum(len(by_triplet[k]) for k in multi)
    assert close(agreement["alpha_ordinal"], alpha(matrix, "ordinal"))
    assert close(agreement["alpha_nominal"], alpha(matrix, "nominal"))
    pairs = {tuple(p["annotators"]): p for p in agreement["pairs"]}
    for i, x in enumerate(annotators):
        for y in annotators[i + 1 :]:
            shared = [k for k in multi if x in by_triplet[k] and y in by_triplet[k]]
            if not shared:
                assert (x, y) not in pairs
                continue
            sub = [[rank[by_triplet[k][x]] for k in shared], [rank[by_triplet[k][y]] for k in shared]]
            assert pairs[(x, y)]["n_items"] == len(shared)
            assert close(pairs[(x, y)]["alpha_ordinal"], alpha(sub, "ordinal") if len(shared) >= 2 else None)
