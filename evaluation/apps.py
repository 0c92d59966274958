from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def research_url():
    """The research reports' page, which annotation's home page links to (``core.pages``)."""
    from django.urls import reverse

    return reverse("reports")


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        from annotation import human_metrics, screening, studies
        from core import pages
        from evaluation import kinds
        from evaluation.archive.store import register_not_archived

        # the report's metric registry fills annotation.human_metrics (the active design) when first read
        human_metrics.VALUES.fill_on_first_use("evaluation.science.metric_registry")
        kinds.register_job_kinds()  # with their next steps and the report's files
        pages.PAGES.register("research", research_url)
        # SPEC 17: the per-participant figures (Dawid-Skene included) on the study page, its CSV and API
        # (evaluation.crowd_figures pulls numpy and pandas: imported on first use, never at start-up)
        screening.FIGURES.register_path("study", "evaluation.crowd_figures:study_figures")
        # SPEC 16: the live sequences and the close rule run in a background job after labels arrive;
        # annotation tells it without importing evaluation (layering; numpy and pandas imported when it runs)
        studies.LABELS_ARRIVED.register_path("refresh", "evaluation.live_state:request_refresh")
        register_not_archived(
            "evaluation.LiveState",
            "the live page's latest confidence sequences, a cache the background job recomputes from the "
            "labels (SPEC 16): nothing of a study that the labels do not hold",
        )
