"""An annotator's flag on an item ("ambiguous question", "passage wrong"), with a free comment."""

from django.conf import settings
from django.db import models

FLAG_REASONS = [
    ("ambiguous_question", "Ambiguous question"),
    ("passage_wrong", "Passage wrong or unreadable"),
    ("answer_unreadable", "Answer unreadable"),
    ("other", "Other"),
]


class Flag(models.Model):
    triplet = models.ForeignKey("annotation.Triplet", on_delete=models.CASCADE, related_name="flags")
    fold = models.ForeignKey("annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL)
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flags")
    reason = models.CharField(max_length=32, choices=FLAG_REASONS)
    comment = models.TextField(max_length=2000, blank=True)
    resolved = models.BooleanField(default=False, help_text="Ticked by an admin once handled.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["resolved", "created_at"])]

    def __str__(self):
        return f"{self.get_reason_display()} on triplet {self.triplet_id} by {self.annotator_id}"
