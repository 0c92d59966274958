"""Database shell over ``annotation.folds`` (pure fold planning): storing, replacing and growing folds."""

from __future__ import annotations

import random
from collections import defaultdict

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.bulk import ORM_BATCH
from annotation.folds import build_folds, interleave
from annotation.models import Fold, FoldItem, Label, Triplet
from annotation.models.triplets import new_handles
from annotation.sql import analyze_after_commit, bulk_cache, insert_rows, update_rows


class FoldError(ValueError):
    pass


def clear_folds(corpus, kind, *, replace, judgements, error=None, what="folds"):
    """Make room for new folds of ``kind``: refused if some exist and ``replace`` is off, or if
    ``judgements`` (a queryset of Label / FrameCheck) has any row in them."""
    error = error or FoldError
    existing = Fold.objects.filter(corpus=corpus, kind=kind)
    if existing.exists():
        if not replace:
            raise error(f"corpus {corpus.name} already has {existing.count()} {what} (use replace to rebuild)")
        if judgements.filter(fold__in=existing).exists():
            raise error(
                f"the existing {what} already have {judgements.model._meta.verbose_name_plural}: "
                "they cannot be replaced"
            )
        existing.delete()


def store_fold_plans(corpus, kind, plans, *, name, seed, params, target):
    """Insert ``FoldPlan``s as Fold rows named ``{corpus} {name} {n}`` and their items (``target``:
    the FoldItem field the plan's keys go to, ``triplet`` or ``frame_annotation``)."""
    folds = Fold.objects.bulk_create(
        [
            Fold(
                corpus=corpus,
                kind=kind,
                index=p.index,
                name=f"{corpus.name} {Fold.NAME_WORDS.get(kind, name)} {p.index + 1}",
                seed=seed,
                params=params,
            )
            for p in plans
        ]
    )
    rows = [(fold.pk, i, key, o) for fold, plan in zip(folds, plans) for i, (key, _, o) in enumerate(plan.items)]
    with bulk_cache():  # the items' random handles land all over their unique index
        insert_rows(
            FoldItem,
            ("fold", "position", target, "is_overlap", "handle"),
            [(*row, handle) for row, handle in zip(rows, new_handles(len(rows)))],
        )
    analyze_after_commit(FoldItem, rows=len(rows))
    return folds


@transaction.atomic
def create_folds(corpus, *, k=10, seed=0, policy="by_question", overlap=0.1, replace=False, design=None):
    """Split the corpus's triplets into K folds (pure ``build_folds``), then bulk insert them.

    ``design``: None (every triplet, the uniform design of SPEC 2), or an ``annotation.fold_designs.Plan``:
    its pi and xi are stored on every triplet and only the drawn ones go into the folds (SPEC 12)."""
    clear_folds(corpus, Fold.KIND_TRIPLET, replace=replace, judgements=Label.objects.all())
    pairs = list(
        Triplet.objects.filter(question__corpus=corpus)
        .order_by("question__position", "id")
        .values_list("id", "question_id")
    )
    if not pairs:
        raise FoldError(_("corpus %(name)s has no triplets yet: import predictions first") % {"name": corpus.name})
    store_design(corpus, design)
    if design is not None:
        pairs = [(tid, qid) for tid, qid in pairs if design.sampled.get(tid)]
        if len(pairs) < k:
            raise FoldError(
                _("the design drew %(n)s triplets: too few for %(k)s folds (raise the budget)")
                % {"n": len(pairs), "k": k}
            )
    plans = build_folds(pairs, k=k, seed=seed, policy=policy, overlap=overlap)
    params = {"k": k, "seed": seed, "policy": policy, "overlap": overlap}
    if design is not None:
        params["design"] = design.meta
    return store_fold_plans(corpus, Fold.KIND_TRIPLET, plans, name="fold", seed=seed, params=params, target="triplet")


DESIGN_FIELDS = ["design_pi", "design_sampled", "design_phase", "design_p1"]


def store_design(corpus, design):
    """Write the design's pi, xi, phase and p1 on the corpus's triplets (all null without a design)."""
    triplets = Triplet.objects.filter(question__corpus=corpus)
    # only the rows an earlier design wrote: a corpus built uniformly (most) rewrites none of its
    # triplets (every row of 350,000 at 10x SQuAD dev was rewritten before, issue 46)
    earlier = Q(design_pi__isnull=False) | Q(design_sampled__isnull=False)
    earlier |= Q(design_phase__isnull=False) | Q(design_p1__isnull=False)
    triplets.filter(earlier).update(design_pi=None, design_sampled=None, design_phase=None, design_p1=None)
    if design is None:
        return
    p1 = design.meta.get("p1")
    _write_design({t: (pi, design.sampled[t], design.phase.get(t), p1) for t, pi in design.pi.items()})


def _write_design(rows: dict):
    """{tid: (pi, sampled, phase, p1)} onto the triplets (``sql.update_rows``: seconds for 35,000)."""
    update_rows(Triplet, DESIGN_FIELDS, [(t, pi, bool(x), ph, p1) for t, (pi, x, ph, p1) in rows.items()])


def pilot_progress(corpus) -> dict | None:
    """``{"labeled": k, "size": P, "main_open": bool}`` of the corpus's two-phase design, None without one."""
    meta = fold_design(corpus)
    if not meta or "p1" not in meta:
        return None
    pilot = Triplet.objects.filter(question__corpus=corpus, design_phase="pilot", design_sampled=True)
    labeled = pilot.filter(labels__value__isnull=False).distinct().count()
    return {"labeled": labeled, "size": pilot.count(), "main_open": bool(meta.get("main_open"))}


def open_main_if_ready(corpus) -> bool:
    """Open the main sample of a two-phase design once every pilot triplet is labelled (SPEC 12): the
    design's ``open_main`` draws it, the triplets record it, the folds' ``params["design"]`` the
    fitted model, and the main triplets join the folds after the pilot. True when it opened now."""
    from annotation import fold_designs

    progress = pilot_progress(corpus)
    if progress is None or progress["main_open"] or progress["labeled"] < progress["size"]:
        return False
    with transaction.atomic():
        folds = Fold.objects.select_for_update().filter(corpus=corpus, kind=Fold.KIND_TRIPLET)
        meta = dict(folds.order_by("index").first().params.get("design") or {})
        if meta.get("main_open"):
            return False
        meta, rows = fold_designs.get(meta["kind"]).open_main(corpus, meta)
        _write_design(rows)
        for fold in folds:
            fold.params = {**fold.params, "design": meta}
            fold.save(update_fields=["params"])
        extend_folds(corpus, gettext_noop("main sample"))  # the Folds page shows it translated
    return True


def fold_design(corpus) -> dict | None:
    """The design the corpus's triplet folds were built with (``params["design"]``), or None (uniform)."""
    fold = Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).order_by("index").first()
    params = fold.params if fold is not None and isinstance(fold.params, dict) else {}
    return params.get("design")


def _draw_late(corpus, folds):
    """Late triplets of a corpus with an active design: drawn by its rule (``fold_designs``); those not
    drawn keep their pi and xi = False and stay out of the folds. Returns how many were not drawn."""
    from annotation import fold_designs

    meta = fold_design(corpus)
    if not meta:
        return 0
    new = list(
        Triplet.objects.filter(question__corpus=corpus, design_pi__isnull=True)
        .exclude(fold_items__fold__in=folds)
        .values_list("id", flat=True)
    )
    if not new:
        return 0
    drawn = fold_designs.get(meta["kind"] if meta["kind"] != "uniform" else "active").late(corpus, new, meta)
    _write_design(drawn)
    return sum(not row[1] for row in drawn.values())


def extend_folds_if_any(corpus, source="import"):
    """New triplets join the corpus's folds (beside their question) once folds exist; else 0."""
    if not Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).exists():
        return 0
    return extend_folds(corpus, source)


@transaction.atomic
def extend_folds(corpus, source="extend"):
    """Give triplets that are in no fold yet a place: their question's fold if it has one, else the
    lightest fold. They are interleaved (``folds.interleave``, seeded by the fold's seed and how
    many times it grew) over the fold's unjudged part, the items after the last one any of its
    annotators has labelled or skipped; the judged head keeps its order. Each fold that grows
    records ``{"n", "at", "source"}`` in ``params["added"]``. Returns the number of items added."""
    folds = {f.pk: f for f in Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).annotate(n=Count("items"))}
    if not folds:
        raise FoldError(_("corpus %(name)s has no folds yet") % {"name": corpus.name})
    _draw_late(corpus, folds)
    loads = {pk: f.n for pk, f in folds.items()}
    home = dict(
        FoldItem.objects.filter(fold__in=folds, is_overlap=False).values_list("triplet__question_id", "fold_id")
    )
    loose = (
        Triplet.objects.filter(question__corpus=corpus)
        .exclude(fold_items__fold__in=folds)
        .exclude(design_sampled=False)  # left out of the human sample by the design
        .order_by("question__position", "id")
    )
    new = defaultdict(list)
    for tid, qid in loose.values_list("id", "question_id"):
        fold_id = home.get(qid) or min(loads, key=lambda f: (loads[f], f))
        home.setdefault(qid, fold_id)
        new[fold_id].append((tid, qid, False))
        loads[fold_id] += 1
    now = timezone.now()
    for fold_id, items in new.items():
        _interleave_into(folds[fold_id], items, source, now=now)
    return sum(len(items) for items in new.values())


def _interleave_into(fold, new_items, source, *, now):
    items = list(
        FoldItem.objects.filter(fold=fold)
        .order_by("position")
        .values_list("id", "position", "triplet_id", "triplet__question_id")
    )
    judged = set(
        Label.objects.filter(triplet__fold_items__fold=fold, annotator__assignments__fold=fold).values_list(
            "triplet_id", flat=True
        )
    )
    last_judged = max((position for _, position, tid, _ in items if tid in judged), default=-1)
    head = [i for i in items if i[1] <= last_judged]
    tail = [(("old", pk), qid, False) for pk, position, _, qid in items if position > last_judged]
    added = fold.params.get("added", []) if isinstance(fold.params, dict) else []
    order = interleave(
        tail, [(("new", t), q, o) for t, q, o in new_items], random.Random(f"{fold.seed}:{fold.index}:{len(added)}")
    )
    start = (head[-1][1] + 1) if head else 0
    top = (items[-1][1] + 1) if items else 0
    # Two steps keep (fold, position) unique: move the tail out of the way, then into its places.
    FoldItem.objects.filter(fold=fold, position__gt=last_judged).update(position=F("position") + top + len(order))
    moved, created = [], []
    for offset, ((kind, key), _position, is_overlap) in enumerate(order):
        if kind == "old":
            moved.append(FoldItem(id=key, position=start + offset))
        else:
            created.append(FoldItem(fold=fold, position=start + offset, triplet_id=key, is_overlap=is_overlap))
    FoldItem.objects.bulk_update(moved, ["position"], batch_size=ORM_BATCH)
    FoldItem.objects.bulk_create(created, batch_size=ORM_BATCH)
    fold.params = {
        **(fold.params or {}),
        "added": [*added, {"n": len(created), "at": now.isoformat(), "source": source}],
    }
    fold.save(update_fields=["params"])
