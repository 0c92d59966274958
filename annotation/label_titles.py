"""The labels on pages: their words, in the reader's language, and the annotator page's keyboard
shortcuts (the values are ``stats.labels``)."""

from django.utils.translation import gettext_lazy as _

from stats.labels import CORRECT, ERRONEOUS, FRAME_PARTIAL, FULL, INCORRECT, PARTIAL

LABEL_TITLES = {CORRECT: _("Correct"), PARTIAL: _("Partially correct"), INCORRECT: _("Incorrect")}
FRAME_CHECK_TITLES = {FULL: _("Full"), FRAME_PARTIAL: _("Partial"), ERRONEOUS: _("Erroneous")}
# Keyboard shortcuts of the annotator page.
LABEL_KEYS = {"1": CORRECT, "2": PARTIAL, "3": INCORRECT}
