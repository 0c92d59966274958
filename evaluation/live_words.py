"""The English sentences the live conclusions and the close rule compute (``evaluation.science.ppi``,
``evaluation.science.active``, ``evaluation.live.study_close_reason``), marked for translation: whole
ones as they are, those with numbers as templates whose values are kept as written
(``core.job_kinds.message_text``). Pages show them in the reader's language; the data (JSON, the
study's ``closed_reason`` column) keep the English."""

from django.utils.translation import gettext_noop

from core import job_kinds

SENTENCES = (
    gettext_noop("human-labeled predictions that the judge did not score"),
    gettext_noop("left out of the prediction-powered rows (they count in the systems table)"),
    gettext_noop("estimates given as computed; intervals may not hold their 95%"),
    gettext_noop("triplet folds not started by any annotator: their triplets cannot be in the human sample"),
    gettext_noop("estimates given over all judged predictions; the human sample covers only started folds"),
    gettext_noop("triplets skipped by annotators (hard items are skipped more often)"),
    gettext_noop("counted as unlabeled (judge score only)"),
    gettext_noop(
        "gold items with human labels (chosen by an admin and labeled by every annotator: not drawn at random)"
    ),
    gettext_noop(
        "their human labels are left out of the prediction-powered rows (judge score only); "
        "they count in the systems table"
    ),
    gettext_noop("labels imported from files (not served in the platform's random order)"),
    gettext_noop("estimates given as computed; check that the file's triplets were drawn at random"),
)

TEMPLATES = (
    gettext_noop(
        "the judge scores human-labeled predictions differently from the others (mean %(a)s vs %(b)s, "
        "Mann-Whitney p = %(p)s): the labeled ones are not a random sample"
    ),
    gettext_noop("%(k)s of %(n)s sampled triplets labelled (completion-rate rule)"),
    gettext_noop("%(k)s of %(n)s sampled triplets labelled"),
    gettext_noop(
        "ranking settled: %(order)s (Hscore confidence sequences with judge %(judge)s, alpha 0.05 split over "
        "%(k)s systems)"
    ),
    gettext_noop("ranking settled: %(order)s (Hscore confidence sequences, alpha 0.05 split over %(k)s systems)"),
    gettext_noop(
        "every system done: half-width at most %(w)s (Hscore confidence sequences with judge %(judge)s, "
        "alpha 0.05 split over %(k)s systems)"
    ),
    gettext_noop(
        "every system done: half-width at most %(w)s (Hscore confidence sequences, alpha 0.05 split over %(k)s systems)"
    ),
)


def register():
    """Make ``core.job_kinds.message_text`` (the pages' ``in_words`` filter) know the templates."""
    job_kinds.register_messages(*TEMPLATES)
