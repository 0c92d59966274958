"""The report page's content (evaluation.page): formats, marks, warnings, reasons."""
from evaluation import page
from evaluation.report import ReportConfig, compute_report
from tests.evaluation.test_report import frames


def data():
    q, p, l = frames()
    return compute_report(q, p, l, ReportConfig(n_boot=0)).data


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
