from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def report_folder(job_id):
    """Where a report job wrote its files (``evaluation.jobs.report_dir``, imported on first use)."""
    from evaluation.jobs import report_dir

    return report_dir(job_id)


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = _("Evaluation")

    def ready(self):
        from core import next_steps
        from evaluation.archive.store import register_job_files

        register_job_files("report", report_folder)  # study archives carry the report files
        next_steps.register("report", next_steps.job_page("report-detail", _("Open the report")))
