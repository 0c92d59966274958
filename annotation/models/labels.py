"""Labels: one current judgement per (triplet, annotator), with the full history of changes."""

from django.conf import settings
from django.db import models

from annotation.labels import LABEL_VALUES


class Label(models.Model):
    triplet = models.ForeignKey("annotation.Triplet", on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labels")
    fold = models.ForeignKey("annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL)
    value = models.CharField(
        max_length=16,
        choices=[(v, v) for v in LABEL_VALUES],
        null=True,
        blank=True,
        help_text="Null while the item is skipped.",
    )
    skipped = models.BooleanField(default=False)
    seconds_spent = models.FloatField(default=0.0, help_text="Total time spent on this item, all visits.")
    source = models.CharField(max_length=20, default="ui", help_text="ui, api or import.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["triplet", "annotator"], name="uniq_label_per_annotator")]
        indexes = [models.Index(fields=["annotator", "fold"])]

    def __str__(self):
        return f"{self.annotator_id} {self.triplet_id} {self.value or 'skipped'}"


class LabelEvent(models.Model):
    """Every submission, in order. A `submission_id` repeated on the same label makes a double submit a no-op."""

    label = models.ForeignKey(Label, on_delete=models.CASCADE, related_name="events")
    value = models.CharField(max_length=16, null=True, blank=True)
    skipped = models.BooleanField(default=False)
    seconds = models.FloatField(default=0.0)
    submission_id = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        help_text="Chosen by the client; unique per judgement row (annotator and item).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["label", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["label", "submission_id"], name="uniq_label_event_submission")]

    def __str__(self):
        return f"label {self.label_id}: {'skipped' if self.skipped else self.value}"
