"""Labels: one current judgement per (triplet, annotator), with the full history of changes (the fields
every judgement keeps: ``annotation.models.judgement.Judgement`` / ``JudgementEvent``)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.label_titles import LABEL_TITLES
from annotation.models.judgement import Judgement, JudgementEvent
from stats.labels import LABEL_VALUES


class Label(Judgement):
    triplet = models.ForeignKey(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="labels", verbose_name=_("triplet")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labels", verbose_name=_("annotator")
    )
    value = models.CharField(
        max_length=16,
        choices=[(v, LABEL_TITLES[v]) for v in LABEL_VALUES],
        null=True,
        blank=True,
        help_text=_("Null while the item is skipped."),
        verbose_name=_("value"),
    )
    source = models.CharField(max_length=20, default="ui", help_text=_("ui, api or import."), verbose_name=_("source"))

    class Meta:
        verbose_name = _("label")
        verbose_name_plural = _("labels")
        constraints = [models.UniqueConstraint(fields=["triplet", "annotator"], name="uniq_label_per_annotator")]
        indexes = [models.Index(fields=["annotator", "fold"])]

    def __str__(self):
        return gettext("triplet %(triplet)s by annotator %(annotator)s: %(value)s") % {
            "triplet": self.triplet_id,
            "annotator": self.annotator_id,
            "value": LABEL_TITLES.get(self.value, self.value) if self.value else gettext("skipped"),
        }


class LabelEvent(JudgementEvent):
    """Every submission, in order. A `submission_id` repeated on the same label makes a double submit a no-op."""

    label = models.ForeignKey(Label, on_delete=models.CASCADE, related_name="events", verbose_name=_("label"))
    value = models.CharField(max_length=16, null=True, blank=True, verbose_name=_("value"))

    class Meta:
        verbose_name = _("label event")
        verbose_name_plural = _("label events")
        ordering = ["label", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["label", "submission_id"], name="uniq_label_event_submission")]

    def __str__(self):
        value = gettext("skipped") if self.skipped else LABEL_TITLES.get(self.value, self.value)
        return gettext("label %(label)s: %(value)s") % {"label": self.label_id, "value": value}
