import pandas as pd
import pytest

from evaluation.science.agreement import krippendorff_alpha
from stats.labels import FRAME_CHECK_RANKS, LABEL_RANKS

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12
# units, values 1..5, "." = missing.
RELIABILITY = [
    "1 2 3 3 2 1 4 1 2 . . .",
    "1 2 3 3 2 2 4 1 2 5 . 3",
    ". 3 3 3 2 3 4 2 2 5 1 .",
    "1 2 3 3 2 4 4 1 2 5 1 .",
]


def krippendorff_rows():
    rows = []
    for observer, line in zip("ABCD", RELIABILITY):
        for unit, value in enumerate(line.split()):
            if value != ".":
                rows.append({"item": unit, "annotator": observer, "value": int(value)})
    return pd.DataFrame(rows)


def test_krippendorff_2011_reference_values():
    out = krippendorff_alpha(krippendorff_rows(), {v: v for v in range(1, 6)})
    assert out["alpha_nominal"] == pytest.approx(0.743, abs=5e-4)
    assert out["alpha_ordinal"] == pytest.approx(0.815, abs=5e-4)
    assert out["n_items"] == 11  # unit 12 has a single value: not pairable
    assert out["n_labels"] == 40
    assert out["n_annotators"] == 4


def test_pairs_use_only_shared_items():
    out = krippendorff_alpha(krippendorff_rows(), {v: v for v in range(1, 6)})
    pairs = {tuple(p["annotators"]): p for p in out["pairs"]}
    assert len(pairs) == 6
    assert pairs[("A", "B")]["n_items"] == 9
    assert pairs[("A", "C")]["n_items"] == 8


def test_labels_ordinal_vs_nominal():
    # Disagreements between neighbours (partial/correct) cost less ordinally than nominally.
    rows = pd.DataFrame(
        [
            {"item": i, "annotator": a, "value": v}
            for i, (x, y) in enumerate(
                [
                    ("correct", "correct"),
                    ("correct", "partial"),
                    ("incorrect", "incorrect"),
                    ("partial", "partial"),
                    ("correct", "correct"),
                    ("incorrect", "incorrect"),
                ]
            )
            for a, v in (("ann1", x), ("ann2", y))
        ]
    )
    out = krippendorff_alpha(rows, LABEL_RANKS)
    assert out["alpha_ordinal"] > out["alpha_nominal"]
    assert out["n_items"] == 6


def test_undefined_alpha_is_none_and_single_labels_ignored():
    rows = pd.DataFrame(
        [
            {"item": 1, "annotator": "a", "value": "full"},
            {"item": 1, "annotator": "b", "value": "full"},
            {"item": 2, "annotator": "a", "value": "erroneous"},
        ]
    )
    out = krippendorff_alpha(rows, FRAME_CHECK_RANKS)
    assert out["alpha_ordinal"] is None and out["alpha_nominal"] is None
    assert out["n_items"] == 1 and out["n_labels"] == 2
    empty = krippendorff_alpha(pd.DataFrame(columns=["item", "annotator", "value"]), LABEL_RANKS)
    assert empty["alpha_ordinal"] is None and empty["n_items"] == 0


def test_unknown_value_rejected():
    with pytest.raises(ValueError, match="no rank"):
        krippendorff_alpha(pd.DataFrame([{"item": 1, "annotator": "a", "value": "maybe"}]), LABEL_RANKS)


def test_pair_sharing_one_item_is_undefined_with_its_n():
    from evaluation.science.agreement import krippendorff_alpha
    from stats.labels import LABEL_RANKS

    rows = pd.DataFrame(
        [
            ("i1", "a", "correct"),
            ("i1", "b", "incorrect"),
            ("i2", "a", "correct"),
            ("i2", "c", "correct"),
            ("i3", "a", "partial"),
            ("i3", "c", "incorrect"),
        ],
        columns=["item", "annotator", "value"],
    )
    out = krippendorff_alpha(rows, LABEL_RANKS)
    pairs = {tuple(p["annotators"]): p for p in out["pairs"]}
    ab = pairs[("a", "b")]
    assert ab["n_items"] == 1 and ab["alpha_ordinal"] is None and ab["alpha_nominal"] is None
    assert ab["undefined_reason"].startswith("1 shared item")
    ac = pairs[("a", "c")]
    assert ac["n_items"] == 2 and ac["alpha_nominal"] is not None and ac["undefined_reason"] is None
