from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import URLField
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from annotation import formats, models, privacy, screening, studies
from annotation.label_titles import LABEL_TITLES
from core.number_field import NumberField
from core.uploads import max_upload_size
from stats.labels import CORRECT, INCORRECT


def _corpus_kind_title():
    """ "corpus (JSONL or SQuAD JSON)", in the language of the request that shows the form."""
    names = gettext(" or ").join(str(title) for _key, title in formats.choices())
    return gettext("corpus (%(formats)s)") % {"formats": names}


_corpus_choice = lazy(_corpus_kind_title, str)


class ImportForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[
            ("corpus", _corpus_choice()),
            ("predictions", _("predictions JSONL")),
            ("labels", _("labels JSONL")),
        ],
        label=_("Kind"),
    )
    corpus = forms.SlugField(
        max_length=100, label=_("Corpus"), help_text=_("corpus name (a new one is created for a corpus import)")
    )
    file = forms.FileField(validators=[max_upload_size], label=_("File"))
    format = forms.ChoiceField(
        choices=[("", _("from the file extension")), *formats.choices()], required=False, label=_("Format")
    )
    # labels only (SPEC 9): see annotation.importers.import_labels
    match = forms.ChoiceField(
        choices=[
            ("dedup", _("answer equal under the corpus's dedup policy")),
            ("squad", _("else the one answer equal under SQuAD normalization")),
        ],
        initial="dedup",
        required=False,
        label=_("Match"),
        help_text=_("labels: how an answer finds its triplet"),
    )
    dry_run = forms.BooleanField(
        required=False,
        label=_("Dry run"),
        help_text=_("labels: check every line and list every problem; change nothing"),
    )
    rejects = forms.BooleanField(
        required=False,
        label=_("Rejects"),
        help_text=_("labels: import the valid lines; the rejected ones, each with its reason, go to the job's result"),
    )
    attach_existing = forms.BooleanField(
        required=False,
        label=_("Attach existing accounts"),
        help_text=_("labels: a name that is an account with labels made in the browser gets these labels too"),
    )
    annotator_prefix = forms.CharField(
        required=False,
        max_length=50,
        label=_("Annotator prefix"),
        help_text=_("labels: put before every annotator name"),
    )

    def clean(self):
        data = super().clean()
        if (
            data.get("kind") in ("predictions", "labels")
            and data.get("corpus")
            and not models.Corpus.objects.filter(name=data["corpus"]).exists()
        ):
            self.add_error("corpus", _("no corpus named %(name)r") % {"name": data["corpus"]})
        return data


@admin.register(models.Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "language", "dedup_policy", "question_count", "created_at"]
    change_list_template = "admin/annotation/corpus/change_list.html"

    @admin.display(description=_("questions"))
    def question_count(self, obj):
        return obj.questions.count()

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_view), name="annotation_import"),
            *super().get_urls(),
        ]

    def import_view(self, request):
        from annotation.jobs import start_import
        from core.uploads import save_upload

        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            path = save_upload(data["file"])
            job = start_import(
                data["kind"],
                data["corpus"],
                path,
                fmt=data["format"] or None,
                user=request.user,
                original_name=data["file"].name,
                options={**data, "match": data["match"] or "dedup"},
            )
            messages.success(request, _("import started as job %(pk)s; follow it in Jobs") % {"pk": job.pk})
            return redirect(reverse("admin:core_job_change", args=[job.pk]))
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": _("Import a file"),
            "opts": self.model._meta,
            "multipart": True,
            "intro": _(
                "Imports run as a background job and are atomic: a bad line (malformed JSON, a missing field, "
                "an unknown question id, a duplicate) is reported with its file, line and field, and "
                "nothing of the file is imported. Labels files from outside have options: SQuAD matching, "
                "a dry run, importing the valid lines with the rejected ones listed on the job."
            ),
        }
        return TemplateResponse(request, "admin/annotation/form.html", context)


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
    """The item list: search by question text, answer or question id; mark gold with its expected label."""

    list_display = ["id", "question_text", "answer", "gold_label"]
    list_select_related = ["question", "gold"]
    ordering = ["-id"]
    list_filter = ["question__corpus"]
    raw_id_fields = ["question"]
    search_fields = ["question__question", "question__external_id", "answer"]
    actions = ["gold_correct", "gold_incorrect"]  # SPEC 17: no gold item expects "partial"

    @admin.display(description=_("question"))
    def question_text(self, obj):
        return obj.question.question

    @admin.display(description=_("gold: expected label"))
    def gold_label(self, obj):
        gold = getattr(obj, "gold", None)
        return gold.get_expected_display() if gold else ""

    def _mark_gold(self, request, queryset, expected):
        from annotation.quality_data import mark_gold

        for triplet in queryset:
            mark_gold(triplet, expected=expected, user=request.user)
        n = queryset.count()
        messages.success(
            request,
            ngettext("%(n)d gold item expecting %(label)s", "%(n)d gold items expecting %(label)s", n)
            % {"n": n, "label": LABEL_TITLES[expected]},
        )

    @admin.action(description=_("Mark as gold: expected Correct"))
    def gold_correct(self, request, queryset):
        self._mark_gold(request, queryset, CORRECT)

    @admin.action(description=_("Mark as gold: expected Incorrect"))
    def gold_incorrect(self, request, queryset):
        self._mark_gold(request, queryset, INCORRECT)


class AssignmentInline(admin.TabularInline):
    model = models.Assignment
    extra = 1
    raw_id_fields = ["annotator"]


@admin.register(models.Fold)
class FoldAdmin(admin.ModelAdmin):
    list_display = ["title", "corpus", "kind", "index", "item_count"]
    list_filter = ["corpus", "kind"]
    inlines = [AssignmentInline]

    @admin.display(description=_("name"), ordering="name")
    def title(self, obj):
        return obj.title  # the built name in the reader's language (Fold.title)

    @admin.display(description=_("items"))
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


@admin.register(models.Flag)
class FlagAdmin(admin.ModelAdmin):
    """Annotators' flags, newest first; an admin ticks "resolved" once handled."""

    list_display = ["created_at", "reason", "comment", "annotator", "question", "answer", "resolved"]
    list_filter = ["resolved", "reason", "triplet__question__corpus"]
    list_editable = ["resolved"]
    search_fields = ["comment", "triplet__question__question", "triplet__answer"]
    readonly_fields = ["triplet", "fold", "annotator", "reason", "comment", "created_at"]
    list_select_related = ["annotator", "triplet__question"]

    @admin.display(description=_("question"))
    def question(self, obj):
        return obj.triplet.question.question

    @admin.display(description=_("answer"))
    def answer(self, obj):
        return obj.triplet.answer

    def has_add_permission(self, request):
        return False


class GoldItemForm(forms.ModelForm):
    """SPEC 17: the expected label of a gold item is a clear case (never partial), with the reason."""

    class Meta:
        model = models.GoldItem
        fields = ["triplet", "expected", "note"]

    def clean_expected(self):
        expected = self.cleaned_data.get("expected")
        try:
            screening.check_gold_expected(expected)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return expected


@admin.register(models.GoldItem)
class GoldItemAdmin(admin.ModelAdmin):
    """Gold items: triplets with the label a careful annotator gives (never shown to annotators)."""

    form = GoldItemForm

    list_display = ["triplet", "expected", "note", "created_by", "created_at"]
    list_filter = ["expected", "triplet__question__corpus"]
    autocomplete_fields = ["triplet"]  # search by question text or answer, no raw id
    exclude = ["created_by"]

    def save_model(self, request, obj, form, change):  # noqa: PLR0917 - ModelAdmin.save_model's signature is Django's
        obj.created_by = obj.created_by or request.user
        super().save_model(request, obj, form, change)


@admin.register(models.Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ["triplet", "value", "adjudicator", "updated_at"]
    list_filter = ["value", "triplet__question__corpus"]
    autocomplete_fields = ["triplet"]
    raw_id_fields = ["adjudicator"]


class ParticipantInline(admin.TabularInline):
    model = models.Participant
    extra = 0
    can_delete = False
    fields = ["external_id", "status", "fold", "consented_at", "ended_at", "panel_study", "panel_session"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class StudyForm(forms.ModelForm):
    """The study form: only answer folds of the study's corpus (``studies.check_folds``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "qualification_items" in self.fields:  # SPEC 17: left empty means no qualification block
            self.fields["qualification_items"].required = False

    def clean_qualification_items(self):
        return self.cleaned_data.get("qualification_items") or 0

    def clean(self):
        data = super().clean()
        corpus, folds = data.get("corpus"), data.get("folds")
        if corpus is not None and folds:
            try:
                studies.check_folds(corpus, folds)
            except studies.StrayFolds as exc:
                self.add_error("folds", str(exc))
        try:  # SPEC 17: the qualification block needs that many gold items
            if corpus is not None:
                screening.check_qualification(corpus, data.get("qualification_items") or 0)
        except ValueError as exc:
            self.add_error("qualification_items", str(exc))
        try:
            studies.check_close_rule(corpus, data.get("close_when"))
        except studies.CloseRuleRefused as exc:
            self.add_error("close_when", str(exc))
        return data


def _erase_all(study, reason):
    with privacy.many_erasures():
        for participant in models.Participant.objects.filter(study=study).select_related("study", "user"):
            privacy.erase(participant, models.ErasureTombstone.WITHDRAW, reason)


@admin.register(models.Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "corpus", "open", "slots_per_fold", "max_participants", "created_at"]
    list_filter = ["open", "corpus"]
    search_fields = ["slug", "title"]
    filter_horizontal = ["folds"]
    readonly_fields = ["closed_at", "closed_reason"]
    inlines = [ParticipantInline]
    formfield_overrides = {URLField: {"assume_scheme": "https"}}

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        """The numbers typed in the page's language, comma or point (``core.number_field``)."""
        bounds = {
            "close_width": {"min_value": 0, "min_open": True, "max_value": 1, "max_open": True},
            "min_gold_accuracy": {"min_value": 0, "max_value": 1},
        }.get(db_field.name)
        if bounds is None:
            return super().formfield_for_dbfield(db_field, request, **kwargs)
        return NumberField(
            required=False,
            label=db_field.verbose_name,
            help_text=db_field.help_text,
            meaning=_("a share or a half-width on a [0, 1] scale"),
            **bounds,
        )

    form = StudyForm

    # SPEC 18: deleting a study erases each participant through the one service first (tombstones kept)
    def delete_model(self, request, obj):
        _erase_all(obj, "study deleted in the Django admin")
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for study in queryset:
            _erase_all(study, "study deleted in the Django admin")
        super().delete_queryset(request, queryset)

    def get_exclude(self, request, obj=None):
        # a new study takes every answer fold of its corpus; its own folds are chosen once the corpus is saved
        return ["folds"] if obj is None else super().get_exclude(request, obj)

    def save_related(self, request, form, formsets, change):  # noqa: PLR0917 - Django's signature
        super().save_related(request, form, formsets, change)
        screening.place_qualification(form.instance)  # SPEC 17: the block first in every fold

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and "folds" in form.base_fields:
            folds = models.Fold.objects.filter(corpus_id=obj.corpus_id, kind=models.Fold.KIND_TRIPLET)
            form.base_fields["folds"].queryset = folds.order_by("index", "pk")
        return form


@admin.register(models.Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ["external_id", "code", "study", "status", "fold", "consented_at", "ended_at"]
    list_filter = ["study", "status"]
    search_fields = ["external_id", "code"]
    readonly_fields = [
        "study",
        "external_id",
        "code",
        "consent_version",
        "consent_language",
        "user",
        "fold",
        "consented_at",
        "ended_at",
        "panel_study",
        "panel_session",
    ]
    fields = [*readonly_fields, "status", "browser_token"]

    def has_add_permission(self, request):
        return False

    # SPEC 18: a delete here is an erasure (mode withdraw) through the one service, tombstone included
    def delete_model(self, request, obj):
        privacy.erase(obj, models.ErasureTombstone.WITHDRAW, "deleted in the Django admin")

    def delete_queryset(self, request, queryset):
        for participant in queryset.select_related("study", "user"):
            privacy.erase(participant, models.ErasureTombstone.WITHDRAW, "deleted in the Django admin")


# SPEC 18: deleting a participant's account in the Django admin is that participant's erasure
User = get_user_model()
_BaseUserAdmin = type(admin.site._registry[User]) if admin.site.is_registered(User) else DjangoUserAdmin


class UserAdmin(_BaseUserAdmin):
    def delete_model(self, request, obj):
        participant = models.Participant.objects.filter(user=obj).select_related("study", "user").first()
        if participant is None:
            super().delete_model(request, obj)
        else:
            privacy.erase(participant, models.ErasureTombstone.WITHDRAW, "account deleted in the Django admin")

    def delete_queryset(self, request, queryset):
        for participant in models.Participant.objects.filter(user__in=queryset).select_related("study", "user"):
            privacy.erase(participant, models.ErasureTombstone.WITHDRAW, "account deleted in the Django admin")
        super().delete_queryset(request, queryset.model.objects.filter(pk__in=queryset.values("pk")))


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, UserAdmin)
