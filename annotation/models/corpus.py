"""Corpus, questions, systems and their predictions (SPEC section 1 and 9)."""

from django.db import models

from annotation.dedup import DEFAULT_POLICY, POLICIES
from annotation.interchange import REFERENCE


class Corpus(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    dedup_policy = models.CharField(max_length=20, choices=[(p, p) for p in POLICIES], default=DEFAULT_POLICY)
    guidelines = models.TextField(
        blank=True,
        help_text="Guidelines for annotators of this corpus, in Markdown (raw HTML is shown as text). "
        "Empty: the built-in guidelines.",
    )
    language = models.CharField(
        max_length=16,
        default="en",
        help_text="Language of the corpus's questions (a code such as en or fr): set by its first import "
        "from its questions' language; the pages of annotators who chose no language and whose browser "
        "asks for none of the site's languages follow it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "corpora"
        ordering = ["name"]

    def __str__(self):
        return self.name

    def triplets_count(self):
        from annotation.models import Triplet

        return Triplet.objects.filter(question__corpus=self).count()


class Question(models.Model):
    """One question with its context, references and optional semantic attributes (SPEC 6)."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="questions")
    external_id = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0, help_text="Order of the question in its file.")
    context = models.TextField()
    question = models.TextField()
    answers = models.JSONField(default=list, help_text="Reference answers.")
    language = models.CharField(max_length=16, default="en")
    # Semantic attributes of SPEC section 6; null means "not annotated".
    frame = models.CharField(max_length=200, null=True, blank=True)
    lu = models.CharField(max_length=200, null=True, blank=True)
    lu_pos = models.CharField(max_length=40, null=True, blank=True)
    frame_elements = models.JSONField(null=True, blank=True)
    coref = models.BooleanField(null=True, blank=True)
    dist = models.IntegerField(null=True, blank=True)
    trigger_in_question = models.BooleanField(null=True, blank=True)
    frame_freq = models.FloatField(null=True, blank=True)
    meta = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["corpus", "external_id"], name="uniq_question_per_corpus")]
        ordering = ["corpus", "position"]

    def __str__(self):
        return f"{self.external_id}: {self.question[:60]}"


class System(models.Model):
    """Something that answers questions. Its name is never shown to annotators."""

    KIND_REFERENCE = REFERENCE
    KIND_IMPORTED = "imported"
    KIND_MODEL = "model"
    KINDS = [(KIND_REFERENCE, "reference answers"), (KIND_IMPORTED, "imported answers"), (KIND_MODEL, "model run")]

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=KINDS, default=KIND_IMPORTED)
    description = models.TextField(blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Prediction(models.Model):
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="predictions")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="predictions")
    answer = models.TextField(blank=True)
    triplet = models.ForeignKey(
        "annotation.Triplet", null=True, blank=True, on_delete=models.SET_NULL, related_name="predictions"
    )
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["system", "question"], name="uniq_prediction_per_system")]
        indexes = [models.Index(fields=["question", "system"])]

    def __str__(self):
        return f"{self.system_id}/{self.question_id}: {self.answer[:40]}"
