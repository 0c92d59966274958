"""Where a report job's files live, and which of them may be served."""

from __future__ import annotations

import json
import mimetypes

from core.models import Job
from evaluation.jobs import JOB_KIND, report_dir


def report_jobs():
    """The report jobs (``Job`` rows of kind ``JOB_KIND``).

    Returns
    -------
    QuerySet of Job
    """
    return Job.objects.filter(kind=JOB_KIND)


def file_names(job) -> list[str]:
    """The files the job wrote (from its result), that still exist.

    Parameters
    ----------
    job : Job
        A report job.

    Returns
    -------
    list of str
        File names in the job's folder; empty unless the job succeeded.
    """
    if job.status != Job.SUCCEEDED:
        return []
    folder = report_dir(job.pk)
    return [n for n in (job.result or {}).get("files", []) if (folder / n).is_file()]


def file_path(job, name):
    """The path of one of the job's files, or None (never a path outside the job's folder).

    Parameters
    ----------
    job : Job
        A report job.
    name : str
        A file name as requested.

    Returns
    -------
    pathlib.Path or None
        None unless ``name`` is one of ``file_names(job)``.
    """
    if name not in file_names(job):
        return None
    return report_dir(job.pk) / name


def content_type(name):
    """The content type a report file is served with.

    Parameters
    ----------
    name : str
        A file name.

    Returns
    -------
    str
        From its extension; ``.tex`` files without a system type are ``application/x-tex``,
        unknown ones ``application/octet-stream``.

    Examples
    --------
    >>> from evaluation.files import content_type
    >>> content_type("report.json"), content_type("figure3_partitions.png"), content_type("notes.unknownext")
    ('application/json', 'image/png', 'application/octet-stream')
    """
    fallback = "application/x-tex" if name.endswith(".tex") else "application/octet-stream"
    return mimetypes.guess_type(name)[0] or fallback


def load_json(job):
    """The job's report.json data.

    Parameters
    ----------
    job : Job
        A report job.

    Returns
    -------
    dict or None
        None when the job has no report.json.
    """
    path = file_path(job, "report.json")
    return json.loads(path.read_text(encoding="utf-8")) if path else None
