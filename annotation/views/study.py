"""The participant's path through a crowd study (SPEC 13), thin over ``annotation.studies``.

``GET /study/<slug>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..`` (or ``?participant=..``) shows the
consent; ``POST`` with ``consent=yes`` makes the account, logs it in for this browser (a signed cookie
binds the id to it), gives a slot and redirects to the fold's annotate page. The same link answers
every later state: resume in the same browser, refusal from another one, the completion code, a
released slot, a stop on gold items, a closed or full study, a missing id: always a page that says
what happened and what to do, never a 5xx.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import login, logout
from django.core import signing
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation import crowd, privacy, studies
from annotation.models import Participant, Study
from core import i18n

_SALT = "qaeval.study.browser"
_IDS_SALT = "qaeval.study.ids"  # the panel ids the entry link brought, kept in the participant's own browser
_COOKIE_AGE = 90 * 24 * 3600
_BACKEND = "django.contrib.auth.backends.ModelBackend"
# The page each state answers, with its HTTP status.
STATES = {
    "missing": 400,
    "closed": 200,
    "full": 200,
    "refused": 403,
    "idle": 200,
    "excluded": 200,
    "screened_out": 200,  # SPEC 17: failed the qualification block, paid as a screen-out
    "returned": 200,
    "completed": 200,
    "withdrawn": 200,
}


def study_link(participant):
    """The participant's own link back: the study's page, without any id (SPEC 18: the browser's
    cookie and session say who they are)."""
    return reverse("study-entry", args=[participant.study.slug])


def ids_cookie(study):
    return f"qaeval-study-ids-{study.pk}"


def _ids(request, study):
    """``(panel ids, whether they came in the link's query)``: the query's, else those the entry link
    left in this browser's cookie, else those of the session's participant; ``PanelIdError`` if none."""
    if any(key in request.GET for key in ("PROLIFIC_PID", "participant", "STUDY_ID", "SESSION_ID")):
        return crowd.panel_ids(request.GET), True  # a link with ids (or a broken one: it says so)
    try:  # signed, URL-safe base64: no quote or comma for a cookie jar to mangle
        kept = signing.loads(request.COOKIES.get(ids_cookie(study), ""), salt=_IDS_SALT, max_age=_COOKIE_AGE)
    except signing.BadSignature:
        kept = None
    if isinstance(kept, list) and len(kept) == 3 and all(isinstance(v, str) for v in kept):
        return crowd.panel_ids({"participant": kept[0], "STUDY_ID": kept[1], "SESSION_ID": kept[2]}), False
    participant = current_participant(request)
    if participant is not None and participant.study_id == study.pk:
        return (participant.external_id, participant.panel_study, participant.panel_session), False
    return crowd.panel_ids({}), False


def _keep_ids(request, response, study, *, ids):
    response.set_cookie(
        ids_cookie(study),
        signing.dumps(list(ids), salt=_IDS_SALT),
        max_age=_COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


def page_for(request, participant):
    """Where a participant whose work ended (or whose slot is gone) is sent: their study link (home
    when the session's participant no longer exists)."""
    url = study_link(participant) if participant is not None else reverse("home")
    return HttpResponseClientRedirect(url) if request.htmx else HttpResponseRedirect(url)


def current_participant(request):
    """The Participant this browser's session belongs to, or None (one lookup, only for participants)."""
    pk = request.session.get(studies.SESSION_KEY)
    if not isinstance(pk, int):
        return None
    return Participant.objects.select_related("study").filter(pk=pk, user_id=request.user.pk).first()


def _state(request, study, state, **context):
    context.update(study=study, state=state)
    return render(request, "annotation/study_state.html", context, status=STATES[state])


def _bound(request, response, participant):
    """``response`` with the cookie that binds the participant's id to this browser."""
    response.set_signed_cookie(
        studies.cookie_name(participant.study),
        participant.browser_token,
        salt=_SALT,
        max_age=_COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    p = participant
    return _keep_ids(request, response, p.study, ids=(p.external_id, p.panel_study, p.panel_session))


def _speak_the_study(request, study):
    """This response in the study's language, whatever the browser asks, unless the visitor chose one
    with the header's switcher (the language cookie)."""
    if not request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        translation.activate(study.page_language)
        request.LANGUAGE_CODE = study.page_language


def _start(request, participant):
    """Log the participant in for this browser and send them to their fold, whose pages speak the
    study's language (kept in the session as the participant's choice; the switcher still changes it)."""
    with transaction.atomic():  # the login's writes (session, access log, last login): one commit, not four
        login(request, participant.user, backend=_BACKEND)
    request.session[studies.SESSION_KEY] = participant.pk
    if not request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        request.session[i18n.SESSION_KEY] = participant.study.page_language
    return _bound(request, redirect("annotate", fold_id=participant.fold_id), participant)


def _this_browser(request, participant):
    """True when this browser holds the participant's id (or claims it after an admin reset)."""
    cookie = request.get_signed_cookie(studies.cookie_name(participant.study), default="", salt=_SALT)
    if participant.browser_token:
        return bool(cookie) and secrets.compare_digest(cookie, participant.browser_token)
    return studies.bind_browser(participant, cookie or secrets.token_urlsafe(32))


def _returning(request, participant):
    if not _this_browser(request, participant):
        return _state(request, participant.study, "refused", participant=participant)
    return _bound(request, _go_on(request, participant), participant)


def _go_on(request, participant):
    """The answer to a participant back in their own browser, by their status."""
    study = participant.study
    if participant.status in crowd.WORKING:
        studies.release_idle(study)
        participant.refresh_from_db()
    if participant.status in crowd.WORKING:
        return _start(request, participant)
    if participant.status == Participant.IDLE and request.method == "POST" and request.POST.get("consent") == "yes":
        try:
            return _start(request, studies.readmit(participant))
        except studies.StudyClosed:
            return _state(request, study, "closed")
        except studies.StudyFull:
            return _state(request, study, "full", participant=participant)
    return _state(
        request,
        study,
        participant.status,
        participant=participant,
        completion_link=crowd.completion_link(study.completion_url, study.completion_code),
        screenout_link=crowd.completion_link(study.completion_url, study.screenout_code),
        ended_early=studies.ended_early(study, participant),
    )


@require_http_methods(["GET", "HEAD", "POST"])
def entry(request, slug):
    study = Study.objects.filter(slug=slug).select_related("corpus").first()
    if study is None:
        raise Http404("no such study")
    _speak_the_study(request, study)
    try:
        ids, in_query = _ids(request, study)
    except crowd.PanelIdError as exc:
        return _state(request, study, "missing", error=str(exc))
    response = _answer(request, study, ids)
    if in_query and request.method != "POST" and response.status_code != 302:
        # SPEC 18: a page is never shown at an address holding the ids (address bar, history, access
        # logs): this browser keeps them in a cookie and gets the same page at the study's plain address
        response = redirect("study-entry", slug=study.slug)
    return _keep_ids(request, response, study, ids=ids) if in_query else response


def _answer(request, study, ids):
    """The page (or redirect) for the panel ids ``ids`` at the study's link."""
    participant = studies.find(study, ids[0])
    if participant is not None:
        return _returning(request, participant)
    if privacy.erased(study, ids[0]) is not None:  # they withdrew (or were erased): never back in, never a 5xx
        return _state(request, study, "withdrawn")
    if not study.open:
        return _state(request, study, "closed")
    if request.method != "POST" and studies.looks_full(study):
        return _state(request, study, "full")
    if request.method != "POST" or request.POST.get("consent") != "yes":
        error = _("Tick the box to consent, or close this page: nothing is stored.") if request.method == "POST" else ""
        context = {"study": study, "error": error, "log_days": settings.QAEVAL_LOG_DAYS}
        return render(request, "annotation/study_consent.html", context, status=400 if error else 200)
    token = secrets.token_urlsafe(32)
    try:
        participant, created = studies.admit(study, ids, token=token)
    except studies.StudyClosed:
        return _state(request, study, "closed")
    except studies.StudyFull:
        return _state(request, study, "full")
    if not created:
        return _returning(request, participant)
    return _start(request, participant)


@require_http_methods(["GET", "HEAD", "POST"])
def withdraw(request):
    """The participant's own "withdraw from this study" (SPEC 18): a confirmation, then the study's
    ``withdraw_mode`` through the one erasure service; the browser is logged out and forgets the ids."""
    participant = current_participant(request)
    if participant is None:
        return render(request, "annotation/study_withdraw.html", {"participant": None}, status=404)
    study = participant.study
    _speak_the_study(request, study)
    if request.method != "POST" or request.POST.get("confirm") != "yes":
        error = _("Tick the box to confirm, or go back: nothing was changed.") if request.method == "POST" else ""
        context = {"participant": participant, "study": study, "error": error}
        return render(request, "annotation/study_withdraw.html", context, status=400 if error else 200)
    privacy.erase(participant, study.withdraw_mode, "withdrawn by the participant")
    logout(request)
    response = _state(request, study, "withdrawn")
    for name in (ids_cookie(study), studies.cookie_name(study)):
        response.delete_cookie(name, samesite="Lax")
    return response
