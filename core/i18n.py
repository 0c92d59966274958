"""The interface's language: which one a request gets, the switcher that changes it, and the
JavaScript catalogue.

Precedence (``choose_language``, pure): the user's own choice (the header's switcher; a signed-in
user's choice is stored on the account, ``UserPreference``, and copied into the session at login;
a signed-out visitor's lives in the language cookie), else the first of the browser's
Accept-Language languages the site speaks, else a fallback the apps register (annotation: the
language of the corpus of an annotator's folds), else ``LANGUAGE_CODE`` (English). No URL carries
the language (no ``i18n_patterns``).

Pages format numbers and dates for the reader's language (``USE_L10N`` is always on in Django 5);
downloads (CSV, JSON, LaTeX) never do: they are written with ``str``/``json``/``csv``, never with
the template layer's localization.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.dispatch import receiver
from django.http import HttpResponseBadRequest, HttpResponseRedirect
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation.trans_real import parse_accept_lang_header
from django.views.decorators.http import require_POST

from core.languages import primary
from core.registry import Registry

SESSION_KEY = "qaeval_language"
#: Where a language comes from when the user and the browser name none, in order (core.registry's shape).
FALLBACKS = Registry("language fallbacks")


def register_fallback(fallback: Callable):
    """Register ``fallback(request) -> language code or None``, asked when neither the user nor the
    browser names a language of the site (an app above core: annotation's corpus language)."""
    return FALLBACKS.register(f"{fallback.__module__}.{fallback.__qualname__}", fallback)


def supported(code, languages=None) -> str | None:
    """The site's language for ``code`` (``fr-CA`` -> ``fr``), or None.

    >>> supported("fr-CA", [("en", "English"), ("fr", "French")]), supported("de", [("en", "English")])
    ('fr', None)
    """
    if not code:
        return None
    codes = [c for c, _name in (languages or settings.LANGUAGES)]
    code = code.strip().lower()
    if code in codes:
        return code
    base = primary(code)  # the one subtag rule (core.languages)
    return base if base in codes else None


def validate_site_language(code):
    """A model field's validator: ``code`` names a language of the site (``fr``, ``fr-CA``), or is empty."""
    if code and supported(code) is None:
        codes = ", ".join(c for c, _name in settings.LANGUAGES)
        raise ValidationError(_("%(code)s is not a language of the site (%(codes)s).") % {"code": code, "codes": codes})


def from_accept_language(header: str, languages=None) -> str | None:
    """The first language of an Accept-Language header (by quality) the site speaks, or None.

    >>> from_accept_language("de-DE,fr;q=0.8,en;q=0.5", [("en", "English"), ("fr", "French")])
    'fr'
    """
    for code, _quality in parse_accept_lang_header(header or ""):
        if code != "*" and (found := supported(code, languages)):
            return found
    return None


def choose_language(*, chosen=None, cookie=None, accept_language="", fallback=None, languages=None, default=None):
    """The language of a request; ``fallback`` is a callable, asked only when nothing before it names one.

    >>> langs = [("en", "English"), ("fr", "French")]
    >>> choose_language(chosen="fr", cookie="en", accept_language="en", languages=langs)
    'fr'
    >>> choose_language(cookie="fr", accept_language="en", languages=langs)
    'fr'
    >>> choose_language(accept_language="de, fr;q=0.5", fallback=lambda: "en", languages=langs)
    'fr'
    >>> choose_language(accept_language="de", fallback=lambda: "fr", languages=langs)
    'fr'
    >>> choose_language(accept_language="de", fallback=lambda: None, languages=langs, default="en")
    'en'
    """
    for candidate in (chosen, cookie):
        if found := supported(candidate, languages):
            return found
    if found := from_accept_language(accept_language, languages):
        return found
    if fallback is not None and (found := supported(fallback(), languages)):
        return found
    return default or settings.LANGUAGE_CODE


def _fallback_language(request):
    for fallback in FALLBACKS.all().values():
        if found := fallback(request):
            return found
    return None


class LanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware (Content-Language, Vary: Accept-Language) with the site's precedence;
    placed after AuthenticationMiddleware, since the fallback reads the user's folds."""

    def process_request(self, request):
        session = getattr(request, "session", None)
        language = choose_language(
            chosen=session.get(SESSION_KEY) if session is not None else None,
            cookie=request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
            accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
            fallback=lambda: _fallback_language(request),
        )
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def __call__(self, request):
        # The language is the request's only: the thread goes back to the default once the response
        # is made, so that work done outside a request (a job in a thread, the next test) is not
        # done in the last reader's language.
        try:
            return super().__call__(request)
        finally:
            translation.deactivate()


@receiver(user_logged_in, dispatch_uid="core.i18n.restore_language")
def restore_language(sender, request, user, **kwargs):
    """At login, the user's stored choice becomes the session's (it outlives logout)."""
    from core.models import UserPreference

    if request is None or not hasattr(request, "session"):
        return
    language = UserPreference.objects.filter(user=user).values_list("language", flat=True).first()
    if language:
        request.session[SESSION_KEY] = language
    else:
        request.session.pop(SESSION_KEY, None)


@require_POST
def set_language(request):
    """The header's switcher: ``language`` (a code the site speaks), back to ``next`` or the
    Referer when it is a page of this site (else the home page). Stored on the account of a
    signed-in user, in the session and in the language cookie."""
    from core.models import UserPreference

    codes = [code for code, _name in settings.LANGUAGES]
    language = request.POST.get("language", "")
    if language not in codes:
        return HttpResponseBadRequest(
            _("Unknown language: choose one of %(codes)s.") % {"codes": ", ".join(codes)},
            content_type="text/plain; charset=utf-8",
        )
    # back to the page the switcher was on: ``next``, else the Referer (the header's form sends no
    # ``next``, so that a page is the same whatever its address: the 404 page reveals nothing)
    target = request.POST.get("next") or request.headers.get("Referer") or "/"
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        target = "/"
    response = HttpResponseRedirect(target)
    if request.user.is_authenticated:
        UserPreference.objects.update_or_create(user=request.user, defaults={"language": language})
    request.session[SESSION_KEY] = language
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response
