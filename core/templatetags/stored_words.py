"""Sentences the platform stores or computes in English (a job's progress, a study's close reason, the
live page's validity notes), shown in the reader's language: ``core.job_kinds.message_text``."""

from django import template

from core import job_kinds

register = template.Library()


@register.filter
def in_words(message):
    """A stored English sentence in the reader's language (as stored when no translation is known).

    >>> in_words("no such sentence")
    'no such sentence'
    """
    return job_kinds.message_text(message)
