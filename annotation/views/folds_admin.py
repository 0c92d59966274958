"""The admin's fold page: build folds, assign them, and watch per-fold and per-annotator progress."""

from collections import defaultdict

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext
from django.views.decorators.http import require_POST, require_safe

from annotation import fold_designs, fold_kinds, gold, quality_data
from annotation.assignments import annotators, assign_all, assign_fold
from annotation.fold_store import FoldError, create_folds, extend_folds, fold_design, pilot_progress
from annotation.folds import FOLD_POLICIES, FOLD_POLICY_TITLES
from annotation.models import Assignment, Corpus, Fold, FoldItem, Triplet
from core import ids
from core.number_field import BudgetField, NumberField
from core.permissions import admin_required


class BuildFoldsForm(forms.Form):
    k = NumberField(integer=True, min_value=1, max_value=1000, initial=10, label=gettext_lazy("Folds (K)"))
    seed = NumberField(integer=True, initial=0, label=gettext_lazy("Seed"))
    policy = forms.ChoiceField(
        choices=[(p, gettext_lazy(FOLD_POLICY_TITLES[p])) for p in FOLD_POLICIES],
        initial="by_question",
        label=gettext_lazy("Policy"),
    )
    overlap = NumberField(
        min_value=0,
        max_value=1,
        initial=0.1,  # "0,1" or "0.1", typed either way (core.number_field)
        label=gettext_lazy("Overlap"),
        meaning=gettext_lazy("a share of the questions"),
        help_text=gettext_lazy("share of questions labeled twice"),
    )
    replace = forms.BooleanField(
        required=False, label=gettext_lazy("Replace"), help_text=gettext_lazy("rebuild folds that have no labels yet")
    )
    design = forms.ChoiceField(
        choices=[
            ("uniform", gettext_lazy("uniform: every triplet")),
            ("active", gettext_lazy("active: a sample drawn where the judge is unsure")),
        ],
        initial="uniform",
        label=gettext_lazy("Design"),
        help_text=gettext_lazy("SPEC 12: the active design needs a budget and a judge"),
    )
    budget = BudgetField(
        required=False,
        label=gettext_lazy("Budget"),
        help_text=gettext_lazy("active: human-labelled triplets, a count (300) or a share (0.05 or 5%)"),
    )
    judge = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Judge"),
        help_text=gettext_lazy("active: the judge whose uncertainty sets the chances (judges with labels here)"),
    )

    def __init__(self, corpus=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = fold_designs.judge_names(corpus) if corpus is not None else []
        self.fields["judge"].choices = [("", gettext_lazy("none (uniform design)")), *((n, n) for n in names)]
        self.fields["judge"].initial = names[0] if names else ""

    def clean(self):
        data = super().clean()
        if data.get("design") == "active":
            if not data.get("budget") and "budget" not in self.errors:  # a budget typed wrong says why already
                self.add_error("budget", _("the active design needs a budget"))
            if not data.get("judge") and "judge" not in self.errors:
                self.add_error(
                    "judge",
                    _("the active design needs a judge with labels in this corpus")
                    if self.fields["judge"].choices[1:]
                    else _("no judge has labels in this corpus yet: run one (Judge a corpus) first"),
                )
        return data

    def build_options(self, corpus):
        """``create_folds`` keyword arguments, the active design drawn (``annotation.fold_designs``)."""
        d = dict(self.cleaned_data)
        design, budget, judge = d.pop("design"), d.pop("budget"), d.pop("judge")
        if design == "active":
            d["design"] = fold_designs.get("active").plan(corpus, budget=budget, judge=judge, seed=d["seed"])
        return d


class AssignForm(forms.Form):
    fold = forms.ModelChoiceField(queryset=Fold.objects.none(), label=gettext_lazy("Fold"))
    annotator = forms.ModelChoiceField(queryset=get_user_model().objects.none(), label=gettext_lazy("Annotator"))

    def __init__(self, corpus, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["fold"].queryset = Fold.objects.filter(corpus=corpus)
        self.fields["annotator"].queryset = annotators()


def fold_table(corpus):
    """Rows of (fold, [(annotator, judged)]) and per-annotator (judged, total) over the corpus."""
    folds = list(Fold.objects.filter(corpus=corpus).annotate(n_items=Count("items")).order_by("kind", "index"))
    per_fold = defaultdict(list)
    per_annotator = defaultdict(lambda: [0, 0])
    for a in (
        Assignment.objects.filter(fold__in=folds).select_related("annotator", "fold").order_by("annotator__username")
    ):
        done = fold_kinds.get(a.fold.kind).judged(a.fold, a.annotator)
        per_fold[a.fold_id].append((a, done))
    table = []
    for fold in folds:
        for a, done in per_fold[fold.pk]:
            per_annotator[a.annotator][0] += done
            per_annotator[a.annotator][1] += fold.n_items
        table.append({"fold": fold, "people": per_fold[fold.pk]})
    return table, sorted(per_annotator.items(), key=lambda kv: kv[0].username)


@admin_required
@require_safe
def fold_assignments(request):
    corpora = Corpus.objects.annotate(n_questions=Count("questions", distinct=True)).order_by("name")
    corpus = None
    if request.GET.get("corpus"):
        corpus = get_object_or_404(Corpus, name=request.GET["corpus"])
    elif corpora:
        corpus = corpora[0]
    return _page(request, corpora, corpus)


def _page(request, corpora, corpus, *, build_form=None, status=200):
    """The Folds page; ``build_form`` bound after an error keeps what was typed."""
    context = {"corpora": corpora, "corpus": corpus}
    if corpus:
        context.update(_corpus_context(corpus, build_form or BuildFoldsForm(corpus)))
    return render(request, "annotation/fold_assignments.html", context, status=status)


def _corpus_context(corpus, build_form):
    table, per_annotator = fold_table(corpus)
    return {
        "table": table,
        "per_annotator": per_annotator,
        "build_form": build_form,
        "assign_form": AssignForm(corpus),
        "kind_cards": kind_cards(corpus, {row["fold"].kind for row in table}),
        "quality": quality_data.corpus_quality(corpus),
        "disagreements": len(quality_data.open_disagreements(corpus)),
        "unfolded": Triplet.objects.filter(question__corpus=corpus, fold_items__isnull=True)
        .exclude(design_sampled=False)
        .count(),
        "design": fold_design(corpus),
        "pilot": pilot_progress(corpus),
    }


def kind_cards(corpus, built):
    """One card per fold kind built by its own form (``fold_kinds.built_by_form``: frame checks,
    attribute checks, ...), in the order of registration: its words, its form, what the corpus offers
    (``ready``) or the step to take first (``next_step``: text and URL), and whether the corpus has
    folds of the kind (``built`` holds the kinds it has: their round-robin button)."""
    cards = []
    for key, kind in fold_kinds.built_by_form().items():
        n, next_step = kind.readiness(corpus) if kind.readiness else (None, None)
        cards.append(
            {
                "kind": key,
                "action": kind.build_action,
                "words": kind.words,
                "form": kind.build_form(),
                "ready": kind.words.ready % {"n": n} if n is not None else None,
                "next_step": next_step,
                "has_folds": key in built,
            }
        )
    return cards


def _build(request, corpus):
    """Build folds from the form; on an error the page comes back with what was typed (400)."""
    form = BuildFoldsForm(corpus, request.POST)
    try:
        if not form.is_valid():
            raise FoldError(_("nothing built: correct the fields marked below"))
        options = form.build_options(corpus)
        folds = create_folds(corpus, **options)
    except (FoldError, *fold_kinds.build_errors(), ValueError) as exc:
        messages.error(request, str(exc))
        corpora = Corpus.objects.annotate(n_questions=Count("questions", distinct=True)).order_by("name")
        return _page(request, corpora, corpus, build_form=form, status=400)
    plan = options.get("design")
    said = ngettext("built %(n)d fold", "built %(n)d folds", len(folds)) % {"n": len(folds)}
    if plan:
        said += _(
            " from a pilot of %(n)s drawn triplets (%(kind)s design): the main sample opens when the pilot is labelled"
        ) % {"n": plan.meta["n_sampled"], "kind": _("active")}
    reason = f"; {plan.meta['reason']}" if plan and plan.meta["reason"] else ""
    items = FoldItem.objects.filter(fold__in=folds).count()
    said += ngettext(" (%(items)d item in all)", " (%(items)d items in all)", items) % {"items": items}
    messages.success(request, said + reason + _(". Next: assign them to annotators (Assign, below)."))
    return redirect(f"{reverse('fold-assignments')}?corpus={corpus.name}")


@admin_required
@require_POST
def fold_action(request, corpus_id):
    corpus = get_object_or_404(Corpus, pk=corpus_id)
    action = request.POST.get("action")
    try:
        if action == "build":
            return _build(request, corpus)
        if fold_kinds.by_action(action):
            _build_other_kind(request, corpus, fold_kinds.by_action(action))
        elif action == "extend":  # triplets in no fold yet (new predictions) join the folds
            added = extend_folds(corpus, gettext_noop("extend"))
            messages.success(request, _("added %(n)d items to the folds") % {"n": added})
        elif action == "interleave_gold":
            added = gold.interleave_gold(corpus)
            messages.success(
                request,
                ngettext("added %(n)d gold item to the folds", "added %(n)d gold items to the folds", added)
                % {"n": added}
                if added
                else _("every fold already has every gold item"),
            )
        elif action == "assign":
            form = AssignForm(corpus, request.POST)
            if not form.is_valid():
                raise FoldError("; ".join(f"{k}: {', '.join(v)}" for k, v in form.errors.items()))
            assign_fold(form.cleaned_data["fold"], form.cleaned_data["annotator"])
            messages.success(
                request,
                _("assigned %(fold)s to %(annotator)s")
                % {"fold": form.cleaned_data["fold"], "annotator": form.cleaned_data["annotator"]},
            )
        elif action == "assign_all":
            plan = assign_all(corpus, annotators(), per_fold=1, kind=request.POST.get("kind") or Fold.KIND_TRIPLET)
            messages.success(
                request,
                ngettext("assigned %(n)d fold round robin", "assigned %(n)d folds round robin", len(plan))
                % {"n": len(plan)},
            )
        elif action == "unassign":
            chosen = ids.parse_id(request.POST.get("assignment")) or 0
            deleted, _per_model = Assignment.objects.filter(fold__corpus=corpus, pk=chosen).delete()
            messages.success(request, _("assignment removed (labels are kept)") if deleted else _("nothing to remove"))
        else:
            raise FoldError(_("unknown action %(action)r") % {"action": action})
    except (FoldError, *fold_kinds.build_errors(), ValueError) as exc:
        messages.error(request, str(exc))
    return redirect(f"{reverse('fold-assignments')}?corpus={corpus.name}")


def _build_other_kind(request, corpus, kind):
    """Folds of a kind another app registered (frames: ``action=build_frames``)."""
    form = kind.build_form(request.POST)
    if not form.is_valid():
        raise FoldError("; ".join(f"{k}: {', '.join(v)}" for k, v in form.errors.items()))
    folds = kind.build(corpus, **form.options())
    messages.success(request, _("built %(n)d %(kind)s") % {"n": len(folds), "kind": kind.label})


@admin_required
@require_safe
def confirm_unassign(request, corpus_id, assignment_id):
    """Removing an assignment asks first (GET shows what goes, POST to ``fold_action`` removes it)."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("fold", "annotator"), pk=assignment_id, fold__corpus_id=corpus_id
    )
    return render(
        request, "annotation/confirm_unassign.html", {"assignment": assignment, "corpus": assignment.fold.corpus}
    )
