from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self):
        # Celery's autodiscovery imports only ``annotation.tasks``; the frame proxy task lives apart.
        from annotation import frame_tasks  # noqa: F401
