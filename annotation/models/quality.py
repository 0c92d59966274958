"""Quality control: gold items (an expected label an admin set) and adjudications (the final label an
admin picked where annotators disagree)."""

from django.conf import settings
from django.db import models

from annotation.labels import LABEL_VALUES

_CHOICES = [(v, v) for v in LABEL_VALUES]


class GoldItem(models.Model):
    triplet = models.OneToOneField("annotation.Triplet", on_delete=models.CASCADE, related_name="gold")
    expected = models.CharField(max_length=16, choices=_CHOICES, help_text="The label a careful annotator gives.")
    note = models.TextField(blank=True, help_text="Why (for admins; never shown to annotators).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"gold {self.expected} for triplet {self.triplet_id}"


class Adjudication(models.Model):
    triplet = models.OneToOneField("annotation.Triplet", on_delete=models.CASCADE, related_name="adjudication")
    value = models.CharField(max_length=16, choices=_CHOICES)
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"adjudicated {self.value} for triplet {self.triplet_id}"
