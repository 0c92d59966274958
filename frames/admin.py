"""Frame models in the admin, and the corpus page's "predict frames…" link and form (SPEC 8).

The link and form extend the corpus admin that annotation registers (looked up on the admin site, not
imported); the URL keeps its path ``admin/annotation/corpus/<pk>/predict-frames/`` and its name
``admin:annotation_predict_frames``.
"""

from django import forms
from django.contrib import admin, messages
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from annotation.models import Corpus
from frames.jobs import start_frame_job
from frames.models import FrameAnnotation, FrameCheck, FrameLexicon


class PredictFramesForm(forms.Form):
    lexicon = forms.ModelChoiceField(
        queryset=FrameLexicon.objects.order_by("name"),
        to_field_name="name",
        help_text="import one with manage.py import_framenet [PATH]",
    )
    model = forms.CharField(max_length=200, initial="gpt-3.5-turbo")
    base_url = forms.URLField(
        required=False, assume_scheme="https", help_text="OpenAI-compatible server (default: OPENAI_BASE_URL)"
    )
    api_key_env = forms.CharField(
        initial="OPENAI_API_KEY", help_text="environment variable of the worker holding the key"
    )
    limit = forms.IntegerField(required=False, min_value=1, help_text="at most this many questions")
    force = forms.BooleanField(required=False, help_text="annotate again questions already done")


def _with_frames(base):
    """``base`` (the registered corpus admin class) with a "predict frames…" column and page."""

    class CorpusAdmin(base):
        list_display = [*base.list_display, "frames_link"]

        def get_urls(self):
            return [
                path(
                    "<id:pk>/predict-frames/",
                    self.admin_site.admin_view(self.predict_frames_view),
                    name="annotation_predict_frames",
                ),
                *super().get_urls(),
            ]

        @admin.display(description="frames")
        def frames_link(self, obj):
            return format_html(
                '<a href="{}">predict frames…</a>', reverse("admin:annotation_predict_frames", args=[obj.pk])
            )

        def predict_frames_view(self, request, pk):
            """Start the frame proxy (SPEC 8) over this corpus as a background job."""
            corpus = self.get_object(request, pk)
            if corpus is None:
                raise Http404(f"no corpus with id {pk}")
            form = PredictFramesForm(request.POST or None)
            if request.method == "POST" and form.is_valid():
                d = form.cleaned_data
                job = start_frame_job(
                    corpus.name,
                    lexicon=d["lexicon"].name,
                    model=d["model"],
                    base_url=d["base_url"] or None,
                    force=d["force"],
                    limit=d["limit"],
                    api_key_env=d["api_key_env"],
                    user=request.user,
                )
                messages.success(request, f"frame prediction started as job {job.pk}")
                return redirect(reverse("admin:core_job_change", args=[job.pk]))
            context = {
                **self.admin_site.each_context(request),
                "form": form,
                "opts": self.model._meta,
                "title": f"Predict frames for {corpus.name}",
                "intro": "Each question's FrameNet frame, trigger and frame elements are chosen by the LLM with the "
                "paper's two prompts; questions with no trigger, an unknown frame or unusable output are "
                "recorded as such. Every prompt and reply is stored.",
            }
            return TemplateResponse(request, "admin/annotation/form.html", context)

    CorpusAdmin.__name__ = CorpusAdmin.__qualname__ = base.__name__
    return CorpusAdmin


if admin.site.is_registered(Corpus):  # annotation comes first in INSTALLED_APPS, so its admin is loaded
    _corpus_admin = type(admin.site.get_model_admin(Corpus))
    admin.site.unregister(Corpus)
    admin.site.register(Corpus, _with_frames(_corpus_admin))

admin.site.register(FrameLexicon)
admin.site.register(FrameAnnotation)
admin.site.register(FrameCheck)
