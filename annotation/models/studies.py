"""Crowd studies (SPEC 13): a corpus's folds opened to participants who arrive through a link from a
panel (Prolific, MTurk, a university pool), consent, get a slot on a fold and a completion code.

The rules (which fold a participant gets, when a slot is released, who is screened out) are pure
functions in ``annotation/crowd.py``; ``annotation/studies.py`` applies them to these rows.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Study(models.Model):
    slug = models.SlugField(max_length=50, unique=True, help_text="In the participants' link: /study/<slug>/.")
    title = models.CharField(max_length=200)
    consent = models.TextField(
        help_text="Consent text shown before anything is stored, in Markdown (raw HTML shown as text)."
    )
    corpus = models.ForeignKey("annotation.Corpus", on_delete=models.CASCADE, related_name="studies")
    folds = models.ManyToManyField(
        "annotation.Fold",
        blank=True,
        related_name="studies",
        help_text="The folds participants get. Empty: every answer fold of the corpus.",
    )
    slots_per_fold = models.PositiveIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1000)], help_text="Participants per fold."
    )
    max_participants = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(1_000_000)],
        help_text="Participants admitted in all (any status). Empty: only the slots limit.",
    )
    idle_minutes = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(7 * 24 * 60)],
        help_text="An unfinished participant idle this long loses the slot (their labels are kept).",
    )
    min_gold_accuracy = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of gold items right (0-1) below which a participant is stopped, after at least "
        "3 gold items. Empty: no screening.",
    )
    completion_code = models.CharField(max_length=100, help_text="Shown to a participant who finished.")
    completion_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Where a participant who finished goes back to, e.g. "
        "https://app.prolific.com/submissions/complete?cc=CODE; {code} is replaced by the completion code.",
    )
    open = models.BooleanField(default=False, help_text="Participants may enter only while the study is open.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at"]

    def __str__(self):
        return self.slug


class Participant(models.Model):
    """One person of a panel in one study: their panel id, the account made on consent, the slot."""

    CONSENTED, ACTIVE, IDLE, RETURNED, COMPLETED, EXCLUDED = (
        "consented",
        "active",
        "idle",
        "returned",
        "completed",
        "excluded",
    )
    STATUSES = [
        (CONSENTED, "consented (slot given, nothing labelled yet)"),
        (ACTIVE, "active"),
        (IDLE, "idle (slot released)"),
        (RETURNED, "returned (left the study)"),
        (COMPLETED, "completed"),
        (EXCLUDED, "excluded (screened out on gold items)"),
    ]

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    external_id = models.CharField(max_length=100, help_text="PROLIFIC_PID or the panel's participant id.")
    panel_study = models.CharField(max_length=100, blank=True, help_text="STUDY_ID sent by the panel.")
    panel_session = models.CharField(max_length=100, blank=True, help_text="SESSION_ID sent by the panel.")
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="participant")
    fold = models.ForeignKey(
        "annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL, related_name="participants"
    )
    status = models.CharField(max_length=16, choices=STATUSES, default=CONSENTED)
    browser_token = models.CharField(
        max_length=64, blank=True, help_text="Binds the id to one browser; empty after an admin reset."
    )
    consented_at = models.DateTimeField(auto_now_add=True)
    slot_at = models.DateTimeField(
        null=True, blank=True, help_text="When the current slot was given (on consent, or again after idling)."
    )
    ended_at = models.DateTimeField(null=True, blank=True, help_text="Completed, released, returned or excluded.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="uniq_participant_per_study"),
        ]
        indexes = [models.Index(fields=["study", "fold", "status"])]
        ordering = ["study", "consented_at", "id"]

    def __str__(self):
        return f"{self.study.slug}/{self.external_id}"
