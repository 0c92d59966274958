"""Template filters of the annotator pages: safe Markdown guidelines, the answer in the passage, numbers
that never break between their digit groups."""

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.html import escape
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
def answer_in_passage(context, answer):
    """The passage as HTML, every occurrence of the answer (``guidelines.answer_segments``) in
    ``<mark class="answer-in-passage">``, the rest with its line breaks as ``<br>``; all text escaped, and
    no-break spaces between digit groups (``digit_groups``).
    One filter call instead of a template loop per piece (the judge fragment renders it every time)."""
    return mark_safe(
        "".join(
            f'<mark class="answer-in-passage">{escape(text)}</mark>' if hit else linebreaksbr(text)
            for text, hit in guidelines.answer_segments(guidelines.keep_digit_groups(context), answer)
        )
    )
