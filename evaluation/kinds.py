"""The evaluation app's job kinds and their words, light enough to load at start-up.

``evaluation.jobs`` (the bodies) pulls numpy and pandas; ``EvaluationConfig.ready`` registers the
kinds from here so that no web process pays for the report stack before it computes a report.
"""

from __future__ import annotations

JOB_KIND = "report"
STUDY_IMPORT_KIND = "import_study"


def register_job_kinds():
    """The evaluation app's jobs in words (core.job_kinds): the report and the study archive import."""
    from django.utils.translation import gettext_lazy as _

    from core import job_kinds, next_steps
    from evaluation.archive import collect, restore

    # the labels of evaluation.report.options (not imported here: it loads the science)
    param_words = {
        "systems": _("Systems"),
        "alpha": _("Alpha"),
        "n_boot": _("Bootstrap replicates"),
        "seed": _("Seed"),
        "figures": _("Figures"),
        "adjudicated": _("Use adjudicated labels"),
        "include_excluded": _("Keep excluded participants"),
        "human_aggregate": _("Labels of one answer"),
        "judge": _("Automatic judge"),
        "tie_margin": _("Tie margin"),
        "significance": _("Bold cells in the paper tables"),
    }

    job_kinds.register(
        JOB_KIND,
        _("report"),
        results={
            **param_words,  # the report's parameters, as its form names them (evaluation.report.options)
            "corpus": _("corpus"),
            "corpus_id": _("corpus id"),
            "metric": _("metric"),
            "n_questions": _("questions"),
            "files": _("files"),
            "notes": _("computation notes"),
        },
        next_step=next_steps.job_page("report-detail", _("Open the report")),
        files="evaluation.jobs:report_dir",  # study archives carry the report files
    )
    corpus_import = job_kinds.get("import_corpus")  # annotation's: build folds for the imported corpus
    job_kinds.register(
        STUDY_IMPORT_KIND,
        _("study archive import"),
        results={"corpus": _("corpus")},
        messages=(*collect.MESSAGES, *restore.MESSAGES),
        next_step=corpus_import.next_step if corpus_import else None,
    )
