import math

import pandas as pd
import pytest

from evaluation.science import frame_check_stats as fc


def test_outcome_counts_from_strings_rows_and_frames():
    outcomes = ["done"] * 5 + ["no_trigger"] * 2 + ["unknown_frame", "bad_output", "bad_output", "error"]
    expected = {"no_trigger": 2, "unknown_frame": 1, "bad_output": 2, "done": 5, "error": 1, "total": 11}
    assert fc.outcome_counts(outcomes) == expected
    assert fc.outcome_counts([{"outcome": o} for o in outcomes]) == expected
    assert fc.outcome_counts(pd.DataFrame({"outcome": outcomes})) == expected
    assert fc.outcome_counts([]) == {
        "no_trigger": 0,
        "unknown_frame": 0,
        "bad_output": 0,
        "done": 0,
        "error": 0,
        "total": 0,
    }
    with pytest.raises(ValueError, match="unknown frame outcome"):
        fc.outcome_counts(["done", "weird"])


def test_table4_percentages_over_ratings():
    # 50 questions x 2 annotators; frame: 57 full, 18 partial, 25 erroneous; FEs: 66 / 22 / 12
    frame = ["full"] * 57 + ["partial"] * 18 + ["erroneous"] * 25
    fes = ["full"] * 66 + ["partial"] * 22 + ["erroneous"] * 12
    rows = [
        {"item": i // 2, "annotator": f"a{i % 2}", "frame_rating": f, "fe_rating": e}
        for i, (f, e) in enumerate(zip(frame, fes))
    ]
    rows.append({"item": 99, "annotator": "a0", "frame_rating": None, "fe_rating": None})  # skipped
    t = fc.table4(rows)
    assert (t["frame"]["full"], t["frame"]["partial"], t["frame"]["erroneous"]) == (57.0, 18.0, 25.0)
    assert (t["fes"]["full"], t["fes"]["partial"], t["fes"]["erroneous"]) == (66.0, 22.0, 12.0)
    assert t["frame"]["n"] == 100 and t["fes"]["counts"] == {"full": 66, "partial": 22, "erroneous": 12}
    assert fc.table4_rows(t)[0] == {
        "evaluation": "Frame Prediction",
        "full": 57.0,
        "partial": 18.0,
        "erroneous": 25.0,
        "n": 100,
    }
    empty = fc.table4([])
    assert empty["frame"]["n"] == 0 and empty["frame"]["full"] is None
    with pytest.raises(ValueError, match="unknown rating"):
        fc.table4([{"item": 1, "annotator": "a", "frame_rating": "correct", "fe_rating": None}])


def test_alpha_by_hand():
    # ranks (a, b) per item: (2,2) (2,1) (0,0) (1,1). Coincidences: off-diagonal 2 of n = 8 values,
    # n_0 = 2, n_1 = 3, n_2 = 3. Nominal alpha = 1 - (n-1) * 2 / (n^2 - sum n_c^2) = 1 - 7*2/42 = 2/3.
    names = {2: "full", 1: "partial", 0: "erroneous"}
    pairs = [(2, 2), (2, 1), (0, 0), (1, 1)]
    rows = [
        {"item": i, "annotator": who, "frame_rating": names[r], "fe_rating": "full"}
        for i, p in enumerate(pairs)
        for who, r in zip("ab", p)
    ]
    rows.append({"item": 10, "annotator": "a", "frame_rating": "erroneous", "fe_rating": "full"})  # single: left out
    result = fc.alpha_for(rows, "frame")
    assert math.isclose(result["alpha_nominal"], 2 / 3)
    assert result["alpha_ordinal"] > result["alpha_nominal"]  # the only disagreement is between neighbours
    assert (result["n_items"], result["n_labels"]) == (4, 8)
    assert result["pairs"] == [
        {
            "annotators": ["a", "b"],
            "n_items": 4,
            "n_labels": 8,
            "alpha_ordinal": result["alpha_ordinal"],
            "alpha_nominal": result["alpha_nominal"],
            "undefined_reason": None,
        }
    ]
    # FEs all "full": no variation, alpha undefined -> None, not NaN
    assert fc.alpha_for(rows, "fes")["alpha_nominal"] is None


def test_agreement_pairs_only_on_shared_items_and_report():
    rows = [
        {"item": 1, "annotator": "a", "frame_rating": "full", "fe_rating": "partial"},
        {"item": 1, "annotator": "b", "frame_rating": "full", "fe_rating": "partial"},
        {"item": 2, "annotator": "a", "frame_rating": "erroneous", "fe_rating": "full"},
        {"item": 2, "annotator": "b", "frame_rating": "erroneous", "fe_rating": "erroneous"},
        {"item": 3, "annotator": "c", "frame_rating": "partial", "fe_rating": "full"},
    ]
    report = fc.frame_report(["done", "done", "done", "no_trigger"], rows)
    frame = report["agreement"]["frame"]
    assert frame["alpha_nominal"] == 1.0 and frame["n_items"] == 2
    assert [p["annotators"] for p in frame["pairs"]] == [["a", "b"]]
    assert report["agreement"]["fes"]["alpha_nominal"] < 1.0
    assert report["outcomes"]["done"] == 3 and report["table4"]["frame"]["n"] == 5
