"""The Jobs admin: read-only rows written by the workers, a cancel action, and a page that says when
jobs cannot run and reloads itself while one is queued or running."""

from django.contrib import admin, messages

from core.models import Job
from core.reaper import health
from core.runner import request_cancel
from core.widgets import progress_bar


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "kind",
        "status",
        "state",
        "progress",
        "message",
        "error_in_list",
        "created_by",
        "created_at",
        "finished_at",
    ]
    list_filter = ["kind", "status"]
    readonly_fields = [
        "kind",
        "status",
        "progress",
        "params",
        "result",
        "message",
        "error",
        "celery_task_id",
        "worker",
        "attempts",
        "created_by",
        "created_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
    ]
    exclude = ["progress_done", "progress_total", "cancel_requested", "resumable"]
    actions = ["cancel"]

    @admin.display(description="progress")
    def progress(self, obj):
        return progress_bar(obj)

    @admin.display(description="now")
    def state(self, obj):
        return obj.state_note

    @admin.display(description="error")
    def error_in_list(self, obj):
        return obj.error_summary

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

    @admin.action(description="Cancel the selected jobs")
    def cancel(self, request, queryset):
        for job in queryset:
            request_cancel(job)
        messages.info(request, f"cancel requested for {queryset.count()} jobs")

    def has_add_permission(self, request):
        return False
