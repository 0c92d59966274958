from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def report_folder(job_id):
    """Where a report job wrote its files (``evaluation.jobs.report_dir``, imported on first use)."""
    from evaluation.jobs import report_dir

    return report_dir(job_id)


def _study_close_reason(study):
    """The live conclusions' close rule (``evaluation.live``, which pulls numpy and pandas: imported on
    first use, never at start-up)."""
    from evaluation.live import study_close_reason

    return study_close_reason(study)


def _load_metric_registry():
    """Import the report's metric registry: it fills ``annotation.human_metrics`` (the active design)."""
    from evaluation.science import metric_registry  # noqa: F401


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        from annotation import human_metrics, studies
        from core import next_steps
        from evaluation import kinds, live_words
        from evaluation.archive.store import register_job_files

        human_metrics.set_loader(_load_metric_registry)
        # SPEC 16: a crowd study may close by itself once the live conclusions are settled; annotation
        # asks this check without importing evaluation (layering).
        studies.register_close_check(_study_close_reason)
        studies.register_live_page(_study_live_page)  # the study page links to the live conclusions
        register_job_files("report", report_folder)  # study archives carry the report files
        next_steps.register("report", next_steps.job_page("report-detail", _("Open the report")))
        # a judge run's labels: the live conclusions of its corpus use them (issue 45: no dead end)
        next_steps.register(
            "judge", next_steps.corpus_page("conclusions", _("See the live conclusions with this judge"))
        )
        kinds.register_job_kinds()
        live_words.register()  # the live page's and the close rule's sentences in the reader's language


def _study_live_page(study):
    """The live conclusions of ``study``'s corpus, with the study's close rule and target."""
    from urllib.parse import urlencode

    from django.urls import reverse

    query = {"corpus": study.corpus.name, "stop_when": study.close_when or "ranking"}
    if study.close_width:
        query["half_width"] = study.close_width
    return f"{reverse('conclusions')}?{urlencode(query)}"
