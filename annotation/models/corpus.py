"""Corpus, questions, systems and their predictions (SPEC section 1 and 9)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.dedup import DEFAULT_POLICY, POLICIES, POLICY_TITLES
from annotation.interchange import REFERENCE


class Corpus(models.Model):
    name = models.SlugField(max_length=100, unique=True, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    dedup_policy = models.CharField(
        max_length=20,
        choices=[(p, _(POLICY_TITLES[p])) for p in POLICIES],
        default=DEFAULT_POLICY,
        verbose_name=_("dedup policy"),
    )
    guidelines = models.TextField(
        blank=True,
        help_text=_(
            "Guidelines for annotators of this corpus, in Markdown (raw HTML is shown as text). "
            "Empty: the built-in guidelines."
        ),
        verbose_name=_("guidelines"),
    )
    language = models.CharField(
        max_length=16,
        default="en",
        help_text=_(
            "Language of the corpus's questions (a code such as en or fr): set by its first import "
            "from its questions' language; the pages of annotators who chose no language and whose browser "
            "asks for none of the site's languages follow it."
        ),
        verbose_name=_("language"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("corpus")
        verbose_name_plural = _("corpora")
        ordering = ["name"]

    def __str__(self):
        return self.name

    def triplets_count(self):
        from annotation.models import Triplet

        return Triplet.objects.filter(question__corpus=self).count()


class Question(models.Model):
    """One question with its context, references and optional semantic attributes (SPEC 6)."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="questions", verbose_name=_("corpus"))
    external_id = models.CharField(max_length=200, verbose_name=_("external id"))
    # Unique in its corpus (a constraint: imports racing into one corpus cannot share a position).
    # Left empty, ``save`` gives the next free one.
    position = models.PositiveIntegerField(
        blank=True, help_text=_("Order of the question in its file."), verbose_name=_("position")
    )
    context = models.TextField(verbose_name=_("context"))
    question = models.TextField(verbose_name=_("question"))
    answers = models.JSONField(default=list, help_text=_("Reference answers."), verbose_name=_("answers"))
    language = models.CharField(max_length=16, default="en", verbose_name=_("language"))
    # Semantic attributes of SPEC section 6; null means "not annotated".
    frame = models.CharField(max_length=200, null=True, blank=True, verbose_name=_("frame"))
    lu = models.CharField(max_length=200, null=True, blank=True, verbose_name=_("lu"))
    lu_pos = models.CharField(max_length=40, null=True, blank=True, verbose_name=_("lu pos"))
    frame_elements = models.JSONField(null=True, blank=True, verbose_name=_("frame elements"))
    coref = models.BooleanField(null=True, blank=True, verbose_name=_("coref"))
    dist = models.IntegerField(null=True, blank=True, verbose_name=_("dist"))
    trigger_in_question = models.BooleanField(null=True, blank=True, verbose_name=_("trigger in question"))
    frame_freq = models.FloatField(null=True, blank=True, verbose_name=_("frame freq"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))

    class Meta:
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [
            models.UniqueConstraint(fields=["corpus", "external_id"], name="uniq_question_per_corpus"),
            models.UniqueConstraint(fields=["corpus", "position"], name="uniq_question_position"),
        ]
        ordering = ["corpus", "position"]

    def __str__(self):
        return f"{self.external_id}: {self.question[:60]}"

    def save(self, *args, **kwargs):
        if self.position is None:
            last = Question.objects.filter(corpus_id=self.corpus_id).aggregate(last=models.Max("position"))["last"]
            self.position = 0 if last is None else last + 1
        super().save(*args, **kwargs)


class System(models.Model):
    """Something that answers questions. Its name is never shown to annotators."""

    KIND_REFERENCE = REFERENCE
    KIND_IMPORTED = "imported"
    KIND_MODEL = "model"
    KINDS = [
        (KIND_REFERENCE, _("reference answers")),
        (KIND_IMPORTED, _("imported answers")),
        (KIND_MODEL, _("model run")),
    ]

    name = models.CharField(max_length=200, unique=True, verbose_name=_("name"))
    kind = models.CharField(max_length=20, choices=KINDS, default=KIND_IMPORTED, verbose_name=_("kind"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("system")
        verbose_name_plural = _("systems")
        ordering = ["name"]

    def __str__(self):
        return self.name


class Prediction(models.Model):
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="predictions", verbose_name=_("system"))
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="predictions", verbose_name=_("question")
    )
    answer = models.TextField(blank=True, verbose_name=_("answer"))
    triplet = models.ForeignKey(
        "annotation.Triplet",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="predictions",
        verbose_name=_("triplet"),
    )
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("prediction")
        verbose_name_plural = _("predictions")
        constraints = [models.UniqueConstraint(fields=["system", "question"], name="uniq_prediction_per_system")]
        indexes = [models.Index(fields=["question", "system"])]

    def __str__(self):
        return f"{self.system_id}/{self.question_id}: {self.answer[:40]}"
