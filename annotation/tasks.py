"""Celery tasks of the annotation app: thin shells over the importers, run as Job rows."""
from pathlib import Path

from celery import shared_task
from django.conf import settings

from annotation import importers, worker  # noqa: F401  (worker: the reaper thread of every worker)
from annotation.interchange import InterchangeError
from annotation.jobs import run_job
from annotation.models import Corpus


def _import_body(job, progress):
    try:
        return _run_import(job.params, progress)
    except InterchangeError as exc:
        # Name the file as the user uploaded it, not as it was stored on disk.
        raise InterchangeError(exc.reason, job.params.get("file") or exc.file, exc.line, exc.field) from None
    finally:
        remove_upload(job.params.get("path"))


def remove_upload(path):
    """A stored web upload is read by its job only: removed once the job ends, whatever the outcome."""
    if path and Path(path).resolve().parent == Path(settings.UPLOAD_DIR).resolve():
        Path(path).unlink(missing_ok=True)


def _run_import(p, progress):
    kind, path, name = p["kind"], p["path"], p.get("file")
    if kind == "corpus":
        return importers.import_corpus(path, p["corpus"], fmt=p.get("format"), progress=progress, name=name)
    corpus = Corpus.objects.get(name=p["corpus"])
    if kind == "predictions":
        return importers.import_predictions(path, corpus, progress=progress, name=name)
    if kind == "labels":
        return _run_labels_import(path, corpus, {**(p.get("options") or {}), "file": p.get("file")}, progress)
    raise ValueError(f"unknown import kind {kind!r}")


def _run_labels_import(path, corpus, options, progress):
    """Labels options from the web (``LABEL_OPTIONS``); with ``rejects`` the rejected lines go to the
    job's result (the web has no file to write them to)."""
    kwargs = {k: options[k] for k in ("match", "dry_run", "attach_existing", "annotator_prefix") if k in options}
    rejects = [] if options.get("rejects") else None
    result = importers.import_labels(path, corpus, progress=progress, rejects=rejects, name=options.get("file"), **kwargs)
    if rejects is not None:
        result["rejects"] = rejects
    return result


@shared_task(name="annotation.tasks.import_file")
def import_file(job_id):
    job = run_job(job_id, _import_body)
    return job.status if job else None

