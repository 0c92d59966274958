from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _load_metric_registry():
    """Import the report's metric registry: it fills ``annotation.human_metrics`` (the active design)."""
    from evaluation.science import metric_registry  # noqa: F401


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        from annotation import human_metrics, studies
        from evaluation.live import study_close_reason

        human_metrics.set_loader(_load_metric_registry)
        # SPEC 16: a crowd study may close by itself once the live conclusions are settled; annotation
        # asks this check without importing evaluation (layering).
        studies.register_close_check(study_close_reason)

        from evaluation import jobs

        jobs.register_job_kinds()
