"""What to do once a job succeeded, registered by the app that owns the job's kind.

core shows a finished job (the admin's job page and status panel) but knows neither the kinds of
jobs the apps above it run nor their pages: each app gives the kinds it registers in
``core.job_kinds`` their step (``next_step=``, made with the helpers below), and the job page asks
:func:`of`.

>>> from core import job_kinds, pages
>>> step = lambda job: ("Open the report", f"/research/reports/{job.pk}/")
>>> class Job:
...     kind, pk = "toy_report", 7
>>> with job_kinds.KINDS.override({"toy_report": job_kinds.JobKind("toy_report", "toy", next_step=step)}):
...     of(Job())
('Open the report', '/research/reports/7/')
>>> Job.kind = "toy_import"
>>> of(Job()) is None
True
"""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode

from core import job_kinds, pages


def of(job):
    """``(text, url)`` of what to do after ``job``, or None (no step for its kind, or its page is gone)."""
    record = job_kinds.get(job.kind)
    if record is None or record.next_step is None:
        return None
    try:
        return record.next_step(job)
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
    return _for_corpus(lambda: reverse(url_name), text)


def registered_corpus_page(name, text):
    """A step to the page an upper app registered in ``core.pages`` as ``name``, for the job's corpus: a
    lower app's kind of job leads to an upper app's page without naming it (no step when it is not
    registered)."""
    return _for_corpus(lambda: pages.url(name), text)


def _for_corpus(address, text):
    def step(job):
        url = address()
        if url is None:
            return None
        corpus = job.params.get("corpus") or job.result.get("corpus")
        return text, f"{url}?{urlencode({'corpus': corpus})}" if corpus else url

    return step
