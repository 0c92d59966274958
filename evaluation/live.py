"""The live conclusions page (SPEC 10): per system the current human (prediction-powered when a judge
exists) estimate and interval, per pair whether the order is settled, and how many more human labels
the current gain suggests for a chosen interval width; and (SPEC 16) the confidence sequences that
hold however often the page is read, per system whether it is done (half-width within the target),
per pair whether it is settled, and "you may stop now" once what the researcher waits for is settled
(``evaluation.science.anytime.live_conclusions``); with an active design (SPEC 12) also its estimates
under the completion-rate rule ("k of B labelled") and, per pair, how many more labelled sample
triplets would settle it. The panel is polled with htmx and recomputed from the per-prediction
snapshot only (``evaluation.judge_inputs.snapshot``, ``evaluation.science.ppi.conclusions``), never
the whole report. Researchers and admins only."""

from django import forms
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Corpus
from core.number_field import NumberField
from core.permissions import IsResearcherRole, researcher_required
from evaluation import judge_inputs
from evaluation.report.steps import clean
from evaluation.science import active, anytime, metric_registry, ppi
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
        data = super().clean()
        width, metric = data.get("half_width"), data.get("metric") or "hscore"
        scale = metric_registry.get(metric).scale if metric in ppi.METRICS else 1
        if width is not None and width >= scale:
            field = self.fields["half_width"]
            field.max_value, field.meaning = scale, _("a half-width on the metric's scale: 0 to 1, Hcorrect 0 to 100")
            self.add_error("half_width", field.range_message(width))
        return data


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
        predictions, labels = judge_inputs.snapshot(d["corpus"])
        jl = judge_inputs.judge_labels(d["corpus"], judge)
        facts = judge_inputs.sample_facts(d["corpus"])
        scores = ppi.live_scores(predictions, labels, jl, facts=facts)  # once per request, shared by every part
        result = ppi.conclusions(predictions, labels, jl, metric=metric, half_width=width, facts=facts, scores=scores)
        for r in result["rows"]:
            r["bar"] = _bar(r, metric_registry.get(metric).scale)
        context["sequence"] = _sequence(d, (scores, result["has_judge"]), metric=metric, width=width)
        inputs = (predictions, labels, scores if result["has_judge"] else None)  # gold left out: the active h
        context["active"] = _active(d["corpus"], inputs, metric=metric, loaded=(judge, jl), facts=facts)
        context.update(
            corpus=d["corpus"],
            judge=judge,
            judges=judges,
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


def _active(corpus, inputs, *, metric, loaded=(None, None), facts):
    """The active design's live figures (``active.active_conclusions``), None without a design.
    ``inputs``: predictions, labels and the page's scores when their gold labels are left out (else
    None: computed here); ``loaded``: (judge, its labels) the page has read already, reused when it is
    the design's judge; ``facts``: ``judge_inputs.sample_facts`` (``gold_keys``, ``design_meta``)."""
    from models_runner.models import Judge

    meta = facts["design_meta"]
    plan = judge_inputs.design_frame(corpus) if meta else None
    if not meta or plan is None:
        return None
    judge = Judge.objects.filter(name=meta.get("judge")).first()
    same = judge is not None and loaded[0] is not None and loaded[0].pk == judge.pk
    judge_labels = loaded[1] if same else judge_inputs.judge_labels(corpus, judge)
    if judge_labels is None:
        return None
    predictions, labels, scores = inputs
    result = active.active_conclusions(
        predictions,
        labels,
        judge_labels,
        design_frame=plan,
        metric=metric,
        facts={"gold_keys": facts["gold_keys"], "design_meta": meta},
        human_scores=scores,
    )
    result["judge"] = judge.name
    return result


def _sequence(d, inputs, *, metric, width):
    """The confidence sequences of SPEC 16 (``anytime.live_conclusions``), each row with its bar."""
    scores, has_judge = inputs
    result = anytime.live_from_scores(
        scores,
        has_judge=has_judge,
        metric=metric,
        half_width=width,
        n_plan=judge_inputs.planned_labels(d["corpus"]),
        stop_when=d.get("stop_when") or "ranking",
    )
    scale = metric_registry.get(metric).scale
    for r in result["rows"]:
        r["bar"] = _bar({"ci_low": r["cs_low"], "ci_high": r["cs_high"], "estimate": r["cs_estimate"]}, scale)
    return result


def _bar(row, scale):
    """(low, high, estimate) as positions in [0, 100] of the metric's range, for the interval bar."""
    if row["ci_low"] is None:
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
        return Response(clean(result))


def study_close_reason(study):
    """Why ``study`` should close by itself now (SPEC 16), or None: its rule ``close_when`` (the ranking
    settled, or every system done within ``close_width``) met by the live page's confidence sequences of
    Hscore on its corpus (the judge with the most labels, when there is one). Registered with
    ``annotation.studies.register_close_check`` at start-up (``evaluation.apps``).

    Parameters
    ----------
    study : annotation.models.Study
        A study with a close rule.

    Returns
    -------
    str or None
        The reason, in English, as the study page records it.
    """
    corpus = study.corpus
    predictions, labels = judge_inputs.snapshot(corpus)
    judge = judge_inputs.pick_judge(corpus)
    result = anytime.live_conclusions(
        predictions,
        labels,
        judge_inputs.judge_labels(corpus, judge),
        metric="hscore",
        half_width=study.close_width,
        n_plan=judge_inputs.planned_labels(corpus),
        stop_when=study.close_when,
        facts={"gold_keys": judge_inputs.gold_keys(corpus)},
    )
    if not result["stop"]:
        return None
    how = f"Hscore confidence sequences{f' with judge {judge.name}' if judge else ''}, alpha 0.05 split over "
    how += f"{len(result['rows'])} systems"
    if study.close_when == "ranking":
        order = " > ".join(r["system"] for r in result["rows"])
        return f"ranking settled: {order} ({how})"
    return f"every system done: half-width at most {result['half_width']:g} ({how})"
