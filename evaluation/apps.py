from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        # SPEC 16: a crowd study may close by itself once the live conclusions are settled; annotation
        # asks this check without importing evaluation (layering).
        from annotation import studies
        from evaluation.live import study_close_reason

        studies.register_close_check(study_close_reason)
