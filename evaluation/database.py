"""The report's input DataFrames built from the database rows of one corpus (thin shell).

Same tables as ``evaluation.report.inputs`` reads from files; the triplet of each prediction is its
``Prediction.triplet`` row (``tkey`` = ``t<id>``), labels are the current ``Label`` rows.
"""

from __future__ import annotations

import pandas as pd

from annotation import pseudonyms
from annotation.counted import counted_labels, excluded_participants
from annotation.interchange import SEMANTIC_FIELDS
from annotation.models import GoldItem, Participant, Prediction, Question
from annotation.quality import apply_adjudications
from annotation.quality_data import decisions


def _tkey(triplet_id):
    return None if triplet_id is None else f"t{triplet_id}"


def excluded_accounts(corpus) -> set:
    """The accounts whose labels a report leaves out unless asked (SPEC 13): the one exclusion test
    of this module (``report_inputs`` and ``crowd_labels`` read it; another rule swaps it here).

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
    """``tkey`` -> expected label of each gold triplet of ``corpus`` (fixed under ``ds``, SPEC 17).

    Parameters
    ----------
    corpus : annotation.models.Corpus

    Returns
    -------
    dict
    """
    rows = GoldItem.objects.filter(triplet__question__corpus=corpus).values_list("triplet_id", "expected")
    return {_tkey(t): expected for t, expected in rows}


def crowd_labels(corpus, adjudicated=False):
    """Every current label of ``corpus`` with the flags the crowd figures read (SPEC 17).

    Parameters
    ----------
    corpus : annotation.models.Corpus
    adjudicated : bool, default False
        As ``report_inputs``.

    Returns
    -------
    tuple
        ``(labels, from_study)``: ``labels`` has ``annotator``, ``label``, ``tkey``, ``gold`` (the
        expected label of a gold triplet, else None) and ``excluded`` (the annotator fails
        ``excluded_accounts``), or is None without labels; ``from_study`` is True when a study
        participant gave one of them.
    """
    rows = counted_labels(corpus, include_excluded=True).order_by("updated_at", "id")
    rows = list(rows.values_list("triplet_id", "annotator_id", "annotator__username", "value"))
    if not rows:
        return None, False
    excluded = excluded_accounts(corpus)
    users = {r[1] for r in rows}
    from_study = Participant.objects.filter(user_id__in=users).exists()
    labels = pd.DataFrame.from_records(
        [(t, name, value, uid in excluded) for t, uid, name, value in rows],
        columns=["triplet", "annotator", "label", "excluded"],
    )
    if adjudicated:
        labels = apply_adjudications(labels, decisions(corpus))
    labels["tkey"] = labels.pop("triplet").map(_tkey)
    labels["gold"] = labels["tkey"].map(gold_labels(corpus)).astype(object)
    labels["gold"] = labels["gold"].where(labels["gold"].notna(), None)
    return labels, from_study


def report_inputs(corpus, adjudicated=False, *, include_excluded=False):
    """The report's input tables of ``corpus``, from the database.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    adjudicated : bool, default False
        Every label of an item an admin adjudicated carries the final label
        (annotation/quality.py).
    include_excluded : bool, default False
        Keep the labels of crowd-study participants excluded on gold items (SPEC 13); by default
        they are left out.

    Returns
    -------
    questions : DataFrame
        Index ``question_id`` (the external ids), in corpus order; as ``inputs.questions_frame``.
    predictions : DataFrame
        ``question_id``, ``system``, ``answer``, ``tkey`` (``t<triplet id>``).
    labels : DataFrame or None
        ``annotator``, ``label``, ``tkey`` of the current labels; None when there is none.
    """
    fields = ["external_id", "context", "question", "answers", "language", *SEMANTIC_FIELDS, "meta"]
    rows = list(Question.objects.filter(corpus=corpus).order_by("position", "id").values_list(*fields))
    questions = pd.DataFrame.from_records(rows, columns=["question_id", *fields[1:]]).set_index("question_id")
    questions = questions.astype(dict.fromkeys(SEMANTIC_FIELDS, object))
    questions = questions.where(questions.notna(), None)
    questions["answers"] = questions["answers"].map(lambda a: list(a) if isinstance(a, list) else [])
    questions["meta"] = questions["meta"].map(lambda m: m if isinstance(m, dict) else {})
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
    labels = counted_labels(corpus, include_excluded=include_excluded)
    labels = labels.order_by("created_at", "id")  # SPEC 16: the sequences take the labels in arrival order
    label_rows = list(labels.values_list("triplet_id", "annotator__username", "value"))
    if not label_rows:
        return questions, predictions, None
    labels = pd.DataFrame.from_records(label_rows, columns=["triplet", "annotator", "label"])
    # SPEC 18: reports and paper tables name annotators A01..An, never by account (a panel id once)
    labels["annotator"] = labels["annotator"].map(pseudonyms.annotator_labels(labels["annotator"]))
    if adjudicated:
        labels = apply_adjudications(labels, decisions(corpus))
    labels["tkey"] = labels.pop("triplet").map(_tkey)
    gold = gold_labels(corpus)  # SPEC 17: ``ds`` fixes gold triplets at their expected label
    if gold:
        labels["gold"] = labels["tkey"].map(gold).astype(object)
        labels["gold"] = labels["gold"].where(labels["gold"].notna(), None)
    return questions, predictions, labels
