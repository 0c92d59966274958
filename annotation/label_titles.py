"""The labels' words on pages, in the reader's language (the values are ``annotation.labels``)."""

from django.utils.translation import gettext_lazy as _

from annotation.labels import CORRECT, ERRONEOUS, FRAME_PARTIAL, FULL, INCORRECT, PARTIAL

LABEL_TITLES = {CORRECT: _("Correct"), PARTIAL: _("Partially correct"), INCORRECT: _("Incorrect")}
FRAME_CHECK_TITLES = {FULL: _("Full"), FRAME_PARTIAL: _("Partial"), ERRONEOUS: _("Erroneous")}
