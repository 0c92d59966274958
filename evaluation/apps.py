from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def report_folder(job_id):
    """Where a report job wrote its files (``evaluation.jobs.report_dir``, imported on first use)."""
    from evaluation.jobs import report_dir

    return report_dir(job_id)


def _labels_arrived(corpus_id):
    """Labels of a corpus arrived: send the background job that carries the live sequences forward and
    asks the close rules (``evaluation.live_state``; its numpy and pandas are imported when it runs)."""
    from evaluation.live_state import request_refresh

    request_refresh(corpus_id)


def _load_metric_registry():
    """Import the report's metric registry: it fills ``annotation.human_metrics`` (the active design)."""
    from evaluation.science import metric_registry  # noqa: F401


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        from annotation import human_metrics, studies
        from core import next_steps
        from evaluation import kinds
        from evaluation.archive.store import register_job_files, register_not_archived

        human_metrics.set_loader(_load_metric_registry)
        # SPEC 16: the live sequences and the close rule run in a background job after labels arrive;
        # annotation tells it without importing evaluation (layering).
        studies.register_labels_arrived(_labels_arrived)
        register_job_files("report", report_folder)  # study archives carry the report files
        register_not_archived(
            "evaluation.LiveState",
            "the live page's latest confidence sequences, a cache the background job recomputes from the "
            "labels (SPEC 16): nothing of a study that the labels do not hold",
        )
        next_steps.register("report", next_steps.job_page("report-detail", _("Open the report")))
        kinds.register_job_kinds()
