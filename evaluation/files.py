"""Where a report job's files live, and which of them may be served."""
from __future__ import annotations

import json
import mimetypes

import pandas as pd

from core.models import Job
from evaluation.jobs import JOB_KIND, report_dir


def report_jobs():
    return Job.objects.filter(kind=JOB_KIND)


def file_names(job) -> list[str]:
    """The files the job wrote (from its result), that still exist."""
    if job.status != Job.SUCCEEDED:
        return []
    folder = report_dir(job.pk)
    return [n for n in (job.result or {}).get("files", []) if (folder / n).is_file()]


def file_path(job, name):
    """The path of one of the job's files, or None (never a path outside the job's folder)."""
    if name not in file_names(job):
        return None
    return report_dir(job.pk) / name


def content_type(name):
    return mimetypes.guess_type(name)[0] or ("application/x-tex" if name.endswith(".tex") else "application/octet-stream")


def load_json(job):
    path = file_path(job, "report.json")
    return json.loads(path.read_text(encoding="utf-8")) if path else None


def html_tables(job):
    """[(name, html)] for each CSV table of the job, rendered for the page."""
    out = []
    for name in file_names(job):
        if name.endswith(".csv"):
            frame = pd.read_csv(report_dir(job.pk) / name, index_col=0)
            out.append((name[:-4], frame.to_html(classes="data", na_rep="—", float_format=lambda v: f"{v:.3f}", border=0)))
    return out
