"""The annotators' language fallback (``core.i18n``): an annotator who chose no language and whose
browser names none of the site's gets the language of the corpus of their folds (the fold assigned
last, if their corpora differ). Kept in the session: one query per session, not per request."""

from core.i18n import register_fallback
from core.roles import is_annotator

_CACHE = "qaeval_corpus_language"


def corpus_language(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    session = getattr(request, "session", None)
    if session is not None and _CACHE in session:
        return session[_CACHE] or None
    language = None
    if is_annotator(user):
        from annotation.models import Assignment

        language = (
            Assignment.objects.filter(annotator=user)
            .order_by("-created_at", "-id")
            .values_list("fold__corpus__language", flat=True)
            .first()
        )
    if session is not None:
        session[_CACHE] = language or ""
    return language


def register():
    register_fallback(corpus_language)
