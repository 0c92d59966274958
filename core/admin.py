"""The Jobs admin: read-only rows written by the workers, a cancel action, a list that says when
jobs cannot run and reloads itself while one is queued or running, and a job page whose status panel
polls (htmx) until the job ends: progress, then the result with its next step, or the failure."""

import json

from django.contrib import admin, messages
from django.contrib.admin.utils import display_for_field
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, render
from django.template.defaultfilters import linebreaksbr
from django.urls import path
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core import job_kinds, next_steps
from core.models import Job
from core.reaper import health
from core.runner import request_cancel
from core.widgets import progress_bar

# The job page's fields that change while a job runs: the status panel's poll updates them with the heading.
LIVE_FIELDS = (
    *("status", "progress", "message_text", "worker_name"),
    *("attempts", "started_at", "heartbeat_at", "finished_at"),
)


class KindFilter(admin.SimpleListFilter):
    """The jobs by kind, each kind in words (``core.job_kinds``)."""

    title = _("kind")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        kinds = set(Job.objects.values_list("kind", flat=True).distinct())
        return sorted(((k, job_kinds.kind_title(k)) for k in kinds), key=lambda pair: str(pair[1]))

    def queryset(self, request, queryset):
        return queryset.filter(kind=self.value()) if self.value() else queryset


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "kind_title",
        "status",
        "state",
        "progress",
        "message_text",
        "error_in_list",
        "created_by",
        "created_at",
        "finished_at",
    ]
    list_filter = [KindFilter, "status"]
    readonly_fields = [
        "kind_title",
        "status",
        "progress",
        "parameters",
        "result_words",
        "message_text",
        "error_text",
        "task_id",
        "worker_name",
        "attempts",
        "created_by",
        "created_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
    ]
    exclude = [
        *("kind", "message", "error", "params", "result", "task_name", "task_options", "progress_done"),
        *("progress_total", "cancel_requested", "resumable", "celery_task_id", "worker"),
    ]
    actions = ["cancel"]

    @admin.display(description=_("kind"), ordering="kind")
    def kind_title(self, obj):
        return obj.kind_title

    @admin.display(description=_("message"))
    def message_text(self, obj):
        return obj.message_text

    @admin.display(description=_("progress"))
    def progress(self, obj):
        return progress_bar(obj)

    @admin.display(description=_("params"))
    def parameters(self, obj):
        """The job's parameters, each key in words (``core.job_kinds.result_title``), every server path
        reduced to its file name (the upload's name)."""
        return words_list(obj.public_params)

    @admin.display(description=_("worker"))
    def worker_name(self, obj):
        return format_html("<code>{}</code>", obj.worker) if obj.worker else "–"

    @admin.display(description=_("celery task id"))
    def task_id(self, obj):
        return format_html("<code>{}</code>", obj.celery_task_id) if obj.celery_task_id else "–"

    @admin.display(description=_("result"))
    def result_words(self, obj):
        """The job's result, each key in words."""
        return words_list(obj.result if isinstance(obj.result, dict) else {"result": obj.result})

    def live_fields(self, job):
        """(field name, HTML) of the fields below the status panel that change while the job runs,
        as the page shows them: the panel's polling response swaps them in (htmx out-of-band)."""
        rows = []
        for name in LIVE_FIELDS:
            if name == "progress":
                rows.append((name, self.progress(job)))
                continue
            if name == "worker_name":
                rows.append((name, self.worker_name(job)))
                continue
            if name == "message_text":  # the message in the reader's language (core.job_kinds)
                rows.append((name, linebreaksbr(job.message_text)))
                continue
            value = display_for_field(getattr(job, name), Job._meta.get_field(name), self.get_empty_value_display())
            rows.append((name, linebreaksbr(value)))
        return rows

    @admin.display(description=_("now"))
    def state(self, obj):
        return obj.state_note

    @admin.display(description=_("error"))
    def error_in_list(self, obj):
        return job_kinds.message_text(obj.error_summary)

    @admin.display(description=_("error"))
    def error_text(self, obj):
        """The error; a known message (a user error, one line) in the reader's language."""
        return linebreaksbr(job_kinds.message_text(obj.error)) if obj.error else self.get_empty_value_display()

    def has_change_permission(self, request, obj=None):
        return False  # jobs are written by workers only: rows are read-only, cancel is an action

    def changelist_view(self, request, extra_context=None):
        """The jobs page says when jobs cannot run (broker unreachable, or no worker seen), and
        reloads itself (meta refresh, no script) while a job is queued or running."""
        state = health()
        if state["message"] and request.method == "GET":
            detail = f" ({state['broker_error']})" if state["broker_error"] else ""
            messages.warning(request, state["message"] + detail)
        active = Job.objects.filter(status__in=[Job.CREATED, Job.RUNNING]).exists()
        return super().changelist_view(request, {**(extra_context or {}), "refresh_seconds": 5 if active else None})

    def get_urls(self):
        status = path("<id:object_id>/status/", self.admin_site.admin_view(self.status_view), name="core_job_status")
        return [status, *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):  # noqa: PLR0917 - Django's signature
        job = self.get_object(request, object_id)
        context = {**(extra_context or {}), **(status_context(job) if job else {})}
        return super().change_view(request, object_id, form_url, context)

    def status_view(self, request, object_id):
        """The status panel alone (htmx polls it every 2 s while the job is queued or running)."""
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        if not self.has_view_permission(request):
            raise PermissionDenied
        job = get_object_or_404(Job, pk=object_id)
        # the page's title after the job, as the admin writes it ("<job> | View job | <site>")
        page_title = f"{gettext('View %s') % Job._meta.verbose_name} | {self.admin_site.site_title}"
        context = {**status_context(job), "live_fields": self.live_fields(job), "page_title": page_title}
        response = render(request, "admin/core/job/_status.html", context)
        if job.status in Job.FINISHED and request.headers.get("HX-Request"):
            response["HX-Refresh"] = "true"  # reload the page once: every field shows the end state
        return response

    @admin.action(description=_("Cancel the selected jobs"))
    def cancel(self, request, queryset):
        for job in queryset:
            request_cancel(job)
        n = queryset.count()
        messages.info(
            request, ngettext("cancel requested for %(n)d job", "cancel requested for %(n)d jobs", n) % {"n": n}
        )

    def has_add_permission(self, request):
        return False


def next_step(job):
    """(text, URL) of what to do after ``job`` succeeded, or None: the step its app registered
    (``core.next_steps``, filled by the apps above core at start-up)."""
    if job.status != Job.SUCCEEDED:
        return None
    return next_steps.of(job)


def words_list(data):
    """A job's parameters or result as a list of "key in words: value" (nested values as JSON)."""
    from django.utils.html import format_html_join

    def shown(value):
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if isinstance(value, (dict, list)):
            return json.dumps(value, ensure_ascii=False, sort_keys=True)
        return "–" if value in (None, "") else value

    rows = sorted((str(job_kinds.result_title(k)), shown(v)) for k, v in (data or {}).items())
    if not rows:
        return "–"
    cells = [
        (
            key,
            format_html("{}", v)
            if isinstance(v, str) and v in (_("yes"), _("no"))
            else format_html("<code>{}</code>", v),
        )
        for key, v in rows
    ]
    # values are the job's data as stored (names, files, notes in English): shown as code
    return format_html('<dl class="job-words">{}</dl>', format_html_join("", "<dt>{}</dt><dd>{}</dd>", cells))


def status_context(job):
    """What the status panel shows: the job, whether to keep polling, its result and next step."""
    result = job.result if isinstance(job.result, dict) else {"result": job.result}
    return {
        "job": job,
        "polling": job.status not in Job.FINISHED,
        "result_items": sorted(
            (job_kinds.result_title(k), v) for k, v in result.items() if not isinstance(v, (dict, list))
        ),
        "next_step": next_step(job),
    }
