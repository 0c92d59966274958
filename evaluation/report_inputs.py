"""The report job's inputs from the database of one corpus, read in one pass (thin shell, issue 43).

``read_inputs`` enters each room that holds rows once, and each reads every kind of thing once: the
corpus's own rows (``evaluation.database.corpus_rows``: the questions, the predictions, the labels
that count, once for the report's labels and the crowd figures' alike, the excluded participants, the
gold items, the adjudications); the judge's side (``evaluation.judge_inputs.judge_inputs``: the judge
and its labels, the active design, the platform facts with ``annotation.fold_store``'s design); the
frame proxy's outcomes and checks and the attribute checks (``frames``). The labels are then shaped
without the database (``evaluation.report.inputs``), and the whole handed as plain data
(``ReportInputs``) to the pure report (``evaluation.report.pipeline.compute_report``), which reads no
database.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evaluation import database, judge_inputs
from evaluation.report.config import ReportExtras
from evaluation.report.inputs import crowd_table, report_labels
from frames.attribute_checks import attribute_check_rows
from frames.checking import frame_check_rows
from frames.proxy_store import outcome_rows


@dataclass(frozen=True)
class ReportInputs:
    """What ``compute_report`` takes: the three tables and the extras (plain data, no database)."""

    questions: pd.DataFrame
    predictions: pd.DataFrame
    labels: pd.DataFrame | None
    extras: ReportExtras

    @property
    def tables(self):
        """``(questions, predictions, labels)``: ``compute_report``'s three positional arguments."""
        return self.questions, self.predictions, self.labels


def read_inputs(corpus, *, adjudicated=False, include_excluded=False, judge=None) -> ReportInputs:
    """The report's inputs of ``corpus``, each kind of thing read once.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    adjudicated : bool, default False
        Every label of an item an admin adjudicated carries the final label (annotation/quality.py),
        in the report's labels and the crowd figures' alike.
    include_excluded : bool, default False
        Keep the labels of crowd-study participants excluded on gold items (SPEC 13).
    judge : str, optional
        Which judge's labels (SPEC 10): None, the one with the most labels in the corpus; ``""``, none.

    Returns
    -------
    ReportInputs

    Raises
    ------
    ValueError
        When the corpus has no predictions, or no judge named ``judge`` has labels in it.
    """
    rows = database.corpus_rows(corpus, adjudicated=adjudicated)
    if rows.predictions.empty:
        raise ValueError(f"corpus {corpus.name} has no predictions")
    judge_labels, design, facts = judge_inputs.judge_inputs(corpus, judge, gold=list(rows.gold))
    frame_rows = outcome_rows(corpus), frame_check_rows(corpus)
    checks = attribute_check_rows(corpus)
    shaping = {"excluded": rows.excluded, "gold": rows.gold, "decided": rows.decided}
    extras = ReportExtras(
        judge_labels=judge_labels,
        design=design,
        facts=facts,
        frame_rows=frame_rows,
        attribute_check_rows=checks,
        corpus=corpus.name,
        crowd_labels=crowd_table(rows.labels, **shaping),
        from_study=rows.from_study,
    )
    labels = report_labels(rows.labels, **shaping, include_excluded=include_excluded)
    return ReportInputs(rows.questions, rows.predictions, labels, extras)
