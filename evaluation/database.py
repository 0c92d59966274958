"""The report's input DataFrames built from the database rows of one corpus (thin shell).

Same tables as ``evaluation.report.inputs`` reads from files; the triplet of each prediction is its
``Prediction.triplet`` row (``tkey`` = ``t<id>``), labels are the current ``Label`` rows.
"""

from __future__ import annotations

import pandas as pd

from annotation import studies
from annotation.interchange import SEMANTIC_FIELDS
from annotation.models import Label, Prediction, Question
from annotation.quality import apply_adjudications
from annotation.quality_data import decisions


def _tkey(triplet_id):
    return None if triplet_id is None else f"t{triplet_id}"


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
    labels = Label.objects.filter(triplet__question__corpus=corpus, value__isnull=False)
    labels = labels.order_by("created_at", "id")  # SPEC 16: the sequences take the labels in arrival order
    if not include_excluded:
        labels = labels.exclude(annotator_id__in=studies.excluded_user_ids(corpus))
    label_rows = list(labels.values_list("triplet_id", "annotator__username", "value"))
    if not label_rows:
        return questions, predictions, None
    labels = pd.DataFrame.from_records(label_rows, columns=["triplet", "annotator", "label"])
    if adjudicated:
        labels = apply_adjudications(labels, decisions(corpus))
    labels["tkey"] = labels.pop("triplet").map(_tkey)
    return questions, predictions, labels
