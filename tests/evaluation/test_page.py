"""The report page's content (evaluation.render.page): formats, marks, warnings, reasons."""

from evaluation.render import page
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
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
    # no bootstrap: no interval; below 100% coverage the bounds, labelled as bounds
    assert s1["cells"][0] == {
        "label": "Hscore",
        "text": "0.875",
        "sort": repr(0.875),
        "ci": None,
        "bounds": {"label": "coverage bounds", "range": "0.583 – 0.917"},
    }
    assert view["coverage_warning"]["closest"] and "s1" in view["coverage_warning"]["systems"][0]
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
            "cs_low": 0.6012,
            "cs_high": 0.8234,
            "classical_cs_low": 0.55,
            "classical_cs_high": 0.85,
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
        "sequence": "0.601 – 0.823",
        "classical_sequence": "0.550 – 0.850",
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


def test_every_score_has_its_labelled_bootstrap_interval_and_bounds_only_below_full_coverage():
    q, p, l = frames()
    d = compute_report(q, p, l, config=ReportConfig(n_boot=50)).data
    view = page.report_page(d)
    assert view["has_ci"]
    for row in view["systems"]:
        for metric, cell in zip(d["available_metrics"], row["cells"]):
            raw = next(r for r in d["systems"] if r["system"] == row["system"])
            if raw.get(metric) is None:
                continue
            assert cell["ci"]["label"] == "95% CI", (row["system"], metric)  # human and automatic scores alike
            low, high = raw[f"{metric}_ci"]
            assert cell["ci"]["range"] == page.interval_text(metric, low, high)
            # coverage bounds only for a partially labelled system's human metrics, and named as bounds
            if row["partial"] and metric in ("hscore", "hcorrect"):
                assert cell["bounds"]["label"] == "coverage bounds"
            else:
                assert cell["bounds"] is None
    # each factor delta's interval is in its cell's tooltip
    cells = [c for t in view["factor_tables"] for r in t["rows"] for c in r["cells"] if c["delta"] != page.DASH]
    assert cells and all(", δ 95% CI " in c["title"] for c in cells)


def test_coverage_warning_summarised_with_the_closest_pairs_and_the_rest_folded():
    systems = [{"system": f"s{i}", "coverage": 0.5 if i < 3 else 1.0} for i in range(6)]
    flips = [
        {"higher": f"s{i}", "lower": f"s{j}", "higher_hscore": 0.9 - i / 100, "lower_hscore": 0.9 - j / 10,
         "higher_low": 0.3, "higher_high": 0.95, "lower_low": 0.2, "lower_high": 0.9}
        for i in range(3) for j in range(i + 1, 6)
    ]  # fmt: skip
    shown = page.coverage_warning({"systems": systems, "ranking_flips": flips})
    assert shown["summary"].startswith(f"{len(flips)} pairs of systems could swap places by Hscore")
    assert "3 systems below 100%: coverage 50.0 %" in shown["summary"]
    assert len(shown["closest"]) == page.CLOSEST_FLIPS and len(shown["rest"]) == len(flips) - page.CLOSEST_FLIPS
    by_gap = sorted(flips, key=lambda f: f["higher_hscore"] - f["lower_hscore"])  # the smallest gap first
    assert [c.split(" (")[0] + c.split(") over ")[1].split(" (")[0] for c in shown["closest"]] == [
        f["higher"] + f["lower"] for f in by_gap[: page.CLOSEST_FLIPS]
    ]
    assert page.coverage_warning({"systems": [{"system": "a", "coverage": 1.0}]}) is None


def test_choices_every_one_that_changes_a_number_in_the_header_and_captions():
    d = data()
    d["config"].update(adjudicated=True, judge="gpt-judge", n_boot=500, seed=7, alpha=3.0, include_excluded=True)
    view = page.report_page(d)
    choices = {c["key"]: c["value"] for c in view["choices"]}
    assert set(choices) == {
        "metric", "human_aggregate", "adjudicated", "include_excluded", "judge", "design", "table_significance",
        "n_boot", "systems", "alpha", "dedup_policy",
    }  # fmt: skip
    assert choices["adjudicated"].startswith("used") and choices["judge"] == "gpt-judge"
    assert choices["include_excluded"] == "their labels included" and choices["design"].startswith("uniform")
    assert choices["n_boot"].startswith("500 replicates") and "seed 7" in choices["n_boot"]
    assert choices["alpha"].startswith("3:")  # named "ROVER Levenshtein alpha", not a bare "alpha"
    assert next(c for c in view["choices"] if c["key"] == "alpha")["label"] == "ROVER Levenshtein alpha"
    caption = view["caption"]
    for words in ("metric Hscore", "labels mean", "adjudicated labels", "excluded participants included",
                  "judge gpt-judge", "uniform design", "bold: raw p", "500 bootstrap replicates, seed 7",
                  "ROVER Levenshtein alpha 3"):  # fmt: skip
        assert words in caption, words
    d["config"].update(adjudicated=False, judge=None)
    plain = {c["key"]: c["value"] for c in page.report_page(d)["choices"]}
    assert plain["adjudicated"].startswith("not used") and plain["judge"] == "none" and "design" not in plain


def test_frame_outcomes_and_table4_on_the_page():
    d = data()
    assert page.report_page(d)["frames"] is None
    d["frames"] = {
        "outcomes": {"no_trigger": 18, "unknown_frame": 35, "bad_output": 24, "done": 923, "error": 0, "total": 1000},
        "table4": {
            "frame": {"label": "Frame Prediction", "n": 50, "full": 70.4, "partial": 20.0, "erroneous": 9.6},
            "fes": {"label": "Frame Elements", "n": 50, "full": 50.0, "partial": 30.0, "erroneous": 20.0},
        },
        "agreement": {"frame": {"alpha_ordinal": 0.61234, "alpha_nominal": 0.5, "n_items": 20, "pairs": []}},
    }
    shown = page.report_page(d)["frames"]
    outcomes = {o["key"]: (o["text"], o["n"], o["share"]) for o in shown["outcomes"]}
    assert outcomes["no_trigger"] == ("no trigger (no candidate word in the question)", 18, "1.8 %")
    assert outcomes["unknown_frame"][1:] == (35, "3.5 %") and outcomes["bad_output"][1:] == (24, "2.4 %")
    row = shown["table4"][0]
    assert (row["label"], row["n"]) == ("Frame Prediction", 50)
    assert [(c["key"], c["text"], c["ci"]) for c in row["cells"]] == [
        ("full", "70 %", None),
        ("partial", "20 %", None),
        ("erroneous", "10 %", None),
    ]  # fmt: skip  (a report.json made before Table 4 had intervals: none shown)
    d["frames"]["table4"]["frame"]["full_ci"] = [56.6, 80.9]
    full = page.report_page(d)["frames"]["table4"][0]["cells"][0]
    assert full["ci"] == {"label": "95% CI", "range": "57 % – 81 %"}
    assert shown["agreement"][0]["ordinal"] == "0.612" and shown["agreement"][0]["label"] == "frame"


def test_figures_titled_in_words_and_bias_reason_names_what_gives_frame_freq():
    titles = page.figure_titles(["figure3_partitions.svg", "figure5_combinations.svg"], {"metric": "hcorrect"})
    assert [t["title"] for t in titles] == [
        "Figure 3: % Hcorrect of each system per ROVER agreement partition",
        "Figure 5: % Hcorrect by combination of two factors",
    ]
    d = data()  # the corpus has frames but no frame_freq: bias is skipped
    reason = {s["factor"]: s["reason"] for s in page.report_page(d)["skipped"]}["bias"]
    assert "predicting frames does not give it" in reason and "adaptation corpus" in reason
    assert "predict frames" not in reason.replace("predicting frames does not", "")
