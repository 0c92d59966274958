"""One row per inference run, one per request sent to a chat LLM, and the automatic judges (SPEC 10)
with their runs and labels."""

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.labels import LABEL_VALUES


class InferenceRun(models.Model):
    """A run of a backend over a corpus, writing the predictions of ``system``. Its ``job`` holds the
    status, progress and errors; this row holds what is needed to know what produced the answers."""

    job = models.OneToOneField("core.Job", on_delete=models.CASCADE, related_name="inference_run")
    system = models.ForeignKey("annotation.System", on_delete=models.CASCADE, related_name="inference_runs")
    corpus = models.ForeignKey("annotation.Corpus", on_delete=models.CASCADE, related_name="inference_runs")
    backend = models.CharField(max_length=40)
    model_path = models.CharField(max_length=1000, blank=True)
    revision = models.CharField(max_length=200, blank=True, help_text="Hub commit of the weights, or a hash of them.")
    prompt_template = models.TextField(blank=True)
    parameters = models.JSONField(default=dict, blank=True, help_text="Backend options as requested.")
    device = models.CharField(max_length=40, blank=True, help_text="Requested (auto/cpu/cuda), then the one used.")
    batch_size = models.PositiveIntegerField(default=8)
    queue = models.CharField(max_length=40, blank=True)
    questions_total = models.PositiveIntegerField(default=0)
    questions_done = models.PositiveIntegerField(default=0, help_text="Predictions written by this run (all attempts).")
    skipped_existing = models.PositiveIntegerField(default=0, help_text="Questions the system had answered already.")
    duration_s = models.FloatField(default=0.0, help_text="Time spent answering, summed over attempts.")
    throughput_qps = models.FloatField(null=True, blank=True, help_text="questions_done / duration_s.")
    created_at = models.DateTimeField(auto_now_add=True)

    # What produced the answers and how the run went, shown read-only by the admin and the API.
    RECORD_FIELDS = (
        "model_path",
        "revision",
        "prompt_template",
        "parameters",
        "device",
        "batch_size",
        "queue",
        "questions_total",
        "questions_done",
        "skipped_existing",
        "duration_s",
        "throughput_qps",
    )

    class Meta:
        verbose_name = _("inference run")
        verbose_name_plural = _("inference runs")
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"run {self.pk}: {self.backend} -> {self.system} on {self.corpus}"


class LLMExchange(models.Model):
    """One chat request to an OpenAI-compatible API and its reply (or error), retries included."""

    OK, ERROR = "ok", "error"

    run = models.ForeignKey(InferenceRun, null=True, blank=True, on_delete=models.CASCADE, related_name="exchanges")
    question = models.ForeignKey(
        "annotation.Question", null=True, blank=True, on_delete=models.SET_NULL, related_name="llm_exchanges"
    )
    purpose = models.CharField(max_length=60, blank=True, help_text="answer, frame_selection, frame_elements, ...")
    base_url = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=200)
    messages = models.JSONField(default=list)
    params = models.JSONField(default=dict, blank=True)
    reply = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=[(OK, OK), (ERROR, ERROR)])
    http_status = models.PositiveIntegerField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=1)
    latency_s = models.FloatField(null=True, blank=True, help_text="Seconds from first try to reply, waits included.")
    error = models.TextField(blank=True, help_text="Errors of failed attempts, one a line.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("LLM exchange")
        verbose_name_plural = _("LLM exchanges")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["purpose", "created_at"])]

    def __str__(self):
        return f"{self.purpose or 'chat'} {self.model} ({self.status})"


class Judge(models.Model):
    """An automatic judge: an LLM behind an OpenAI-compatible API (``kind`` llm: ``prompt`` and
    ``parameters``), or the author of an imported judge-labels file (``kind`` file). Its labels are
    ``JudgeLabel`` rows, never ``annotation.Label``: they never count as human (SPEC 10)."""

    LLM, FILE = "llm", "file"

    name = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(
        max_length=10,
        choices=[(LLM, "LLM through an OpenAI-compatible API"), (FILE, "imported judge-labels file")],
        default=LLM,
    )
    prompt = models.TextField(
        blank=True,
        help_text="Chat prompt with {context}, {question} and {answer}; see models_runner.judging.DEFAULT_PROMPT.",
    )
    parameters = models.JSONField(
        default=dict, blank=True, help_text="model, base_url, api_key_env, requests_per_minute, max_retries, ..."
    )
    description = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("automatic judge")
        verbose_name_plural = _("automatic judges")
        ordering = ["name"]

    def __str__(self):
        return self.name


class JudgeRun(models.Model):
    """A run of an LLM judge over the triplets of a corpus. Its ``job`` holds status, progress and
    errors (a resumable job, like an inference run)."""

    job = models.OneToOneField("core.Job", on_delete=models.CASCADE, related_name="judge_run")
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="runs")
    corpus = models.ForeignKey("annotation.Corpus", on_delete=models.CASCADE, related_name="judge_runs")
    prompt = models.TextField(blank=True, help_text="The prompt the run used (the judge's, at start).")
    batch_size = models.PositiveIntegerField(default=8)
    triplets_total = models.PositiveIntegerField(default=0)
    triplets_done = models.PositiveIntegerField(default=0, help_text="Judge labels written by this run (all attempts).")
    unparsed = models.PositiveIntegerField(default=0, help_text="Replies that named no label.")
    duration_s = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("judge run")
        verbose_name_plural = _("judge runs")
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"judge run {self.pk}: {self.judge} on {self.corpus}"


class JudgeLabel(models.Model):
    """The judge's label of one triplet (null when its reply named none: kept, with the exchange)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="labels")
    triplet = models.ForeignKey("annotation.Triplet", on_delete=models.CASCADE, related_name="judge_labels")
    value = models.CharField(max_length=16, null=True, blank=True, choices=[(v, v) for v in LABEL_VALUES])
    run = models.ForeignKey(JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="labels")
    exchange = models.ForeignKey(LLMExchange, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=10, default="llm", help_text="llm or import.")
    probs = models.JSONField(
        null=True,
        blank=True,
        help_text="The judge's distribution {correct, partial, incorrect} (SPEC 12): from the label token's "
        "log-probabilities or the file's probs; null = one-hot on the label.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("judge label")
        verbose_name_plural = _("judge labels")
        constraints = [models.UniqueConstraint(fields=["judge", "triplet"], name="uniq_judge_label")]

    def __str__(self):
        return f"{self.judge_id} {self.triplet_id} {self.value or '?'}"


class LLMEndpoint(models.Model):
    """An OpenAI-compatible server the platform may call (frame prediction, LLM judges, the OpenAI
    backend), kept by admins in the admin. Never the key itself: the name of the environment variable
    of the web and worker processes that holds it. ``models_runner.endpoints.client_settings`` is the
    one place that turns a name into client settings."""

    name = models.CharField(max_length=100, unique=True, help_text="What forms and settings call it (endpoint).")
    base_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="e.g. http://127.0.0.1:8001/v1; empty: api.openai.com (or OPENAI_BASE_URL)",
    )
    model = models.CharField(max_length=200, help_text="The model name the server expects (used when none is given).")
    api_key_env = models.CharField(
        max_length=100,
        default="OPENAI_API_KEY",
        validators=[RegexValidator(r"^[A-Za-z_][A-Za-z0-9_]*$", "a variable name: letters, digits and _")],
        help_text="Name of the environment variable holding the API key (the key is never stored here).",
    )
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        verbose_name = _("LLM endpoint")
        verbose_name_plural = _("LLM endpoints")
        ordering = ["name"]

    def __str__(self):
        return f"{self.name} ({self.model} at {self.base_url or 'api.openai.com'})"

    def clean(self):
        """Only a variable made for an LLM key (``models_runner.endpoints.key_env_problem``)."""
        from models_runner.endpoints import KeyVariableError, check_key_env

        try:
            check_key_env(self.api_key_env)
        except KeyVariableError as exc:
            raise ValidationError({"api_key_env": str(exc)}) from None
