"""The report's rows as frozen dataclasses (``evaluation.science.rows``): serialized in one place, keys unchanged."""

import dataclasses

import pytest

from evaluation.science import active, anytime, ppi, rows

# report.json's keys, in order, as they were written by hand before the rows became dataclasses
PPI_KEYS = (
    "system", "metric", "n_total", "n_human", "lambda", "estimate", "ci_low", "ci_high", "classical",
    "classical_ci_low", "classical_ci_high", "gain", "clipped", "too_few",
    "cs_estimate", "cs_low", "cs_high", "classical_cs_low", "classical_cs_high", "alpha_split",
)  # fmt: skip
ACTIVE_KEYS = (
    "system", "metric", "n_total", "n_sampled", "n_labeled", "lambda", "beta", "estimate", "ci_low", "ci_high",
    "gain", "clipped", "too_few",
)  # fmt: skip
SEQUENCE_KEYS = (
    "system", "metric", "n", "n_total", "alpha_split", "lambda", "ppi", "cs_estimate", "cs_low", "cs_high",
    "classical_cs_estimate", "classical_cs_low", "classical_cs_high",
)  # fmt: skip


def test_each_kind_keeps_its_report_keys_in_order():
    assert ppi.ROW_KEYS == rows.keys(rows.PpiRow) == PPI_KEYS
    assert active.ROW_KEYS == rows.keys(rows.ActiveRow) == ACTIVE_KEYS
    assert rows.keys(rows.SequenceRow) == SEQUENCE_KEYS
    assert PPI_KEYS[PPI_KEYS.index("too_few") + 1 :] == rows.SEQUENCE_KEYS


def test_the_science_functions_build_frozen_rows_that_serialize_to_those_keys():
    labels, judge, predictions = ppi._example_frames()
    scores = ppi.prediction_scores(predictions, labels, judge)
    built = [(ppi.ppi_rows(scores), PPI_KEYS), (anytime.sequence_rows(scores), SEQUENCE_KEYS)]
    a_predictions, a_labels, a_judge, plan = active._example_frames()
    a_scores, _ = active.active_scores(a_predictions, a_labels, a_judge, design_frame=plan)
    built.append((active.active_rows(a_scores), ACTIVE_KEYS))
    for made, expected in built:
        assert made and all(tuple(rows.as_json(r)) == expected for r in made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            made[0].system = "other"
    first = ppi.ppi_rows(scores)[0]
    assert rows.as_json(first)["lambda"] == first.lambda_ and rows.records([first]) == [rows.as_json(first)]
    assert rows.as_json(first)["cs_low"] is None  # the report fills the sequence fields


def test_the_report_section_fills_the_sequence_fields_from_the_sequence_rows():
    from evaluation.report import sections

    labels, judge, predictions = ppi._example_frames()
    made, _judge, table = sections.ppi_section(predictions, labels, judge)
    sequences = anytime.sequence_rows(ppi.prediction_scores(predictions, labels, judge))
    assert [(r.cs_low, r.cs_high, r.alpha_split) for r in made] == [
        (s.cs_low, s.cs_high, s.alpha_split) for s in sequences
    ]
    assert list(table.reset_index().columns) == list(PPI_KEYS)
