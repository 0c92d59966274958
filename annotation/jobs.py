"""Jobs of the annotation app: imports of corpus, predictions and labels files.

``start_import`` creates the Job row and sends ``annotation.tasks.import_file`` (the Celery shell),
which runs ``import_body`` through ``core.runner.run_job``.
"""

from pathlib import Path

from django.db import DatabaseError

from annotation import importers
from annotation.interchange import InterchangeError
from annotation.models import Corpus
from core.runner import BrokerUnavailable, create_job, enqueue
from core.uploads import remove_upload


def start_import(kind, corpus, path, *, fmt=None, user=None, original_name=None, options=None):
    """Create the import job of a stored file and queue it; the file is removed if nothing will read it."""
    params = {
        "kind": kind,
        "corpus": corpus,
        "path": str(path),
        "format": fmt,
        "file": original_name or Path(path).name,
    }
    if kind == "labels" and options:
        params["options"] = {k: options[k] for k in importers.LABEL_OPTIONS if k in options}
    job = create_job(f"import_{kind}", params, user=user)
    try:
        enqueue(job, "annotation.tasks.import_file")
    except BrokerUnavailable:
        Path(path).unlink(missing_ok=True)  # nothing will read it
        raise
    return job


def import_body(job, progress):
    """The job body of an import (``core.runner.run_job(job_id, import_body)``)."""
    try:
        return _run_import(job.params, progress)
    except DatabaseError as exc:  # the net under the file's rules: the file named, no traceback
        raise importers.refused_by_database(exc, job.params.get("file")) from exc
    except InterchangeError as exc:
        # Name the file as the user uploaded it, not as it was stored on disk.
        raise InterchangeError(exc.reason, job.params.get("file") or exc.file, exc.line, field=exc.field) from None
    finally:
        remove_upload(job.params.get("path"))


def _run_import(p, progress):
    kind, path, name = p["kind"], p["path"], p.get("file")
    if kind == "corpus":
        return importers.import_corpus(path, p["corpus"], fmt=p.get("format"), progress=progress, name=name)
    corpus = Corpus.objects.get(name=p["corpus"])
    if kind == "predictions":
        return importers.import_predictions(path, corpus, progress=progress, name=name)
    if kind == "labels":
        options = {**(p.get("options") or {}), "file": p.get("file")}
        return _run_labels_import(path, corpus, options, progress=progress)
    raise ValueError(f"unknown import kind {kind!r}")


def _run_labels_import(path, corpus, options, *, progress):
    """Labels options from the web (``LABEL_OPTIONS``); with ``rejects`` the rejected lines go to the
    job's result (the web has no file to write them to)."""
    kwargs = {k: options[k] for k in ("match", "dry_run", "attach_existing", "annotator_prefix") if k in options}
    rejects = [] if options.get("rejects") else None
    result = importers.import_labels(
        path, corpus, progress=progress, rejects=rejects, name=options.get("file"), **kwargs
    )
    if rejects is not None:
        result["rejects"] = rejects
    return result


def register_job_kinds():
    """The import jobs in words (core.job_kinds), with the keys of their results and their messages."""
    from django.utils.translation import gettext_lazy as _

    from annotation import triplet_store
    from core import job_kinds, next_steps

    results = {
        "corpus": _("corpus"),
        "questions": _("questions"),
        "without_reference": _("questions without a reference answer"),
        "new_triplets": _("new triplets"),
        "failed_requests": _("failed requests"),
        "predictions": _("predictions"),
        "linked_predictions": _("predictions linked to triplets"),
        "empty_answers": _("empty answers"),
        "added_to_folds": _("triplets added to folds"),
        "dry_run": _("dry run"),
        "labels": _("labels"),
        "created": _("created"),
        "changed": _("changed"),
    }
    messages = (*importers.MESSAGES, *triplet_store.MESSAGES)
    words = {"results": results, "messages": messages}
    words["next_step"] = next_steps.corpus_page("fold-assignments", _("Build folds for this corpus"))
    job_kinds.register("import_corpus", _("corpus import"), **words)
    job_kinds.register("import_predictions", _("predictions import"), **words)
    job_kinds.register("import_labels", _("labels import"), **words)
