"""FrameNet lexicons, LLM frame predictions for questions, and annotators' checks of them (SPEC 8).

The tables keep the names they had when these models lived in ``annotation`` (``annotation_*``):
``frames.0001_initial`` moved the models without moving data.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.label_titles import FRAME_CHECK_TITLES
from annotation.models.judgement import Judgement, JudgementEvent
from frames import outcomes
from stats.labels import FRAME_CHECK_VALUES


class FrameLexicon(models.Model):
    name = models.SlugField(max_length=100, unique=True, verbose_name=_("name"))
    source_path = models.CharField(max_length=500, blank=True, verbose_name=_("source path"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("notes"))
    imported_at = models.DateTimeField(auto_now_add=True, verbose_name=_("imported at"))

    class Meta:
        verbose_name = _("FrameNet lexicon")
        verbose_name_plural = _("FrameNet lexicons")
        db_table = "annotation_framelexicon"

    def __str__(self):
        return self.name


class FrameDef(models.Model):
    lexicon = models.ForeignKey(
        FrameLexicon, on_delete=models.CASCADE, related_name="frames", verbose_name=_("lexicon")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    fn_id = models.IntegerField(null=True, blank=True, verbose_name=_("FrameNet id"))
    definition = models.TextField(blank=True, verbose_name=_("definition"))

    class Meta:
        verbose_name = _("frame")
        verbose_name_plural = _("frames")
        db_table = "annotation_framedef"
        constraints = [models.UniqueConstraint(fields=["lexicon", "name"], name="uniq_frame_per_lexicon")]
        ordering = ["lexicon", "name"]

    def __str__(self):
        return self.name


class FrameElementDef(models.Model):
    frame = models.ForeignKey(FrameDef, on_delete=models.CASCADE, related_name="elements", verbose_name=_("frame"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    core_type = models.CharField(max_length=40, blank=True, verbose_name=_("core type"))
    definition = models.TextField(blank=True, verbose_name=_("definition"))

    class Meta:
        verbose_name = _("frame element")
        verbose_name_plural = _("frame elements")
        db_table = "annotation_frameelementdef"
        constraints = [models.UniqueConstraint(fields=["frame", "name"], name="uniq_fe_per_frame")]

    def __str__(self):
        return self.name


class LexicalUnitDef(models.Model):
    frame = models.ForeignKey(FrameDef, on_delete=models.CASCADE, related_name="lexical_units", verbose_name=_("frame"))
    name = models.CharField(max_length=200, help_text=_("e.g. attack.v"), verbose_name=_("name"))
    pos = models.CharField(max_length=20, blank=True, verbose_name=_("part of speech"))
    fn_id = models.IntegerField(null=True, blank=True, verbose_name=_("FrameNet id"))

    class Meta:
        verbose_name = _("lexical unit")
        verbose_name_plural = _("lexical units")
        db_table = "annotation_lexicalunitdef"
        constraints = [models.UniqueConstraint(fields=["frame", "name"], name="uniq_lu_per_frame")]

    def __str__(self):
        return self.name


class FrameAnnotation(models.Model):
    """The outcome of the frame proxy for one question (trigger candidates, LLM frame, LLM FEs)."""

    NO_TRIGGER, UNKNOWN_FRAME, BAD_OUTPUT, DONE, ERROR = outcomes.ALL_OUTCOMES
    OUTCOMES = [(o, _(outcomes.OUTCOME_TEXT[o])) for o in outcomes.ALL_OUTCOMES]  # marked in outcomes

    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="frame_annotations", verbose_name=_("question")
    )
    lexicon = models.ForeignKey(
        FrameLexicon, on_delete=models.CASCADE, related_name="annotations", verbose_name=_("lexicon")
    )
    job = models.ForeignKey("core.Job", null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("job"))
    outcome = models.CharField(max_length=20, choices=OUTCOMES, verbose_name=_("outcome"))
    candidates = models.JSONField(
        default=list, blank=True, help_text=_("[[frame, word], ...]"), verbose_name=_("candidates")
    )
    frame = models.ForeignKey(FrameDef, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("frame"))
    frame_name = models.CharField(
        max_length=200, blank=True, help_text=_("As the LLM named it."), verbose_name=_("frame name")
    )
    trigger = models.CharField(max_length=200, blank=True, verbose_name=_("trigger"))
    lu = models.CharField(max_length=200, blank=True, verbose_name=_("lexical unit"))
    frame_elements = models.JSONField(
        default=dict, blank=True, help_text=_("FE name -> text span"), verbose_name=_("frame elements")
    )
    frame_prompt = models.TextField(blank=True, verbose_name=_("frame prompt"))
    frame_reply = models.TextField(blank=True, verbose_name=_("frame reply"))
    fe_prompt = models.TextField(blank=True, verbose_name=_("FE prompt"))
    fe_reply = models.TextField(blank=True, verbose_name=_("FE reply"))
    model = models.CharField(max_length=200, blank=True, verbose_name=_("model"))
    meta = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Parsing notes: dropped FEs, replaced words, the reason of a bad outcome."),
        verbose_name=_("notes"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("frame prediction")
        verbose_name_plural = _("frame predictions")
        db_table = "annotation_frameannotation"
        constraints = [
            models.UniqueConstraint(fields=["question", "lexicon"], name="uniq_frame_annotation_per_question")
        ]

    def __str__(self):
        return f"{self.question_id}: {self.outcome} {self.frame_name}"


class HumanCheck(Judgement):
    """What every kind of human check keeps (``frames.human_checks``): one row per item and annotator
    holding the latest verdict (the concrete model's fields), with the fields of every judgement
    (``annotation.models.judgement.Judgement``: the fold, skipped, the time spent)."""

    class Meta:
        abstract = True


class HumanCheckEvent(JudgementEvent):
    """Every submission of a human check: its verdict fields, with those of every judgement event
    (``annotation.models.judgement.JudgementEvent``: skipped, time, the client's id)."""

    class Meta:
        abstract = True


def one_per_annotator(item, name):
    """The unique constraint of a human check: one judgement row per item and annotator."""
    return models.UniqueConstraint(fields=[item, "annotator"], name=name)


class FrameCheck(HumanCheck):
    """An annotator's rating of one frame annotation: frame and FEs, each full/partial/erroneous."""

    frame_annotation = models.ForeignKey(
        FrameAnnotation, on_delete=models.CASCADE, related_name="checks", verbose_name=_("frame annotation")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="frame_checks", verbose_name=_("annotator")
    )
    frame_rating = models.CharField(
        max_length=16,
        choices=[(v, FRAME_CHECK_TITLES[v]) for v in FRAME_CHECK_VALUES],
        null=True,
        blank=True,
        verbose_name=_("frame rating"),
    )
    fe_rating = models.CharField(
        max_length=16,
        choices=[(v, FRAME_CHECK_TITLES[v]) for v in FRAME_CHECK_VALUES],
        null=True,
        blank=True,
        verbose_name=_("FE rating"),
    )

    class Meta:
        verbose_name, verbose_name_plural = _("frame check"), _("frame checks")
        db_table = "annotation_framecheck"
        constraints = [one_per_annotator("frame_annotation", "uniq_frame_check_per_annotator")]

    def __str__(self):
        ratings = (
            gettext("skipped")
            if self.skipped
            else gettext("frame %(frame)s, FEs %(fes)s")
            % {
                "frame": FRAME_CHECK_TITLES.get(self.frame_rating, "—"),
                "fes": FRAME_CHECK_TITLES.get(self.fe_rating, "—"),
            }
        )
        return gettext("prediction %(prediction)s by annotator %(annotator)s: %(ratings)s") % {
            "prediction": self.frame_annotation_id,
            "annotator": self.annotator_id,
            "ratings": ratings,
        }


class FrameCheckEvent(HumanCheckEvent):
    frame_check = models.ForeignKey(
        FrameCheck, on_delete=models.CASCADE, related_name="events", verbose_name=_("frame check")
    )
    frame_rating = models.CharField(max_length=16, null=True, blank=True, verbose_name=_("frame rating"))
    fe_rating = models.CharField(max_length=16, null=True, blank=True, verbose_name=_("FE rating"))

    class Meta:
        verbose_name = _("frame check event")
        verbose_name_plural = _("frame check events")
        db_table = "annotation_framecheckevent"
        ordering = ["frame_check", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["frame_check", "submission_id"], name="uniq_frame_check_event_submission")
        ]

    def __str__(self):
        ratings = "skipped" if self.skipped else f"frame {self.frame_rating}, FEs {self.fe_rating}"
        return f"frame check {self.frame_check_id}: {ratings}"


# Attribute checks (SPEC 15, issue 26 point 4): a human confirms or corrects the derived context trigger
# and the distance class of a question (meta.derivation).
TRIGGER_CORRECT, TRIGGER_OTHER, TRIGGER_ABSENT = "correct", "other", "absent"
TRIGGER_VERDICTS = (TRIGGER_CORRECT, TRIGGER_OTHER, TRIGGER_ABSENT)
DIST_ONE, DIST_MORE = "1", "2+"
DIST_CLASSES = (DIST_ONE, DIST_MORE)
TRIGGER_TITLES = {
    TRIGGER_CORRECT: _("correct"),
    TRIGGER_OTHER: _("another word of the passage"),
    TRIGGER_ABSENT: _("absent from the passage"),
}
DIST_TITLES = {DIST_ONE: _("1 arc"), DIST_MORE: _("2 arcs or more")}


class AttributeCheck(HumanCheck):
    """An annotator's verdict on one question's derived attributes: the context trigger (correct, another
    word at ``trigger_start``..``trigger_end`` of the context, or absent from the passage) and the
    distance class between trigger and answer (1 arc, or 2 or more)."""

    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="attribute_checks", verbose_name=_("question")
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attribute_checks", verbose_name=_("annotator")
    )
    trigger_verdict = models.CharField(
        max_length=8,
        choices=[(v, TRIGGER_TITLES[v]) for v in TRIGGER_VERDICTS],
        null=True,
        blank=True,
        verbose_name=_("trigger verdict"),
    )
    trigger_start = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("trigger start"))
    trigger_end = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("trigger end"))
    dist_class = models.CharField(
        max_length=2,
        choices=[(v, DIST_TITLES[v]) for v in DIST_CLASSES],
        null=True,
        blank=True,
        verbose_name=_("dist class"),
    )

    class Meta:
        verbose_name, verbose_name_plural = _("attribute check"), _("attribute checks")
        constraints = [one_per_annotator("question", "uniq_attribute_check_per_annotator")]

    def __str__(self):
        verdict = "skipped" if self.skipped else f"trigger {self.trigger_verdict}, dist {self.dist_class}"
        return f"{self.annotator_id} {self.question_id} {verdict}"


class AttributeCheckEvent(HumanCheckEvent):
    attribute_check = models.ForeignKey(
        AttributeCheck, on_delete=models.CASCADE, related_name="events", verbose_name=_("attribute check")
    )
    trigger_verdict = models.CharField(max_length=8, null=True, blank=True, verbose_name=_("trigger verdict"))
    trigger_start = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("trigger start"))
    trigger_end = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("trigger end"))
    dist_class = models.CharField(max_length=2, null=True, blank=True, verbose_name=_("dist class"))

    class Meta:
        verbose_name = _("attribute check event")
        verbose_name_plural = _("attribute check events")
        ordering = ["attribute_check", "created_at", "id"]

    def __str__(self):
        return f"{self.attribute_check_id} {'skipped' if self.skipped else self.trigger_verdict} {self.created_at}"
