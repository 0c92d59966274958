"""The per-participant figures of a crowd study from the database (thin shell over
``evaluation.science.crowd_figures``), registered with ``annotation.screening`` at start-up so that the
study page, its CSV and its API show them without annotation importing evaluation."""

from __future__ import annotations

import pandas as pd

from annotation.models import Label, Participant
from annotation.screening import FIGURE_COLUMNS
from evaluation.database import gold_labels
from evaluation.science.crowd_figures import participant_figures


def _plain(value):
    return round(value, 4) if isinstance(value, float) else value


def study_figures(study) -> dict:
    """``{participant pk: {column: value}}`` (``annotation.screening.FIGURE_COLUMNS``) of ``study``:
    every label of its corpus counts (participants of every study and staff alike, SPEC 17).

    Parameters
    ----------
    study : annotation.models.Study

    Returns
    -------
    dict
    """
    people = list(Participant.objects.filter(study=study).values_list("pk", "user_id"))
    if not people:
        return {}
    rows = Label.objects.filter(triplet__question__corpus_id=study.corpus_id, value__isnull=False)
    rows = rows.order_by("updated_at", "id").values_list("triplet_id", "annotator_id", "value", "seconds_spent")
    labels = pd.DataFrame.from_records(list(rows), columns=["triplet", "annotator", "label", "seconds"])
    labels["tkey"] = "t" + labels.pop("triplet").astype(str)
    gold = gold_labels(study.corpus)
    labels["gold"] = labels["tkey"].map(gold).astype(object).where(labels["tkey"].isin(set(gold)), None)
    figures = participant_figures(labels, [user for _pk, user in people])
    return {pk: {k: _plain(figures[user].get(k)) for k in FIGURE_COLUMNS} for pk, user in people}
