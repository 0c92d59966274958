"""The report's input DataFrames built from the database rows of one corpus (thin shell).

Same tables as ``evaluation.report.inputs`` reads from files; the triplet of each prediction is its
``Prediction.triplet`` row (``tkey`` = ``t<id>``), labels are the current ``Label`` rows. The labels are
read once (``label_rows``) and shaped without the database into the report's labels (``report_labels``)
and the crowd figures' (``crowd_table``); ``evaluation.report_inputs`` reads a report's inputs this way.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

import pandas as pd

from annotation import pseudonyms
from annotation.counted import counted_labels, excluded_participants
from annotation.interchange import SEMANTIC_FIELDS
from annotation.models import GoldItem, Participant, Prediction, Question
from annotation.quality import apply_adjudications


def _tkey(triplet_id):
    return None if triplet_id is None else f"t{triplet_id}"


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
    return {_tkey(t): expected for t, expected in rows.values_list("triplet_id", "expected")}


class LabelRow(NamedTuple):
    """One label that counts (``annotation.counted``, the excluded participants' too), as ``label_rows`` reads it."""

    id: int
    triplet: int
    user: int
    annotator: str
    value: str
    created_at: datetime
    updated_at: datetime


def label_rows(corpus) -> list[LabelRow]:
    """Every label of ``corpus`` that counts, the excluded participants' included (``crowd_table`` flags
    them, ``report_labels`` leaves them out unless asked): the one read of the labels of a report.

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


def _with_gold(labels, gold):
    labels["gold"] = labels["tkey"].map(gold).astype(object)
    labels["gold"] = labels["gold"].where(labels["gold"].notna(), None)
    return labels


def crowd_table(rows, *, excluded, gold, decided=None):
    """The crowd figures' labels (SPEC 17) from ``label_rows``: no database.

    Parameters
    ----------
    rows : list of LabelRow
    excluded : set of int
        ``excluded_accounts``.
    gold : dict
        ``gold_labels``.
    decided : dict, optional
        ``annotation.quality_data.decisions`` when the report is adjudicated.

    Returns
    -------
    DataFrame or None
        ``annotator`` (the account's name), ``label``, ``excluded``, ``tkey``, ``gold``, in the order
        the labels were last changed; None without rows.
    """
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (r.updated_at, r.id))
    labels = pd.DataFrame.from_records(
        [(r.triplet, r.annotator, r.value, r.user in excluded) for r in rows],
        columns=["triplet", "annotator", "label", "excluded"],
    )
    if decided:
        labels = apply_adjudications(labels, decided)
    labels["tkey"] = labels.pop("triplet").map(_tkey)
    return _with_gold(labels, gold)


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


def report_labels(rows, *, excluded, gold, decided=None, include_excluded=False):
    """The report's labels table from ``label_rows``: no database.

    Parameters
    ----------
    rows : list of LabelRow
    excluded : set of int
        ``excluded_accounts``: their labels are left out unless ``include_excluded``.
    gold : dict
        ``gold_labels``: a ``gold`` column (the expected label, else None) when there is gold.
    decided : dict, optional
        ``annotation.quality_data.decisions`` when the report is adjudicated: every label of an item
        an admin adjudicated carries the final label (annotation/quality.py).
    include_excluded : bool, default False
        Keep the labels of crowd-study participants excluded on gold items (SPEC 13).

    Returns
    -------
    DataFrame or None
        ``annotator`` (A01..An), ``label``, ``tkey`` (and ``gold``), in arrival order; None without labels.
    """
    if not include_excluded:
        rows = [r for r in rows if r.user not in excluded]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (r.created_at, r.id))  # SPEC 16: the sequences take them in arrival order
    labels = pd.DataFrame.from_records(
        [(r.triplet, r.annotator, r.value) for r in rows], columns=["triplet", "annotator", "label"]
    )
    # SPEC 18: reports and paper tables name annotators A01..An, never by account (a panel id once)
    labels["annotator"] = labels["annotator"].map(pseudonyms.annotator_labels(labels["annotator"]))
    if decided:
        labels = apply_adjudications(labels, decided)
    labels["tkey"] = labels.pop("triplet").map(_tkey)
    return _with_gold(labels, gold) if gold else labels  # SPEC 17: ``ds`` fixes gold triplets at their label


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
            (qid, system, answer, _tkey(tid))
            for qid, system, answer, tid in preds.values_list(
                "question__external_id", "system__name", "answer", "triplet_id"
            )
        ],
        columns=["question_id", "system", "answer", "tkey"],
    )
    predictions["tkey"] = predictions["tkey"].astype(object)
    return predictions
