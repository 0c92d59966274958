"""Template filters of the annotator pages: safe Markdown guidelines, the answer in the passage, numbers
that never break between their digit groups."""

from django import template
from django.utils.safestring import mark_safe

from annotation import guidelines

register = template.Library()


@register.filter
def markdown(text):
    return mark_safe(guidelines.render_markdown(text))  # raw HTML disabled: see annotation/guidelines.py


@register.filter
def digit_groups(text):
    """The corpus text with no-break spaces between digit groups (``guidelines.keep_digit_groups``)."""
    return guidelines.keep_digit_groups(text)


@register.filter
def answer_segments(context, answer):
    return guidelines.answer_segments(context, answer)
