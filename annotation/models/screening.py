"""The decisions about a crowd study's participant (SPEC 17), kept apart and recorded with their reason,
rule and evidence: excluded from the analysis, stopped in the fold, and the panel decision (approve,
screen-out or reject; reject only for failed attention checks). The latest row of a kind is the one in
force; earlier rows stay as the history."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ParticipantDecision(models.Model):
    EXCLUDED, STOPPED, PANEL = "excluded", "stopped", "panel"
    KINDS = [
        (EXCLUDED, _("excluded from the analysis")),
        (STOPPED, _("stopped in the fold")),
        (PANEL, _("panel decision")),
    ]
    YES, NO = "yes", "no"
    APPROVE, SCREEN_OUT, REJECT = "approve", "screen-out", "reject"
    VALUES = [
        (YES, _("yes")),
        (NO, _("no")),
        (APPROVE, _("approve")),
        (SCREEN_OUT, _("screen-out")),
        (REJECT, _("reject")),
    ]

    participant = models.ForeignKey(
        "annotation.Participant", on_delete=models.CASCADE, related_name="decisions", verbose_name=_("participant")
    )
    kind = models.CharField(max_length=16, choices=KINDS, verbose_name=_("decision"))
    value = models.CharField(max_length=16, choices=VALUES, verbose_name=_("value"))
    reason = models.CharField(max_length=300, verbose_name=_("reason"))
    rule = models.CharField(max_length=300, blank=True, verbose_name=_("rule"))
    evidence = models.JSONField(default=dict, blank=True, verbose_name=_("evidence"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("Empty: the study's rule decided."),
        verbose_name=_("decided by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("participant decision")
        verbose_name_plural = _("participant decisions")
        ordering = ["participant", "kind", "created_at", "id"]
        indexes = [models.Index(fields=["participant", "kind"])]

    def __str__(self):
        return f"{self.participant_id} {self.kind}={self.value}"
