"""The report job: computes a report of a corpus from the database and writes its files.

``start_report`` creates the Job row and sends ``evaluation.tasks.build_report`` (the Celery shell),
which runs ``report_body`` through ``core.runner.run_job``.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext_noop

from annotation.models import Corpus
from core.errors import UserFacingError
from core.runner import create_job, enqueue
from evaluation.kinds import JOB_KIND, STUDY_IMPORT_KIND
from evaluation.render.outputs import write_report
from evaluation.report import options as report_options
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs


class ReportInputError(UserFacingError, ValueError):
    """Bad report parameters (unknown system, metric...): shown to the user as is."""

    def as_dict(self):
        return {"message": str(self)}


def report_dir(job_id) -> Path:
    return Path(settings.MEDIA_ROOT) / "reports" / str(job_id)


def report_body(job, progress):
    """The job body of a report (``core.runner.run_job(job_id, report_body)``): files in ``report_dir``.

    Its inputs are read in one pass (``evaluation.report_inputs.read_inputs``); the report is computed
    from them alone (``compute_report`` reads no database), then written."""
    p = job.params
    corpus = Corpus.objects.get(pk=p["corpus_id"])
    progress(done=0, total=6, message=gettext_noop("loading predictions and labels"), force=True)
    try:
        inputs = read_inputs(
            corpus,
            adjudicated=bool(p.get("adjudicated", False)),
            include_excluded=bool(p.get("include_excluded", False)),
            judge=p.get("judge"),
        )
        config = ReportConfig(dedup_policy=corpus.dedup_policy, **report_options.config_kwargs(p))
        report = compute_report(*inputs.tables, config=config, progress=progress, extras=inputs.extras)
    except ValueError as exc:
        raise ReportInputError(str(exc)) from None
    languages = [code for code, _name in settings.LANGUAGES if code != "en"]  # the page's figures in each
    files = write_report(report, report_dir(job.pk), render_figures=p.get("figures", True), page_languages=languages)
    return {
        "corpus": corpus.name,
        "files": files,
        "metric": report.data["metric"],
        "notes": report.data["notes"],
        "n_questions": report.data["n_questions"],
    }


# The options of a report job and their defaults (``evaluation.report.options``), in order.
REPORT_OPTIONS = report_options.defaults()


def start_report(corpus, user=None, **options):
    """Create the report job of ``corpus`` and queue ``evaluation.tasks.build_report``.

    ``options`` are any of ``REPORT_OPTIONS`` (by keyword); the others keep their default.
    """
    unknown = set(options) - set(REPORT_OPTIONS)
    if unknown:
        raise TypeError(f"start_report() got unknown option(s): {', '.join(sorted(unknown))}")
    params = {"corpus_id": corpus.pk, "corpus": corpus.name, **REPORT_OPTIONS, **options}
    params["systems"] = list(params["systems"] or [])
    for option in report_options.OPTIONS:
        if option.kind == "bool":
            params[option.name] = bool(params[option.name])
    job = create_job(JOB_KIND, params, user=user, total=6)
    return enqueue(job, "evaluation.tasks.build_report")


def start_report_from(data: dict, user=None):
    """``start_report`` from a validated form or serializer: its ``corpus`` and its options."""
    return start_report(data["corpus"], user, **{name: value for name, value in data.items() if name != "corpus"})


def study_import_body(job, progress):
    """The job body of a study archive import: ``archive.restore.import_study`` on the stored upload,
    which is removed once the job ends, whatever the outcome."""
    from core.uploads import remove_upload
    from evaluation.archive.restore import import_study

    p = job.params
    try:
        return import_study(p["path"], p.get("corpus") or None, progress=progress, label=p.get("file") or "archive")
    finally:
        remove_upload(p["path"])


def start_study_import(path, *, corpus=None, user=None, original_name=None):
    """Create the import job of a stored study archive and queue ``evaluation.tasks.import_study_archive``."""
    from core.runner import BrokerUnavailable
    from core.uploads import remove_upload

    params = {"path": str(path), "file": original_name or Path(path).name, "corpus": corpus or ""}
    job = create_job(STUDY_IMPORT_KIND, params, user=user)
    try:
        return enqueue(job, "evaluation.tasks.import_study_archive")
    except BrokerUnavailable:
        remove_upload(path)
        raise
