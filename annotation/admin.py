from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from annotation import models
from annotation.jobs import request_cancel


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=[("corpus", "corpus (JSONL or SQuAD JSON)"), ("predictions", "predictions JSONL"),
                                      ("labels", "labels JSONL")])
    corpus = forms.SlugField(max_length=100, help_text="corpus name (a new one is created for a corpus import)")
    file = forms.FileField()
    format = forms.ChoiceField(choices=[("", "from the file extension"), ("jsonl", "JSONL"), ("squad", "SQuAD JSON")],
                               required=False)

    def clean(self):
        data = super().clean()
        if data.get("kind") in ("predictions", "labels") and data.get("corpus") and \
                not models.Corpus.objects.filter(name=data["corpus"]).exists():
            self.add_error("corpus", f"no corpus named {data['corpus']!r}")
        return data


@admin.register(models.Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "dedup_policy", "question_count", "created_at"]
    change_list_template = "admin/annotation/corpus/change_list.html"

    @admin.display(description="questions")
    def question_count(self, obj):
        return obj.questions.count()

    def get_urls(self):
        return [path("import/", self.admin_site.admin_view(self.import_view), name="annotation_import")] + super().get_urls()

    def import_view(self, request):
        from annotation.api import save_upload, start_import

        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            path = save_upload(data["file"])
            job = start_import(data["kind"], data["corpus"], path, data["format"] or None, request.user, data["file"].name)
            messages.success(request, f"import started as job {job.pk}; follow it in Jobs")
            return redirect(reverse("admin:annotation_job_change", args=[job.pk]))
        context = {**self.admin_site.each_context(request), "form": form, "title": "Import a file", "opts": self.model._meta}
        return TemplateResponse(request, "admin/annotation/import.html", context)


@admin.register(models.Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["external_id", "corpus", "question", "language", "frame"]
    list_filter = ["corpus", "language"]
    search_fields = ["external_id", "question"]
    raw_id_fields = ["corpus"]


@admin.register(models.System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "created_at"]
    list_filter = ["kind"]


@admin.register(models.Prediction)
class PredictionAdmin(admin.ModelAdmin):
    list_display = ["system", "question", "answer", "triplet"]
    list_filter = ["system"]
    raw_id_fields = ["question", "triplet"]
    search_fields = ["question__external_id", "answer"]


@admin.register(models.Triplet)
class TripletAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "answer"]
    raw_id_fields = ["question"]
    search_fields = ["question__external_id", "answer"]


class AssignmentInline(admin.TabularInline):
    model = models.Assignment
    extra = 1
    raw_id_fields = ["annotator"]


@admin.register(models.Fold)
class FoldAdmin(admin.ModelAdmin):
    list_display = ["name", "corpus", "kind", "index", "item_count"]
    list_filter = ["corpus", "kind"]
    inlines = [AssignmentInline]

    @admin.display(description="items")
    def item_count(self, obj):
        return obj.items.count()


class LabelEventInline(admin.TabularInline):
    model = models.LabelEvent
    extra = 0
    readonly_fields = ["value", "skipped", "seconds", "submission_id", "created_at"]
    can_delete = False


@admin.register(models.Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ["triplet", "annotator", "value", "skipped", "seconds_spent", "updated_at"]
    list_filter = ["value", "skipped", "annotator"]
    raw_id_fields = ["triplet", "fold"]
    inlines = [LabelEventInline]


def progress_bar(job):
    return format_html(
        '<div style="width:160px;background:#e6e9ee;border-radius:4px"><div style="width:{}%;background:#2457c5;'
        'height:10px;border-radius:4px"></div></div> {} / {}', job.percent, job.progress_done, job.progress_total,
    )


@admin.register(models.Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "progress", "message", "created_by", "created_at", "finished_at"]
    list_filter = ["kind", "status"]
    readonly_fields = ["kind", "status", "progress", "params", "result", "message", "error", "celery_task_id",
                       "worker", "attempts", "created_by", "created_at", "started_at", "heartbeat_at", "finished_at"]
    exclude = ["progress_done", "progress_total", "cancel_requested", "resumable"]
    actions = ["cancel"]

    @admin.display(description="progress")
    def progress(self, obj):
        return progress_bar(obj)

    @admin.action(description="Cancel the selected jobs")
    def cancel(self, request, queryset):
        for job in queryset:
            request_cancel(job)
        messages.info(request, f"cancel requested for {queryset.count()} jobs")

    def has_add_permission(self, request):
        return False


admin.site.register(models.FrameLexicon)
admin.site.register(models.FrameAnnotation)
admin.site.register(models.FrameCheck)
