"""The ``answer_in_passage`` filter writes what the template loop over ``answer_segments`` wrote
(each piece escaped, the answer in <mark>, line breaks as <br>), in one call, over the passage with
no-break spaces between digit groups (``guidelines.keep_digit_groups``, as the page shows numbers)."""

import pytest
from django.template import Context, Template

from annotation import guidelines

LOOP = (
    '{% for text, hit in segments %}{% if hit %}<mark class="answer-in-passage">{{ text }}</mark>'
    "{% else %}{{ text|linebreaksbr }}{% endif %}{% endfor %}"
)
FILTER = "{% load annotator_help %}{{ context|answer_in_passage:answer }}"


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Warsaw is big. WARSAW  is\nold.", "warsaw"),
        ("<script>alert('x')</script> & Denver\r\nBroncos <b>won</b>", "Denver Broncos"),
        ("The <b> tag & the answer <b>", "<b>"),
        ("no answer here\n\nat all", "zebra"),
        ("L’armée et les armées, 20 000 soldats", "l'armée"),
        ("14,2 and 14 and 141", "14"),
        ("", "x"),
        ("text", ""),
    ],
)
def test_filter_writes_what_the_loop_wrote(context, answer):
    shown = guidelines.keep_digit_groups(context)
    looped = Template(LOOP).render(Context({"segments": guidelines.answer_segments(shown, answer)}))
    filtered = Template(FILTER).render(Context({"context": context, "answer": answer}))
    assert filtered == looped
    assert "<script>" not in filtered
