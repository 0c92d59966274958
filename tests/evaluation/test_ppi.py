"""SPEC 10: classical and prediction-powered (PPI++) estimates, gain, agreement and validity guard."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from evaluation.science import live_parts, ppi
from evaluation.science.rows import as_json, records
from stats import ppi as stats_ppi
from tests.conftest import write_jsonl


def test_spec10_by_hand_on_a_small_case():
    h = [1, 0.5, 0, 1]  # human scores of the n = 4 labeled predictions
    f = [1, 1, 0, 0.5]  # the judge's scores of the same predictions
    fu = [1, 0, 0, 1]  # the judge's scores of the N_u = 4 unlabeled predictions
    # By hand (fractions):
    # mean(h) = 2.5/4; deviations .375 -.125 -.625 .375 -> sum of squares .6875 -> var_n(h) = .6875/3 = 11/48
    # mean(f) = 2.5/4; deviations .375 .375 -.625 -.125 -> var_n(f) = 11/48 as well
    # cov_n(h, f) = (.140625 - .046875 + .390625 - .046875) / 3 = .4375/3 = 7/48
    # f over all 8: mean 4.5/8 = .5625, sum of squares 1.71875 -> var = 1.71875/7 = 11/44.8
    var_h, var_f, cov = 11 / 48, 11 / 48, 7 / 48
    var_all = 1.71875 / 7
    lam = cov / ((1 + 4 / 4) * var_all)  # = 49/165, inside [0, 1]
    assert lam == pytest.approx(49 / 165)
    theta = (2.5 / 4 - lam * 2.5 / 4) + lam * 0.5
    var_resid = var_h + lam**2 * var_f - 2 * lam * cov  # var_n(h - lam f)
    var_fu = 1 / 3  # [1, 0, 0, 1]: 4 x .25 / 3
    variance = var_resid / 4 + lam**2 * var_fu / 4
    classical_variance = var_h / 4

    e = stats_ppi.estimate(h, f, fu)
    assert e["n"] == 4 and e["n_unlabeled"] == 4
    assert e["lambda"] == pytest.approx(lam, abs=1e-12)
    assert e["estimate"] == pytest.approx(theta, abs=1e-12)
    assert e["variance"] == pytest.approx(variance, abs=1e-12)
    assert e["classical"] == 0.625
    assert e["classical_variance"] == pytest.approx(classical_variance, abs=1e-12)
    assert e["gain"] == pytest.approx(classical_variance / variance, abs=1e-12)

    scores = pd.DataFrame(
        {
            "system": "s",
            "h_hscore": h + [np.nan] * 4,
            "f_hscore": f + fu,
            "h_hcorrect": [1, 0, 0, 1] + [np.nan] * 4,
            "f_hcorrect": [1, 1, 0, 0, 1, 0, 0, 1],  # four labelled, then four unlabelled
        }
    )
    row = as_json(ppi.ppi_rows(scores)[0])
    assert list(row) == list(ppi.ROW_KEYS)
    assert row["metric"] == "hscore" and row["n_total"] == 8 and row["n_human"] == 4
    assert row["ci_low"] == pytest.approx(theta - 1.96 * math.sqrt(variance))
    assert row["ci_high"] == pytest.approx(theta + 1.96 * math.sqrt(variance))
    assert row["classical_ci_low"] == pytest.approx(0.625 - 1.96 * math.sqrt(var_h) / 2)


def test_lambda_is_clipped_and_zero_for_a_constant_judge():
    # A judge that disagrees with the humans: negative covariance -> lambda 0 -> the classical estimate.
    e = stats_ppi.estimate([1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 1, 0])
    assert e["lambda"] == 0.0 and e["estimate"] == e["classical"] == 0.5
    assert e["variance"] == pytest.approx(e["classical_variance"]) and e["gain"] == pytest.approx(1.0)
    # A judge that does not vary: lambda 0 as well.
    assert stats_ppi.estimate([1, 0, 1], [1, 1, 1], [1, 1])["lambda"] == 0.0
    # Huge covariance relative to the pooled variance: clipped at 1.
    e = stats_ppi.estimate([0, 1], [0, 1], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    assert e["lambda"] == 1.0


def test_classical_only_without_unlabeled_or_with_one_label():
    only = stats_ppi.estimate([1, 0, 1], [1, 0, 1], [])
    assert only["lambda"] is None and only["estimate"] is None and only["gain"] is None
    assert only["classical"] == 2 / 3
    one = stats_ppi.estimate([1], [1], [0, 1, 1])
    assert one["classical"] == 1.0 and one["classical_variance"] is None and one["lambda"] is None
    row = as_json(ppi._row("s", "hscore", only))
    assert row["estimate"] == row["classical"] and row["ci_low"] == row["classical_ci_low"]
    assert row["lambda"] is None and row["gain"] is None


def test_a_perfect_judge_gives_a_large_gain_and_hcorrect_is_in_percent():
    rng = np.random.default_rng(0)
    truth = rng.choice([0.0, 0.5, 1.0], size=400)
    h = np.where(np.arange(400) < 40, truth, np.nan)
    scores = pd.DataFrame(
        {
            "system": "s",
            "h_hscore": h,
            "f_hscore": truth,
            "h_hcorrect": np.where(np.isnan(h), np.nan, truth == 1.0),
            "f_hcorrect": truth == 1.0,
        }
    )
    hscore, hcorrect = records(ppi.ppi_rows(scores))
    # SPEC 16 (amended): the residuals' variance is floored at n / (n + 1)^2 (one more label that
    # disagrees), which bounds the gain a perfect judge shows with 40 labels (> 5 before the floor)
    assert hscore["lambda"] > 0.8 and hscore["gain"] > 3
    assert (hscore["ci_high"] - hscore["ci_low"]) / 2 >= 1.96 * np.sqrt(40 / 41**2 / 40) - 1e-12
    assert hscore["ci_high"] - hscore["ci_low"] < hscore["classical_ci_high"] - hscore["classical_ci_low"]
    assert hcorrect["estimate"] == pytest.approx(
        100 * (truth == 1.0)[:40].mean() * (1 - hcorrect["lambda"])
        + 100 * hcorrect["lambda"] * (truth == 1.0)[40:].mean()
    )


def test_labels_needed_and_settled_pairs():
    row = {
        "n_human": 100,
        "n_total": 10000,
        "classical_ci_low": 0.5 - 1.96 * 0.4 / 10,
        "classical_ci_high": 0.5 + 1.96 * 0.4 / 10,
        "gain": 2.0,
    }
    # sd 0.4: +-0.02 needs (1.96 * 0.4 / 0.02)^2 = 1536.64 -> 1537 without the judge, 769 with gain 2.
    assert stats_ppi.labels_needed(row, 0.02) == 769 - 100
    assert stats_ppi.labels_needed({**row, "gain": None}, 0.02) == 1537 - 100
    assert stats_ppi.labels_needed({**row, "gain": 1000.0}, 0.02) == 0
    with pytest.raises(ValueError):
        stats_ppi.labels_needed(row, 0)
    rows = [
        {"system": "a", "metric": "hscore", "estimate": 0.8, "ci_low": 0.75, "ci_high": 0.85},
        {"system": "b", "metric": "hscore", "estimate": 0.6, "ci_low": 0.55, "ci_high": 0.65},
        {"system": "c", "metric": "hscore", "estimate": 0.7, "ci_low": 0.62, "ci_high": 0.78},
    ]
    pairs = {tuple(p["systems"]): p for p in ppi.settled_pairs(rows)}
    assert pairs[("a", "b")]["settled"] and pairs[("a", "b")]["ahead"] == "a"
    assert not pairs[("a", "c")]["settled"] and pairs[("a", "c")]["ahead"] is None
    assert not pairs[("b", "c")]["settled"]


def test_judge_agreement_pairs_each_human_label_with_the_judge():
    labels = pd.DataFrame(
        {
            "tkey": ["t1", "t1", "t2", "t3"],
            "annotator": ["ann", "bob", "ann", "ann"],
            "label": ["correct", "partial", "incorrect", "correct"],
        }
    )
    judge = pd.DataFrame(
        {"tkey": ["t1", "t2", "t3"], "annotator": "gpt", "label": ["correct", "incorrect", "incorrect"]}
    )
    out = ppi.judge_agreement(labels, judge)
    assert out["n_pairs"] == 4
    assert out["confusion"]["correct"] == {"correct": 1, "partial": 0, "incorrect": 1}
    assert out["confusion"]["partial"]["correct"] == 1 and out["confusion"]["incorrect"]["incorrect"] == 1
    assert out["alpha_nominal"] is not None and out["alpha_nominal"] < 1
    same = ppi.judge_agreement(labels.iloc[[0, 2]], judge)
    assert same["alpha_nominal"] == 1.0


def test_validity_guard_reasons():
    n = 200
    f = np.r_[np.ones(100), np.zeros(100)]
    h = np.where(np.arange(n) < 60, f, np.nan)  # only high-scored predictions labeled: not a random sample
    scores = pd.DataFrame({"system": "s", "h_hscore": np.r_[h, [1.0]], "f_hscore": np.r_[f, [np.nan]]})
    reasons = ppi.validity_reasons(scores, {"folds_not_started": 2, "skipped": 3})
    texts = " | ".join(r["reason"] for r in reasons)
    assert "did not score" in texts and "not a random sample" in texts
    assert "folds not started" in texts and "skipped" in texts and all(r["handling"] for r in reasons)
    rng = np.random.default_rng(1)
    order = rng.permutation(n)
    random_h = np.where(np.isin(np.arange(n), order[:60]), f, np.nan)
    assert ppi.validity_reasons(pd.DataFrame({"system": "s", "h_hscore": random_h, "f_hscore": f})) == []


def _offline_files(tmp_path):
    questions = [
        {"id": f"q{i}", "context": f"Team {i} won.", "question": f"Who won {i}?", "answers": [f"Team {i}"]}
        for i in range(40)
    ]
    preds, labels, judge = [], [], []
    for i in range(40):
        for system, answer in (("good", f"Team {i}"), ("bad", f"Team {i + 1}" if i % 3 else f"Team {i}")):
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
            right = answer == f"Team {i}"
            judge.append(
                {
                    "question_id": f"q{i}",
                    "answer": answer,
                    "annotator": "gpt-judge",
                    "label": "correct" if right else "incorrect",
                }
            )
            if i % 4 == 0:
                labels.append(
                    {
                        "question_id": f"q{i}",
                        "answer": answer,
                        "annotator": "ann",
                        "label": "correct" if right else "incorrect",
                    }
                )
    return (
        write_jsonl(tmp_path / "c.jsonl", questions),
        write_jsonl(tmp_path / "p.jsonl", preds),
        write_jsonl(tmp_path / "l.jsonl", labels),
        write_jsonl(tmp_path / "j.jsonl", judge),
    )


def test_offline_report_with_judge_labels(tmp_path):
    corpus, preds, labels, judge = _offline_files(tmp_path)
    out = tmp_path / "out"
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        judge_labels=str(judge),
        out=str(out),
        bootstrap=0,
        no_figures=True,
        no_reference_system=True,
    )
    data = json.loads((out / "report.json").read_text())
    rows = {(r["system"], r["metric"]): r for r in data["ppi"]}
    assert set(rows) == {(s, m) for s in ("good", "bad") for m in ("hscore", "hcorrect")}
    assert all(set(r) == set(ppi.ROW_KEYS) for r in data["ppi"])
    good = rows[("good", "hscore")]
    assert good["n_total"] == 40 and good["n_human"] == 10
    bad = rows[("bad", "hscore")]
    assert bad["lambda"] > 0 and bad["estimate"] == pytest.approx(_bad_mean(bad))
    assert data["judge"]["name"] == "gpt-judge" and data["judge"]["agreement"]["alpha_nominal"] == 1.0
    assert {"table_ppi.csv", "table_ppi.tex"} <= {p.name for p in out.iterdir()}
    table = pd.read_csv(out / "table_ppi.csv")
    assert list(table.columns[:2]) == ["system", "metric"] and len(table) == 4


def _bad_mean(row):
    # bad answers right when i % 3 == 0: 14 of 40; labeled i % 4 == 0: i in 0,12,24,36 right -> 4 of 10
    lam = row["lambda"]
    return (4 / 10 - lam * 4 / 10) + lam * 10 / 30


def test_offline_report_judge_labels_errors(tmp_path):
    corpus, preds, _labels, _judge = _offline_files(tmp_path)
    two = write_jsonl(
        tmp_path / "two.jsonl",
        [
            {"question_id": "q0", "answer": "Team 0", "annotator": "a", "label": "correct"},
            {"question_id": "q1", "answer": "Team 1", "annotator": "b", "label": "correct"},
        ],
    )
    with pytest.raises(CommandError, match="several judges"):
        call_command(
            "report",
            corpus=str(corpus),
            predictions=str(preds),
            judge_labels=str(two),
            out=str(tmp_path / "o"),
            bootstrap=0,
            no_figures=True,
        )
    broken = write_jsonl(
        tmp_path / "broken.jsonl", [{"question_id": "q0", "answer": "x", "annotator": "a", "label": "great"}]
    )
    with pytest.raises(CommandError, match=r"broken\.jsonl:1"):
        call_command(
            "report",
            corpus=str(corpus),
            predictions=str(preds),
            judge_labels=str(broken),
            out=str(tmp_path / "o"),
            bootstrap=0,
            no_figures=True,
        )


def test_conclusions_api_and_page_roles(tiny_corpus, client, make_user, tmp_path):
    from annotation.importers import import_labels
    from models_runner.judging import import_judge_labels

    rows = [
        ("q1", "Denver Broncos", "correct"),
        ("q1", "Carolina Panthers", "incorrect"),
        ("q2", "Warsaw", "correct"),
        ("q2", "Poland", "incorrect"),
        ("q3", "Santa Clara", "correct"),
        ("q3", "Santa Clara, California", "partial"),
    ]
    import_judge_labels(
        write_jsonl(
            tmp_path / "j.jsonl",
            [{"question_id": q, "answer": a, "annotator": "judge-a", "label": v} for q, a, v in rows],
        ),
        tiny_corpus,
    )
    import_labels(
        write_jsonl(
            tmp_path / "l.jsonl",
            [{"question_id": q, "answer": a, "annotator": "ann", "label": v} for q, a, v in rows[:4]],
        ),
        tiny_corpus,
    )
    client.force_login(make_user("ann2", "annotator"))
    assert client.get("/research/api/conclusions/?corpus=tiny").status_code == 403
    assert client.get("/research/conclusions/?corpus=tiny").status_code == 403
    client.force_login(make_user("res", "researcher"))
    data = client.get("/research/api/conclusions/?corpus=tiny&half_width=0.1").json()
    assert data["judge"] == "judge-a" and data["metric"] == "hscore" and data["half_width"] == 0.1
    by = {r["system"]: r for r in data["rows"]}
    assert set(by) == {"reference", "sys-alpha", "sys-beta", "sys-gamma"}
    # sys-gamma's empty answer to q2 is no triplet: two of its answers are for judge and humans
    assert by["sys-gamma"]["n_human"] == 1 and by["sys-gamma"]["n_total"] == 2 and by["sys-gamma"]["remaining"] == 1
    # sys-gamma has one human label: no interval, so no pair; the three others make three pairs.
    assert len(data["pairs"]) == 3 and all("sys-gamma" not in p["systems"] for p in data["pairs"])
    assert any("imported" in r["reason"] for r in data["reasons"])
    default = client.get("/research/api/conclusions/").json()  # the only corpus, the default width
    assert default["half_width"] == 0.02 and {r["system"] for r in default["rows"]} == set(by)
    assert client.get("/research/api/conclusions/?metric=nope&corpus=tiny").status_code == 400
    assert client.get("/research/api/conclusions/?corpus=nope").status_code == 400
    page = client.get("/research/conclusions/?corpus=tiny")
    assert page.status_code == 200 and 'hx-trigger="every 5s"' in page.content.decode()
    panel = client.get("/research/conclusions/panel/?corpus=tiny").content.decode()
    assert 'data-system="sys-alpha"' in panel and "<script" not in panel


def test_sample_facts_of_the_validity_guard(tiny_corpus, make_user):
    from annotation.fold_store import create_folds
    from annotation.models import Label
    from evaluation.judge_inputs import sample_facts

    folds = create_folds(tiny_corpus, k=3, seed=0, overlap=0)
    assert sample_facts(tiny_corpus) == {
        "folds_not_started": 0,
        "skipped": 0,
        "imported": 0,
        "gold": 0,
        "gold_keys": [],
        "design_meta": None,  # uniform folds: no active design for the report to describe (SPEC 12)
    }  # nothing started
    ann = make_user("ann", "annotator")
    first, second = (f.items.order_by("position").first().triplet for f in folds[:2])
    Label.objects.create(triplet=first, annotator=ann, fold=folds[0], value="correct", source="ui")
    Label.objects.create(triplet=second, annotator=ann, fold=folds[1], value=None, skipped=True, source="ui")
    assert sample_facts(tiny_corpus) == {
        "folds_not_started": 1,
        "skipped": 1,
        "imported": 0,
        "gold": 0,
        "gold_keys": [],
        "design_meta": None,
    }


def test_conclusions_without_a_judge_are_classical():
    predictions = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "tkey": [f"t{i}" for i in range(8)]})
    labels = pd.DataFrame(
        {
            "tkey": ["t0", "t1", "t2", "t4", "t5"],
            "annotator": "ann",
            "label": ["correct", "correct", "incorrect", "incorrect", "partial"],
        }
    )
    out = live_parts.conclusions(predictions, labels, None, metric="hscore", half_width=0.1)
    a, b = sorted(out["rows"], key=lambda r: r["system"])
    assert not out["has_judge"] and out["reasons"] == [] and out["n_human"] == 5
    assert a["lambda"] is None and a["gain"] is None and a["estimate"] == a["classical"] == 2 / 3
    assert a["n_total"] == 4 and a["remaining"] == 1 and b["estimate"] == 0.25
    # sd of [1, 1, 0] = 0.57735; (1.96 * 0.57735 / 0.1)^2 = 128.05 -> 129 labels, 3 there
    assert a["needed"] == 129 - 3
    with pytest.raises(ValueError, match="metric"):
        live_parts.conclusions(predictions, labels, None, metric="f1")
