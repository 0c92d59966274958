"""Crowd studies (SPEC 13): a corpus's folds opened to participants who arrive through a link from a
panel (Prolific, MTurk, a university pool), consent, get a slot on a fold and a completion code.

The rules (which fold a participant gets, when a slot is released, who is screened out) are pure
functions in ``annotation/crowd.py``; ``annotation/studies.py`` applies them to these rows.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.i18n import supported, validate_site_language


class Study(models.Model):
    # no angle brackets in a help text: the admin shows it as HTML ("/study/<slug>/" showed "/study//")
    slug = models.SlugField(
        max_length=50, unique=True, help_text=_("In the participants' link: /study/the-slug/."), verbose_name=_("slug")
    )
    title = models.CharField(max_length=200, verbose_name=_("title"))
    consent = models.TextField(
        help_text=_("Consent text shown before anything is stored, in Markdown (raw HTML shown as text)."),
        verbose_name=_("consent"),
    )
    corpus = models.ForeignKey(
        "annotation.Corpus", on_delete=models.CASCADE, related_name="studies", verbose_name=_("corpus")
    )
    folds = models.ManyToManyField(
        "annotation.Fold",
        blank=True,
        related_name="studies",
        help_text=_("The folds participants get. Empty: every answer fold of the corpus."),
        verbose_name=_("folds"),
    )
    slots_per_fold = models.PositiveIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text=_("Participants per fold."),
        verbose_name=_("slots per fold"),
    )
    max_participants = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(1_000_000)],
        help_text=_("Participants admitted in all (any status). Empty: only the slots limit."),
        verbose_name=_("max participants"),
    )
    idle_minutes = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(7 * 24 * 60)],
        help_text=_("An unfinished participant idle this long loses the slot (their labels are kept)."),
        verbose_name=_("idle minutes"),
    )
    min_gold_accuracy = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_(
            "Share of gold items right (0-1) below which a participant is stopped, after at least "
            "3 gold items. Empty: no screening."
        ),
        verbose_name=_("min gold accuracy"),
    )
    completion_code = models.CharField(
        max_length=100, help_text=_("Shown to a participant who finished."), verbose_name=_("completion code")
    )
    completion_url = models.URLField(
        max_length=500,
        blank=True,
        help_text=_(
            "Where a participant who finished goes back to, e.g. "
            "https://app.prolific.com/submissions/complete?cc=CODE; {code} is replaced by the completion code."
        ),
        verbose_name=_("completion url"),
    )
    open = models.BooleanField(
        default=False, help_text=_("Participants may enter only while the study is open."), verbose_name=_("open")
    )
    language = models.CharField(
        max_length=16,
        blank=True,
        validators=[validate_site_language],
        help_text=_(
            "Language of the participants' pages (consent, buttons, messages), whatever their browser asks; "
            "a language of the site (en or fr). Empty when saved: the corpus's language."
        ),
        verbose_name=_("language"),
    )
    # SPEC 16: close by itself once the live conclusions are settled (off by default)
    CLOSE_NEVER, CLOSE_RANKING, CLOSE_DONE = "", "ranking", "done"
    CLOSE_RULES = [
        (CLOSE_NEVER, _("never (an admin closes it)")),
        (CLOSE_RANKING, _("when the ranking of the systems is settled")),
        (CLOSE_DONE, _("when every system's estimate is as precise as the target")),
    ]
    close_when = models.CharField(
        max_length=16,
        choices=CLOSE_RULES,
        default=CLOSE_NEVER,
        blank=True,
        help_text=_(
            "Close the study by itself once the live conclusions (confidence sequences that hold however "
            "often they are watched) say so; participants in progress finish their current item."
        ),
        verbose_name=_("close by itself"),
    )
    close_width = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0001), MaxValueValidator(1.0)],
        help_text=_("The target half-width of Hscore for 'as precise as the target'. Empty: 0.02."),
        verbose_name=_("target half-width"),
    )
    tie_margin = models.FloatField(
        default=0.02,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text=_(
            "Two systems whose confidence sequences bound the difference of their Hscores within this margin "
            "are tied: the ranking counts as settled with them named as tied (SPEC 16)."
        ),
        verbose_name=_("tie margin"),
    )
    close_checked_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("close rule last asked at")
    )
    # --- SPEC 17 (issue 42): screening that respects the panel's rules -------------------------
    qualification_items = models.PositiveIntegerField(
        default=0,
        validators=[MaxValueValidator(20)],
        help_text=_(
            "The first items of every fold are this many gold items: a participant who misses two of them "
            "(or the only one) is screened out at once and paid as a screen-out. 0: no qualification block."
        ),
        verbose_name=_("qualification items"),
    )
    screenout_code = models.CharField(
        max_length=100,
        blank=True,
        help_text=_("Shown to a participant screened out by the qualification block (the panel pays it)."),
        verbose_name=_("screen-out code"),
    )
    # ------------------------------------------------------------------------------------------
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed by itself at"))

    closed_reason = models.CharField(max_length=300, blank=True, verbose_name=_("why it closed"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    # --- participants' data (SPEC 18; annotation/privacy.py, annotation/retention.py) ---
    KEEP, WITHDRAW, IDENTITY = "keep", "withdraw", "identity"
    WITHDRAW_MODES = [
        (WITHDRAW, _("delete everything of the participant (labels included)")),
        (IDENTITY, _("delete the panel ids; keep the labels under the pseudonym")),
    ]
    RETURNED_MODES = [
        (KEEP, _("keep the labels (the panel ids go with the retention period)")),
        *WITHDRAW_MODES,
    ]
    withdraw_mode = models.CharField(
        max_length=16,
        choices=WITHDRAW_MODES,
        default=WITHDRAW,
        help_text=_("What the participant's own withdraw link does."),
        verbose_name=_("withdrawal"),
    )
    returned_mode = models.CharField(
        max_length=16,
        choices=RETURNED_MODES,
        default=KEEP,
        help_text=_("What marking a participant as returned (left the study on the panel) does with their data."),
        verbose_name=_("returned"),
    )
    identifiers_days_after_close = models.PositiveIntegerField(
        default=30,
        validators=[MaxValueValidator(3650)],
        help_text=_("Days after the study closed when the panel ids are deleted (labels stay under pseudonyms)."),
        verbose_name=_("keep panel ids (days after close)"),
    )
    data_until = models.DateField(
        null=True,
        blank=True,
        help_text=_("The day after which every participant's data is deleted (empty: kept)."),
        verbose_name=_("keep data until"),
    )
    privacy_closed_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_("When retention first saw the study closed (its panel-id period counts from here)."),
        verbose_name=_("closed since"),
    )

    class Meta:
        verbose_name = _("study")
        verbose_name_plural = _("studies")
        ordering = ["-created_at"]

    def __str__(self):
        return self.slug

    def save(self, *args, **kwargs):
        if not self.language and self.corpus_id:
            self.language = supported(self.corpus.language) or settings.LANGUAGE_CODE
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "language"}
        super().save(*args, **kwargs)

    @property
    def page_language(self):
        """The site language of the participants' pages: the study's; for a row that has none (restored
        from an archive made before studies had a language), its corpus's; else the site's default."""
        if not self.language and self.corpus_id:
            return supported(self.corpus.language) or settings.LANGUAGE_CODE
        return supported(self.language) or settings.LANGUAGE_CODE


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
        (CONSENTED, _("consented (slot given, nothing labelled yet)")),
        (ACTIVE, _("active")),
        (IDLE, _("idle (slot released)")),
        (RETURNED, _("returned (left the study)")),
        (COMPLETED, _("completed")),
        (EXCLUDED, _("excluded (screened out on gold items)")),
    ]
    # SPEC 17 (issue 42): failed the qualification block at the start, paid as a screen-out
    SCREENED_OUT = "screened_out"
    STATUSES.append((SCREENED_OUT, _("screened out (qualification block)")))

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants", verbose_name=_("study"))
    external_id = models.CharField(
        max_length=100, help_text=_("PROLIFIC_PID or the panel's participant id."), verbose_name=_("external id")
    )
    panel_study = models.CharField(
        max_length=100, blank=True, help_text=_("STUDY_ID sent by the panel."), verbose_name=_("panel study")
    )
    panel_session = models.CharField(
        max_length=100, blank=True, help_text=_("SESSION_ID sent by the panel."), verbose_name=_("panel session")
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="participant", verbose_name=_("user")
    )
    fold = models.ForeignKey(
        "annotation.Fold",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="participants",
        verbose_name=_("fold"),
    )
    status = models.CharField(max_length=16, choices=STATUSES, default=CONSENTED, verbose_name=_("status"))
    browser_token = models.CharField(
        max_length=64,
        blank=True,
        help_text=_("Binds the id to one browser; empty after an admin reset."),
        verbose_name=_("browser token"),
    )
    consented_at = models.DateTimeField(auto_now_add=True, verbose_name=_("consented at"))
    slot_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the current slot was given (on consent, or again after idling)."),
        verbose_name=_("slot at"),
    )
    ended_at = models.DateTimeField(
        null=True, blank=True, help_text=_("Completed, released, returned or excluded."), verbose_name=_("ended at")
    )

    # --- participants' data (SPEC 18): the pseudonym and the consent accepted ---
    code = models.CharField(
        max_length=16,
        blank=True,
        help_text=_("The pseudonym in this study (the account is named from it; reports say A01..An)."),
        verbose_name=_("pseudonym"),
    )
    consent_version = models.ForeignKey(
        "annotation.ConsentVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,  # versions go only with their study (and its participants)
        related_name="participants",
        verbose_name=_("consent version"),
    )
    consent_language = models.CharField(max_length=16, blank=True, verbose_name=_("consent language"))

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="uniq_participant_per_study"),
            models.UniqueConstraint(
                fields=["study", "code"], condition=~models.Q(code=""), name="uniq_participant_code"
            ),
        ]
        indexes = [models.Index(fields=["study", "fold", "status"])]
        ordering = ["study", "consented_at", "id"]

    def __str__(self):
        return f"{self.study.slug}/{self.code or self.pk}"  # the admin's log keeps this: never the panel id
