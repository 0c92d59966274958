"""The evaluation app owns no table; ``StudyArchive`` gives study archives (SPEC 14) their place in
the Django admin: a proxy of the corpus (no table of its own)."""

from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus


class StudyArchive(Corpus):
    """A corpus seen as a study that can be exported to, or imported from, one zip archive."""

    class Meta:
        proxy = True
        verbose_name = _("study archive")
        verbose_name_plural = _("study archives")
