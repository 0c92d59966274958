"""The report end to end on hand-made data: human metrics through triplets, ROVER as a system,
factors, agreement, strict JSON, the offline command and the hard-subset export."""

import itertools
import json
import math
import subprocess

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from annotation.interchange import read_corpus
from evaluation.render.outputs import dumps_strict
from evaluation.report.config import ReportConfig
from evaluation.report.inputs import questions_frame
from evaluation.report.pipeline import compute_report
from tests.conftest import write_jsonl

CORPUS = [
    {
        "id": "q1",
        "context": "Denver Broncos won.",
        "question": "Who won?",
        "answers": ["Denver Broncos"],
        "dist": 1,
        "frame": "Win",
        "lu": "win.v",
        "frame_elements": ["Winner", "Prize", "Time"],
    },
    {
        "id": "q2",
        "context": "Warsaw is the capital.",
        "question": "Capital?",
        "answers": ["Warsaw"],
        "dist": 3,
        "frame": "Capital",
        "lu": "capital.n",
        "frame_elements": ["City"],
    },
    {"id": "q3", "context": "x", "question": "y?", "answers": ["z"], "custom": "kept"},
]
PREDICTIONS = [
    {"question_id": "q1", "system": "s1", "answer": "Denver Broncos"},
    {"question_id": "q1", "system": "s2", "answer": "Denver  Broncos"},
    {"question_id": "q1", "system": "s3", "answer": "Carolina"},
    {"question_id": "q2", "system": "s1", "answer": "Warsaw"},
    {"question_id": "q2", "system": "s2", "answer": "Poland"},
    {"question_id": "q2", "system": "s3", "answer": ""},  # no triplet: scored incorrect by rule
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
    return (
        write_jsonl(tmp_path / "corpus.jsonl", CORPUS),
        write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS),
        write_jsonl(tmp_path / "labels.jsonl", LABELS),
    )


def frames():
    questions = questions_frame(r for _, r in read_corpus(iter(json.dumps(c).encode() + b"\n" for c in CORPUS)))
    return questions, pd.DataFrame(PREDICTIONS), pd.DataFrame(LABELS)


def by_system(report):
    return {row["system"]: row for row in report.data["systems"]}


def test_human_metrics_through_triplets_and_rover_as_system():
    q, p, l = frames()
    report = compute_report(q, p, l, config=ReportConfig(n_boot=200))
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
    report = compute_report(q, p, l, config=ReportConfig(n_boot=0))
    dist = next(e for e in report.data["factors"] if e["factor"] == "dist" and e["metric"] == "hscore")
    assert (dist["n_hard"], dist["n_easy"]) == (1, 1)  # q3 lacks dist: neither side
    assert dist["size_pct"] == 50.0
    s2 = next(r for r in dist["rows"] if r["system"] == "s2")
    assert s2["s_hard"] is None and s2["delta"] is None and s2["p_value"] is None  # q2's "Poland" unlabeled
    assert s2["significant"] is False
    s3 = next(r for r in dist["rows"] if r["system"] == "s3")
    assert s3["s_hard"] == 0.0  # q2's "" is no triplet: incorrect by rule, not unlabeled
    s1 = next(r for r in dist["rows"] if r["system"] == "s1")
    assert s1["diff"] == pytest.approx(1.0 - 0.75) and s1["delta"] == 25
    assert {"bias", "coref", "trigger", "lu_in_q"} <= set(report.data["factors_skipped"])
    text = dumps_strict(report.data)  # raises on NaN
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))


def test_without_labels_human_metrics_null_and_automatic_metric_used():
    q, p, _ = frames()
    report = compute_report(q, p, None, config=ReportConfig(n_boot=0))
    assert report.data["metric"] == "f1" and report.data["notes"]
    assert all(r["hscore"] is None and r["coverage"] is None for r in report.data["systems"])
    assert {e["metric"] for e in report.data["factors"]} == {"rouge_l", "f1", "em"}
    assert report.data["agreement"]["alpha_ordinal"] is None


def test_bad_inputs_are_clear_errors():
    q, p, l = frames()
    with pytest.raises(ValueError, match="unknown system"):
        ReportConfig(systems=["nope"]) and compute_report(q, p, l, config=ReportConfig(systems=["nope"]))
    with pytest.raises(ValueError, match="two predictions"):
        compute_report(q, pd.concat([p, p.iloc[:1]]), l)
    with pytest.raises(ValueError, match="unknown metric"):
        ReportConfig(metric="bleu")


def test_offline_command_writes_every_file(files, tmp_path):
    corpus, preds, labels = files
    out = tmp_path / "out"
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        out=str(out),
        alpha=5,
        metric="hscore",
        bootstrap=100,
        hard_factors="nb_fes",
        hard_partitions="1",
    )
    names = {p.name for p in out.iterdir()}
    for stem in ("systems", "partitions", "factors_hscore", "factors_f1", "per_frame"):
        assert {f"{stem}.csv", f"{stem}.tex"} <= names
    for stem in ("figure3_partitions", "figure4_per_frame", "figure5_combinations"):
        assert {f"{stem}.png", f"{stem}.pdf", f"{stem}.svg"} <= names
    for stem in ("table1_systems", "table2_factors_hscore", "table3_factor_by_partition"):
        assert {f"{stem}.csv", f"{stem}.tex"} <= names
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
    from evaluation.render.outputs import latex_table

    table = pd.DataFrame({"coref": [-7.0, 2.0]}, index=["a_b", "c"])
    bold = pd.DataFrame({"coref": [True, False]}, index=["a_b", "c"])
    tex = latex_table(table, bold)
    assert "\\bfseries -7.000" in tex and "\\bfseries 2.000" not in tex and "a\\_b" in tex


def test_strict_json_rejects_nan():
    with pytest.raises(ValueError):
        dumps_strict({"x": math.nan})


# --- coverage, aggregation, reference, paper tables (SPEC 3, 9, 11) ------------------------------


def test_coverage_bounds_count_unlabeled_as_zero_and_one_and_flag_a_possible_flip():
    q, p, l = frames()
    rows = by_system(compute_report(q, p, l, config=ReportConfig(n_boot=0)))
    # s1: 3 predictions, labeled q1 (0.75, 50 %) and q2 (1.0, 100 %), q3 unlabeled
    assert rows["s1"]["hscore_low"] == (0.75 + 1.0) / 3 and rows["s1"]["hscore_high"] == (0.75 + 1.0 + 1) / 3
    assert rows["s1"]["hcorrect_low"] == pytest.approx(100 * 1.5 / 3) and rows["s1"]["hcorrect_high"] == pytest.approx(
        100 * 2.5 / 3
    )
    # s3: Carolina labeled incorrect; "" is no triplet, incorrect by rule: full coverage, no bounds gap
    assert rows["s3"]["coverage"] == 1.0
    assert rows["s3"]["hscore_low"] == 0.0 and rows["s3"]["hscore_high"] == 0.0
    report = compute_report(q, p, l, config=ReportConfig(n_boot=0))
    flips = {(f["higher"], f["lower"]) for f in report.data["ranking_flips"]}
    # s1 (0.875) above s2 (0.75), but s1's low 0.583 < s2's high 0.875: the ranking could flip
    assert ("s1", "s2") in flips
    assert any("s1 ranks above s2" in n for n in report.data["notes"])


def test_ranking_flips_need_overlapping_bounds_and_partial_coverage():
    from evaluation.report.system_steps import ranking_flips

    full = {"coverage": 1.0}
    rows = [
        {"system": "a", "hscore": 0.9, "hscore_low": 0.9, "hscore_high": 0.9, **full},
        {"system": "b", "hscore": 0.8, "hscore_low": 0.8, "hscore_high": 0.8, **full},
        {"system": "c", "hscore": 0.85, "hscore_low": 0.7, "hscore_high": 0.95, "coverage": 0.8},
    ]
    assert [(f["higher"], f["lower"]) for f in ranking_flips(rows)] == [("a", "c"), ("c", "b")]
    rows[2].update(hscore_low=0.84, hscore_high=0.86)
    assert ranking_flips(rows) == []


def test_majority_aggregation_and_ties():
    from evaluation.science import human

    labels = pd.DataFrame(
        {
            "tkey": ["t1"] * 3 + ["t2"] * 2 + ["t3"] * 3,
            "annotator": ["a", "b", "c", "a", "b", "a", "b", "c"],
            "label": ["correct", "correct", "incorrect", "correct", "partial", "correct", "partial", "incorrect"],
        }
    )
    mean = human.triplet_scores(labels, "mean")
    majority = human.triplet_scores(labels, "majority")
    assert mean.loc["t1", "score"] == 2 / 3 and mean.loc["t1", "correct"] == 2 / 3
    assert majority.loc["t1", "score"] == 1.0 and majority.loc["t1", "correct"] == 1.0
    # a tie of correct and partial: mean of the tied values, share of correct among them
    assert majority.loc["t2", "score"] == 0.75 and majority.loc["t2", "correct"] == 0.5
    assert majority.loc["t3", "score"] == 0.5 and majority.loc["t3", "correct"] == 1 / 3
    with pytest.raises(ValueError, match="human_aggregate"):
        human.triplet_scores(labels, "median")
    q, p, l = frames()
    report = compute_report(q, p, l, config=ReportConfig(n_boot=0, human_aggregate="majority"))
    # s1 on q1: (correct, partial) tie -> 0.75 as with the mean; the choice is in report.json
    assert by_system(report)["s1"]["hscore"] == pytest.approx(0.875)
    assert report.data["human_aggregate"] == "majority" and report.data["config"]["human_aggregate"] == "majority"


def test_offline_reference_system_from_the_corpus(files, tmp_path):
    corpus, preds, labels = files
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        out=str(tmp_path / "a"),
        bootstrap=0,
        no_figures=True,
    )
    data = json.loads((tmp_path / "a" / "report.json").read_text())
    rows = {r["system"]: r for r in data["systems"]}
    assert [r["system"] for r in data["systems"]][:1] == ["reference"]
    assert rows["reference"]["n"] == 3 and rows["reference"]["em"] == 1.0
    assert rows["reference"]["hscore"] == pytest.approx(0.875)  # the gold answers share s1's triplets
    assert "reference" not in data["partitions"]["systems"]  # the references do not vote
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        out=str(tmp_path / "b"),
        bootstrap=0,
        no_figures=True,
        no_reference_system=True,
    )
    data = json.loads((tmp_path / "b" / "report.json").read_text())
    assert "reference" not in {r["system"] for r in data["systems"]}


def test_agreement_uses_only_labels_that_match_a_triplet():
    q, p, l = frames()
    extra = pd.DataFrame([{"question_id": "q2", "answer": "Nowhere", "annotator": "ann2", "label": "incorrect"}])
    a = compute_report(q, p, l, config=ReportConfig(n_boot=0)).data["agreement"]
    b = compute_report(q, p, pd.concat([l, extra]), config=ReportConfig(n_boot=0)).data["agreement"]
    assert a == b  # a second label on an answer no system gave changes nothing


def test_paper_tables_layout_and_significance_choice():
    from evaluation.render import paper

    q, p, l = frames()
    data = compute_report(q, p, l, config=ReportConfig(n_boot=0)).data
    # make one row significant raw and not after Holm, to see both choices
    entry = next(e for e in data["factors"] if e["metric"] == "hscore" and e["factor"] == "dist")
    entry["rows"][0].update(significant=True, significant_holm=False)
    tables = paper.paper_tables(data)
    assert {"table1_systems", "table2_factors_hscore", "table3_factor_by_partition"} <= set(tables)
    assert "table4_frame_checks" not in tables  # no frame checks offline
    t1 = tables["table1_systems"]
    assert list(t1.frame.index)[-1] == "ROVER" and "% coverage" in t1.frame.columns
    assert t1.frame.loc["s1", "Hscore"] == 0.88 and t1.frame.loc["s1", "% Hcorrect"] == 75.0
    t2 = tables["table2_factors_hscore"]
    assert t2.frame.loc["size of E_f (%)", "dist"] == 33  # 1 of the 3 questions of the corpus
    assert t2.frame.loc["s1", "dist"] == 25 and isinstance(t2.frame.loc["s1", "dist"], (int, np.integer))
    assert t2.frame.loc["s1", "significant: dist"] == True  # noqa: E712
    assert r"\textbf{25}" in t2.latex and r"33\%" in t2.latex and "\\toprule" in t2.latex
    data["config"]["table_significance"] = "holm"
    holm = paper.paper_tables(data)["table2_factors_hscore"]
    assert r"\textbf{25}" not in holm.latex and "Holm" in holm.latex
    assert set(holm.frame["significance"]) == {"holm"}
    t3 = tables["table3_factor_by_partition"]
    assert list(t3.frame.columns) == ["P3", "P2", "P1"]
    assert paper.escape("a_b&c%") == r"a\_b\&c\%"


def test_paper_table4_from_frame_checks():
    from evaluation.render import paper

    data = {
        "frames": {
            "table4": {
                "frame": {"label": "Frame Prediction", "n": 100, "full": 57.0, "partial": 18.0, "erroneous": 25.0},
                "fes": {"label": "Frame Elements", "n": 100, "full": 66.4, "partial": 21.6, "erroneous": 12.0},
            }
        }
    }
    t4 = paper.table4_frame_checks(data)
    assert t4.frame.loc["Frame Elements", "Full"] == 66 and t4.frame.loc["Frame Elements", "Partial"] == 22
    assert "Frame Prediction & 57 & 18 & 25" in t4.latex


def grey(color):
    """The grey a greyscale print gives a colour (PIL's ITU-R 601-2 luma), 0-255."""
    from matplotlib.colors import to_rgb
    from PIL import Image

    return Image.new("RGB", (1, 1), tuple(round(255 * c) for c in to_rgb(color))).convert("L").getpixel((0, 0))


def hue_distance(a, b):
    from matplotlib.colors import rgb_to_hsv, to_rgb

    d = abs(rgb_to_hsv(to_rgb(a))[0] - rgb_to_hsv(to_rgb(b))[0]) * 360
    return min(d, 360 - d)


def test_figure_styles_neighbours_differ_in_colour_greyscale_and_marker_for_fifty_systems():
    from evaluation.render.figures import system_style

    styles = [system_style(i) for i in range(50)]
    assert len({(s["color"], s["marker"]) for s in styles}) == 50
    for a, b in itertools.pairwise(styles):  # neighbours in the legend
        assert abs(grey(a["color"]) - grey(b["color"])) >= 60  # of 255: apart in greyscale print
        assert hue_distance(a["color"], b["color"]) >= 50  # and in colour
        assert a["marker"] != b["marker"]
    # systems sharing a colour (i, i + 10) differ in marker and line style
    for i in range(40):
        assert (styles[i]["marker"], styles[i]["linestyle"]) != (styles[i + 10]["marker"], styles[i + 10]["linestyle"])
    # every colour reads on white (no pale yellow): darker than 200 of 255 in grey
    assert max(grey(s["color"]) for s in styles) < 200


def test_figures_legend_outside_the_axes_for_fifty_systems():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from evaluation.render.figures import partitions_figure

    data = {
        "metric": "hscore",
        "keys": ["1", "2", "3"],
        "counts": {"1": 5, "2": 6, "3": 7},
        "by_system": {f"system-{i}": {"1": 0.1 + i / 100, "2": 0.5, "3": 0.9} for i in range(50)},
    }
    data["by_system"]["ROVER"] = {"1": 0.2, "2": 0.6, "3": 0.95}
    fig = partitions_figure(data)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    legend = fig.legends[0].get_window_extent()
    assert not legend.overlaps(ax.get_window_extent())  # the legend never covers the data
    assert len(fig.legends[0].get_texts()) == 51


def test_offline_command_as_a_researcher_types_it_without_secret_key_or_database(files, tmp_path):
    """A clean environment: no SECRET_KEY, no DEBUG, and a DATABASE_URL nobody answers; the command
    must neither need the key nor open the database."""
    import os
    import sys
    from pathlib import Path

    corpus, preds, labels = files
    repo = Path(__file__).resolve().parents[2]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none",
    }
    run = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "report",
            "--corpus",
            str(corpus),
            "--predictions",
            str(preds),
            "--labels",
            str(labels),
            "--out",
            str(tmp_path / "out"),
            "--bootstrap",
            "10",
            "--no-figures",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "report on 3 questions" in run.stdout
    assert json.loads((tmp_path / "out" / "report.json").read_text())["systems"][0]["system"] == "reference"
    # any other command still needs the key
    run = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode != 0 and "SECRET_KEY must be set" in run.stderr


def test_aggregation_choice_printed_with_every_table(files, tmp_path):
    corpus, preds, labels = files
    out = tmp_path / "out"
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        out=str(out),
        bootstrap=0,
        no_figures=True,
        human_aggregate="majority",
        significance="holm",
    )
    assert json.loads((out / "report.json").read_text())["human_aggregate"] == "majority"
    assert "labels majority" in (out / "systems.tex").read_text()  # the choices in every caption
    assert "majority label of an answer" in (out / "table1_systems.tex").read_text()
    assert set(pd.read_csv(out / "table1_systems.csv")["aggregation"]) == {"majority"}
    t2 = pd.read_csv(out / "table2_factors_hscore.csv")
    assert set(t2["aggregation"]) == {"majority"} and set(t2["significance"]) == {"holm"}
    assert "Holm" in (out / "table2_factors_hscore.tex").read_text()


def test_many_possible_flips_make_ten_notes_and_a_summary():
    q, p, l = frames()
    # 13 more systems answering q3 only (unlabeled): every pair overlaps with s1's wide bounds
    extra = pd.DataFrame(
        [
            {"question_id": "q1", "system": f"x{i}", "answer": "Denver Broncos" if i % 2 else "Carolina"}
            for i in range(13)
        ]
        + [{"question_id": "q3", "system": f"x{i}", "answer": "z"} for i in range(13)]
    )
    report = compute_report(q, pd.concat([p, extra], ignore_index=True), l, config=ReportConfig(n_boot=0))
    flips = report.data["ranking_flips"]
    notes = [n for n in report.data["notes"] if n.startswith("partial coverage")]
    assert len(flips) > 10 and len(notes) == 11
    assert notes[-1] == f"partial coverage: {len(flips) - 10} more pairs of systems could flip (all in ranking_flips)"
