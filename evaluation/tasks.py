"""Celery task of the evaluation app: a thin shell computing a report from the database as a Job."""
from __future__ import annotations

from pathlib import Path

from celery import shared_task
from django.conf import settings

from annotation.jobs import create_job, enqueue, run_job
from annotation.models import Corpus
from evaluation import database, judge_inputs, ppi
from evaluation.outputs import write_report
from evaluation.report import ReportConfig, compute_report

JOB_KIND = "report"


class ReportInputError(ValueError):
    """Bad report parameters (unknown system, metric...): shown to the user as is."""

    user_facing = True

    def as_dict(self):
        return {"message": str(self)}


def report_dir(job_id) -> Path:
    return Path(settings.MEDIA_ROOT) / "reports" / str(job_id)


def report_body(job, progress):
    p = job.params
    corpus = Corpus.objects.get(pk=p["corpus_id"])
    progress(done=0, total=6, message="loading predictions and labels", force=True)
    questions, predictions, labels = database.report_inputs(corpus, adjudicated=p.get("adjudicated", False))
    if predictions.empty:
        raise ReportInputError(f"corpus {corpus.name} has no predictions")
    try:
        config = ReportConfig(systems=p.get("systems") or None, alpha=p.get("alpha", 5), metric=p.get("metric", "hscore"),
                              dedup_policy=corpus.dedup_policy, n_boot=p.get("n_boot", 1000), seed=p.get("seed", 0),
                              human_aggregate=p.get("human_aggregate", "mean"),
                              table_significance=p.get("significance", "raw"))
        judge_labels, facts = judge_inputs.judge_inputs(corpus, p.get("judge"))
        report = compute_report(questions, predictions, labels, config=config, progress=progress)
    except ValueError as exc:
        raise ReportInputError(str(exc)) from None
    report.data["corpus"] = corpus.name
    ppi.add_to_report(report, predictions, labels, judge_labels, corpus.dedup_policy, facts)
    add_frame_section(report, corpus)
    files = write_report(report, report_dir(job.pk), render_figures=p.get("figures", True))
    return {"corpus": corpus.name, "files": files, "metric": report.data["metric"], "notes": report.data["notes"],
            "n_questions": report.data["n_questions"]}


def add_frame_section(report, corpus):
    """SPEC 7 and 8: frame-proxy outcome counts, Table 4 and the agreement on frame checks."""
    import pandas as pd

    from annotation.frame_checking import frame_check_rows
    from annotation.frame_jobs import outcome_rows
    from evaluation import frame_checks

    outcomes, checks = outcome_rows(corpus), frame_check_rows(corpus)
    if not outcomes and not checks:
        report.data["frames"] = None
        return
    section = frame_checks.frame_report(outcomes, checks)
    report.data["frames"] = section
    rows = frame_checks.table4_rows(section["table4"])
    if rows:
        report.tables["frame_checks"] = pd.DataFrame(rows).set_index("evaluation")


@shared_task(name="evaluation.tasks.build_report")
def build_report(job_id):
    job = run_job(job_id, report_body)
    return job.status if job else None


def start_report(corpus, user=None, systems=None, alpha=5, metric="hscore", n_boot=1000, seed=0, figures=True,
                 judge=None, adjudicated=False, human_aggregate="mean", significance="raw"):
    params = {"corpus_id": corpus.pk, "corpus": corpus.name, "systems": list(systems or []), "alpha": alpha,
              "metric": metric, "n_boot": n_boot, "seed": seed, "figures": figures, "judge": judge,
              "adjudicated": bool(adjudicated), "human_aggregate": human_aggregate, "significance": significance}
    job = create_job(JOB_KIND, params, user=user, total=6)
    return enqueue(job, build_report)
