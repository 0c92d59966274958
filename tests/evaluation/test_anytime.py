"""SPEC 16: confidence sequences that hold however often they are watched (radius, per-system
sequences, the report's fields), each checked against a computation written out here with numpy
and math, independently of ``evaluation.science.anytime``."""

import json
import math

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation.science import anytime
from tests.conftest import write_jsonl

SCORE = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


def _hand_radius(n, sd, alpha, n_plan):
    two_log = -2 * math.log(alpha)
    r2 = (two_log + math.log(two_log + 1)) / n_plan
    return sd * math.sqrt(2 * (n * r2 + 1) / (n * n * r2) * math.log(math.sqrt(n * r2 + 1) / alpha))


def test_radius_by_hand_and_against_a_fixed_interval():
    assert anytime.radius(250, 0.37, alpha=0.0125, n_plan=600) == pytest.approx(_hand_radius(250, 0.37, 0.0125, 600))
    many = anytime.radius(np.array([30, 300, 3000]), np.array([0.5, 0.4, 0.3]), alpha=0.05, n_plan=300)
    assert many == pytest.approx([_hand_radius(n, s, 0.05, 300) for n, s in ((30, 0.5), (300, 0.4), (3000, 0.3))])
    # the price of watching: wider than the fixed-n 95% interval at every n, tightest relative to it near n_plan
    ratios = [anytime.radius(n, 1.0, alpha=0.05, n_plan=500) / (1.96 / math.sqrt(n)) for n in (50, 500, 5000)]
    assert all(r > 1 for r in ratios) and ratios[1] < ratios[0] and ratios[1] < ratios[2]
    for bad in ({"alpha": 0.0, "n_plan": 100}, {"alpha": 1.0, "n_plan": 100}, {"alpha": 0.05, "n_plan": 0}):
        with pytest.raises(ValueError):
            anytime.radius(100, 1.0, **bad)


def test_sequence_classical_and_prediction_powered_by_hand():
    rng = np.random.default_rng(3)
    f_all = rng.choice([0.0, 0.5, 1.0], size=300)
    h = np.where(rng.random(80) < 0.8, f_all[:80], rng.choice([0.0, 0.5, 1.0], size=80))
    s = anytime.sequence(h, f_all[:80], f_all, alpha=0.01, n_plan=150)
    lam = min(max(np.cov(h, f_all[:80], ddof=1)[0, 1] / np.var(f_all[:80], ddof=1), 0.0), 1.0)
    x = h - lam * f_all[:80]
    est = lam * f_all.mean() + x.mean()
    half = _hand_radius(80, np.std(x, ddof=1), 0.01, 150)
    assert s["ppi"] and s["lambda"] == pytest.approx(lam, abs=1e-12)
    assert (s["estimate"], s["low"], s["high"]) == pytest.approx((est, est - half, est + half), abs=1e-12)
    c_half = _hand_radius(80, np.std(h, ddof=1), 0.01, 150)
    assert (s["classical_low"], s["classical_high"]) == pytest.approx((h.mean() - c_half, h.mean() + c_half), abs=1e-12)
    assert s["high"] - s["low"] < s["classical_high"] - s["classical_low"]  # a good judge narrows it


def test_lambda_clipped_and_zero_for_a_constant_judge_and_null_under_30():
    h = np.array([1.0, 0.0] * 20)
    constant = anytime.sequence(h, np.ones(40), np.ones(90), alpha=0.05, n_plan=100)
    assert constant["lambda"] == 0.0 and constant["estimate"] == pytest.approx(0.5)
    assert constant["low"] == pytest.approx(constant["classical_low"])
    against = anytime.sequence(h, 1 - h, np.r_[1 - h, np.zeros(50)], alpha=0.05, n_plan=100)
    assert against["lambda"] == 0.0  # a negative covariance clips to 0
    few = anytime.sequence(h[:29], alpha=0.05, n_plan=100)
    assert few["estimate"] == pytest.approx(h[:29].mean()) and few["low"] is None and few["classical_high"] is None


def _files(tmp_path, n_q=120, labelled=(70, 45)):
    """Two systems on ``n_q`` questions; a three-valued human label on the first ``labelled`` of each;
    a judge that is right 80% of the time (deterministically) on every prediction."""
    rng = np.random.default_rng(11)
    questions = [
        {"id": f"q{i}", "context": f"T{i} won.", "question": f"Who {i}?", "answers": [f"T{i}"]} for i in range(n_q)
    ]
    preds, labels, judge, truth = [], [], [], {}
    values = list(SCORE)
    for s_index, (system, n_lab) in enumerate(zip(("sys-a", "sys-b"), labelled, strict=True)):
        for i in range(n_q):
            answer = f"{system} says {i}"
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
            human = values[int(rng.integers(0, 3)) if s_index else int(rng.choice(3, p=[0.6, 0.2, 0.2]))]
            judged = human if rng.random() < 0.8 else values[int(rng.integers(0, 3))]
            judge.append({"question_id": f"q{i}", "answer": answer, "annotator": "judge-j", "label": judged})
            truth[(system, i)] = (human, judged)
            if i < n_lab:
                labels.append({"question_id": f"q{i}", "answer": answer, "annotator": "ann", "label": human})
    paths = [
        write_jsonl(tmp_path / f"{n}.jsonl", rows)
        for n, rows in (("c", questions), ("p", preds), ("l", labels), ("j", judge))
    ]
    return paths, truth


def _expected(truth, system, metric, n_q, n_lab, alpha, n_plan):
    """SPEC 16 written out: classical and prediction-powered bounds of one system (report scale)."""
    value = (lambda lab: SCORE[lab]) if metric == "hscore" else (lambda lab: float(lab == "correct"))
    scale = 1.0 if metric == "hscore" else 100.0
    h = np.array([value(truth[(system, i)][0]) for i in range(n_lab)])
    f_all = np.array([value(truth[(system, i)][1]) for i in range(n_q)])
    f = f_all[:n_lab]
    var_f = np.var(f, ddof=1)
    lam = min(max(np.cov(h, f, ddof=1)[0, 1] / var_f, 0.0), 1.0) if var_f > 0 else 0.0
    x = h - lam * f
    est = lam * f_all.mean() + x.mean()
    r_ppi, r_cl = (_hand_radius(n_lab, np.std(v, ddof=1), alpha, n_plan) for v in (x, h))
    return {
        "cs_estimate": est * scale,
        "cs_low": (est - r_ppi) * scale,
        "cs_high": (est + r_ppi) * scale,
        "classical_cs_low": (h.mean() - r_cl) * scale,
        "classical_cs_high": (h.mean() + r_cl) * scale,
    }


def _report(tmp_path, paths, **options):
    corpus, preds, labels, judge = paths
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
        **options,
    )
    return json.loads((out / "report.json").read_text()), out


@pytest.mark.parametrize("n_plan", [None, 400])
def test_offline_report_writes_spec16_sequences(tmp_path, n_plan):
    paths, truth = _files(tmp_path)
    data, out = _report(tmp_path, paths, **({"n_plan": n_plan} if n_plan else {}))
    rows = {(r["system"], r["metric"]): r for r in data["ppi"]}
    for system, n_lab in (("sys-a", 70), ("sys-b", 45)):
        plan = n_plan or max(100, n_lab)
        for metric in ("hscore", "hcorrect"):
            row = rows[(system, metric)]
            assert row["n_plan"] == plan and row["alpha_split"] == pytest.approx(0.025)
            expected = _expected(truth, system, metric, 120, n_lab, 0.025, plan)
            for key, value in expected.items():
                assert row[key] == pytest.approx(value, abs=1e-9), (system, metric, key)
            live = next(r for r in data["live"]["rows"] if (r["system"], r["metric"]) == (system, metric))
            assert live["n"] == n_lab and live["estimate"] == pytest.approx(expected["cs_estimate"], abs=1e-9)
            assert (live["cs_low"], live["cs_high"]) == pytest.approx(
                (expected["cs_low"], expected["cs_high"]), abs=1e-9
            )
            width = 0.02 if metric == "hscore" else 2.0
            assert live["done"] == ((expected["cs_high"] - expected["cs_low"]) / 2 <= width)
    pairs = [p for p in data["live"]["settled_pairs"] if p["metric"] == "hscore"]
    a, b = rows[("sys-a", "hscore")], rows[("sys-b", "hscore")]
    assert pairs[0]["settled"] == (a["cs_low"] > b["cs_high"] or b["cs_low"] > a["cs_high"])
    assert data["config"]["n_plan"] == n_plan
    latex = (out / "table_ppi.tex").read_text()
    assert "confidence sequence" in latex and "watched" in latex


def test_sequences_null_under_30_labels_and_reference_counts_as_a_system(tmp_path):
    paths, _truth = _files(tmp_path, labelled=(70, 20))
    data, _out = _report(tmp_path, paths)
    few = next(r for r in data["ppi"] if r["system"] == "sys-b" and r["metric"] == "hscore")
    assert few["n_human"] == 20 and few["cs_low"] is None and few["classical_cs_high"] is None
    assert next(r for r in data["live"]["rows"] if r["system"] == "sys-b")["done"] is False
    corpus, preds, labels, judge = paths
    out = tmp_path / "with-reference"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(labels), judge_labels=str(judge),
                 out=str(out), bootstrap=0, no_figures=True)  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    assert {r["system"] for r in data["ppi"]} == {"reference", "sys-a", "sys-b"}  # not ROVER
    assert all(r["alpha_split"] == pytest.approx(0.05 / 3) for r in data["ppi"])


def test_live_section_without_a_judge_is_classical(tmp_path):
    paths, truth = _files(tmp_path)
    corpus, preds, labels, _judge = paths
    out = tmp_path / "no-judge"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(labels), out=str(out),
                 bootstrap=0, no_figures=True, no_reference_system=True, n_plan=300)  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    assert data["ppi"] == []
    row = next(r for r in data["live"]["rows"] if (r["system"], r["metric"]) == ("sys-a", "hscore"))
    expected = _expected(truth, "sys-a", "hscore", 120, 70, 0.025, 300)
    assert (row["cs_low"], row["cs_high"]) == pytest.approx(
        (expected["classical_cs_low"], expected["classical_cs_high"]), abs=1e-9
    )


def test_n_plan_must_be_positive(tmp_path):
    paths, _truth = _files(tmp_path)
    with pytest.raises(CommandError, match="n_plan"):
        _report(tmp_path, paths, n_plan=0)


def test_settled_pairs_and_ranking():
    rows = [
        {"system": "a", "metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.76, "cs_high": 0.84},
        {"system": "b", "metric": "hscore", "cs_estimate": 0.7, "cs_low": 0.65, "cs_high": 0.75},
        {"system": "c", "metric": "hscore", "cs_estimate": 0.62, "cs_low": 0.5, "cs_high": 0.74},
    ]
    pairs = {tuple(p["systems"]): p for p in anytime.settled(rows, "hscore")}
    assert pairs[("a", "b")]["ahead"] == "a" and pairs[("a", "c")]["settled"] and not pairs[("b", "c")]["settled"]
    assert not anytime.ranking_settled(rows) and anytime.ranking_settled(rows[:2])
    assert anytime.is_done(rows[0], 0.04) and not anytime.is_done(rows[2], 0.04)


def test_report_page_says_which_interval_to_quote(tmp_path):
    from django.template.loader import render_to_string
    from django.utils import translation

    from evaluation.render.page import report_page

    paths, _truth = _files(tmp_path)
    data, _out = _report(tmp_path, paths, n_plan=400)
    html = render_to_string("evaluation/_report_judge.html", {"page": report_page(data), "data": data})
    assert "Which interval to quote:" in html and "tightest near 400 labels per system" in html
    row = next(r for r in data["ppi"] if (r["system"], r["metric"]) == ("sys-a", "hscore"))
    assert f"{row['cs_low']:.3f} – {row['cs_high']:.3f}" in html
    with translation.override("fr"):
        french = render_to_string("evaluation/_report_judge.html", {"page": report_page(data), "data": data})
    assert "Quel intervalle citer" in french
