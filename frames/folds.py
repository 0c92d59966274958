"""Folds of frame checks (paper Table 4: annotators rate the proxy's frames on a sample of questions).

``plan_frame_folds`` is pure: it reuses ``annotation.folds.build_folds`` with the frame annotation id
as both the item key and the question key (one annotation per question), after an optional seeded
sample. ``create_frame_folds`` stores the plan as ``Fold(kind="frame")`` rows; assignment is the
same as for triplet folds (``annotation.assignments.assign_fold`` / ``assign_all(kind="frame")``).
"""

from __future__ import annotations

from django.db import transaction

from annotation.fold_store import clear_folds, store_fold_plans
from annotation.models import Fold
from frames.human_checks import plan_folds
from frames.models import FrameAnnotation, FrameCheck
from frames.outcomes import DONE


class FrameFoldError(ValueError):
    pass


def plan_frame_folds(annotation_ids, *, k=1, seed=0, overlap=0.0, sample=None):
    """FoldPlans over frame annotation ids; ``sample``: check only that many, drawn with the seed."""
    return plan_folds(
        annotation_ids,
        what="frame",
        empty="no frame annotation to check",
        error=FrameFoldError,
        k=k,
        seed=seed,
        overlap=overlap,
        sample=sample,
    )


@transaction.atomic
def create_frame_folds(corpus, *, lexicon=None, k=1, seed=0, overlap=0.0, sample=None, replace=False):
    """Folds over the corpus's frame annotations with outcome ``done`` (the only ones with a frame)."""
    clear_folds(
        corpus,
        Fold.KIND_FRAME,
        replace=replace,
        judgements=FrameCheck.objects.all(),
        error=FrameFoldError,
        what="frame folds",
    )
    annotations = FrameAnnotation.objects.filter(question__corpus=corpus, outcome=DONE)
    if lexicon is not None:
        annotations = annotations.filter(lexicon=lexicon)
    ids = list(annotations.order_by("question__position", "id").values_list("id", flat=True))
    if not ids:
        raise FrameFoldError(
            f"corpus {corpus.name} has no predicted frames yet: "
            "predict frames first (Corpora -> predict frames... in the admin)"
        )
    plans = plan_frame_folds(ids, k=k, seed=seed, overlap=overlap, sample=sample)
    params = {"k": k, "seed": seed, "overlap": overlap, "sample": sample, "lexicon": getattr(lexicon, "name", None)}
    return store_fold_plans(
        corpus, Fold.KIND_FRAME, plans, name="frames", seed=seed, params=params, target="frame_annotation"
    )
