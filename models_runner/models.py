"""One row per inference run, one per request sent to a chat LLM, and the automatic judges (SPEC 10)
with their runs and labels."""

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.label_titles import LABEL_TITLES
from stats.labels import LABEL_VALUES


class InferenceRun(models.Model):
    """A run of a backend over a corpus, writing the predictions of ``system``. Its ``job`` holds the
    status, progress and errors; this row holds what is needed to know what produced the answers."""

    job = models.OneToOneField(
        "core.Job", on_delete=models.CASCADE, related_name="inference_run", verbose_name=_("job")
    )
    system = models.ForeignKey(
        "annotation.System", on_delete=models.CASCADE, related_name="inference_runs", verbose_name=_("system")
    )
    corpus = models.ForeignKey(
        "annotation.Corpus", on_delete=models.CASCADE, related_name="inference_runs", verbose_name=_("corpus")
    )
    backend = models.CharField(max_length=40, verbose_name=_("backend"))
    model_path = models.CharField(max_length=1000, blank=True, verbose_name=_("model path"))
    revision = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("Hub commit of the weights, or a hash of them."),
        verbose_name=_("revision"),
    )
    prompt_template = models.TextField(blank=True, verbose_name=_("prompt template"))
    parameters = models.JSONField(
        default=dict, blank=True, help_text=_("Backend options as requested."), verbose_name=_("parameters")
    )
    device = models.CharField(
        max_length=40,
        blank=True,
        help_text=_("Requested (auto/cpu/cuda), then the one used."),
        verbose_name=_("device"),
    )
    batch_size = models.PositiveIntegerField(default=8, verbose_name=_("batch size"))
    queue = models.CharField(max_length=40, blank=True, verbose_name=_("queue"))
    questions_total = models.PositiveIntegerField(default=0, verbose_name=_("questions total"))
    questions_done = models.PositiveIntegerField(
        default=0, help_text=_("Predictions written by this run (all attempts)."), verbose_name=_("questions done")
    )
    skipped_existing = models.PositiveIntegerField(
        default=0, help_text=_("Questions the system had answered already."), verbose_name=_("skipped existing")
    )
    duration_s = models.FloatField(
        default=0.0, help_text=_("Time spent answering, summed over attempts."), verbose_name=_("duration (s)")
    )
    throughput_qps = models.FloatField(
        null=True,
        blank=True,
        help_text=_("Questions done divided by the duration."),
        verbose_name=_("throughput (questions/s)"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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
        return gettext("run %(pk)s: %(backend)s -> %(system)s on %(corpus)s") % {
            "pk": self.pk,
            "backend": self.backend,
            "system": self.system,
            "corpus": self.corpus,
        }


class LLMExchange(models.Model):
    """One chat request to an OpenAI-compatible API and its reply (or error), retries included."""

    OK, ERROR = "ok", "error"

    run = models.ForeignKey(
        InferenceRun, null=True, blank=True, on_delete=models.CASCADE, related_name="exchanges", verbose_name=_("run")
    )
    question = models.ForeignKey(
        "annotation.Question",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="llm_exchanges",
        verbose_name=_("question"),
    )
    purpose = models.CharField(
        max_length=60,
        blank=True,
        help_text=_("answer, frame_selection, frame_elements, ..."),
        verbose_name=_("purpose"),
    )
    base_url = models.CharField(max_length=500, blank=True, verbose_name=_("base URL"))
    model = models.CharField(max_length=200, verbose_name=_("model"))
    messages = models.JSONField(default=list, verbose_name=_("messages"))
    params = models.JSONField(default=dict, blank=True, verbose_name=_("parameters"))
    reply = models.TextField(blank=True, verbose_name=_("reply"))
    status = models.CharField(max_length=10, choices=[(OK, _("ok")), (ERROR, _("error"))], verbose_name=_("status"))
    http_status = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("HTTP status"))
    attempts = models.PositiveIntegerField(default=1, verbose_name=_("attempts"))
    latency_s = models.FloatField(
        null=True,
        blank=True,
        help_text=_("Seconds from first try to reply, waits included."),
        verbose_name=_("latency (s)"),
    )
    error = models.TextField(blank=True, help_text=_("Errors of failed attempts, one a line."), verbose_name=_("error"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("LLM exchange")
        verbose_name_plural = _("LLM exchanges")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["purpose", "created_at"])]

    def __str__(self):
        return f"{self.purpose or 'chat'} {self.model} ({self.get_status_display()})"


class Judge(models.Model):
    """An automatic judge: an LLM behind an OpenAI-compatible API (``kind`` llm: ``prompt`` and
    ``parameters``), or the author of an imported judge-labels file (``kind`` file). Its labels are
    ``JudgeLabel`` rows, never ``annotation.Label``: they never count as human (SPEC 10)."""

    LLM, FILE = "llm", "file"

    name = models.SlugField(max_length=100, unique=True, verbose_name=_("name"))
    kind = models.CharField(
        max_length=10,
        choices=[(LLM, _("LLM through an OpenAI-compatible API")), (FILE, _("imported judge-labels file"))],
        default=LLM,
        verbose_name=_("kind"),
    )
    prompt = models.TextField(
        blank=True,
        help_text=_("Chat prompt with {context}, {question} and {answer}; see models_runner.judging.DEFAULT_PROMPT."),
        verbose_name=_("prompt"),
    )
    parameters = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("model, base_url, api_key_env, requests_per_minute, max_retries, ..."),
        verbose_name=_("parameters"),
    )
    description = models.CharField(max_length=300, blank=True, verbose_name=_("description"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("automatic judge")
        verbose_name_plural = _("automatic judges")
        ordering = ["name"]

    def __str__(self):
        return self.name


class JudgeRun(models.Model):
    """A run of an LLM judge over the triplets of a corpus. Its ``job`` holds status, progress and
    errors (a resumable job, like an inference run)."""

    job = models.OneToOneField("core.Job", on_delete=models.CASCADE, related_name="judge_run", verbose_name=_("job"))
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="runs", verbose_name=_("judge"))
    corpus = models.ForeignKey(
        "annotation.Corpus", on_delete=models.CASCADE, related_name="judge_runs", verbose_name=_("corpus")
    )
    prompt = models.TextField(
        blank=True, help_text=_("The prompt the run used (the judge's, at start)."), verbose_name=_("prompt")
    )
    batch_size = models.PositiveIntegerField(default=8, verbose_name=_("batch size"))
    triplets_total = models.PositiveIntegerField(default=0, verbose_name=_("triplets total"))
    triplets_done = models.PositiveIntegerField(
        default=0, help_text=_("Judge labels written by this run (all attempts)."), verbose_name=_("triplets done")
    )
    unparsed = models.PositiveIntegerField(
        default=0, help_text=_("Replies that named no label."), verbose_name=_("unparsed")
    )
    duration_s = models.FloatField(default=0.0, verbose_name=_("duration (s)"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("judge run")
        verbose_name_plural = _("judge runs")
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return gettext("judge run %(pk)s: %(judge)s on %(corpus)s") % {
            "pk": self.pk,
            "judge": self.judge,
            "corpus": self.corpus,
        }


class JudgeLabel(models.Model):
    """The judge's label of one triplet (null when its reply named none: kept, with the exchange)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="labels", verbose_name=_("judge"))
    triplet = models.ForeignKey(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="judge_labels", verbose_name=_("triplet")
    )
    value = models.CharField(
        max_length=16,
        null=True,
        blank=True,
        choices=[(v, LABEL_TITLES[v]) for v in LABEL_VALUES],
        verbose_name=_("value"),
    )
    run = models.ForeignKey(
        JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="labels", verbose_name=_("run")
    )
    exchange = models.ForeignKey(
        LLMExchange, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("exchange")
    )
    source = models.CharField(max_length=10, default="llm", help_text=_("llm or import."), verbose_name=_("source"))
    probs = models.JSONField(
        null=True,
        blank=True,
        help_text=_(
            "The judge's distribution {correct, partial, incorrect} (SPEC 12): from the label token's "
            "log-probabilities or the file's probs; null = one-hot on the label."
        ),
        verbose_name=_("probabilities"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("judge label")
        verbose_name_plural = _("judge labels")
        constraints = [models.UniqueConstraint(fields=["judge", "triplet"], name="uniq_judge_label")]

    def __str__(self):
        value = LABEL_TITLES.get(self.value, self.value) if self.value else "?"
        return gettext("judge %(judge)s, triplet %(triplet)s: %(value)s") % {
            "judge": self.judge_id,
            "triplet": self.triplet_id,
            "value": value,
        }


class LLMEndpoint(models.Model):
    """An OpenAI-compatible server the platform may call (frame prediction, LLM judges, the OpenAI
    backend), kept by admins in the admin. Never the key itself: the name of the environment variable
    of the web and worker processes that holds it. ``models_runner.endpoints.client_settings`` is the
    one place that turns a name into client settings."""

    name = models.CharField(
        max_length=100, unique=True, help_text=_("What forms and settings call it (endpoint)."), verbose_name=_("name")
    )
    base_url = models.URLField(
        max_length=500,
        blank=True,
        help_text=_("e.g. http://127.0.0.1:8001/v1; empty: api.openai.com (or OPENAI_BASE_URL)"),
        verbose_name=_("base URL"),
    )
    model = models.CharField(
        max_length=200,
        help_text=_("The model name the server expects (used when none is given)."),
        verbose_name=_("model"),
    )
    api_key_env = models.CharField(
        max_length=100,
        default="OPENAI_API_KEY",
        validators=[RegexValidator(r"^[A-Za-z_][A-Za-z0-9_]*$", _("a variable name: letters, digits and _"))],
        help_text=_("Name of the environment variable holding the API key (the key is never stored here)."),
        verbose_name=_("API key variable"),
    )
    note = models.CharField(max_length=300, blank=True, verbose_name=_("note"))

    class Meta:
        verbose_name = _("LLM endpoint")
        verbose_name_plural = _("LLM endpoints")
        ordering = ["name"]

    def __str__(self):
        return gettext("%(name)s (%(model)s at %(url)s)") % {
            "name": self.name,
            "model": self.model,
            "url": self.base_url or "api.openai.com",
        }

    def clean(self):
        """Only a variable made for an LLM key (``models_runner.endpoints.key_env_problem``)."""
        from models_runner.endpoints import KeyVariableError, check_key_env

        try:
            check_key_env(self.api_key_env)
        except KeyVariableError as exc:
            raise ValidationError({"api_key_env": str(exc)}) from None
