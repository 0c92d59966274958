"""Study archives in the Django admin (SPEC 14): export a corpus as one zip archive (an action of
the list), import an archive as a background job with progress (admin -> Jobs)."""

from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus
from core.uploads import max_upload_size, save_upload
from evaluation.archive.format import NAME_RE
from evaluation.models import StudyArchive


class StudyImportForm(forms.Form):
    file = forms.FileField(
        validators=[max_upload_size], label=_("File"), help_text=_("a zip archive written by export_study")
    )
    corpus = forms.RegexField(
        regex=NAME_RE,
        max_length=100,
        required=False,
        label=_("Corpus"),
        help_text=_("name of the restored corpus; empty: the name it had"),
    )

    def clean_corpus(self):
        name = self.cleaned_data["corpus"]
        if name and Corpus.objects.filter(name=name).exists():
            raise forms.ValidationError(gettext("a corpus named %(name)r exists already") % {"name": name})
        return name


@admin.register(StudyArchive)
class StudyArchiveAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "created_at"]
    actions = ["export_archive"]
    change_list_template = "admin/evaluation/studyarchive/change_list.html"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description=_("Export the selected corpus as a study archive (zip)"))
    def export_archive(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, gettext("select exactly one corpus to export"), level=messages.ERROR)
            return None
        # imported here: the report stack loads on first use, not when Django autodiscovers the admin
        from evaluation.archive.collect import archive_response

        return archive_response(queryset.get())

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_view), name="evaluation_studyarchive_import"),
            *super().get_urls(),
        ]

    def import_view(self, request):
        if not self.has_view_permission(request):
            return redirect(reverse("admin:index"))
        form = StudyImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            from evaluation.jobs import start_study_import  # as above: off Django's start-up

            job = start_study_import(
                save_upload(upload), corpus=form.cleaned_data["corpus"], user=request.user, original_name=upload.name
            )
            messages.success(
                request,
                gettext("import of %(name)s started as job %(pk)s; follow it in Jobs")
                % {"name": upload.name, "pk": job.pk},
            )
            return redirect(reverse("admin:core_job_change", args=[job.pk]))
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": gettext("Import a study archive"),
            "opts": self.model._meta,
            "multipart": True,
            "intro": gettext(
                "The archive is checked (every member against the SHA-256 of its manifest, the schema "
                "version) and restored in one transaction by a background job: on any problem the job says "
                "which and nothing is imported. Accounts are matched by name; new ones are created inactive "
                "and without a password."
            ),
        }
        return TemplateResponse(request, "admin/annotation/form.html", context)
