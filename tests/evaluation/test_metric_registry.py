"""A new metric is one record in one place (evaluation.science.metric_registry): registering a toy
metric makes the report compute it and every reader show it, the report's numbers, tables, paper
tables, figures, page, form and API, with no other file touched."""

import numpy as np
import pytest

from evaluation.science import metric_registry
from evaluation.science.metric_registry import Metric

SHORT = Metric(
    key="short",
    title="Short answers",
    latex=r"Short\_answers",
    axis="Short answers (%)",
    scale=100.0,
    decimals=1,
    paper_decimals=1,
    bulk=lambda answers, references, languages: {
        "short": np.array([float(len((a or "").split()) <= 1) for a in answers])
    },
    aliases=("brief",),
)


@pytest.fixture
def toy_metric():
    metric_registry.register(SHORT)
    yield SHORT
    metric_registry.unregister(SHORT.key)


def test_a_metric_is_registered_once_and_in_order():
    assert metric_registry.all_keys() == ("hscore", "hcorrect", "rouge_l", "f1", "em")
    with pytest.raises(ValueError, match="already registered"):
        metric_registry.register(Metric(key="f1", title="F1", latex="F1", axis="F1", bulk=len))
    with pytest.raises(ValueError, match="needs a bulk scorer"):
        metric_registry.register(Metric(key="x", title="X", latex="X", axis="X"))
    assert "x" not in metric_registry.all_keys()


def test_a_toy_metric_reaches_every_reader(toy_metric, tmp_path):
    from evaluation.render import figures, page, paper
    from evaluation.render.outputs import write_report
    from evaluation.report.config import ReportConfig, canonical_metric
    from evaluation.report.inputs import _example_inputs
    from evaluation.report.pipeline import compute_report

    assert canonical_metric("Brief") == "short"
    # q1: s1 "Denver Broncos" (2 words), s2 "Carolina" (1); q2: s1 "Warsaw" (1), s2 "Poland" (1)
    report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0, metric="short"))
    data = report.data
    assert data["metric"] == "short" and "short" in data["available_metrics"]
    by_system = {r["system"]: r["short"] for r in data["systems"]}
    assert by_system == {"s1": 50.0, "s2": 100.0, "ROVER": 50.0}  # in % (scale 100)
    assert list(report.tables["systems"]["short"]) == [50.0, 100.0, 50.0]
    assert "factors_short" in report.tables
    assert {e["metric"] for e in data["factors"]} >= {"short", "hscore", "f1"}

    shown = page.report_page(data)
    assert shown["metric"] == "Short answers"
    assert {"key": "short", "title": "Short answers"} in shown["metrics"]
    rows = {r["system"]: r for r in page.systems_rows(data)}
    assert "50.0 %" in str(rows["s1"])
    table2 = paper.table2_factors(data, "short")
    assert "Short answers" in table2.latex
    figure = figures.partitions_figure(report.figures["partitions"])
    assert figure.axes[0].get_ylabel() == "Short answers (%)"
    files = write_report(report, tmp_path, render_figures=False)
    assert "factors_short.csv" in files and "table2_factors_short.csv" in files


@pytest.mark.django_db
def test_the_form_and_the_api_offer_a_toy_metric(toy_metric):
    from annotation.models import Corpus
    from evaluation.api import ReportRequest
    from evaluation.forms import ReportForm

    Corpus.objects.create(name="c1")
    offered = dict(ReportForm().fields["metric"].choices)  # key -> the metric's title, in words
    assert str(offered["short"]) == "Short answers"
    request = ReportRequest(data={"corpus": "c1", "metric": "short"})
    assert request.is_valid(), request.errors
    assert request.validated_data["metric"] == "short"


def _share_incorrect(counts, aggregate):
    """A toy human metric: the share of a triplet's labels that say incorrect (the aggregate aside)."""
    n = counts.sum(axis=1)
    return np.where(n > 0, counts[:, 2] / np.maximum(n, 1), np.nan)


WRONG = Metric(
    key="hwrong",
    title="% Hwrong",
    latex=r"\% Hwrong",
    axis="Hwrong (%)",
    scale=100.0,
    decimals=1,
    paper_decimals=1,
    human=True,
    per_triplet=_share_incorrect,
)


@pytest.fixture
def toy_human_metric():
    metric_registry.register(WRONG)
    yield WRONG
    metric_registry.unregister(WRONG.key)


def test_a_human_metric_needs_its_per_triplet_scorer():
    with pytest.raises(ValueError, match="needs a per-triplet scorer"):
        metric_registry.register(Metric(key="x", title="X", latex="X", axis="X", human=True))
    assert "x" not in metric_registry.all_keys()
    assert metric_registry.human_keys() == ("hscore", "hcorrect")


def test_a_toy_human_metric_reaches_the_report_and_the_tables(toy_human_metric, tmp_path):
    from evaluation.render import figures, page, paper
    from evaluation.render.outputs import write_report
    from evaluation.report.config import ReportConfig
    from evaluation.report.inputs import _example_inputs
    from evaluation.report.pipeline import compute_report

    assert metric_registry.human_keys() == ("hscore", "hcorrect", "hwrong")
    # labels: q1 "Denver Broncos" (s1) correct, q1 "Carolina" (s2) incorrect, q2 "Warsaw" (s1)
    # partial; q2 "Poland" (s2) has none
    report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0, metric="hwrong"))
    data = report.data
    assert data["metric"] == "hwrong" and "hwrong" in data["available_metrics"]
    by_system = {r["system"]: r["hwrong"] for r in data["systems"]}
    assert by_system["s1"] == 0.0 and by_system["s2"] == 100.0  # in % (scale 100), labelled ones only
    assert list(report.tables["systems"]["hwrong"])[:2] == [0.0, 100.0]
    assert "factors_hwrong" in report.tables
    shown = page.report_page(data)
    assert shown["metric"] == "% Hwrong"
    assert "100.0 %" in str({r["system"]: r for r in page.systems_rows(data)}["s2"])
    assert r"\% Hwrong" in paper.table2_factors(data, "hwrong").latex
    files = write_report(report, tmp_path, render_figures=False)
    assert "factors_hwrong.csv" in files and "table2_factors_hwrong.csv" in files
    figure = figures.partitions_figure(report.figures["partitions"])
    assert figure.axes[0].get_ylabel() == "Hwrong (%)"


def test_a_toy_human_metric_gets_its_prediction_powered_estimates(toy_human_metric):
    from evaluation.report.config import ReportConfig, ReportExtras
    from evaluation.report.inputs import _example_inputs
    from evaluation.report.pipeline import compute_report

    questions, predictions, labels = _example_inputs()
    # the judge calls every answer incorrect: its Hwrong is 1 on every triplet
    judge = predictions[["question_id", "answer"]].assign(annotator="judge-1", label="incorrect")
    report = compute_report(
        questions, predictions, labels, config=ReportConfig(n_boot=0), extras=ReportExtras(judge_labels=judge)
    )
    rows = {(r["system"], r["metric"]): r for r in report.data["ppi"]}
    assert {m for _, m in rows} == {"hscore", "hcorrect", "hwrong"}
    # s2: one labelled triplet (incorrect: Hwrong 100 %), the judge agrees on it
    assert rows[("s2", "hwrong")]["n_human"] == 1 and rows[("s2", "hwrong")]["classical"] == 100.0
    assert "hwrong" in set(report.tables["ppi"]["metric"])


def test_an_empty_answer_takes_a_human_metrics_all_correct_or_all_incorrect_value(toy_human_metric):
    import pandas as pd

    from evaluation.report.config import ReportConfig
    from evaluation.report.inputs import _example_inputs, questions_frame
    from evaluation.report.scoring import score_table

    questions, predictions, labels = _example_inputs()
    no_reference = questions_frame([{"id": "q3", "context": "Nothing.", "question": "What?", "answers": []}])
    questions = pd.concat([questions, no_reference])
    empty = pd.DataFrame({"question_id": ["q1", "q3"], "system": "s3", "answer": ["", " "]})
    for aggregate in ("mean", "majority"):
        table = score_table(
            questions, pd.concat([predictions, empty]), labels, config=ReportConfig(human_aggregate=aggregate)
        )
        s3 = table.columns.index("s3")
        # q1 has a reference: the empty answer is incorrect; q3 has none: it is correct
        assert table.matrices["hwrong"][[0, 2], s3].tolist() == [1.0, 0.0]  # share incorrect: inverted
        assert table.matrices["hscore"][[0, 2], s3].tolist() == [0.0, 1.0]
        assert table.matrices["hcorrect"][[0, 2], s3].tolist() == [0.0, 1.0]
