"""Gold items in every fold: each triplet fold of a corpus gets the corpus's gold triplets it lacks,
at seeded random positions among its items (an annotator cannot tell them apart: same page, same
flow, never marked). ``gold_slots`` and ``interleave`` are pure; ``interleave_gold`` writes."""

from __future__ import annotations

import random

from django.db import transaction
from django.db.models import F

from annotation.bulk import ORM_BATCH
from annotation.models import Fold, FoldItem, GoldItem

_SHIFT = 1_000_000  # positions are moved out of the way first, so the unique (fold, position) always holds


def gold_slots(n_items, n_gold, seed):
    """Sorted positions, in a fold of ``n_items + n_gold``, where the gold items go."""
    return sorted(random.Random(seed).sample(range(n_items + n_gold), n_gold))


def interleave(items, golds, slots):
    """``items`` in order with ``golds`` placed at ``slots`` (positions in the merged list)."""
    merged, rest, pending = [], iter(items), dict(zip(slots, golds))
    for position in range(len(items) + len(golds)):
        merged.append(pending[position] if position in pending else next(rest))
    return merged


@transaction.atomic
def interleave_gold(corpus):
    """Add every gold triplet of ``corpus`` to each of its triplet folds lacking it; returns how many
    fold items were added. Existing items keep their order (and every label: labels are per triplet)."""
    gold = list(
        GoldItem.objects.filter(triplet__question__corpus=corpus)
        .order_by("triplet_id")
        .values_list("triplet_id", flat=True)
    )
    added = 0
    for fold in Fold.objects.select_for_update().filter(corpus=corpus, kind=Fold.KIND_TRIPLET).order_by("index"):
        items = list(FoldItem.objects.filter(fold=fold).order_by("position"))
        present = {item.triplet_id for item in items}
        missing = [FoldItem(fold=fold, triplet_id=t) for t in gold if t not in present]
        if not missing:
            continue
        order = interleave(items, missing, gold_slots(len(items), len(missing), f"gold:{fold.pk}:{len(items)}"))
        FoldItem.objects.filter(fold=fold).update(position=F("position") + _SHIFT)
        for position, item in enumerate(order):
            item.position = position
        FoldItem.objects.bulk_update(items, ["position"], batch_size=ORM_BATCH)
        FoldItem.objects.bulk_create(missing)
        added += len(missing)
    return added
