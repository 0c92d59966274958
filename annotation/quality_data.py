"""Database side of quality control (thin): label rows, gold and decisions of one corpus for
``annotation.quality``'s pure functions, and saving an adjudication."""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotation import quality, screening
from annotation.label_titles import LABEL_TITLES
from annotation.models import Adjudication, GoldItem, Label, Triplet
from stats.labels import LABEL_VALUES


def label_rows(corpus):
    return list(
        Label.objects.filter(triplet__question__corpus=corpus, value__isnull=False)
        .order_by("annotator__username", "triplet_id")
        .values_list("annotator__username", "triplet_id", "value", "seconds_spent", "updated_at")
    )


def gold_map(corpus):
    return dict(GoldItem.objects.filter(triplet__question__corpus=corpus).values_list("triplet_id", "expected"))


def decisions(corpus):
    return dict(Adjudication.objects.filter(triplet__question__corpus=corpus).values_list("triplet_id", "value"))


def corpus_quality(corpus):
    return quality.annotator_quality(label_rows(corpus), gold_map(corpus))


def open_disagreements(corpus):
    """[(triplet, {annotator: label})] still to adjudicate, with the question for display."""
    pending = quality.disagreements(label_rows(corpus), decided=decisions(corpus))
    triplets = Triplet.objects.filter(pk__in=pending).select_related("question").in_bulk()
    return [(triplets[t], labels) for t, labels in pending.items()]


def _check_label(value):
    if value not in LABEL_VALUES:
        raise ValueError(
            _("choose a final label: one of %(labels)s") % {"labels": ", ".join(str(t) for t in LABEL_TITLES.values())}
        )


def adjudicate(corpus, triplet_id, *, value, user):
    _check_label(value)
    triplet = Triplet.objects.select_related("question").get(pk=triplet_id, question__corpus=corpus)
    return Adjudication.objects.update_or_create(triplet=triplet, defaults={"value": value, "adjudicator": user})[0]


def mark_gold(triplet, *, expected, user, note=""):
    """Make ``triplet`` a gold item expecting ``expected`` (or change the label of its gold item);
    the one way gold is marked from the adjudication page and the admin's triplet list."""
    _check_label(expected)
    screening.check_gold_expected(expected)  # SPEC 17: clear cases only
    gold, created = GoldItem.objects.get_or_create(
        triplet=triplet, defaults={"expected": expected, "note": note, "created_by": user}
    )
    if not created and gold.expected != expected:
        gold.expected = expected
        gold.save(update_fields=["expected"])
    return gold
