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
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import login
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation import crowd, studies
from annotation.models import Participant, Study
from core import i18n

_SALT = "qaeval.study.browser"
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
    "returned": 200,
    "completed": 200,
}


def study_link(participant):
    """The participant's own link back (what the panel sent; the id is enough once they exist)."""
    return (
        reverse("study-entry", args=[participant.study.slug])
        + "?"
        + urlencode({"participant": participant.external_id})
    )


def page_for(request, participant):
    """Where a participant whose work ended (or whose slot is gone) is sent: their study link (home
    when the session's participant no longer exists)."""
    url = study_link(participant) if participant is not None else reverse("home")
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


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
    return response


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
        ended_early=studies.ended_early(study, participant),
    )


@require_http_methods(["GET", "HEAD", "POST"])
def entry(request, slug):
    study = Study.objects.filter(slug=slug).select_related("corpus").first()
    if study is None:
        raise Http404("no such study")
    _speak_the_study(request, study)
    try:
        ids = crowd.panel_ids(request.GET)
    except crowd.PanelIdError as exc:
        return _state(request, study, "missing", error=str(exc))
    participant = studies.find(study, ids[0])
    if participant is not None:
        return _returning(request, participant)
    if not study.open:
        return _state(request, study, "closed")
    if request.method != "POST" and studies.looks_full(study):
        return _state(request, study, "full")
    if request.method != "POST" or request.POST.get("consent") != "yes":
        error = _("Tick the box to consent, or close this page: nothing is stored.") if request.method == "POST" else ""
        return render(
            request, "annotation/study_consent.html", {"study": study, "error": error}, status=400 if error else 200
        )
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
