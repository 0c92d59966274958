"""Words of the report pages in the reader's language: a label key as its title (the keys stay in
report.json and the downloads)."""

from django import template

from annotation.label_titles import FRAME_CHECK_TITLES, LABEL_TITLES
from core import job_kinds

register = template.Library()


@register.filter
def label_title(key):
    """``partial`` -> "Partially correct" (translated); an unknown key as it is.

    >>> str(label_title("correct")), label_title("maybe")
    ('Correct', 'maybe')
    """
    return LABEL_TITLES.get(key, key)


@register.filter
def rating_title(key):
    """A frame-check rating key (``full``, ``partial``, ``erroneous``) as its title (translated).

    >>> str(rating_title("erroneous"))
    'Erroneous'
    """
    return FRAME_CHECK_TITLES.get(key, key)


@register.filter
def progress_message(message):
    """A job's progress message, stored in English (marked with ``gettext_noop`` where a job writes
    it), in the reader's language: ``core.job_kinds.message_text``.

    >>> progress_message("done"), progress_message("reading labels.csv")
    ('done', 'reading labels.csv')
    """
    return job_kinds.message_text(message)
