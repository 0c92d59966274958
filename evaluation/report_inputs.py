"""The report job's inputs from the database of one corpus, read in one pass (thin shell, issue 43).

``read_inputs`` reads each kind of thing once, from the module that owns its rows, in this order:
the questions and the predictions and the labels (``evaluation.database``: every label that counts,
once, for the report's labels and the crowd figures alike), the participants, the gold items and the
adjudications; the judge and its labels, the active design and the platform facts
(``evaluation.judge_inputs``, ``annotation.fold_store``); the frame proxy's outcomes and checks and
the attribute checks (``frames``). It hands plain data (``ReportInputs``) to the pure report
(``evaluation.report.pipeline.compute_report``), which reads no database.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from annotation.quality_data import decisions
from evaluation import database, judge_inputs
from evaluation.report.config import ReportExtras
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
    questions = database.questions_table(corpus)
    predictions = database.predictions_table(corpus)
    if predictions.empty:
        raise ValueError(f"corpus {corpus.name} has no predictions")
    rows = database.label_rows(corpus)
    excluded = database.excluded_accounts(corpus) if rows else set()
    gold = database.gold_labels(corpus)
    decided = decisions(corpus) if adjudicated and rows else None
    labels = database.report_labels(
        rows, excluded=excluded, gold=gold, decided=decided, include_excluded=include_excluded
    )
    extras = ReportExtras(
        judge_labels=_judge_labels(corpus, judge),
        design=judge_inputs.design_frame(corpus),
        facts=judge_inputs.sample_facts(corpus, gold=list(gold)),
        frame_rows=(outcome_rows(corpus), frame_check_rows(corpus)),
        attribute_check_rows=attribute_check_rows(corpus),
        corpus=corpus.name,
        crowd_labels=database.crowd_table(rows, excluded=excluded, gold=gold, decided=decided),
        from_study=database.from_study(rows),
    )
    return ReportInputs(questions, predictions, labels, extras)


def _judge_labels(corpus, name):
    """The labels of the report's judge (``read_inputs``'s ``judge``), None without one."""
    if name == "":
        return None
    judge = judge_inputs.pick_judge(corpus, name)
    if name and judge is None:
        raise ValueError(f"no judge named {name!r} has labels in corpus {corpus.name}")
    return judge_inputs.judge_labels(corpus, judge)
