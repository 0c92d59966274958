"""Dawid-Skene and the crowd figures (SPEC 17): agreement with crowd-kit's algorithm, gold fixed,
the refusal, degenerate data, crowd sensitivity, the two-way bootstrap and the report's ``ds``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command

from bench.kit import crowd_sim
from evaluation.report.config import ReportConfig, ReportExtras
from evaluation.report.crowd_section import sensitivity
from evaluation.report.inputs import predictions_frame, questions_frame
from evaluation.report.pipeline import compute_report
from evaluation.science import crowd, human
from tests.conftest import reference_module

EPS = 1e-10


def _reference_em(rows, n_iter=500, tol=1e-7):
    """A straightforward Dawid-Skene EM on (task, worker, label) tuples, with dictionaries, written
    from crowd-kit 1.4.2's description: majority-vote start, M step with counts clipped at 1e-10 over
    the labels each worker gave, E step, stop when the evidence lower bound per label grew by less
    than ``tol``."""
    tasks = sorted({t for t, _, _ in rows})
    classes = sorted({lab for _, _, lab in rows})
    probas = {t: dict.fromkeys(classes, 0.0) for t in tasks}
    for t, _, lab in rows:
        probas[t][lab] += 1
    for t in tasks:
        total = sum(probas[t].values())
        probas[t] = {c: v / total for c, v in probas[t].items()}

    def priors_of(p):
        return {c: sum(p[t][c] for t in tasks) / len(tasks) for c in classes}

    def m_step(p):
        err = {}
        for t, w, lab in rows:
            for c in classes:
                err.setdefault((w, lab), dict.fromkeys(classes, 0.0))[c] += p[t][c]
        for key in err:
            err[key] = {c: max(v, EPS) for c, v in err[key].items()}
        for w in {w for w, _ in err}:
            for c in classes:
                total = sum(err[(w2, lab)][c] for (w2, lab) in err if w2 == w)
                for w2, lab in err:
                    if w2 == w:
                        err[(w2, lab)][c] /= total
        return err

    priors = priors_of(probas)
    err = m_step(probas)
    loss = -np.inf
    for _ in range(n_iter):
        new = {}
        for t in tasks:
            log = {c: np.log(max(priors[c], EPS)) for c in classes}
            for t2, w, lab in rows:
                if t2 == t:
                    for c in classes:
                        log[c] += np.log(err[(w, lab)][c])
            top = max(log.values())
            z = sum(np.exp(v - top) for v in log.values())
            new[t] = {c: np.exp(log[c] - top) / z for c in classes}
        probas = new
        priors = priors_of(probas)
        err = m_step(probas)
        joint = sum(
            probas[t][c] * (np.log(err[(w, lab)][c]) + np.log(max(priors[c], EPS)))
            for t, w, lab in rows
            for c in classes
        )
        entropy = -sum(max(p, EPS) * np.log(max(p, EPS)) for t in tasks for p in probas[t].values())
        new_loss = (joint + entropy) / len(rows)
        if new_loss - loss < tol:
            break
        loss = new_loss
    return tasks, classes, probas


def _random_crowd(seed, n_tasks=60, n_workers=6, per_task=3):
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, n_tasks, p=[0.5, 0.2, 0.3])
    acc = rng.uniform(0.4, 0.95, n_workers)
    rows = []
    for t in range(n_tasks):
        for w in rng.choice(n_workers, per_task, replace=False):
            lab = truth[t] if rng.random() < acc[w] else rng.integers(3)
            rows.append((t, int(w), int(lab)))
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_posteriors_agree_with_a_plain_em(seed):
    rows = _random_crowd(seed)
    tasks, classes, probas = _reference_em(rows)
    task, worker, label = (np.array(c) for c in zip(*rows))
    fit = crowd.dawid_skene(task, worker, label)
    expected = np.array([[probas[t][c] for c in classes] for t in tasks])
    assert np.abs(fit.posteriors[np.ix_(tasks, classes)] - expected).max() < 1e-4
    assert fit.n_rounds >= 2


def test_the_order_of_the_labels_does_not_change_the_fit():
    """Dawid-Skene sorts the labels by task (issue 46: sums in memory order); rows given worker by
    worker, as a two-way replicate gives them, or shuffled, fit as the rows in task order."""
    rows = _random_crowd(3, n_tasks=200, n_workers=7)
    by_task = sorted(rows)
    by_worker = sorted(rows, key=lambda r: (r[1], r[0]))
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    fits = [crowd.dawid_skene(*(np.array(c) for c in zip(*r))) for r in (by_task, by_worker, shuffled)]
    for fit in fits[1:]:
        assert np.allclose(fit.posteriors, fits[0].posteriors, rtol=0, atol=1e-12, equal_nan=True)
        assert np.allclose(fit.confusion, fits[0].confusion, rtol=0, atol=1e-12, equal_nan=True)
        assert fit.n_rounds == fits[0].n_rounds


@pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")  # crowd-kit 1.4.2 under pandas 3
def test_posteriors_agree_with_crowd_kit():
    """Against crowd-kit 1.4.2 itself, which ``bin/test`` installs apart from the platform
    (``tests/reference/requirements.txt``; README, crowd section); the plain EM above checks the same."""
    aggregation = reference_module("crowdkit.aggregation")
    for seed in range(4):
        rows = _random_crowd(seed, n_tasks=150, n_workers=9)
        data = pd.DataFrame(rows, columns=["task", "worker", "label"])
        model = aggregation.DawidSkene(n_iter=500, tol=1e-7)
        probas = model.fit_predict_proba(data)
        fit = crowd.dawid_skene(data["task"], data["worker"], data["label"])
        mine = fit.posteriors[np.ix_(probas.index.to_numpy(), probas.columns.to_numpy(dtype=int))]
        assert np.abs(mine - probas.to_numpy()).max() < 1e-4
        assert fit.n_rounds == len(model.loss_history_)


def test_gold_is_fixed_and_tells_who_is_reliable():
    # worker 0 agrees with gold, worker 1 contradicts it on every gold item; they disagree elsewhere
    rows = [(t, 0, 0 if t % 2 else 2) for t in range(10)] + [(t, 1, 2 if t % 2 else 0) for t in range(10)]
    rows += [(10, 0, 0), (10, 1, 2), (11, 0, 2), (11, 1, 0)]
    task, worker, label = (np.array(c) for c in zip(*rows))
    gold = np.array([0 if t % 2 else 2 for t in range(10)] + [-1, -1])
    fit = crowd.dawid_skene(task, worker, label, gold=gold)
    assert fit.posteriors[:10].tolist() == np.eye(3)[gold[:10]].tolist()  # one-hot, exactly
    assert fit.posteriors[10].argmax() == 0 and fit.posteriors[11].argmax() == 2  # worker 0 believed
    accuracy = crowd.ds_accuracy(fit)
    assert accuracy[0] > 0.9 > 0.1 > accuracy[1]


def test_degenerate_data():
    # all labels equal: every posterior is that class, the other classes get nothing
    fit = crowd.dawid_skene([0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 1])
    assert fit.posteriors.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    # one label: a posterior, no crash
    fit = crowd.dawid_skene([0], [0], [2])
    assert fit.posteriors.tolist() == [[0.0, 0.0, 1.0]]
    # no label at all
    assert crowd.dawid_skene([], [], [], n_tasks=2).posteriors.shape == (2, 3)
    # N = 2 tasks with a constant worker: its spammer score is 0 (its labels carry no information)
    fit = crowd.dawid_skene([0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 2])
    assert crowd.spammer_score(fit.confusion[:, [0, 2]][:, :, [0, 2]])[0] == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="label codes"):
        crowd.dawid_skene([0], [0], [3])


def test_refusal_with_one_label_per_triplet():
    assert crowd.ds_refusal([1, 1, 1, 2]) is not None
    assert crowd.ds_refusal([2, 2, 1, 1]) is None  # exactly half
    assert crowd.ds_refusal([]) is not None
    labels = pd.DataFrame({"tkey": ["t1", "t2"], "annotator": ["a", "a"], "label": ["correct", "partial"]})
    with pytest.raises(ValueError, match="at least 2 labels on at least half"):
        human.triplet_scores(labels, "ds")


NO_SCREENING = crowd_sim.Rules("none", qualification=0)


def _crowd_report_inputs(seed=0, n_q=60, rules=None):
    """Two systems on n_q questions labelled by a simulated poor crowd, 3 labels each; truth known."""
    rng = np.random.default_rng(seed)
    questions = questions_frame(
        [{"id": f"q{i}", "context": "c", "question": "?", "answers": ["x"]} for i in range(n_q)]
    )
    truth = {}
    preds = []
    for i in range(n_q):
        for s, p in (("good", 0.8), ("weak", 0.45)):
            answer = f"{s}-{i}"
            truth[(f"q{i}", answer)] = 0 if rng.random() < p else 2
            preds.append({"question_id": f"q{i}", "system": s, "answer": answer})
    keys = list(truth)
    study = crowd_sim.simulate(np.array([truth[k] for k in keys]), "poor", rng=rng, fold_size=20, rules=rules)
    keep = ~study.excluded
    names = ["correct", "partial", "incorrect"]
    labels = pd.DataFrame(
        {
            "question_id": [keys[t][0] for t in study.task[keep]],
            "answer": [keys[t][1] for t in study.task[keep]],
            "annotator": [f"w{w}" for w in study.worker[keep]],
            "label": [names[v] for v in study.label[keep]],
            "gold": [names[g] if g >= 0 else None for g in study.gold[study.task[keep]]],  # gold items: real triplets
        }
    )
    return questions, predictions_frame(preds), labels, truth


def test_report_ds_names_its_bootstrap_and_its_sensitivity():
    questions, predictions, labels, _truth = _crowd_report_inputs()
    report = compute_report(questions, predictions, labels, config=ReportConfig(n_boot=30, human_aggregate="ds"))
    data = report.data
    assert data["human_aggregate"] == "ds" and data["bootstrap"] == "two-way"
    rows = {r["system"]: r for r in data["systems"]}
    sens = {r["system"]: r for r in data["crowd_sensitivity"]}
    for system in ("good", "weak"):
        assert sens[system]["hscore_ds"] == pytest.approx(rows[system]["hscore"])
        assert {"hscore_mean", "hscore_majority", "hcorrect_ds", "hscore_mean_all"} <= set(sens[system])
    intervals = {r["system"]: r for r in data["crowd_intervals"]}
    assert intervals["good"]["hscore_low"] <= rows["good"]["hscore"] <= intervals["good"]["hscore_high"]
    assert "crowd_sensitivity" in report.tables


def test_ds_closer_to_the_truth_than_mean_under_clickers():
    # no screening: the poor panel's clickers and random clickers keep their labels; ds weighs them
    errors = {"mean": [], "ds": []}
    for seed in range(3):
        questions, predictions, labels, truth = _crowd_report_inputs(seed, n_q=80, rules=NO_SCREENING)
        true = {s: np.mean([1 - v / 2 for (q, a), v in truth.items() if a.startswith(s)]) for s in ("good", "weak")}
        for agg in errors:
            report = compute_report(questions, predictions, labels, config=ReportConfig(n_boot=0, human_aggregate=agg))
            for r in report.data["systems"]:
                if r["system"] in true:
                    errors[agg].append(abs(r["hscore"] - true[r["system"]]))
    assert np.mean(errors["ds"]) < np.mean(errors["mean"])


def test_report_refuses_ds_with_one_label_per_triplet():
    questions, predictions, labels, _ = _crowd_report_inputs()
    single = labels.drop_duplicates(["question_id", "answer"])
    with pytest.raises(ValueError, match="ds needs at least 2 labels"):
        compute_report(questions, predictions, single, config=ReportConfig(n_boot=0, human_aggregate="ds"))


def test_sensitivity_with_and_without_excluded():
    labels = pd.DataFrame(
        {
            "tkey": ["t1", "t1", "t1", "t2", "t2", "t2"],
            "annotator": ["a", "b", "x", "a", "b", "x"],
            "label": ["correct", "correct", "incorrect", "incorrect", "partial", "correct"],
            "excluded": [False, False, True, False, False, True],
        }
    )
    predictions = pd.DataFrame({"system": ["s", "s"], "tkey": ["t1", "t2"]})
    row = sensitivity(predictions, labels, ["s"])[0]
    assert row["hscore_mean"] == pytest.approx((1.0 + 0.25) / 2)
    assert row["hscore_mean_all"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert row["hscore_majority"] == pytest.approx((1.0 + 0.25) / 2)  # t2: incorrect / partial tie
    assert row["hscore_spread"] >= abs(row["hscore_mean"] - row["hscore_mean_all"])
    # one label per triplet: no sensitivity rows (nothing to aggregate)
    assert sensitivity(predictions, labels.drop_duplicates("tkey"), ["s"]) == []


def test_two_way_bootstrap_is_wider_than_the_questions_only_one_with_a_split_crowd():
    # half the workers say correct, half incorrect on every item: resampling workers moves the mean
    rows = [(t, w, 0 if w < 3 else 2) for t in range(40) for w in range(6)]
    task, worker, label = (np.array(c) for c in zip(*rows))
    pred_task = np.arange(40).reshape(40, 1)

    def mean(codes, n):
        return human.code_scores(codes, n, "mean")

    out = crowd.two_way_bootstrap((task, worker, label, np.full(40, -1)), pred_task, mean, n_boot=200, seed=1)
    low, high = out["score"][0]
    assert high - low > 0.3  # the questions alone would give a zero-width interval (every item 0.5)
    assert low <= 0.5 <= high


def test_offline_command_takes_ds(tmp_path):
    questions, predictions, labels, _ = _crowd_report_inputs(n_q=30)
    labels = labels.drop(columns="gold")  # a labels file carries no gold column
    corpus, preds, lab = tmp_path / "c.jsonl", tmp_path / "p.jsonl", tmp_path / "l.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": q, "context": "c", "question": "?", "answers": ["x"]}) + "\n" for q in questions.index
        )
    )
    preds.write_text("".join(json.dumps(r) + "\n" for r in predictions.to_dict("records")))
    lab.write_text("".join(json.dumps(r) + "\n" for r in labels.to_dict("records")))
    out = tmp_path / "out"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(lab), out=str(out),
                 bootstrap=20, no_figures=True, human_aggregate="ds")  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    assert data["human_aggregate"] == "ds" and data["bootstrap"] == "two-way"
    assert (out / "crowd_sensitivity.csv").exists()
    single = tmp_path / "single.jsonl"
    single.write_text("".join(json.dumps(r) + "\n" for r in labels.drop_duplicates(["question_id"]).to_dict("records")))
    with pytest.raises(Exception, match="ds needs at least 2 labels"):
        call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(single),
                     out=str(tmp_path / "o2"), bootstrap=0, no_figures=True, human_aggregate="ds")  # fmt: skip


def test_extras_default_has_no_crowd_labels():
    assert ReportExtras().crowd_labels is None and ReportExtras().from_study is False


def _simulated_codes(crowd_name, seed, n_q=200, n_s=4):
    """(codes, pred_task) of a simulated study: n_s systems of different skill on n_q questions."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.45, 0.85, n_s)
    u = rng.random((n_q, n_s))
    truth = np.where(u < skill, crowd_sim.C, np.where(u < skill + 0.1, crowd_sim.P, crowd_sim.I)).ravel()
    study = crowd_sim.simulate(truth, crowd_name, rng=rng, groups=np.arange(len(truth)) // n_s)
    task, worker, label = study.kept()
    return (task, worker, label, study.gold), np.arange(n_q * n_s).reshape(n_q, n_s)


def test_two_way_interval_is_centred_on_the_estimate_from_all_labels():
    codes, pred_task = _simulated_codes("typical-untrained", seed=3)

    def ds(c, n):
        return human.code_scores(c, n, "ds")

    estimate = crowd._system_means(ds(codes, len(codes[3]))[0], pred_task)
    out = crowd.two_way_bootstrap(codes, pred_task, ds, n_boot=60, seed=2)
    low, high = out["score"].T
    assert ((low <= estimate) & (estimate <= high)).all()
    # the refits with workers drawn from the whole study lean towards the prior (fewer labels on a
    # triplet): the plain percentile interval sat below the estimate for the best system
    assert out["score_shift"][-1] > 0.01
    # moved: the interval is about the estimate (its midpoint within a point of it), not 2 points below
    assert abs((low + high)[-1] / 2 - estimate[-1]) < 0.01
    assert np.all(np.isfinite(out["score_shift"])) and out["n_boot"] == 60


def test_two_way_interval_of_unanimous_labels_is_the_point():
    rows = [(t, w, 0) for t in range(20) for w in range(3)]
    task, worker, label = (np.array(c) for c in zip(*rows))
    for aggregate in ("mean", "ds"):
        out = crowd.two_way_bootstrap(
            (task, worker, label, np.full(20, -1)),
            np.arange(20).reshape(10, 2),
            lambda c, n, a=aggregate: human.code_scores(c, n, a),
            n_boot=30,
        )
        assert out["score"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
        assert out["score_shift"].tolist() == [0.0, 0.0]


def test_two_way_intervals_count_empty_answers_as_the_main_table_does():
    questions, predictions, labels, _ = _crowd_report_inputs(n_q=40)
    # a system answering like "good" on the first half of the questions and nothing on the others:
    # its empty answers are scored incorrect by rule in the main table, never labelled
    good = predictions[predictions["system"] == "good"].reset_index(drop=True)
    half = good.assign(system="half", answer=np.where(good.index < 20, good["answer"], ""))
    predictions = pd.concat([predictions, half], ignore_index=True)
    report = compute_report(questions, predictions, labels, config=ReportConfig(n_boot=60, human_aggregate="ds"))
    rows = {r["system"]: r for r in report.data["systems"]}
    intervals = {r["system"]: r for r in report.data["crowd_intervals"]}
    assert rows["half"]["hscore"] < rows["good"]["hscore"] - 0.25  # the empty half counts 0
    for system in ("good", "half"):
        assert intervals[system]["hscore_low"] <= rows[system]["hscore"] <= intervals[system]["hscore_high"]
        assert intervals[system]["hcorrect_low"] <= rows[system]["hcorrect"] <= intervals[system]["hcorrect_high"]
    assert intervals["half"]["hscore_high"] < intervals["good"]["hscore_low"]


def test_empty_answers_found_a_slice_at_a_time(monkeypatch):
    """The two-way bootstrap's rule scores of empty answers: normalized a slice at a time (issue 46:
    every answer at once was the 10x report's peak), the same predictions found empty across the
    slices' edges as at once, with the values the main table gives them."""
    from evaluation.report import crowd_section
    from evaluation.report.inputs import _example_inputs
    from evaluation.report.scoring import score_table

    questions, predictions, labels = _example_inputs()
    first = questions.index[0]
    extra = pd.DataFrame(
        {"question_id": [first] * 5, "system": ["s3", "s4", "s5", "s6", "s7"], "answer": ["", " ", "x", "  ", "the"]}
    )
    predictions = pd.concat([predictions, extra], ignore_index=True)
    table = score_table(questions, predictions, labels, config=ReportConfig())
    whole = crowd_section.empty_answer_scores(predictions, table, "whitespace")
    monkeypatch.setattr(crowd_section, "NORMALIZED_AT_ONCE", 2)
    sliced = crowd_section.empty_answer_scores(predictions, table, "whitespace")
    np.testing.assert_array_equal(np.isnan(whole), np.isnan(sliced))
    np.testing.assert_array_equal(np.nan_to_num(whole, nan=-1), np.nan_to_num(sliced, nan=-1))
    empty = ~np.isnan(sliced[:, 0])
    assert empty[-5:].tolist() == [True, True, False, True, False] and not empty[:-5].any()
    assert sliced[-5][0] == 0.0
