"""The live conclusions page (SPEC 10): per system the current human (prediction-powered when a judge
exists) estimate and interval, per pair whether the order is settled, and how many more human labels
the current gain suggests for a chosen interval width; and (SPEC 16) the confidence sequences that
hold however often the page is read, per system whether it is done (half-width within the target),
per pair whether it is settled, and "you may stop now" once what the researcher waits for is settled
(``evaluation.science.anytime.live_conclusions``); with an active design (SPEC 12) also its estimates
under the completion-rate rule ("k of B labelled") and, per pair, how many more labelled sample
triplets would settle it. The panel is polled with htmx. Its figures, the fixed intervals as well as
the confidence sequences, are read as the background job stored them (``evaluation.live_state``: per
judge and human aggregate, every metric; the half-width, stop rule and tie margin applied here, which
is cheap), with how fresh they are and how many labels arrived since (issue 46: within 300 ms at 10x
SQuAD). Only the first view of a judge and aggregate with nothing stored yet computes the fixed
intervals in the request (``live_state.fixed_parts``). Researchers and admins only."""

from datetime import datetime

from django import forms
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Corpus, Study
from core.number_field import NumberField
from core.permissions import IsResearcherRole, researcher_required
from evaluation import judge_inputs
from evaluation.render.choices import AGGREGATE_SHORT
from evaluation.report.context import clean
from evaluation.science import anytime, human, live_parts, metric_registry, ppi
from models_runner.models import Judge

POLL_SECONDS = 5


class ConclusionsForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.order_by("name"), to_field_name="name", label=_("Corpus"))
    judge = forms.ChoiceField(required=False, label=_("Judge"), help_text=_("default: the judge with the most labels"))
    metric = forms.ChoiceField(
        choices=[(m, metric_registry.title(m)) for m in ppi.METRICS],
        initial="hscore",
        required=False,
        label=_("Metric"),
    )
    half_width = NumberField(  # "0,08" or "0.08"; checked against the metric's scale in clean()
        min_value=0,
        min_open=True,
        max_value=100,
        max_open=True,
        initial=0.02,
        required=False,
        label=_("target half-width"),
        help_text=_("Hscore in [0, 1], Hcorrect in %"),
    )
    tie_margin = forms.FloatField(
        min_value=0.0,
        max_value=0.5,
        initial=anytime.TIE_MARGIN,
        required=False,
        label=_("tie margin"),
        help_text=_("two systems bound within this share of the range are tied (default: the study's)"),
    )
    human_aggregate = forms.ChoiceField(  # SPEC 17: the human score of a triplet (mean, majority, ds)
        choices=lambda: [(a, AGGREGATE_SHORT[a]) for a in human.AGGREGATES],  # short: the form fits a phone
        initial=human.DEFAULT_AGGREGATE,
        required=False,
        label=_("Labels of one answer"),
    )
    stop_when = forms.ChoiceField(
        choices=[
            ("ranking", _("the ranking is settled")),
            ("done", _("every system is within the target half-width")),
        ],
        initial="ranking",
        required=False,
        label=_("Stop when"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = Judge.objects.order_by("name").values_list("name", flat=True)
        self.fields["judge"].choices = [("", _("most labels")), *((n, n) for n in names)]

    def clean(self):
        """The form's values, with the target half-width checked against the chosen metric's scale.

        Returns
        -------
        dict
            The cleaned data (an error on ``half_width`` when it is not below the scale).
        """
        data = super().clean()
        width, metric = data.get("half_width"), data.get("metric") or "hscore"
        scale = metric_registry.get(metric).scale if metric in ppi.METRICS else 1
        if width is not None and width >= scale:
            field = self.fields["half_width"]
            field.max_value, field.meaning = scale, _("a half-width on the metric's scale: 0 to 1, Hcorrect 0 to 100")
            self.add_error("half_width", field.range_message(width))
        return data


DS_REFUSED = _("Dawid-Skene needs at least 2 labels on at least half of the labelled answers: choose mean or majority.")


def _context(request):
    form = ConclusionsForm(request.GET or None)
    if not request.GET and Corpus.objects.count() == 1:
        form = ConclusionsForm({"corpus": Corpus.objects.get().name})
    context = {"form": form, "poll": POLL_SECONDS, "result": None}
    if form.is_bound and form.is_valid():
        d = form.cleaned_data
        metric = d["metric"] or "hscore"
        width = d["half_width"] or (2.0 if metric == "hcorrect" else 0.02)
        judges = judge_inputs.corpus_judges(d["corpus"])
        judge = judge_inputs.pick_judge(d["corpus"], d["judge"] or None, judges=judges)
        stored = _stored(d, judge)
        fixed = stored["fixed"]
        if fixed.get("refused"):  # ds refused (SPEC 17): too few answers with two labels
            form.add_error("human_aggregate", DS_REFUSED)
            return context
        result = live_parts.conclusions_from(fixed, metric, width)
        for r in result["rows"]:
            r["bar"] = _bar(r, metric_registry.get(metric).scale)
        context["sequence"] = _sequence(d, stored, metric=metric, width=width)
        context["active"] = (fixed["active"] or {}).get(metric)
        context.update(
            corpus=d["corpus"],
            judge=judge,
            judges=judges,
            result=result,
            reasons=result["reasons"],
            query=request.GET.urlencode() or f"corpus={d['corpus'].name}",
        )
    return context


def _stored(d, judge):
    """What the background job stored for the page's judge and human aggregate (``evaluation.live_state``):
    ``found`` (the judge's stored result, or None), ``fixed`` (its fixed intervals of the aggregate) and
    ``behind`` (the labels that arrived since, ``live_state.arrived_since``: no count over the corpus).
    A refresh is asked for when nothing is stored for them or labels arrived since; the fixed intervals
    are computed here only when none is stored yet (the first view of a judge and aggregate: every later
    view reads the stored ones, however far behind, and says by how many labels)."""
    from evaluation.live_state import arrived_since, fixed_parts, request_refresh
    from evaluation.models import LiveState

    corpus, name = d["corpus"], judge.name if judge is not None else ""
    aggregate = d.get("human_aggregate") or human.DEFAULT_AGGREGATE
    results = LiveState.objects.filter(corpus=corpus).values_list("results", flat=True).first() or {}
    found = results.get(name)
    fixed = (found or {}).get("fixed", {}).get(aggregate)
    behind = arrived_since(corpus, found.get("last_label")) if found is not None else None
    if found is None or behind or fixed is None:
        request_refresh(corpus.pk, judge=name or None, aggregate=aggregate)
    if fixed is None:
        predictions, labels = judge_inputs.snapshot(corpus)
        jl = judge_inputs.judge_labels(corpus, judge)
        fixed = fixed_parts(corpus, (predictions, labels, judge, jl), aggregate=aggregate)
    return {"found": found, "fixed": fixed, "behind": behind}


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


def _sequence(d, stored, *, metric, width):
    """The confidence sequences of SPEC 16 as the background job stored them (``evaluation.live_state``;
    never computed in the request; ``stored``: ``_stored``'s), each row with its bar, with how fresh
    they are; pending until one is stored. With an active design: no sequence (``active_design``)."""
    found = stored["found"]
    if found is None:
        return {"pending": True, "rows": []}
    if found["active"]:
        return {"active_design": True, "rows": [], "stop": False}
    result = anytime.live_from_rows(
        found["rows"],
        has_judge=found["has_judge"],
        metric=metric,
        half_width=width,
        stop_when=d.get("stop_when") or "ranking",
        margin=_tie_margin(d),
    )
    computed = datetime.fromisoformat(found["computed_at"])
    result.update(computed_at=computed, age=max(0, round((timezone.now() - computed).total_seconds())))
    result["behind"] = stored["behind"]
    result["metric_title"] = metric_registry.title(metric)
    tied = {frozenset(p["systems"]) for p in result.get("tied_pairs", [])}
    for p in result.get("pairs", []):  # a tied pair is listed once, as tied (not also as "not settled yet")
        p["tied"] = frozenset(p["systems"]) in tied
        p["resolved"] = p["settled"] or p["tied"]  # what the ranking needs of a pair (SPEC 16)
    scale = metric_registry.get(metric).scale
    for r in result["rows"]:
        r["bar"] = _bar({"ci_low": r["cs_low"], "ci_high": r["cs_high"], "estimate": r["cs_estimate"]}, scale)
    return result


def _tie_margin(d):
    """The page's tie margin: the form's, else that of the corpus's latest study (its close rule's), else None
    (``anytime.TIE_MARGIN``)."""
    if d.get("tie_margin") is not None:
        return d["tie_margin"]
    return Study.objects.filter(corpus=d["corpus"]).order_by("-created_at").values_list("tie_margin", flat=True).first()


def _bar(row, scale):
    """(low, high, estimate) as positions in [0, 100] of the metric's range, for the interval bar."""
    if row["ci_low"] is None or row["estimate"] is None:
        return None
    values = (row["ci_low"], row["ci_high"], row["estimate"])
    return tuple(round(100 * min(max(v / scale, 0.0), 1.0), 2) for v in values)


class ConclusionsAPI(APIView):
    """``GET /research/api/conclusions/?corpus=C[&judge=J][&metric=hscore][&half_width=0.02][&stop_when=ranking]``:
    the live page's figures as JSON (``rows`` per system with ``needed`` and ``remaining``, ``pairs``, ``reasons``;
    ``sequence``: the confidence sequences of SPEC 16 that hold however often they are read, with ``stop``)."""

    permission_classes = [IsAuthenticated, IsResearcherRole]

    @extend_schema(
        operation_id="research_api_conclusions",
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
        parameters=[
            OpenApiParameter("corpus", str),
            OpenApiParameter("judge", str),
            OpenApiParameter("metric", str, enum=list(ppi.METRICS)),
            OpenApiParameter("half_width", float),
            OpenApiParameter("stop_when", str, enum=list(anytime.STOP_RULES)),
            OpenApiParameter("tie_margin", float),
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
            "sequence": context.get("sequence"),
        }
        for r in [*result["rows"], *result["sequence"]["rows"]]:
            r.pop("bar", None)
        if result["sequence"].get("computed_at"):
            result["sequence"] = {**result["sequence"], "computed_at": result["sequence"]["computed_at"].isoformat()}
        return Response(clean(result))
