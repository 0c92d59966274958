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
        from annotation import human_metrics, studies
        from core import pages
        from evaluation import kinds

        # the report's metric registry fills annotation.human_metrics (the active design) when first read
        human_metrics.VALUES.fill_on_first_use("evaluation.science.metric_registry")
        # SPEC 16: a crowd study may close by itself once the live conclusions are settled; annotation
        # asks this check without importing evaluation (layering).
        # (evaluation.live pulls numpy and pandas: imported on first use, never at start-up)
        studies.CLOSE_CHECKS.register_path("check", "evaluation.live:study_close_reason")
        kinds.register_job_kinds()  # with their next steps and the report's files
        pages.PAGES.register("research", research_url)
        # SPEC 17: the per-participant figures (Dawid-Skene included) on the study page, its CSV and API
        # (evaluation.crowd_figures pulls numpy and pandas: imported on first use, never at start-up)
        from annotation import screening

        screening.FIGURES.register_path("study", "evaluation.crowd_figures:study_figures")
