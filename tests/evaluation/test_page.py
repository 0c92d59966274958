"""The report page's content (evaluation.render.page): formats, marks, warnings, reasons."""

from evaluation.render import page
from evaluation.report.pipeline import ReportConfig, compute_report
from tests.evaluation.test_report import frames


def data():
    q, p, l = frames()
    return compute_report(q, p, l, config=ReportConfig(n_boot=0)).data


def test_number_formats():
    assert page.score(0.87549) == "0.875" and page.percent(75.0) == "75.0 %" and page.integer(-7.0) == "-7"
    assert page.score(None) == page.integer(float("nan")) == "—"
    assert page.p_value(0.0004) == "< 0.001" and page.p_value(0.0312) == "0.031"


def test_page_content_from_report_data():
    d = data()
    entry = next(e for e in d["factors"] if e["metric"] == "hscore" and e["factor"] == "dist")
    entry["rows"][0].update(significant=True, significant_holm=True)
    entry["rows"][1].update(significant=True, significant_holm=False)
    view = page.report_page(d)
    assert view["metric"] == "Hscore" and view["aggregate"] == "mean" and "raw" in view["significance"]
    s1 = next(r for r in view["systems"] if r["system"] == "s1")
    assert s1["coverage"] == "66.7 %" and s1["partial"]
    assert s1["cells"][0] == {"text": "0.875", "sort": repr(0.875), "bounds": "0.583 – 0.917"}
    assert view["coverage_warning"]["flips"] and "s1" in view["coverage_warning"]["systems"][0]
    table = view["factor_tables"][0]
    assert table["metric"] == "hscore" and table["is_main"]
    dist = [h["factor"] for h in table["header"]].index("dist")
    assert table["rows"][0]["cells"][dist]["marks"] == "*†" and table["rows"][1]["cells"][dist]["marks"] == "*"
    assert table["header"][dist]["size_corpus"] == "33 %" and table["header"][dist]["size"] == "50 %"
    skipped = {s["factor"]: s["reason"] for s in view["skipped"]}
    assert skipped["coref"].startswith("no question has ‘coref’")
    assert view["agreement"]["ordinal"].startswith("undefined (n = 1 item)")  # one doubly-labeled item
    assert not any(n.startswith("partial coverage:") for n in view["notes"])  # shown in the warning instead


def test_ppi_tables_one_per_metric_formatted_like_the_systems_table():
    d = data()
    assert page.report_page(d)["ppi_tables"] == []  # no judge: no table
    d["ppi"] = [
        {
            "system": "s1",
            "metric": "hscore",
            "n_total": 40,
            "n_human": 10,
            "lambda": 0.8123,
            "estimate": 0.71234,
            "ci_low": 0.65,
            "ci_high": 0.7746,
            "classical": 0.7,
            "classical_ci_low": 0.6,
            "classical_ci_high": 0.8,
            "gain": 2.5,
        },
        {
            "system": "s1",
            "metric": "hcorrect",
            "n_total": 40,
            "n_human": 10,
            "lambda": 0.5,
            "estimate": 61.25,
            "ci_low": 50.0,
            "ci_high": 72.5,
            "classical": 60.0,
            "classical_ci_low": 45.0,
            "classical_ci_high": 75.0,
            "gain": 1.25,
        },
        {
            "system": "s2",
            "metric": "hscore",
            "n_total": 40,
            "n_human": 1,
            "lambda": None,
            "estimate": 0.5,
            "ci_low": None,
            "ci_high": None,
            "classical": 0.5,
            "classical_ci_low": None,
            "classical_ci_high": None,
            "gain": None,
        },
    ]
    hscore, hcorrect = page.report_page(d)["ppi_tables"]
    assert (hscore["metric"], hscore["title"], hcorrect["metric"]) == ("hscore", "Hscore", "hcorrect")
    s1, s2 = hscore["rows"]
    assert s1 == {
        "system": "s1",
        "n": "10 / 40",
        "n_sort": 10,
        "estimate": "0.712",
        "estimate_sort": repr(0.71234),
        "interval": "0.650 – 0.775",
        "classical": "0.700",
        "classical_sort": repr(0.7),
        "classical_interval": "0.600 – 0.800",
        "lambda": "0.81",
        "gain": "2.50×",
        "gain_sort": repr(2.5),
    }
    assert (s2["interval"], s2["lambda"], s2["gain"], s2["classical_interval"]) == ("—", "—", "—", "—")
    (c1,) = hcorrect["rows"]
    assert (c1["estimate"], c1["interval"], c1["classical_interval"]) == (
        "61.2 %",
        "50.0 % – 72.5 %",
        "45.0 % – 75.0 %",
    )
