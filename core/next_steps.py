"""What to do once a job succeeded, registered by the app that owns the job's kind.

core shows a finished job (the admin's job page and status panel) but knows neither the kinds of
jobs the apps above it run nor their pages: each app registers, from its ``AppConfig.ready()``, a
step for a prefix of its job kinds (``"import_"``, ``"report"``), and the job page asks :func:`of`.
The longest registered prefix of a kind wins (``"frames_lexicon"`` before ``"frames"``).

>>> steps = {}
>>> register("report", lambda job: ("Open the report", f"/research/reports/{job.pk}/"), into=steps)
>>> class Job:
...     kind, pk = "report", 7
>>> of(Job(), steps=steps)
('Open the report', '/research/reports/7/')
>>> Job.kind = "import_corpus"
>>> of(Job(), steps=steps) is None
True
"""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode

_STEPS: dict = {}


def register(prefix, step, *, into=None):
    """``step(job) -> (text, url)`` for the succeeded jobs whose kind starts with ``prefix``."""
    (_STEPS if into is None else into)[prefix] = step


def of(job, *, steps=None):
    """``(text, url)`` of what to do after ``job``, or None (no step for its kind, or its page is gone)."""
    steps = _STEPS if steps is None else steps
    prefixes = [p for p in steps if job.kind.startswith(p)]
    if not prefixes:
        return None
    try:
        return steps[max(prefixes, key=len)](job)
    except NoReverseMatch:  # the page's app is not installed
        return None


def page(url_name, text):
    """A step to the page ``url_name`` (no argument)."""
    return lambda job: (text, reverse(url_name))


def job_page(url_name, text):
    """A step to the page ``url_name`` of the job itself (its id as the one argument)."""
    return lambda job: (text, reverse(url_name, args=[job.pk]))


def corpus_page(url_name, text):
    """A step to the page ``url_name`` for the job's corpus (``?corpus=`` from its params or result)."""

    def step(job):
        corpus = job.params.get("corpus") or job.result.get("corpus")
        url = reverse(url_name)
        return text, f"{url}?{urlencode({'corpus': corpus})}" if corpus else url

    return step
