"""Moving freely through one's fold: the item list (with filters and jump-to) and review mode.

``item_rows`` reads one query; ``filter_rows`` and ``find_position`` are pure functions on those rows.
An annotator sees positions, questions, answers and their own labels, never systems. Review mode
walks the items one has labelled, in fold order (``labelled_after``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from annotation.label_titles import LABEL_TITLES
from annotation.models import FoldItem, Label
from stats.labels import LABEL_VALUES

TODO, SKIPPED, JUDGED = "todo", "skipped", "judged"
FILTERS = {"all": _("All items"), "unjudged": _("Not judged yet"), "skipped": _("Skipped"), "judged": _("Judged")}


@dataclass(frozen=True)
class ItemRow:
    number: int  # position + 1: the item number shown to the annotator
    handle: int  # what annotators see of an item (FoldItem.handle), never its id
    question: str
    answer: str
    state: str  # todo, skipped or judged
    label: str | None

    @property
    def label_words(self):
        return (
            LABEL_TITLES.get(self.label, "")
            if self.label
            else {SKIPPED: _("Skipped"), TODO: _("Not judged yet")}[self.state]
        )

    @property
    def state_words(self):
        return {TODO: _("to do"), SKIPPED: _("skipped"), JUDGED: _("judged")}[self.state]


def item_rows(fold, user):
    """Every item of a triplet fold with this annotator's state, in fold order."""
    labels = dict(
        Label.objects.filter(annotator=user, triplet__fold_items__fold=fold).values_list("triplet_id", "value")
    )
    rows = []
    items = (
        FoldItem.objects.filter(fold=fold)
        .order_by("position")
        .values_list("position", "handle", "triplet_id", "triplet__question__question", "triplet__answer")
    )
    for position, handle, triplet_id, question, answer in items:
        if triplet_id not in labels:
            state, value = TODO, None
        else:
            value = labels[triplet_id]
            state = JUDGED if value is not None else SKIPPED
        rows.append(ItemRow(position + 1, handle, question, answer, state, value))
    return rows


def filter_rows(rows, show="all", label=None):
    """Rows matching ``show`` (all / unjudged / skipped / judged) and, if given, one label value."""
    if show not in FILTERS:
        raise ValueError(f"show must be one of {', '.join(FILTERS)}")
    if label is not None and label not in LABEL_VALUES:
        raise ValueError(f"label must be one of {', '.join(LABEL_VALUES)}")
    wanted = {"unjudged": TODO, "skipped": SKIPPED, "judged": JUDGED}.get(show)
    return [r for r in rows if (wanted is None or r.state == wanted) and (label is None or r.label == label)]


def find_number(rows, number):
    """The row shown as item ``number``, or None."""
    return next((r for r in rows if r.number == number), None)


def labelled_after(fold, user, position=None):
    """The next item (after ``position``; from the start when None) that ``user`` has labelled."""
    items = FoldItem.objects.filter(
        fold=fold, triplet__labels__annotator=user, triplet__labels__value__isnull=False
    ).select_related("triplet__question")
    if position is not None:
        items = items.filter(position__gt=position)
    return items.order_by("position").first()
