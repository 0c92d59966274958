"""An annotator's flag on an item ("ambiguous question", "passage wrong"), with a free comment."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

FLAG_REASONS = [
    ("ambiguous_question", _("Ambiguous question")),
    ("passage_wrong", _("Passage wrong or unreadable")),
    ("answer_unreadable", _("Answer unreadable")),
    ("other", _("Other")),
]


class Flag(models.Model):
    triplet = models.ForeignKey(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="flags", verbose_name=_("triplet")
    )
    fold = models.ForeignKey(
        "annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("fold")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flags", verbose_name=_("annotator")
    )
    reason = models.CharField(max_length=32, choices=FLAG_REASONS, verbose_name=_("reason"))
    comment = models.TextField(max_length=2000, blank=True, verbose_name=_("comment"))
    resolved = models.BooleanField(
        default=False, help_text=_("Ticked by an admin once handled."), verbose_name=_("resolved")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("flag")
        verbose_name_plural = _("flags")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["resolved", "created_at"])]

    def __str__(self):
        return f"{self.get_reason_display()} on triplet {self.triplet_id} by {self.annotator_id}"
