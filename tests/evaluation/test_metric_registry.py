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
    assert ("short", "short") in ReportForm().fields["metric"].choices
    request = ReportRequest(data={"corpus": "c1", "metric": "short"})
    assert request.is_valid(), request.errors
    assert request.validated_data["metric"] == "short"
