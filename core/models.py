"""The platform's shared models: one row for every background job (import, triplets, inference,
report, frames, judge), and one for every Celery worker seen alive.

Both were ``annotation`` models; their tables keep the names they had (``annotation_job``,
``annotation_workerbeat``): the move changed no row (``core/migrations/0001_initial.py``)."""

import re

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import job_kinds

_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\\/\s:'\"]+)+[\\/]([^\\/\s:'\"]+)")


def without_paths(text):
    """``text`` with every server path reduced to its file name.

    >>> without_paths("/srv/app/var/uploads/x1-corpus.jsonl:3: bad"), without_paths("squad")
    ('x1-corpus.jsonl:3: bad', 'squad')
    """
    return _PATH.sub(r"\1", text)


def _map_strings(value, f, drop=frozenset()):
    """``value`` with ``f`` applied to every string and the keys in ``drop`` left out, at any depth."""
    if isinstance(value, str):
        return f(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, f, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [_map_strings(v, f, drop) for v in value]
    return value


# Parameters only admins read, at any depth: where an LLM job (frames, judge, model run) sends its
# questions and which key variable it uses.
ADMIN_ONLY_PARAMS = frozenset({"endpoint", "base_url", "api_key_env"})
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"]+", re.IGNORECASE)
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")  # an environment variable's name: OPENAI_API_KEY
_ENDPOINT = re.compile(r"(LLM endpoint named) '[^']*'")


def admin_only_values(value, found=None):
    """The strings held under ``ADMIN_ONLY_PARAMS`` keys in ``value``, at any depth."""
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ADMIN_ONLY_PARAMS and isinstance(item, str) and item.strip():
                found.add(item)
            admin_only_values(item, found)
    elif isinstance(value, list):
        for item in value:
            admin_only_values(item, found)
    return found


def without_llm_settings(text, hidden=()):
    """``text`` without what only admins read of an LLM server: its address (any URL), the key
    variable's name, an endpoint's name, and each string of ``hidden`` (a job's admin-only values).

    >>> without_llm_settings("no API key: set the environment variable LLM_KEY_LAB")
    'no API key: set the environment variable [key variable]'
    >>> without_llm_settings("APIConnectionError: http://10.0.0.7:8000/v1 refused", hidden=["lab"])
    'APIConnectionError: [LLM server] refused'
    >>> without_llm_settings("no LLM endpoint named 'lab' (add it)")
    'no LLM endpoint named [endpoint] (add it)'
    """
    for value in sorted(hidden, key=len, reverse=True):
        if len(value) >= 3:  # a one-letter name would blank letters of every word
            text = text.replace(value, "[hidden]")
    text = _URL.sub("[LLM server]", text)
    text = _ENDPOINT.sub(r"\1 [endpoint]", text)
    return _VARIABLE.sub("[key variable]", text)


class Job(models.Model):
    CREATED, RUNNING, SUCCEEDED, FAILED, CANCELLED = "created", "running", "succeeded", "failed", "cancelled"
    STATUSES = [
        (CREATED, _("created")),
        (RUNNING, _("running")),
        (SUCCEEDED, _("succeeded")),
        (FAILED, _("failed")),
        (CANCELLED, _("cancelled")),
    ]
    FINISHED = (SUCCEEDED, FAILED, CANCELLED)

    kind = models.CharField(max_length=40, verbose_name=_("kind"))
    status = models.CharField(max_length=20, choices=STATUSES, default=CREATED, db_index=True, verbose_name=_("status"))
    params = models.JSONField(default=dict, blank=True, verbose_name=_("params"))
    result = models.JSONField(default=dict, blank=True, verbose_name=_("result"))
    progress_done = models.PositiveIntegerField(default=0, verbose_name=_("progress done"))
    progress_total = models.PositiveIntegerField(default=0, verbose_name=_("progress total"))
    message = models.CharField(max_length=500, blank=True, verbose_name=_("message"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    cancel_requested = models.BooleanField(default=False, verbose_name=_("cancel requested"))
    celery_task_id = models.CharField(max_length=100, blank=True, verbose_name=_("celery task id"))
    worker = models.CharField(max_length=200, blank=True, verbose_name=_("worker"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("created by")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    heartbeat_at = models.DateTimeField(null=True, blank=True, verbose_name=_("heartbeat at"))
    resumable = models.BooleanField(
        default=False,
        help_text=_("A redelivered task may pick this job up again after its worker died."),
        verbose_name=_("resumable"),
    )
    attempts = models.PositiveIntegerField(default=0, verbose_name=_("attempts"))
    # What ``core.runner.enqueue`` sent, so that ``core.reaper.resend_lost_jobs`` can send it again
    # when the broker lost the message before any worker took it.
    task_name = models.CharField(max_length=200, blank=True, verbose_name=_("task name"))
    task_options = models.JSONField(default=dict, blank=True, verbose_name=_("task options"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    resends = models.PositiveIntegerField(
        default=0, help_text=_("Times the task was sent again, never taken by a worker."), verbose_name=_("resends")
    )

    class Meta:
        verbose_name = _("job")
        verbose_name_plural = _("jobs")
        db_table = "annotation_job"
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return gettext("Job %(pk)s: %(kind)s (%(status)s)") % {
            "pk": self.pk,
            "kind": self.kind_title,
            "status": self.get_status_display(),
        }

    @property
    def kind_title(self):
        """The kind in the reader's language (``core.job_kinds``); the row keeps the English key."""
        return job_kinds.kind_title(self.kind)

    @property
    def message_text(self):
        """The progress message in the reader's language; the row keeps it as the worker wrote it."""
        return job_kinds.message_text(self.message)

    @property
    def percent(self):
        if not self.progress_total:
            return 100 if self.status == self.SUCCEEDED else 0
        return min(100, round(100 * self.progress_done / self.progress_total))

    @property
    def progress_text(self):
        """ "done / total" when the total is known, else only what is done (never "1057 / 0")."""
        if self.progress_total:
            return f"{self.progress_done} / {self.progress_total}"
        if self.progress_done:
            return gettext("%(n)s done") % {"n": self.progress_done}
        return gettext("not started") if self.status == self.CREATED else "—"

    @property
    def error_summary(self):
        """The last non-empty line of the error (the exception message), for lists."""
        lines = [line.strip() for line in self.error.splitlines() if line.strip()]
        return lines[-1][:200] if lines else ""

    @property
    def stalled(self):
        """Running, but its worker has been silent for ``JOB_STALE_SECONDS``: the reaper will act."""
        if self.status != self.RUNNING:
            return False
        limit = timezone.now() - timezone.timedelta(seconds=settings.JOB_STALE_SECONDS)
        return self.heartbeat_at is None or self.heartbeat_at < limit

    @property
    def state_note(self):
        """What the status means right now, in words (shown on the pages and in the API)."""
        if self.stalled:
            if self.resumable:
                return gettext(
                    "its worker stopped answering; it will be sent again to resume automatically within a minute or two"
                )
            return gettext(
                "its worker stopped answering; it will be marked failed automatically within a minute or two"
            )
        if self.status == self.CREATED:  # until core.reaper.really_lost finds its task lost
            return gettext("waiting for a free worker")
        return ""

    @property
    def public_error(self):
        """The error as researchers see it: its first line, server paths reduced to file names, no
        traceback, no LLM server address, endpoint or key variable (``without_llm_settings``; admins
        see ``error`` in full)."""
        first = (self.error or "").strip().split("\n", 1)[0]
        return without_paths(without_llm_settings(first, admin_only_values(self.params)))[:1000]

    @property
    def public_params(self):
        """The parameters as researchers see them: server paths (an upload's stored file) reduced to
        file names and the LLM server's address and key variable (``ADMIN_ONLY_PARAMS``) left out, at
        any depth (admins see ``params`` in full)."""
        return _map_strings(self.params, without_paths, ADMIN_ONLY_PARAMS)


class WorkerBeat(models.Model):
    """A Celery worker that is alive: its reaper thread refreshes ``seen_at`` every round (health check)."""

    name = models.CharField(max_length=200, unique=True, verbose_name=_("name"))
    queues = models.CharField(max_length=500, blank=True, verbose_name=_("queues"))
    seen_at = models.DateTimeField(default=timezone.now, verbose_name=_("seen at"))

    class Meta:
        verbose_name = _("worker beat")
        verbose_name_plural = _("worker beats")
        db_table = "annotation_workerbeat"

    def __str__(self):
        return f"{self.name} (seen {self.seen_at:%Y-%m-%d %H:%M:%S})"


class UserPreference(models.Model):
    """What a user chose for the interface: today its language (the header's switcher writes it; it
    is copied into the session at each login, so it outlives logout and follows the user to another
    browser). No row: the user chose nothing."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference", verbose_name=_("user")
    )
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, verbose_name=_("language"))

    class Meta:
        verbose_name = _("user preference")
        verbose_name_plural = _("user preferences")

    def __str__(self):
        return f"{self.user} ({self.language})"
