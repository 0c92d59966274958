"""Labels: one current judgement per (triplet, annotator), with the full history of changes."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.label_titles import LABEL_TITLES
from stats.labels import LABEL_VALUES


class Label(models.Model):
    triplet = models.ForeignKey(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="labels", verbose_name=_("triplet")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labels", verbose_name=_("annotator")
    )
    fold = models.ForeignKey(
        "annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("fold")
    )
    value = models.CharField(
        max_length=16,
        choices=[(v, LABEL_TITLES[v]) for v in LABEL_VALUES],
        null=True,
        blank=True,
        help_text=_("Null while the item is skipped."),
        verbose_name=_("value"),
    )
    skipped = models.BooleanField(default=False, verbose_name=_("skipped"))
    seconds_spent = models.FloatField(
        default=0.0, help_text=_("Total time spent on this item, all visits."), verbose_name=_("seconds spent")
    )
    source = models.CharField(max_length=20, default="ui", help_text=_("ui, api or import."), verbose_name=_("source"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

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


class LabelEvent(models.Model):
    """Every submission, in order. A `submission_id` repeated on the same label makes a double submit a no-op."""

    label = models.ForeignKey(Label, on_delete=models.CASCADE, related_name="events", verbose_name=_("label"))
    value = models.CharField(max_length=16, null=True, blank=True, verbose_name=_("value"))
    skipped = models.BooleanField(default=False, verbose_name=_("skipped"))
    seconds = models.FloatField(default=0.0, verbose_name=_("seconds"))
    submission_id = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        help_text=_("Chosen by the client; unique per judgement row (annotator and item)."),
        verbose_name=_("submission id"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("label event")
        verbose_name_plural = _("label events")
        ordering = ["label", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["label", "submission_id"], name="uniq_label_event_submission")]

    def __str__(self):
        value = gettext("skipped") if self.skipped else LABEL_TITLES.get(self.value, self.value)
        return gettext("label %(label)s: %(value)s") % {"label": self.label_id, "value": value}
