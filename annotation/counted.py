"""Whose labels count: the one rule every consumer of human labels follows (issue 44).

A label counts when it has a value and its annotator was not excluded by gold screening from a crowd
study of the label's corpus (SPEC 13: a participant below the study's gold accuracy). The report, the
live page and the close rule, the prediction-powered and active estimates, the exports and the crowd
sensitivity rows all read their labels here; ``include_excluded=True`` (asked for explicitly: the
report's "keep excluded participants", ``?excluded=1`` on the exports) keeps them.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from annotation.models import Label, Participant


def excluded_participants(corpus=None):
    """The Participant rows excluded on gold (in the fold, or screened out by the qualification block,
    SPEC 17), of the studies of ``corpus`` (every corpus: None)."""
    rows = Participant.objects.filter(status__in=(Participant.EXCLUDED, Participant.SCREENED_OUT), user__isnull=False)
    return rows if corpus is None else rows.filter(study__corpus=corpus)


def counted_labels(corpus=None, *, include_excluded=False):
    """The labels that count, as a queryset of ``Label`` (unordered).

    Parameters
    ----------
    corpus : annotation.models.Corpus, optional
        The corpus whose labels are read; None: every corpus (an annotator excluded from a study
        of one corpus still counts in the others).
    include_excluded : bool, default False
        Keep the labels of participants excluded by gold screening.

    Returns
    -------
    QuerySet
        ``Label`` rows with a value (a skip is no label).
    """
    labels = Label.objects.filter(value__isnull=False)
    if corpus is not None:
        labels = labels.filter(triplet__question__corpus=corpus)
    if include_excluded:
        return labels
    if corpus is not None:
        return labels.exclude(annotator_id__in=excluded_participants(corpus).values("user_id"))
    same_corpus = excluded_participants().filter(
        user_id=OuterRef("annotator_id"), study__corpus_id=OuterRef("triplet__question__corpus_id")
    )
    return labels.exclude(Exists(same_corpus))
