"""Participants' data (SPEC 18): the frozen consent texts and the tombstones of erased participants.

``annotation/privacy.py`` is the one service that writes these rows (consent versions on save of a
study, tombstones by ``erase``); ``annotation/retention.py`` applies the retention periods.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ConsentVersion(models.Model):
    """One consent text as participants saw it: never edited, a new version when the study's text changes."""

    study = models.ForeignKey(
        "annotation.Study", on_delete=models.CASCADE, related_name="consent_versions", verbose_name=_("study")
    )
    number = models.PositiveIntegerField(verbose_name=_("version"))
    language = models.CharField(max_length=16, verbose_name=_("language"))
    text = models.TextField(verbose_name=_("text"))
    sha256 = models.CharField(max_length=64, verbose_name=_("SHA-256"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("consent version")
        verbose_name_plural = _("consent versions")
        constraints = [models.UniqueConstraint(fields=["study", "number"], name="uniq_consent_version")]
        ordering = ["study", "number"]

    def __str__(self):
        from django.utils.translation import get_language_info, gettext

        try:
            language = get_language_info(self.language)["name_translated"]
        except KeyError:
            language = self.language
        return gettext("study %(study)s, consent version %(number)s (%(language)s)") % {
            "study": self.study_id,
            "number": self.number,
            "language": language,
        }


class ErasureTombstone(models.Model):
    """What is left of an erased participant: no panel id, only its keyed hash, so that an archive or a
    backup restored later cannot bring the person back (``privacy.reapply_tombstones``)."""

    WITHDRAW, IDENTITY = "withdraw", "identity"
    MODES = [
        (WITHDRAW, _("withdraw (everything deleted)")),
        (IDENTITY, _("identity (panel ids deleted, labels kept under the pseudonym)")),
    ]

    study = models.ForeignKey(
        "annotation.Study",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tombstones",
        verbose_name=_("study"),
    )
    study_slug = models.CharField(max_length=50, db_index=True, verbose_name=_("study slug"))
    panel_hmac = models.CharField(max_length=64, db_index=True, verbose_name=_("HMAC of the panel id"))
    code = models.CharField(max_length=16, blank=True, verbose_name=_("pseudonym"))
    mode = models.CharField(max_length=16, choices=MODES, verbose_name=_("mode"))
    reason = models.CharField(max_length=300, blank=True, verbose_name=_("reason"))
    counts = models.JSONField(default=dict, blank=True, verbose_name=_("rows removed"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("erased at"))

    class Meta:
        verbose_name = _("erasure tombstone")
        verbose_name_plural = _("erasure tombstones")
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.study_slug}/{self.code or '?'} ({self.mode})"
