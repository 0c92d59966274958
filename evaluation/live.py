"""The live conclusions page (SPEC 10): per system the current human (prediction-powered when a judge
exists) estimate and interval, per pair whether the order is settled, and how many more human labels
the current gain suggests for a chosen interval width; with an active design (SPEC 12) also its
estimates under the completion-rate rule ("k of B labelled") and, per pair, how many more labelled
sample triplets would settle it. The panel is polled with htmx and recomputed
from the per-prediction snapshot only (``evaluation.judge_inputs.snapshot``, ``evaluation.science.ppi.conclusions``),
never the whole report. Researchers and admins only."""

from django import forms
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.fold_store import fold_design
from annotation.models import Corpus
from core.permissions import IsResearcherRole, researcher_required
from evaluation import judge_inputs
from evaluation.report.steps import clean
from evaluation.science import active, metric_registry, ppi
from models_runner.models import Judge

POLL_SECONDS = 5


class ConclusionsForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.order_by("name"), to_field_name="name", label=_("Corpus"))
    judge = forms.ChoiceField(required=False, label=_("Judge"), help_text=_("default: the judge with the most labels"))
    metric = forms.ChoiceField(
        choices=[(m, m) for m in ppi.METRICS], initial="hscore", required=False, label=_("Metric")
    )
    half_width = forms.FloatField(
        min_value=0.0001,
        max_value=100,
        initial=0.02,
        required=False,
        label=_("target half-width"),
        help_text=_("Hscore in [0, 1], Hcorrect in %"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = Judge.objects.order_by("name").values_list("name", flat=True)
        self.fields["judge"].choices = [("", _("most labels")), *((n, n) for n in names)]


def _context(request):
    form = ConclusionsForm(request.GET or None)
    if not request.GET and Corpus.objects.count() == 1:
        form = ConclusionsForm({"corpus": Corpus.objects.get().name})
    context = {"form": form, "poll": POLL_SECONDS, "result": None}
    if form.is_bound and form.is_valid():
        d = form.cleaned_data
        metric = d["metric"] or "hscore"
        width = d["half_width"] or (2.0 if metric == "hcorrect" else 0.02)
        judge = judge_inputs.pick_judge(d["corpus"], d["judge"] or None)
        predictions, labels = judge_inputs.snapshot(d["corpus"])
        jl = judge_inputs.judge_labels(d["corpus"], judge)
        result = ppi.conclusions(
            predictions, labels, jl, metric=metric, half_width=width, facts=judge_inputs.sample_facts(d["corpus"])
        )
        for r in result["rows"]:
            r["bar"] = _bar(r, metric_registry.get(metric).scale)
        context["active"] = _active(d["corpus"], (predictions, labels), metric=metric, loaded=(judge, jl))
        context.update(
            corpus=d["corpus"],
            judge=judge,
            judges=judge_inputs.corpus_judges(d["corpus"]),
            result=result,
            reasons=result["reasons"],
            query=request.GET.urlencode() or f"corpus={d['corpus'].name}",
        )
    return context


@researcher_required
@require_safe
def conclusions(request):
    """The live conclusions page (researchers and admins; GET).

    Parameters
    ----------
    request : HttpRequest
        Query: ``corpus``, optional ``judge``, ``metric``, ``half_width`` (``ConclusionsForm``).

    Returns
    -------
    HttpResponse
        ``evaluation/conclusions.html``.
    """
    return render(request, "evaluation/conclusions.html", _context(request))


@researcher_required
@require_safe
def conclusions_panel(request):
    """The page's panel alone, polled with htmx every ``POLL_SECONDS``.

    Parameters
    ----------
    request : HttpRequest
        The query of ``conclusions``.

    Returns
    -------
    HttpResponse
        ``evaluation/_conclusions_panel.html``.
    """
    return render(request, "evaluation/_conclusions_panel.html", _context(request))


def _active(corpus, snapshot, *, metric, loaded=(None, None)):
    """The active design's live figures (``active.active_conclusions``), None without a design.
    ``loaded``: (judge, its labels) the page has read already, reused when it is the design's judge."""
    from models_runner.models import Judge

    meta = fold_design(corpus)
    plan = judge_inputs.design_frame(corpus)
    if not meta or plan is None:
        return None
    judge = Judge.objects.filter(name=meta.get("judge")).first()
    same = judge is not None and loaded[0] is not None and loaded[0].pk == judge.pk
    judge_labels = loaded[1] if same else judge_inputs.judge_labels(corpus, judge)
    if judge_labels is None:
        return None
    predictions, labels = snapshot
    result = active.active_conclusions(
        predictions,
        labels,
        judge_labels,
        design_frame=plan,
        metric=metric,
        facts={"gold_keys": judge_inputs.gold_keys(corpus), "design_meta": meta},
    )
    result["judge"] = judge.name
    return result


def _bar(row, scale):
    """(low, high, estimate) as positions in [0, 100] of the metric's range, for the interval bar."""
    if row["ci_low"] is None:
        return None
    values = (row["ci_low"], row["ci_high"], row["estimate"])
    return tuple(round(100 * min(max(v / scale, 0.0), 1.0), 2) for v in values)


class ConclusionsAPI(APIView):
    """``GET /research/api/conclusions/?corpus=C[&judge=J][&metric=hscore][&half_width=0.02]``: the live
    page's figures as JSON (``rows`` per system with ``needed`` and ``remaining``, ``pairs``, ``reasons``)."""

    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(
        operation_id="research_api_conclusions",
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
        parameters=[
            OpenApiParameter("corpus", str),
            OpenApiParameter("judge", str),
            OpenApiParameter("metric", str, enum=list(ppi.METRICS)),
            OpenApiParameter("half_width", float),
        ],
    )
    def get(self, request):
        context = _context(request)
        if context["result"] is None:
            return Response({"errors": context["form"].errors or {"corpus": ["give a corpus"]}}, status=400)
        result = {
            **context["result"],
            "judge": getattr(context["judge"], "name", None),
            "active": context.get("active"),
        }
        for r in result["rows"]:
            r.pop("bar", None)
        return Response(clean(result))
