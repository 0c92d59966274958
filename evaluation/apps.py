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
        from evaluation import kinds, live_words
        from evaluation.archive.collect import register_not_archived

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
        # the study page links to its live conclusions, and an admin who reopens a study that closed by
        # itself is told when its rule would close it again at once (on the stored sequences)
        studies.LIVE.register("page", _study_live_page)
        studies.LIVE.register_path("close_reason", "evaluation.live_state:close_reason_now")
        # a judge run's labels: the live conclusions of its corpus use them (issue 45: no dead end)
        pages.PAGES.register("conclusions", conclusions_url)
        live_words.register()  # the live page's and the close rule's sentences in the reader's language


def conclusions_url():
    """The live conclusions page (a judge run's next step, ``models_runner``'s kind)."""
    from django.urls import reverse

    return reverse("conclusions")


def _study_live_page(study):
    """The live conclusions of ``study``'s corpus, with the study's close rule and target."""
    from urllib.parse import urlencode

    from django.urls import reverse

    query = {"corpus": study.corpus.name, "stop_when": study.close_when or "ranking"}
    if study.close_width:
        query["half_width"] = study.close_width
    return f"{reverse('conclusions')}?{urlencode(query)}"
