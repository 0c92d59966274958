import os

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import next_steps, roles
from core.runner import request_cancel
from core.widgets import progress_bar
from models_runner import inference, jobs, judging
from models_runner.forms import JudgeForm, StartJudgeRunForm, StartRunForm
from models_runner.models import InferenceRun, Judge, JudgeLabel, JudgeRun, LLMEndpoint, LLMExchange


class AdminRoleOnly:
    """Users of the admin role see these pages (read-only rows); the Django model permissions of a
    staff user are not required, nobody edits or deletes runs by hand."""

    def has_module_permission(self, request):
        return roles.is_admin(request.user)

    def has_view_permission(self, request, obj=None):
        return roles.is_admin(request.user)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


@admin.register(InferenceRun)
class InferenceRunAdmin(AdminRoleOnly, admin.ModelAdmin):
    list_display = [
        "id",
        "system",
        "corpus",
        "backend",
        "status",
        "progress",
        "device",
        "batch_size",
        "throughput",
        "created_at",
    ]
    list_filter = ["backend", "job__status", "corpus"]
    readonly_fields = [
        "job",
        "system",
        "corpus",
        "backend",
        "status",
        "progress",
        "error",
        *InferenceRun.RECORD_FIELDS,
        "created_at",
    ]
    change_list_template = "models_runner/admin/inferencerun_change_list.html"
    change_form_template = "models_runner/admin/run_change_form.html"
    actions = ["cancel"]

    def change_view(self, request, object_id, form_url="", extra_context=None):  # noqa: PLR0917 (Django's signature)
        """The run's page refreshes itself while its job runs, and ends with the job's next step."""
        extra = {**(extra_context or {}), **run_page(self, object_id)}
        return admin.ModelAdmin.change_view(self, request, object_id, form_url, extra)

    @admin.display(description=_("status"), ordering="job__status")
    def status(self, obj):
        return obj.job.get_status_display()

    @admin.display(description=_("progress"))
    def progress(self, obj):
        return progress_bar(obj.job)

    @admin.display(description=_("error"))
    def error(self, obj):
        return obj.job.error

    @admin.display(description=_("q/s"), ordering="throughput_qps")
    def throughput(self, obj):
        return f"{obj.throughput_qps:.2f}" if obj.throughput_qps else "-"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("job", "system", "corpus")

    def get_urls(self):
        return [
            path("start/", self.admin_site.admin_view(self.start_view), name="models_runner_start"),
            *super().get_urls(),
        ]

    def start_view(self, request):
        if not roles.is_admin(request.user):
            raise PermissionDenied
        form = StartRunForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                run = jobs.start_run(
                    data["corpus"],
                    data["system"],
                    data["backend"],
                    options=form.backend_options(),
                    batch_size=data["batch_size"],
                    device=data["device"],
                    user=request.user,
                )
            except inference.RunError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(
                    request,
                    gettext("run %(run)s queued on %(queue)s as job %(job)s")
                    % {"run": run.pk, "queue": run.queue, "job": run.job_id},
                )
                return redirect(reverse("admin:models_runner_inferencerun_change", args=[run.pk]))
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": gettext("Start an inference run"),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "models_runner/admin/start_run.html", context)

    @admin.action(description=_("Cancel the selected runs"))
    def cancel(self, request, queryset):
        for run in queryset.select_related("job"):
            request_cancel(run.job)
        messages.info(request, gettext("cancel requested for %(n)s runs") % {"n": queryset.count()})


@admin.register(LLMExchange)
class LLMExchangeAdmin(AdminRoleOnly, admin.ModelAdmin):
    list_display = ["id", "purpose", "model", "status", "http_status", "attempts", "latency_s", "created_at"]
    list_filter = ["purpose", "status", "model"]
    raw_id_fields = ["run", "question"]
    readonly_fields = [f.name for f in LLMExchange._meta.fields]


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    """Admins create LLM judges and edit their prompt (``judging.DEFAULT_PROMPT`` to start with);
    *Judge a corpus* starts a run."""

    form = JudgeForm
    list_display = ["name", "kind", "llm_model", "n_labels", "created_at"]
    list_filter = ["kind"]
    actions = ["judge_corpus"]

    def has_module_permission(self, request):
        return roles.is_admin(request.user)

    has_view_permission = has_add_permission = has_change_permission = lambda self, request, obj=None: roles.is_admin(
        request.user
    )

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def get_changeform_initial_data(self, request):
        return {"prompt": judging.DEFAULT_PROMPT, "parameters": {"model": "", "base_url": ""}}

    @admin.display(description=_("model"))
    def llm_model(self, obj):  # not "model": a ModelAdmin's model attribute is its model class
        return obj.parameters.get("model", "") if obj.kind == Judge.LLM else "-"

    @admin.display(description=_("labels"))
    def n_labels(self, obj):
        return obj.labels.count()

    def get_urls(self):
        return [
            path("<id:pk>/judge/", self.admin_site.admin_view(self.start_view), name="models_runner_judge_start"),
            *super().get_urls(),
        ]

    @admin.action(description=_("Judge a corpus with the selected judge"))
    def judge_corpus(self, request, queryset):
        return redirect(reverse("admin:models_runner_judge_start", args=[queryset.first().pk]))

    def start_view(self, request, pk):
        if not roles.is_admin(request.user):
            raise PermissionDenied
        judge = get_object_or_404(Judge, pk=pk)
        form = StartJudgeRunForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                run = jobs.start_judge_run(
                    form.cleaned_data["corpus"], judge, form.cleaned_data["batch_size"], user=request.user
                )
            except judging.JudgeError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(
                    request, gettext("judge run %(run)s queued as job %(job)s") % {"run": run.pk, "job": run.job_id}
                )
                return redirect(reverse("admin:models_runner_judgerun_change", args=[run.pk]))
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": gettext("Judge a corpus with %(judge)s") % {"judge": judge},
            "opts": self.model._meta,
            "judging": True,
        }
        return TemplateResponse(request, "models_runner/admin/start_run.html", context)


def run_page(model_admin, object_id):
    """The run page's job, its refresh while the job runs, and the next step once it succeeded."""
    run = model_admin.model.objects.select_related("job").filter(pk=object_id).first()
    if run is None or run.job is None:
        return {}
    job = run.job
    running = job.status in (job.CREATED, job.RUNNING)
    return {"run_job": job, "refresh_seconds": 3 if running else None, "next_step": next_steps.of(job)}


@admin.register(JudgeRun)
class JudgeRunAdmin(AdminRoleOnly, admin.ModelAdmin):
    list_display = ["id", "judge", "corpus", "status", "progress", "triplets_done", "unparsed", "created_at"]
    list_filter = ["job__status", "judge", "corpus"]
    readonly_fields = [
        "job",
        "judge",
        "corpus",
        "status",
        "progress",
        "error",
        "prompt",
        "batch_size",
        "triplets_total",
        "triplets_done",
        "unparsed",
        "duration_s",
        "created_at",
    ]
    actions = ["cancel"]
    status, progress, error = InferenceRunAdmin.status, InferenceRunAdmin.progress, InferenceRunAdmin.error
    change_form_template = InferenceRunAdmin.change_form_template
    change_view = InferenceRunAdmin.change_view

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("job", "judge", "corpus")

    @admin.action(description=_("Cancel the selected runs"))
    def cancel(self, request, queryset):
        for run in queryset.select_related("job"):
            request_cancel(run.job)
        messages.info(request, gettext("cancel requested for %(n)s runs") % {"n": queryset.count()})


@admin.register(JudgeLabel)
class JudgeLabelAdmin(AdminRoleOnly, admin.ModelAdmin):
    list_display = ["id", "judge", "triplet", "value", "source", "created_at"]
    list_filter = ["judge", "value", "source"]
    raw_id_fields = ["triplet", "run", "exchange"]
    readonly_fields = [f.name for f in JudgeLabel._meta.fields]


@admin.register(LLMEndpoint)
class LLMEndpointAdmin(admin.ModelAdmin):
    """LLM endpoints that frame prediction, judges and the OpenAI backend name (``endpoint``)."""

    list_display = ["name", "base_url", "model", "api_key_env", "key_present"]
    search_fields = ["name", "model", "base_url"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description=_("key variable set (web process)"))
    def key_present(self, obj):
        return (
            gettext("yes")
            if os.environ.get(obj.api_key_env)
            else gettext("no: set it for the web and worker processes")
        )
