"""Triplets (unique context, question, answer), folds and their assignment to annotators."""

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.dedup import answer_key


class TripletManager(models.Manager):
    def bulk_create(self, objs, *args, **kwargs):
        """As the ORM's, with each triplet's ``answer_key`` set from its normalized answer."""
        objs = list(objs)
        for triplet in objs:
            triplet.answer_key = answer_key(triplet.normalized_answer)
        return super().bulk_create(objs, *args, **kwargs)


class Triplet(models.Model):
    question = models.ForeignKey(
        "annotation.Question", on_delete=models.CASCADE, related_name="triplets", verbose_name=_("question")
    )
    answer = models.TextField(
        blank=True, help_text=_("Answer shown to annotators (first variant seen)."), verbose_name=_("answer")
    )
    normalized_answer = models.TextField(
        blank=True, help_text=_("Deduplication key under the corpus policy."), verbose_name=_("normalized answer")
    )
    # What the triplet is unique by within its question: SHA-256 of the normalized answer (fixed size,
    # so answers of any length fit the unique index on both databases; annotation.dedup.answer_key).
    answer_key = models.CharField(max_length=64, editable=False, verbose_name=_("answer key"))
    # The active design (SPEC 12): the triplet's chance of a human label and whether the draw took it.
    design_pi = models.FloatField(
        null=True, blank=True, help_text=_("Chance of a human label under the design."), verbose_name=_("design pi")
    )
    design_sampled = models.BooleanField(
        null=True, blank=True, help_text=_("Drawn into the human sample (xi)."), verbose_name=_("design sampled")
    )
    design_phase = models.CharField(
        max_length=8,
        null=True,
        blank=True,
        choices=[("pilot", _("pilot")), ("main", _("main"))],
        help_text=_("The phase of the design that drew the triplet (pilot first, then main)."),
        verbose_name=_("design phase"),
    )
    design_p1 = models.FloatField(
        null=True, blank=True, help_text=_("The design's pilot chance."), verbose_name=_("design pilot chance")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    objects = TripletManager()

    class Meta:
        verbose_name = _("triplet")
        verbose_name_plural = _("triplets")
        constraints = [models.UniqueConstraint(fields=["question", "answer_key"], name="uniq_triplet_answer_key")]

    def __str__(self):
        return f"T{self.pk}: {self.answer[:40]}"

    def save(self, *args, **kwargs):
        self.answer_key = answer_key(self.normalized_answer)
        if kwargs.get("update_fields") is not None and "normalized_answer" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "answer_key"}
        super().save(*args, **kwargs)


class Fold(models.Model):
    KIND_TRIPLET = "triplet"
    KIND_FRAME = "frame"
    KIND_ATTRIBUTE = "attribute"
    KINDS = [
        (KIND_TRIPLET, _("answer triplets")),
        (KIND_FRAME, _("frame checks")),
        (KIND_ATTRIBUTE, _("attribute checks")),
    ]

    corpus = models.ForeignKey(
        "annotation.Corpus", on_delete=models.CASCADE, related_name="folds", verbose_name=_("corpus")
    )
    kind = models.CharField(max_length=20, choices=KINDS, default=KIND_TRIPLET, verbose_name=_("kind"))
    index = models.PositiveIntegerField(verbose_name=_("index"))
    name = models.CharField(max_length=100, verbose_name=_("name"))
    seed = models.IntegerField(default=0, verbose_name=_("seed"))
    params = models.JSONField(default=dict, blank=True, verbose_name=_("params"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="annotation.Assignment",
        related_name="folds",
        blank=True,
        verbose_name=_("annotators"),
    )

    # A built fold is named "{corpus} {word} {n}" (annotation.fold_store.store_fold_plans, in English:
    # downloads and the API keep it); pages say that name in the reader's language (``title``).
    NAME_WORDS = {KIND_TRIPLET: "fold", KIND_FRAME: "frames", KIND_ATTRIBUTE: "attributes"}
    TITLES = {
        KIND_TRIPLET: _("%(corpus)s fold %(n)s"),
        KIND_FRAME: _("%(corpus)s frames %(n)s"),
        KIND_ATTRIBUTE: _("%(corpus)s attributes %(n)s"),
    }

    class Meta:
        verbose_name = _("fold")
        verbose_name_plural = _("folds")
        constraints = [models.UniqueConstraint(fields=["corpus", "kind", "index"], name="uniq_fold_index")]
        ordering = ["corpus", "kind", "index"]

    def __str__(self):
        return self.title

    @property
    def title(self):
        """The fold's name in the reader's language when it is the name it was built with (corpus, kind
        and number); a name given by hand is shown as it is."""
        suffix = f" {self.NAME_WORDS.get(self.kind)} {self.index + 1}"
        if self.kind not in self.TITLES or not self.name.endswith(suffix) or self.name == suffix.strip():
            return self.name
        return self.TITLES[self.kind] % {"corpus": self.name[: -len(suffix)], "n": self.index + 1}


def new_handle():
    """A random item handle (1 .. 2**62): what annotators see of an item instead of its id.

    Item ids grow with time, so the items of a system added after the folds would carry the highest
    ids; a handle carries no order. It fits an id's range (``core.ids``), so it travels as one."""
    return secrets.randbelow(2**62) + 1


def new_handles(n):
    """``n`` handles as ``new_handle`` gives them, from one read of the system's random source (a
    fold of thousands of items at once: one ``os.urandom`` call instead of one per item).

    >>> handles = new_handles(1000)
    >>> len(handles), all(1 <= h <= 2**62 for h in handles)
    (1000, True)
    """
    raw = secrets.token_bytes(8 * n)
    return [(int.from_bytes(raw[i : i + 8], "little") >> 2) + 1 for i in range(0, 8 * n, 8)]


class FoldItem(models.Model):
    """One position in a fold: a triplet, or (for frame folds) a frame annotation to check.

    Annotators name an item by its ``handle`` (URLs, forms, the API), never by its id or position:
    positions move when late predictions are interleaved, ids reveal the order of import."""

    fold = models.ForeignKey(Fold, on_delete=models.CASCADE, related_name="items", verbose_name=_("fold"))
    position = models.PositiveIntegerField(verbose_name=_("position"))
    triplet = models.ForeignKey(
        Triplet, null=True, blank=True, on_delete=models.CASCADE, related_name="fold_items", verbose_name=_("triplet")
    )
    # The one reference from annotation to the frames app: a lazy model reference (no import), as
    # frame-check folds are annotation folds whose items are frame annotations (same column as ever).
    frame_annotation = models.ForeignKey(
        "frames.FrameAnnotation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="fold_items",
        verbose_name=_("frame annotation"),
    )
    # attribute-check folds: the question whose derived attributes (SPEC 15, meta.derivation) are checked
    question = models.ForeignKey(
        "annotation.Question",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="fold_items",
        verbose_name=_("question"),
    )
    is_overlap = models.BooleanField(
        default=False, help_text=_("Copy made for inter-annotator agreement."), verbose_name=_("is overlap")
    )
    handle = models.BigIntegerField(default=new_handle, editable=False, verbose_name=_("handle"))

    class Meta:
        verbose_name = _("fold item")
        verbose_name_plural = _("fold items")
        ordering = ["fold", "position"]
        constraints = [
            models.UniqueConstraint(fields=["fold", "position"], name="uniq_fold_position"),
            models.UniqueConstraint(fields=["fold", "handle"], name="uniq_fold_handle"),
            models.UniqueConstraint(fields=["fold", "triplet"], name="uniq_fold_triplet"),
            models.UniqueConstraint(fields=["fold", "frame_annotation"], name="uniq_fold_frame_annotation"),
            models.UniqueConstraint(fields=["fold", "question"], name="uniq_fold_question"),
            models.CheckConstraint(
                condition=(models.Q(triplet__isnull=False, frame_annotation__isnull=True, question__isnull=True))
                | (models.Q(triplet__isnull=True, frame_annotation__isnull=False, question__isnull=True))
                | (models.Q(triplet__isnull=True, frame_annotation__isnull=True, question__isnull=False)),
                name="fold_item_one_target",
            ),
        ]

    def __str__(self):
        return f"fold {self.fold_id} #{self.position}"


class Assignment(models.Model):
    """A fold given to an annotator, with the annotator's progress through it.

    ``done`` / ``skipped`` / ``total`` and ``cursor`` let a judgement find its progress and the next
    item without counting or scanning the annotator's past: they are recounted from the labels when
    the annotator opens the fold (``annotating.refresh_progress``) and then moved by each judgement in
    the transaction that saves its label. ``cursor`` is a lower bound: no item before that position
    is still to do. ``done`` is null until the first recount.
    """

    fold = models.ForeignKey(Fold, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("fold"))
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("annotator")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    done = models.PositiveIntegerField(null=True, blank=True, editable=False, verbose_name=_("done"))
    skipped = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("skipped"))
    total = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("total"))
    cursor = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("cursor"))
    # The corpus guidelines as this annotator last read them (null: not known yet); when they differ
    # from the corpus's, the annotator page says once what changed (annotation/guidelines.py).
    guidelines_seen = models.TextField(null=True, blank=True, editable=False, verbose_name=_("guidelines seen"))

    class Meta:
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [models.UniqueConstraint(fields=["fold", "annotator"], name="uniq_assignment")]

    def __str__(self):
        return f"{self.fold} -> {self.annotator}"
