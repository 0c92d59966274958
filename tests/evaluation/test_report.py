"""The report end to end on hand-made data: human metrics through triplets, ROVER as a system,
factors, agreement, strict JSON, the offline command and the hard-subset export."""
import json
import math

import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from annotation.interchange import read_corpus
from evaluation.inputs import questions_frame
from evaluation.outputs import dumps_strict
from evaluation.report import ReportConfig, compute_report
from tests.conftest import write_jsonl

CORPUS = [
    {"id": "q1", "context": "Denver Broncos won.", "question": "Who won?", "answers": ["Denver Broncos"],
     "dist": 1, "frame": "Win", "lu": "win.v", "frame_elements": ["Winner", "Prize", "Time"]},
    {"id": "q2", "context": "Warsaw is the capital.", "question": "Capital?", "answers": ["Warsaw"],
     "dist": 3, "frame": "Capital", "lu": "capital.n", "frame_elements": ["City"]},
    {"id": "q3", "context": "x", "question": "y?", "answers": ["z"], "custom": "kept"},
]
PREDICTIONS = [
    {"question_id": "q1", "system": "s1", "answer": "Denver Broncos"},
    {"question_id": "q1", "system": "s2", "answer": "Denver  Broncos"},
    {"question_id": "q1", "system": "s3", "answer": "Carolina"},
    {"question_id": "q2", "system": "s1", "answer": "Warsaw"},
    {"question_id": "q2", "system": "s2", "answer": "Poland"},
    {"question_id": "q2", "system": "s3", "answer": ""},
    {"question_id": "q3", "system": "s1", "answer": "z"},
]
LABELS = [
    {"question_id": "q1", "answer": "Denver Broncos", "annotator": "ann1", "label": "correct"},
    {"question_id": "q1", "answer": "Denver Broncos ", "annotator": "ann2", "label": "partial"},
    {"question_id": "q1", "answer": "Carolina", "annotator": "ann1", "label": "incorrect"},
    {"question_id": "q2", "answer": "Warsaw", "annotator": "ann1", "label": "partial"},
    {"question_id": "q2", "answer": "Warsaw", "annotator": "ann1", "label": "correct"},  # latest counts
    {"question_id": "q2", "answer": "Nowhere", "annotator": "ann1", "label": "correct"},  # matches nothing
]


@pytest.fixture
def files(tmp_path):
    return (write_jsonl(tmp_path / "corpus.jsonl", CORPUS), write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS),
            write_jsonl(tmp_path / "labels.jsonl", LABELS))


def frames():
    questions = questions_frame(r for _, r in read_corpus(iter(json.dumps(c).encode() + b"\n" for c in CORPUS)))
    return questions, pd.DataFrame(PREDICTIONS), pd.DataFrame(LABELS)


def by_system(report):
    return {row["system"]: row for row in report.data["systems"]}


def test_human_metrics_through_triplets_and_rover_as_system():
    q, p, l = frames()
    report = compute_report(q, p, l, ReportConfig(n_boot=200))
    rows = by_system(report)
    # s1: q1 triplet (correct, partial) -> 0.75 / 50 %; q2 correct -> 1 / 100 %; q3 unlabeled
    assert rows["s1"]["hscore"] == pytest.approx(0.875)
    assert rows["s1"]["hcorrect"] == pytest.approx(75.0)
    assert rows["s1"]["coverage"] == pytest.approx(2 / 3)
    # s2 shares q1's triplet through whitespace normalization; "Poland" unlabeled: left out
    assert rows["s2"]["hscore"] == pytest.approx(0.75)
    assert rows["s2"]["coverage"] == pytest.approx(0.5)
    assert rows["s3"]["hscore"] == 0.0 and rows["s3"]["hcorrect"] == 0.0
    # ROVER picks s1's answer on q1 (k=2), and on q2 (all differ, tie -> first system); q3 only s1
    assert rows["ROVER"]["hscore"] == pytest.approx(0.875)
    assert rows["ROVER"]["em"] == pytest.approx(1.0)
    assert report.data["partitions"]["counts"] == {"1": 2, "2": 1, "3": 0}
    assert rows["s1"]["missing"] == 0 and rows["s2"]["missing"] == 1
    # automatic metrics average over every question; a missing prediction scores 0
    assert rows["s2"]["em"] == pytest.approx(1 / 3)
    assert "1 label(s) match no prediction" in " ".join(report.data["notes"])
    assert report.data["agreement"]["n_items"] == 1 and report.data["agreement"]["n_labels"] == 2
    lo, hi = rows["s1"]["hscore_ci"]
    assert lo <= rows["s1"]["hscore"] <= hi


def test_factor_with_missing_attribute_and_undefined_metric_is_null():
    q, p, l = frames()
    report = compute_report(q, p, l, ReportConfig(n_boot=0))
    dist = next(e for e in report.data["factors"] if e["factor"] == "dist" and e["metric"] == "hscore")
    assert (dist["n_hard"], dist["n_easy"]) == (1, 1)  # q3 lacks dist: neither side
    assert dist["size_pct"] == 50.0
    s3 = next(r for r in dist["rows"] if r["system"] == "s3")
    assert s3["s_hard"] is None and s3["delta"] is None and s3["p_value"] is None  # q2's "" unlabeled
    assert s3["significant"] is False
    s1 = next(r for r in dist["rows"] if r["system"] == "s1")
    assert s1["diff"] == pytest.approx(1.0 - 0.75) and s1["delta"] == 25
    assert {"bias", "coref", "trigger", "lu_in_q"} <= set(report.data["factors_skipped"])
    text = dumps_strict(report.data)  # raises on NaN
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))


def test_without_labels_human_metrics_null_and_automatic_metric_used():
    q, p, _ = frames()
    report = compute_report(q, p, None, ReportConfig(n_boot=0))
    assert report.data["metric"] == "f1" and report.data["notes"]
    assert all(r["hscore"] is None and r["coverage"] is None for r in report.data["systems"])
    assert {e["metric"] for e in report.data["factors"]} == {"rouge_l", "f1", "em"}
    assert report.data["agreement"]["alpha_ordinal"] is None


def test_bad_inputs_are_clear_errors():
    q, p, l = frames()
    with pytest.raises(ValueError, match="unknown system"):
        ReportConfig(systems=["nope"]) and compute_report(q, p, l, ReportConfig(systems=["nope"]))
    with pytest.raises(ValueError, match="two predictions"):
        compute_report(q, pd.concat([p, p.iloc[:1]]), l)
    with pytest.raises(ValueError, match="unknown metric"):
        ReportConfig(metric="bleu")


def test_offline_command_writes_every_file(files, tmp_path):
    corpus, preds, labels = files
    out = tmp_path / "out"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(labels), out=str(out),
                 alpha=5, metric="hscore", bootstrap=100, hard_factors="nb_fes", hard_partitions="1")
    names = {p.name for p in out.iterdir()}
    for stem in ("systems", "partitions", "factors_hscore", "factors_f1", "per_frame"):
        assert {f"{stem}.csv", f"{stem}.tex"} <= names
    for stem in ("partitions", "per_frame"):
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    data = json.loads((out / "report.json").read_text(), parse_constant=lambda c: pytest.fail(f"NaN-like {c}"))
    for key in ("systems", "partitions", "factors", "factor_by_partition", "per_frame", "combinations", "agreement"):
        assert key in data
    assert set(data["partitions"]) >= {"n_systems", "alpha", "counts", "by_system"}
    assert set(data["agreement"]) >= {"alpha_ordinal", "alpha_nominal", "n_items", "n_labels", "pairs"}
    row = data["factors"][0]["rows"][0]
    assert set(row) >= {"system", "delta", "diff", "u", "p_value", "significant", "p_holm", "diff_ci"}
    # LaTeX: significant cells in bold (none here with 2 questions), names escaped
    assert "\\begin{tabular}" in (out / "factors_hscore.tex").read_text()
    # hard subset, any of: partition 1 (q2: all differ; q3: one voter) or nb_fes (q2); q1 is in P2
    hard = [r for _, r in read_corpus(out / "hard_subset.jsonl")]
    assert [r["id"] for r in hard] == ["q2", "q3"]
    assert hard[0]["frame_elements"] == ["City"] and hard[0]["meta"]["partition"] == 1
    assert hard[1]["meta"] == {"custom": "kept", "partition": 1}


def test_offline_command_reports_bad_line(tmp_path):
    corpus = write_jsonl(tmp_path / "c.jsonl", CORPUS)
    preds = write_jsonl(tmp_path / "p.jsonl", [PREDICTIONS[0], {"question_id": "q1", "answer": "x"}])
    with pytest.raises(CommandError, match=r"p.jsonl:2: field 'system'"):
        call_command("report", corpus=str(corpus), predictions=str(preds), out=str(tmp_path / "o"))


def test_latex_bold_for_significant_cells():
    from evaluation.outputs import latex_table

    table = pd.DataFrame({"coref": [-7.0, 2.0]}, index=["a_b", "c"])
    bold = pd.DataFrame({"coref": [True, False]}, index=["a_b", "c"])
    tex = latex_table(table, bold)
    assert "\\bfseries -7.000" in tex and "\\bfseries 2.000" not in tex and "a\\_b" in tex


def test_strict_json_rejects_nan():
    with pytest.raises(ValueError):
        dumps_strict({"x": math.nan})
