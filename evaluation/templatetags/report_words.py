"""Words of the report pages in the reader's language: a label key as its title (the keys stay in
report.json and the downloads)."""

from django import template

from annotation.labels import FRAME_CHECK_TITLES, LABEL_TITLES

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
