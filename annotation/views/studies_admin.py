"""The admin's pages of crowd studies: the list, one study's participants (status, times, active
minutes, items done, gold accuracy), open / close, browser reset, returned; the CSV for payment."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.db.models import Count
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from annotation import crowd, privacy, screening, studies
from annotation.exports import csv_lines
from annotation.models import Fold, Participant, ParticipantDecision, Study
from core.export_safety import streamed_download
from core.number_field import NumberField
from core.permissions import admin_required

CSV_COLUMNS = [
    "participant",
    "code",
    "consent_version",
    "status",
    "fold",
    "started",
    "ended",
    "last_activity",
    "active_minutes",
    "items_done",
    "gold_items",
    "gold_accuracy",
    "panel_study",
    "panel_session",
    *screening.DECISION_COLUMNS,  # SPEC 17: the three decisions, with reason, rule and evidence
    *screening.FIGURE_COLUMNS,
]


DECISION_WORDS = (("excluded", "excluded"), ("stopped", "stopped"), ("panel", "panel_decision"))


@admin_required
@require_safe
def study_list(request):
    rows = Study.objects.select_related("corpus").order_by("-created_at")
    return render(request, "annotation/studies.html", {"studies": rows})


class ReopenForm(forms.Form):
    """What an admin changes to reopen a study that closed by itself (``studies.reopen``)."""

    close_when = forms.ChoiceField(choices=Study.CLOSE_RULES, required=False, label=gettext_lazy("close by itself"))
    close_width = NumberField(
        required=False,
        min_value=0,
        min_open=True,
        max_value=1,
        max_open=True,
        label=gettext_lazy("target half-width"),
        meaning=gettext_lazy("a half-width of Hscore, on a [0, 1] scale"),
    )
    slots_per_fold = NumberField(integer=True, min_value=1, max_value=1000, label=gettext_lazy("slots per fold"))

    @classmethod
    def of(cls, study, data=None):
        initial = {k: getattr(study, k) for k in ("close_when", "close_width", "slots_per_fold")}
        return cls(data, initial=initial)


def _act(request, study):
    action = request.POST.get("action", "")
    if action == "open" and study.closed_at is not None and not study.open:
        studies.reopen(study, **_same(study))  # refused: nothing changed (the form below changes something)
    if action in ("open", "close"):
        Study.objects.filter(pk=study.pk).update(open=action == "open")
        return _("the study is open") if action == "open" else _("the study is closed")
    if action not in ("reset", "returned", "erase", "panel"):
        raise ValueError(_("unknown action"))
    participant = privacy.find_participant(study, request.POST.get("participant", ""))
    if participant is None:
        raise ValueError(_("no such participant in this study"))
    if action == "erase":
        return _erase(request, participant)
    if action == "panel":  # SPEC 17: the panel decision, with its reason (reject: attention checks only)
        return _panel(request, participant)
    if action == "reset":
        studies.reset_browser(participant)
        return _("%(id)s may go on from one other browser (the next one to open the link)") % {
            "id": participant.external_id
        }
    if participant.status not in crowd.WORKING:
        raise ValueError(
            _("%(id)s holds no slot (%(status)s)") % {"id": participant.external_id, "status": participant.status}
        )
    if studies.mark_returned(participant) is not None:
        return _("%(id)s returned the study: slot freed, data erased as the study says") % {"id": participant.code}
    return _("%(id)s returned the study: slot freed, labels kept") % {"id": participant.external_id}


def _panel(request, participant):
    value = request.POST.get("decision", "")
    screening.decide_panel(participant, value, reason=request.POST.get("reason", ""), user=request.user)
    return _("panel decision for %(id)s: %(decision)s") % {"id": participant.code, "decision": value}


def _erase(request, participant):
    """The admin page's erasure: the one service, with the mode and reason the form sent."""
    mode, reason = request.POST.get("mode", ""), request.POST.get("reason", "").strip()
    if mode not in privacy.MODES:
        raise ValueError(_("choose how to erase: withdraw or identity"))
    if not reason:
        raise ValueError(_("write why the participant is erased (no panel id in it)"))
    stone = privacy.erase(participant, mode, reason)
    return _("%(code)s erased (%(mode)s)") % {"code": stone.code, "mode": mode}


def _same(study):
    return {k: getattr(study, k) for k in ("close_when", "close_width", "slots_per_fold")}


@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def study_page(request, slug):
    study = get_object_or_404(Study.objects.select_related("corpus"), slug=slug)
    reopen_form = None
    if request.method == "POST" and request.POST.get("action") == "reopen":
        reopen_form = ReopenForm.of(study, request.POST)
        try:
            if not reopen_form.is_valid():
                raise ValueError(_("correct the fields marked below"))
            d = reopen_form.cleaned_data
            studies.reopen(
                study,
                close_when=d["close_when"] or "",
                close_width=d["close_width"],
                slots_per_fold=d["slots_per_fold"],
            )
        except ValueError as exc:
            messages.error(request, _("nothing changed: %(error)s") % {"error": exc})
            return _page(request, study, reopen_form, status=400)  # what was typed stays
        messages.success(request, _("the study is open again"))
        return redirect("study-admin", slug=study.slug)
    if request.method == "POST":
        try:
            messages.success(request, _act(request, study))
        except ValueError as exc:
            messages.error(request, _("nothing changed: %(error)s") % {"error": exc})
        return redirect("study-admin", slug=study.slug)
    return _page(request, study, reopen_form)


def _page(request, study, reopen_form, *, status=200):
    studies.release_idle(study)
    rows = _rows(study)
    link = request.build_absolute_uri(f"/study/{study.slug}/")
    context = {
        "study": study,
        "prolific_link": link
        + "?"
        + "&".join(f"{k}={{{{%{k}%}}}}" for k in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")),
        "rows": rows,
        "folds": studies.fold_ids(study),
        "link": link,
        "completion": crowd.completion_link(study.completion_url, study.completion_code),
        "counts": {title: sum(r["status"] == s for r in rows) for s, title in Participant.STATUSES},
        # SPEC 18: consents per frozen version, the erasures so far
        "consent_versions": privacy.consent_counts(study),
        "tombstones": study.tombstones.order_by("created_at"),
        "reopen_form": reopen_form
        or (ReopenForm.of(study) if study.closed_at is not None and not study.open else None),
        "live_url": studies.live_page(study),
    }
    return render(request, "annotation/study_admin.html", context, status=status)


def _rows(study):
    """The participants' rows, statuses and decisions in words (the CSV and the API keep the codes); a
    participant cut short by the study closing by itself says so."""
    words = dict(Participant.STATUSES)
    values = dict(ParticipantDecision.VALUES)  # SPEC 17: the decisions in words too
    folds = Fold.objects.filter(participants__study=study).distinct().annotate(size=Count("items"))
    titles, sizes = {f.name: f.title for f in folds}, {f.name: f.size for f in folds}
    rows = []
    for row in studies.participant_rows(study):
        status = words.get(row["status"], row["status"])
        shallow = Participant(status=row["status"], ended_at=row["ended"])
        if studies.ended_early(study, shallow, items_done=row["items_done"], fold_size=sizes.get(row["fold"], 0)):
            status = _("completed: cut short when the study closed by itself")
        decided = {f"{k}_words": values.get(row[c], row[c]) for k, c in DECISION_WORDS}
        rows.append({**row, "status_words": status, "fold_title": titles.get(row["fold"], row["fold"]), **decided})
    return rows


@admin_required
@require_safe
def participants_csv(request, slug):
    study = get_object_or_404(Study, slug=slug)
    rows = [{**row, "active_minutes": f"{row['active_minutes']:.2f}"} for row in studies.participant_rows(study)]
    return streamed_download(csv_lines(rows, CSV_COLUMNS), f"participants-{study.slug}.csv", "text/csv; charset=utf-8")


@admin_required
@require_safe
def participant_data(request, slug, code):
    """Subject access (SPEC 18): everything held about one participant, as one JSON file."""
    study = get_object_or_404(Study, slug=slug)
    participant = privacy.find_participant(study, code, code_only=True)
    if participant is None:
        raise Http404("no such participant")
    response = JsonResponse(privacy.subject_data(participant), json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="participant-{study.slug}-{participant.code}.json"'
    return response
