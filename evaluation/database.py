"""The report's input DataFrames built from the database rows of one corpus (thin shell).

Same tables as ``evaluation.report.inputs`` reads from files; the triplet of each prediction is its
``Prediction.triplet`` row (``tkey`` = ``t<id>``), labels are the current ``Label`` rows, read once
(``label_rows``) and shaped by ``evaluation.report.inputs`` (``report_labels``, ``crowd_table``).
``corpus_rows`` reads all of it, each kind of thing once (``evaluation.report_inputs``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from annotation.counted import counted_labels, excluded_participants
from annotation.interchange import SEMANTIC_FIELDS
from annotation.models import GoldItem, Participant, Prediction, Question
from annotation.quality_data import decisions
from evaluation.report.inputs import LabelRow, triplet_key


def excluded_accounts(corpus) -> set:
    """The accounts whose labels a report leaves out unless asked (SPEC 13): the one exclusion test
    of this module (``report_labels`` and ``crowd_table`` read it; another rule swaps it here).

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    set of int
        User ids.
    """
    return set(excluded_participants(corpus).values_list("user_id", flat=True))


def gold_labels(corpus) -> dict:
    """``tkey`` -> expected label of each gold triplet of ``corpus`` (fixed under ``ds``, SPEC 17), in
    triplet order (the keys are ``judge_inputs.gold_keys``).

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    dict
    """
    rows = GoldItem.objects.filter(triplet__question__corpus=corpus).order_by("triplet_id")
    return {triplet_key(t): expected for t, expected in rows.values_list("triplet_id", "expected")}


def label_rows(corpus) -> list[LabelRow]:
    """Every label of ``corpus`` that counts, the excluded participants' included
    (``evaluation.report.inputs.crowd_table`` flags them, ``report_labels`` leaves them out unless
    asked): the one read of the labels of a report.

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    list of LabelRow
        Unordered.
    """
    rows = counted_labels(corpus, include_excluded=True).values_list(*LABEL_FIELDS)
    return [LabelRow(*row) for row in rows]


LABEL_FIELDS = ("id", "triplet_id", "annotator_id", "annotator__username", "value", "created_at", "updated_at")


def from_study(rows) -> bool:
    """Whether a study participant gave one of the labels (the crowd's two-way bootstrap then, SPEC 17).

    Parameters
    ----------
    rows : list of LabelRow
        ``label_rows``.

    Returns
    -------
    bool
        False without rows.
    """
    return bool(rows) and Participant.objects.filter(user_id__in={r.user for r in rows}).exists()


def questions_table(corpus) -> pd.DataFrame:
    """The report's questions of ``corpus``.

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    DataFrame
        Index ``question_id`` (the external ids), in corpus order; as ``inputs.questions_frame``.
    """
    fields = ["external_id", "context", "question", "answers", "language", *SEMANTIC_FIELDS, "meta"]
    rows = list(Question.objects.filter(corpus=corpus).order_by("position", "id").values_list(*fields))
    questions = pd.DataFrame.from_records(rows, columns=["question_id", *fields[1:]]).set_index("question_id")
    questions = questions.astype(dict.fromkeys(SEMANTIC_FIELDS, object))
    questions = questions.where(questions.notna(), None)
    questions["answers"] = questions["answers"].map(lambda a: list(a) if isinstance(a, list) else [])
    questions["meta"] = questions["meta"].map(lambda m: m if isinstance(m, dict) else {})
    return questions


def predictions_table(corpus) -> pd.DataFrame:
    """The report's predictions of ``corpus``.

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    DataFrame
        ``question_id``, ``system``, ``answer``, ``tkey`` (``t<triplet id>``, None for an empty answer),
        by system, in corpus order.
    """
    preds = Prediction.objects.filter(question__corpus=corpus).order_by("system_id", "question__position", "id")
    # the key is made before pandas sees the ids: an empty answer has no triplet (None), which would
    # turn the whole id column into floats ("t1.0")
    predictions = pd.DataFrame.from_records(
        [
            (qid, system, answer, triplet_key(tid))
            for qid, system, answer, tid in preds.values_list(
                "question__external_id", "system__name", "answer", "triplet_id"
            )
        ],
        columns=["question_id", "system", "answer", "tkey"],
    )
    predictions["tkey"] = predictions["tkey"].astype(object)
    return predictions


@dataclass(frozen=True)
class CorpusRows:
    """What a report reads of a corpus's own rows, each kind of thing once (``corpus_rows``)."""

    questions: pd.DataFrame
    predictions: pd.DataFrame
    labels: list  # of LabelRow
    excluded: set
    gold: dict
    decided: dict | None
    from_study: bool


def corpus_rows(corpus, *, adjudicated=False) -> CorpusRows:
    """The questions, predictions and labels of ``corpus`` with what shapes the labels, each read once.

    Parameters
    ----------
    corpus : annotation.models.Corpus
    adjudicated : bool, default False
        Read the admins' decisions (``annotation.quality_data.decisions``), when there are labels.

    Returns
    -------
    CorpusRows
        ``questions_table``, ``predictions_table``, ``label_rows``, ``excluded_accounts``,
        ``gold_labels``, the decisions (None unless ``adjudicated``) and ``from_study``.
    """
    rows = label_rows(corpus)
    return CorpusRows(
        questions=questions_table(corpus),
        predictions=predictions_table(corpus),
        labels=rows,
        excluded=excluded_accounts(corpus) if rows else set(),
        gold=gold_labels(corpus),
        decided=decisions(corpus) if adjudicated and rows else None,
        from_study=from_study(rows),
    )
