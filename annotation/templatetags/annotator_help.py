"""Template filters of the annotator pages: safe Markdown guidelines, the answer in the passage."""

from django import template
from django.utils.safestring import mark_safe

from annotation import guidelines

register = template.Library()


@register.filter
def markdown(text):
    return mark_safe(guidelines.render_markdown(text))  # raw HTML disabled: see annotation/guidelines.py


@register.filter
def answer_segments(context, answer):
    return guidelines.answer_segments(context, answer)
