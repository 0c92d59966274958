from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self):
        from annotation import i18n, jobs, privacy

        i18n.register()
        privacy.register()
        jobs.register_job_kinds()  # with their next step: build folds for the imported corpus
