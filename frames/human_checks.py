"""One kind of human check: people confirm or correct what a tool derived for an item of a fold (SPEC 1,
paper Table 4; issue 26 point 4). Frame checks (``frames.checking``) and attribute checks
(``frames.attribute_checks``) are two :class:`CheckKind` records; a third check is one more record.

A record says what a check is about (the ``FoldItem`` field of its items: a frame prediction, a
question), which models keep it (one judgement row per item and annotator under a unique constraint,
every submission an event row, ``annotation.judgements``), the fields of a verdict and how a submitted
one is checked (``clean``), what the page shows (``shown``, the templates, the keys in its guidelines),
how its folds are built (``FoldKind`` pieces) and the rows its report table reads (``rows``).

Everything else is here, once, for every kind: an annotator only reaches folds of the kind assigned
to them and names items by handle (:class:`CheckNotFound` otherwise, a 404); the next item is the
first not judged, then the skipped ones; a repeated ``submission_id`` is a no-op. The pages are
``frames.views``, their URLs ``frames.urls``, both generated from the records.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from django.db.models import Count, Q
from django.utils.translation import gettext

from annotation import annotating, fold_kinds, judgements, sql
from annotation.folds import build_folds
from annotation.models import FoldItem
from core import roles
from core.registry import Registry


class CheckNotFound(LookupError):
    """No such fold of the kind among the user's assignments, or no such item in the fold."""


class CheckKind:
    """One kind of human check: a subclass sets what differs, and one instance is registered.

    Class attributes: ``name``, the ``annotation.Fold`` kind of its folds (and, by convention, the
    pages' path ``<name>s/check/...``, URL names ``<name>-check...``, templates
    ``frames/<name>_check.html`` and ``frames/<name>_check_item.html``, the fold page's action
    ``build_<name>s``); ``model`` / ``event_model``, the judgement and event models (the verdict fields
    are the event model's own fields, the first one set once the item is judged); ``item``, the
    ``FoldItem`` field (and the judgement's foreign key) naming what is checked; ``related``, what an
    item's page reads with it (``select_related``); ``guidelines``, the page shows the corpus
    guidelines and what changed in them; ``not_found``, the :class:`CheckNotFound` it raises; and the
    fold pieces of ``annotation.fold_kinds.FoldKind``: ``build_form``, ``build``, ``errors``,
    ``readiness``, ``label`` and ``words`` (a ``fold_kinds.PageWords``: its card on the fold page).

    Methods: ``read(post) -> answer``, the verdict as the page posts it; ``clean(item, answer) ->
    values``, the fields to save (``ValueError`` with the annotator's message when incomplete);
    ``shown(item, check) -> dict``, what the page shows beside the item; ``rows(corpus)``, the rows of
    its report table.
    """

    name: str
    model: type
    event_model: type
    item: str
    related: tuple = ()
    guidelines = False
    not_found = CheckNotFound
    build_form: type
    build: Callable
    errors: tuple = ()
    readiness: Callable
    label: str  # names the built folds in the fold page's message
    words: fold_kinds.PageWords  # its card on the fold page

    def read(self, post):
        raise NotImplementedError

    def clean(self, item, answer):
        raise NotImplementedError

    def shown(self, item, check):
        raise NotImplementedError

    def rows(self, corpus):
        raise NotImplementedError

    @property
    def fold_kind(self):
        return self.name

    @property
    def path(self):
        return f"{self.name}s/check"

    @property
    def url_name(self):
        return f"{self.name}-check"

    @property
    def templates(self):
        """The page and its htmx fragment."""
        return f"frames/{self.name}_check.html", f"frames/{self.name}_check_item.html"

    @property
    def fields(self):
        """The verdict fields: the event model's own fields (not the link, not ``HumanCheckEvent``'s)."""
        from frames.models import HumanCheckEvent

        common = {f.name for f in HumanCheckEvent._meta.get_fields()} | {"id", self.event_link}
        return tuple(f.name for f in self.event_model._meta.concrete_fields if f.name not in common)

    @property
    def verdict(self):
        """The field that is set once the item is judged."""
        return self.fields[0]

    @property
    def checks(self):
        """The lookup from a fold item to its judgements (``frame_annotation__checks``)."""
        return f"{self.item}__{self.model._meta.get_field(self.item).remote_field.related_name}"

    @property
    def event_link(self):
        """The event model's foreign key to the judgement."""
        return next(f.name for f in self.event_model._meta.fields if f.related_model is self.model)

    def get_assigned_fold(self, user, fold_id):
        """The fold of ``kind`` if it is assigned to ``user``; ``self.not_found`` otherwise."""
        fold = annotating.assigned_folds(user, kind=self.fold_kind).filter(pk=fold_id).first()
        if fold is None:
            raise self.not_found("no such fold among your assignments")
        return fold

    def get_fold_item(self, fold, handle):
        """The item of ``fold`` an annotator names by its ``handle`` (never its id, as on the triplet pages)."""
        item = FoldItem.objects.filter(handle=handle, fold=fold).select_related(*self.related).first()
        if item is None:
            raise self.not_found("no such item in this fold")
        return item

    def guidelines_news(self, fold, user):
        """What changed in the corpus guidelines since ``user`` last read them, once (as on the triplet
        pages: ``annotation.annotating.guidelines_news``)."""
        found = sql.assignment(user.pk, fold.pk, kind=self.fold_kind, role=roles.ANNOTATOR)
        return annotating.guidelines_news(found[0]) if found else []

    def fold_progress(self, fold, user):
        checks = self.checks
        mine = Q(**{f"{checks}__annotator": user})
        counts = FoldItem.objects.filter(fold=fold).aggregate(
            total=Count("id", distinct=True),
            done=Count(checks, filter=mine & Q(**{f"{checks}__{self.verdict}__isnull": False})),
            skipped=Count(
                checks, filter=mine & Q(**{f"{checks}__{self.verdict}__isnull": True, f"{checks}__skipped": True})
            ),
        )
        return annotating.FoldProgress(done=counts["done"], skipped=counts["skipped"], total=counts["total"])

    def judged(self, fold, annotator):
        """Items of ``fold`` that ``annotator`` has judged (the admin's fold page)."""
        return self.model.objects.filter(
            **{"annotator": annotator, f"{self.verdict}__isnull": False, f"{self.item}__fold_items__fold": fold}
        ).count()

    def next_item(self, fold, user):
        """First item not judged yet; when only skipped ones are left, the first skipped one."""
        items = FoldItem.objects.filter(fold=fold).select_related(*self.related).order_by("position")
        todo = items.exclude(**{f"{self.checks}__annotator": user}).first()
        if todo is not None:
            return todo
        return items.filter(
            **{f"{self.checks}__annotator": user, f"{self.checks}__{self.verdict}__isnull": True}
        ).first()

    def previous_item(self, fold, user, before_position=None):
        items = FoldItem.objects.filter(fold=fold, **{f"{self.checks}__annotator": user}).select_related(*self.related)
        if before_position is not None:
            items = items.filter(position__lt=before_position)
        return items.order_by("-position").first()

    def item_after(self, fold, position):
        items = FoldItem.objects.filter(fold=fold, position__gt=position).select_related(*self.related)
        return items.order_by("position").first()

    def current_check(self, item, user):
        key = f"{self.item}_id"
        return self.model.objects.filter(**{key: getattr(item, key), "annotator": user}).first()

    def save(self, user, fold, item, *, answer, skip=False, seconds=0.0, submission_id=None):
        """Record a verdict (or a skip) for ``item``; returns ``(check, changed)``. ``answer``: the verdict
        as :attr:`CheckKind.read` gives it; ``ValueError`` (its message for the annotator) when it is
        incomplete; a skip keeps the verdict already saved."""
        values = dict.fromkeys(self.fields) if skip else self.clean(item, answer)
        key = f"{self.item}_id"
        return judgements.save(
            self.model,
            self.event_model,
            self.event_link,
            keys={key: getattr(item, key), "annotator": user},
            sent=judgements.Submission(values, skip=skip, seconds=seconds, submission_id=submission_id),
            fold=fold,
        )


#: fold kind -> CheckKind (core.registry's shape).
KINDS = Registry("check kinds")


def register(kind: CheckKind) -> CheckKind:
    """Add a kind of check and tell annotation's fold pages about its folds (``FramesConfig.ready``)."""
    KINDS.register(kind.fold_kind, kind)
    fold_kinds.register(
        kind.fold_kind,
        fold_kinds.FoldKind(
            progress=kind.fold_progress,
            judged=kind.judged,
            build_action=f"build_{kind.name}s",
            build_form=kind.build_form,
            build=kind.build,
            errors=kind.errors,
            label=kind.label,
            page=kind.url_name,
            readiness=kind.readiness,
            item=kind.item,
            words=kind.words,
        ),
    )
    return kind


def unregister(fold_kind: str) -> None:
    """Remove a kind (tests that add a toy one)."""
    KINDS.unregister(fold_kind)
    fold_kinds.unregister(fold_kind)


def get(fold_kind: str) -> CheckKind:
    return KINDS[fold_kind]


def all_kinds() -> list[CheckKind]:
    return list(KINDS.all().values())


def plan_folds(ids, *, what, empty, error, k=1, seed=0, overlap=0.0, sample=None):
    """FoldPlans over item ids (each its own question key); ``sample``: check only that many, drawn with
    ``seed`` (the draw of ``what``: ``"frame"``, ``"attribute"``); ``error(empty)`` when there is
    nothing to check. Pure.

    >>> [p.items for p in plan_folds([5, 6, 7], what="toy", empty="none", error=ValueError, sample=2, seed=1)]
    [[5, 7]]
    """
    ids = list(ids)
    if sample is not None:
        if sample < 1:
            raise error(gettext("the sample must hold at least one question"))
        ids = sorted(random.Random(f"{what}-sample:{seed}").sample(ids, min(sample, len(ids))))
    if not ids:
        raise error(empty)
    return build_folds([(i, i) for i in ids], k=k, seed=seed, policy="by_question", overlap=overlap)
