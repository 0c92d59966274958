"""Frame models in the admin, and the corpus page's job pages: "predict frames…" (SPEC 8) and
"derive attributes…" (SPEC 15), one view for both (``CORPUS_JOBS``).

The links and forms extend the corpus admin that annotation registers (looked up on the admin site, not
imported); the URL keeps its path ``admin/annotation/corpus/<pk>/predict-frames/`` and its name
``admin:annotation_predict_frames``.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus
from core.number_field import NumberField
from core.uploads import max_upload_size
from frames.attribute_jobs import start_attribute_job
from frames.jobs import start_frame_job
from frames.lexicon_store import corpus_lexicon, default_lexicon
from frames.models import FrameAnnotation, FrameCheck, FrameLexicon
from models_runner.endpoints import KeyVariableError, check_key_env
from models_runner.models import LLMEndpoint


class PredictFramesForm(forms.Form):
    lexicon = forms.ModelChoiceField(
        label=_("Lexicon"),
        queryset=FrameLexicon.objects.order_by("name"),
        to_field_name="name",
        help_text=_("upload one in Frame lexicons -> Upload a lexicon (or manage.py import_framenet PATH)"),
    )
    endpoint = forms.ModelChoiceField(
        label=_("LLM endpoint"),
        queryset=LLMEndpoint.objects.order_by("name"),
        to_field_name="name",
        required=False,
        help_text=_(
            "an LLM endpoint of the admin (its server, key variable and model); "
            "empty: the server and key below, or the environment's"
        ),
    )
    model = forms.CharField(
        label=_("Model"), max_length=200, required=False, help_text=_("empty: the endpoint's model, else gpt-3.5-turbo")
    )
    base_url = forms.URLField(
        label=_("Server URL"),
        required=False,
        assume_scheme="https",
        help_text=_("without an endpoint: OpenAI-compatible server (default: OPENAI_BASE_URL)"),
    )
    api_key_env = forms.CharField(
        label=_("Key variable"),
        initial="OPENAI_API_KEY",
        help_text=_("without an endpoint: environment variable of the worker holding the key"),
    )
    limit = NumberField(
        integer=True, label=_("Limit"), required=False, min_value=1, help_text=_("at most this many questions")
    )
    force = forms.BooleanField(label=_("Again"), required=False, help_text=_("annotate again questions already done"))

    def clean_api_key_env(self):
        name = self.cleaned_data.get("api_key_env") or ""
        try:
            return check_key_env(name)
        except KeyVariableError as exc:
            raise forms.ValidationError(str(exc)) from None


class DeriveAttributesForm(forms.Form):
    lexicon = forms.ModelChoiceField(
        label=_("Lexicon"),
        queryset=FrameLexicon.objects.order_by("name"),
        to_field_name="name",
        required=False,
        help_text=_(
            "the frames' lexical units (default: the lexicon the corpus's frames were predicted with, "
            "else the shipped one of its language)"
        ),
    )
    parser = forms.RegexField(
        label=_("Parser"),
        regex=r"^[A-Za-z0-9_.-]+$",
        max_length=100,
        required=False,
        help_text=_("spaCy pipeline (default by the corpus language: fr -> fr_core_news_sm)"),
    )
    adaptation = forms.ModelChoiceField(
        label=_("Adaptation corpus"),
        queryset=Corpus.objects.order_by("name"),
        to_field_name="name",
        required=False,
        help_text=_("corpus whose frames give frame_freq (e.g. the training set); empty: frame_freq not derived"),
    )
    sample = NumberField(
        integer=True,
        label=_("Sample"),
        required=False,
        min_value=1,
        max_value=2**31 - 1,
        help_text=_("a random sample of the adaptation corpus"),
    )
    seed = NumberField(integer=True, label=_("Seed"), initial=0, min_value=0, max_value=2**31 - 1)
    overwrite = forms.BooleanField(
        label=_("Replace imported values"), required=False, help_text=_("replace imported values too")
    )


def _start_attributes(corpus, d, user):
    return start_attribute_job(
        corpus.name,
        lexicon=d["lexicon"].name if d["lexicon"] else None,
        parser=d["parser"] or None,
        adaptation=d["adaptation"].name if d["adaptation"] else None,
        sample=d["sample"],
        seed=d["seed"] or 0,
        overwrite=d["overwrite"],
        user=user,
    )


def _start_frames(corpus, d, user):
    return start_frame_job(
        corpus.name,
        lexicon=d["lexicon"].name,
        endpoint=d["endpoint"].name if d["endpoint"] else None,
        model=d["model"],
        base_url=d["base_url"] or None,
        force=d["force"],
        limit=d["limit"],
        api_key_env=d["api_key_env"],
        user=user,
    )


@dataclass(frozen=True)
class CorpusJob:
    """A corpus page that starts a background job from a form: its URL, column, form and texts."""

    slug: str  # the URL's last part; with underscores after ``annotation_``, its URL name
    column: str
    link: str
    form: type
    start: Callable  # (corpus, cleaned data, user) -> Job
    title: str  # with %(corpus)s
    intro: str
    started: str  # with %(pk)s
    initial: Callable = lambda corpus: {}  # the form's initial values for this corpus

    @property
    def url_name(self):
        return "annotation_" + self.slug.replace("-", "_")


CORPUS_JOBS = (
    CorpusJob(
        "predict-frames",
        _("frames"),
        _("predict frames…"),
        PredictFramesForm,
        _start_frames,
        _("Predict frames for %(corpus)s"),
        _(
            "Each question's FrameNet frame, trigger and frame elements are chosen by the LLM with the "
            "paper's two prompts; questions with no trigger, an unknown frame or unusable output are "
            "recorded as such. Every prompt and reply is stored."
        ),
        _("frame prediction started as job %(pk)s"),
        # the shipped lexicon of the corpus language first (framenet-fr-mini for a French corpus)
        lambda corpus: {"lexicon": default_lexicon(corpus.language)},
    ),
    CorpusJob(
        "derive-attributes",
        _("attributes"),
        _("derive attributes…"),
        DeriveAttributesForm,
        _start_attributes,
        _("Derive attributes for %(corpus)s"),
        _(
            "trigger_in_question, dist and lu_pos are derived from each framed question's context with a "
            "dependency parser, frame_freq from an adaptation corpus (SPEC 15). Imported values are kept "
            "unless you ask to replace them; every derived value records its source."
        ),
        _("attribute derivation started as job %(pk)s"),
        lambda corpus: {"lexicon": corpus_lexicon(corpus)},
    ),
)


def _with_corpus_jobs(base):
    """``base`` (the registered corpus admin class) with a column and a page per ``CORPUS_JOBS``
    entry (SPEC 8 frames, SPEC 15 attributes): one view for all, the job started in the background
    and its page next."""

    class CorpusAdmin(base):
        list_display = [*base.list_display, *(f"{job.url_name}_link" for job in CORPUS_JOBS)]

        def get_urls(self):
            view = self.admin_site.admin_view(self.corpus_job_view)
            jobs = [path(f"<id:pk>/{job.slug}/", view, {"job": job}, name=job.url_name) for job in CORPUS_JOBS]
            return [*jobs, *super().get_urls()]

        def corpus_job_view(self, request, pk, job):
            corpus = self.get_object(request, pk)
            if corpus is None:
                raise Http404(f"no corpus with id {pk}")
            form = job.form(request.POST or None, initial=job.initial(corpus))
            if request.method == "POST" and form.is_valid():
                started = job.start(corpus, form.cleaned_data, request.user)
                messages.success(request, str(job.started) % {"pk": started.pk})
                return redirect(reverse("admin:core_job_change", args=[started.pk]))
            context = {
                **self.admin_site.each_context(request),
                "form": form,
                "opts": self.model._meta,
                "title": str(job.title) % {"corpus": corpus.name},
                "intro": str(job.intro),
            }
            return TemplateResponse(request, "admin/annotation/form.html", context)

    for job in CORPUS_JOBS:

        @admin.display(description=job.column)
        def link(self, obj, job=job):
            return format_html('<a href="{}">{}</a>', reverse(f"admin:{job.url_name}", args=[obj.pk]), str(job.link))

        setattr(CorpusAdmin, f"{job.url_name}_link", link)
    CorpusAdmin.__name__ = CorpusAdmin.__qualname__ = base.__name__
    return CorpusAdmin


if admin.site.is_registered(Corpus):  # annotation comes first in INSTALLED_APPS, so its admin is loaded
    _corpus_admin = type(admin.site.get_model_admin(Corpus))
    admin.site.unregister(Corpus)
    admin.site.register(Corpus, _with_corpus_jobs(_corpus_admin))


class LexiconUploadForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=100,
        help_text=_("the lexicon's name in frame prediction (the same name again updates it)"),
    )
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "a .zip or .tar.gz of a FrameNet directory in the NLTK framenet_v17 layout "
            "(frameIndex.xml, frame/*.xml, optional luIndex.xml)"
        ),
        validators=[max_upload_size],
    )


@admin.register(FrameLexicon)
class FrameLexiconAdmin(admin.ModelAdmin):
    """FrameNet lexicons; "Upload a lexicon" imports an archive as a background job."""

    list_display = ["name", "frame_count", "source_path"]

    @admin.display(description=_("frames"))
    def frame_count(self, obj):
        return obj.frames.count()

    def get_urls(self):
        upload = path("upload/", self.admin_site.admin_view(self.upload_view), name="frames_framelexicon_upload")
        return [upload, *super().get_urls()]

    def upload_view(self, request):
        from core.uploads import save_upload
        from frames.lexicon_jobs import start_lexicon_import

        if not self.has_add_permission(request):
            raise PermissionDenied
        form = LexiconUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            job = start_lexicon_import(
                save_upload(upload), name=form.cleaned_data["name"], user=request.user, original_name=upload.name
            )
            messages.success(request, gettext("lexicon import started as job %(pk)s") % {"pk": job.pk})
            return redirect(reverse("admin:core_job_change", args=[job.pk]))
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "opts": self.model._meta,
            "title": gettext("Upload a FrameNet lexicon"),
            "multipart": True,
            "intro": gettext(
                "The archive is unpacked and imported by a background job; a file that does not parse is "
                "named in the job's error and nothing of it is imported. Then: Corpora -> predict frames..."
            ),
        }
        return TemplateResponse(request, "admin/annotation/form.html", context)


admin.site.register(FrameAnnotation)
admin.site.register(FrameCheck)
