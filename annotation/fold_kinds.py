"""What the fold pages need to know about each kind of fold, registered by the app that owns its items.

annotation owns folds and their answer-triplet kind. Another app whose items live in folds (frames:
frame checks) registers its kind from its ``AppConfig.ready()``, so the home page, the fold API and
the admin's fold page show it without annotation importing that app.

The admin's fold page loops over the kinds: a kind built by its own form (``build_form``) has its
card there (``words``: its title, what it is, the build and assign buttons, what the corpus offers).

>>> with KINDS.override({"toy": FoldKind(progress=len, judged=len, build_action="build_toys", item="question")}):
...     by_action("build_toys") is get("toy"), get("toy").page, get("toy").item
(True, 'annotate', 'question')
>>> FoldKind(progress=len, judged=len, build_action="build_toys", build_form=dict)
Traceback (most recent call last):
ValueError: a fold kind built by its own form says what its card on the fold page holds (words)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.registry import Registry


@dataclass(frozen=True)
class PageWords:
    """What the admin's fold page says of a kind built by its own form: the card's ``title`` and
    ``intro`` (what the folds check, where their items come from), the ``build`` button, ``ready``
    (how many items the corpus offers: ``ngettext_lazy(one, many, "n")``) and the ``assign`` button
    (every unassigned fold of the kind, round robin)."""

    title: str
    intro: str
    build: str
    ready: str
    assign: str


@dataclass(frozen=True)
class FoldKind:
    """One kind of fold.

    ``progress(fold, user) -> annotating.FoldProgress``; ``judged(fold, annotator) -> int`` items with a
    value; optional building from the fold page: ``build_action`` (the POSTed ``action``), ``build_form``
    (a Form class whose ``options()`` are the keyword arguments of ``build(corpus, **options) -> folds``),
    and ``errors``, the exceptions of ``build`` shown to the admin as a message; ``label`` names the
    built folds in that message; optional ``readiness(corpus) -> (n, next_step)``: how many items the
    corpus offers to such folds and, when it offers none, ``(text, url)`` of what to do first; ``page`` is
    the URL name of the page where an annotator works on such a fold (its one argument: the fold's id),
    which the home page links to; ``item`` is the ``FoldItem`` field naming its items (a triplet, a frame
    prediction, a question); ``words`` what the fold page says of a kind built by its own form.
    """

    progress: Callable
    judged: Callable
    build_action: str | None = None
    build_form: type | None = None
    build: Callable | None = None
    errors: tuple = ()
    label: str = "folds"
    readiness: Callable | None = None
    page: str = "annotate"
    item: str = "triplet"
    words: PageWords | None = None

    def __post_init__(self):
        if self.build_form is not None and self.words is None:
            raise ValueError("a fold kind built by its own form says what its card on the fold page holds (words)")


#: fold kind -> FoldKind (core.registry's shape); annotation's own kind is added on first use.
KINDS = Registry("fold kinds")
KINDS.fill_on_first_use("annotation.fold_kinds:_register_own")


def register(kind, fold_kind):
    return KINDS.register(kind, fold_kind)


def unregister(kind):
    """Forget a kind (tests that register a toy one)."""
    KINDS.unregister(kind)


def get(kind):
    """The registered kind, or ``None`` (its app is not installed)."""
    return KINDS.get(kind)


def by_action(action):
    """The kind that builds folds for the fold page's ``action``, or ``None``."""
    return next((k for k in KINDS.all().values() if k.build_action and k.build_action == action), None)


def built_by_form():
    """``{kind: FoldKind}`` of the kinds built by their own form, in the order of registration: the
    cards of the admin's fold page."""
    return {key: k for key, k in KINDS.all().items() if k.build_form is not None}


def build_errors():
    return tuple(e for k in KINDS.all().values() for e in k.errors)


def progress_of(fold, user):
    """Progress of ``user`` on a fold of any kind: what the home page and ``/api/my/folds/`` show."""
    return get(fold.kind).progress(fold, user)


def _register_own():
    """annotation's own kind, registered on first use (``annotating`` needs the app registry ready)."""
    from annotation import annotating
    from annotation.models import Fold, Label

    def judged(fold, annotator):
        return Label.objects.filter(annotator=annotator, value__isnull=False, triplet__fold_items__fold=fold).count()

    if Fold.KIND_TRIPLET not in KINDS:  # (a test may have registered its own first)
        KINDS.register(Fold.KIND_TRIPLET, FoldKind(progress=annotating.fold_progress, judged=judged))
