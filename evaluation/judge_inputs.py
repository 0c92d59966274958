"""The inputs of the prediction-powered estimates (SPEC 10) from the database of one corpus (thin shell
over ``evaluation.science.ppi``): the judge's labels, the platform facts of the validity guard, and the
small per-prediction snapshot the live conclusions page recomputes from (no questions, no texts).

Triplet keys are ``t<id>`` as in ``evaluation.database``. Judge labels are ``JudgeLabel`` rows, read
apart from the human ``Label`` rows.
"""

from __future__ import annotations

import json

import pandas as pd
from django.db.models import Count, TextField
from django.db.models.functions import Cast

from annotation.counted import counted_labels
from annotation.fold_store import fold_design
from annotation.models import Fold, Label, Prediction, Triplet
from evaluation.database import gold_labels
from models_runner.models import Judge, JudgeLabel


def _tkey(tid):
    return None if tid is None else f"t{tid}"


def _tkeys(ids) -> pd.Series:
    """``_tkey`` of many triplet ids (none missing) at once: one list, one string column."""
    ids = list(ids)
    if not ids:  # the empty column keeps the dtype the per-row map gave it
        return pd.Series(ids, dtype=object).map(_tkey)
    return pd.Series([f"t{t}" for t in ids], dtype="str")


def _json_values(texts) -> list:
    """JSON texts from the database (None for SQL NULL) decoded in one pass: a judge's 35,000
    ``probs`` in one ``json.loads`` rather than one per row through the field's converter."""
    return json.loads("[" + ",".join("null" if t is None else t for t in texts) + "]")


def corpus_judges(corpus):
    """Judges with labels in ``corpus``, the most labels first.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.

    Returns
    -------
    list of models_runner.models.Judge
        Each annotated with ``n``, its number of labels.
    """
    if not JudgeLabel.objects.exists():  # no judge anywhere: no walk over the corpus's triplets (issue 46)
        return []
    return list(
        Judge.objects.filter(labels__triplet__question__corpus=corpus, labels__value__isnull=False)
        .annotate(n=Count("labels"))
        .order_by("-n", "name")
    )


def judge_names():
    """Names of every judge with labels, the most labels (over all corpora) first.

    The report form's choices, its default the first.

    Returns
    -------
    list of str
    """
    return list(
        Judge.objects.filter(labels__value__isnull=False)
        .annotate(n=Count("labels"))
        .order_by("-n", "name")
        .values_list("name", flat=True)
    )


def pick_judge(corpus, name=None, *, judges=None):
    """The judge of a report of ``corpus``.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    name : str, optional
        The judge's name; default the judge with the most labels in the corpus.
    judges : list of models_runner.models.Judge, optional
        ``corpus_judges(corpus)`` when the caller read them already.

    Returns
    -------
    models_runner.models.Judge or None
        None when no judge (of that name) has labels in the corpus.
    """
    judges = corpus_judges(corpus) if judges is None else judges
    if name:
        return next((j for j in judges if j.name == name), None)
    return judges[0] if judges else None


def judge_labels(corpus, judge) -> pd.DataFrame | None:
    """``tkey``, ``annotator`` (the judge's name), ``label`` of the judge's labels in ``corpus``.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    judge : models_runner.models.Judge or None
        The judge.

    Returns
    -------
    DataFrame or None
        None without a judge or without labels.
    """
    if judge is None:
        return None
    rows = list(
        JudgeLabel.objects.filter(judge=judge, triplet__question__corpus=corpus, value__isnull=False)
        .annotate(probs_text=Cast("probs", TextField()))  # the JSON text, decoded below in one pass
        .values_list("triplet_id", "value", "probs_text")
    )
    if not rows:
        return None
    ids, values, texts = zip(*rows)
    return pd.DataFrame(
        {
            "tkey": _tkeys(ids),
            "annotator": judge.name,
            "label": pd.Series(values, dtype="str"),
            "probs": pd.Series(_json_values(texts), dtype=object),
        }
    )


def design_frame(corpus) -> pd.DataFrame | None:
    """``tkey``, ``pi``, ``sampled``, ``phase`` and ``p1`` of the corpus's active design (SPEC 12), None without one.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.

    Returns
    -------
    DataFrame or None
        One row per triplet with a stored chance (``Triplet.design_pi``).
    """
    rows = list(
        Triplet.objects.filter(question__corpus=corpus, design_pi__isnull=False).values_list(
            "id", "design_pi", "design_sampled", "design_phase", "design_p1"
        )
    )
    if not rows:
        return None
    frame = pd.DataFrame.from_records(rows, columns=["triplet", "pi", "sampled", "phase", "p1"])
    return pd.DataFrame(
        {
            "tkey": _tkeys(frame["triplet"]),
            "pi": frame["pi"],
            "sampled": frame["sampled"].astype(bool),
            "phase": frame["phase"].where(frame["phase"].notna(), None),
            "p1": frame["p1"],
        }
    )


def gold_keys(corpus) -> list[str]:
    """Triplet keys of the corpus's gold items (annotation/gold.py).

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.

    Returns
    -------
    list of str
        ``t<triplet id>``, in triplet order (the keys of ``evaluation.database.gold_labels``).
    """
    return list(gold_labels(corpus))


def sample_facts(corpus, gold=None) -> dict:
    """Counts behind the validity guard of the prediction-powered estimates.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    gold : list of str, optional
        ``gold_keys(corpus)`` when the caller read them already.

    Returns
    -------
    dict
        ``folds_not_started`` (triplet folds no annotator started), ``skipped`` (triplets skipped
        and never labeled), ``imported`` (labels imported from files), ``gold`` (gold triplets with
        a human label); and ``gold_keys``, the gold triplets' keys, whose human labels the
        prediction-powered rows leave out (docs/report.md); ``design_meta``, the record of the
        corpus's fold design (``annotation.fold_store.fold_design``: the active design's pilot and
        residual model), None without one.
    """
    labels = Label.objects.filter(triplet__question__corpus=corpus)
    started = set(labels.filter(fold__isnull=False).values_list("fold_id", flat=True).distinct())
    folds = set(Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).values_list("id", flat=True))
    labeled = labels.filter(value__isnull=False).values("triplet_id")
    skipped = labels.filter(skipped=True, value__isnull=True).exclude(triplet_id__in=labeled)
    return {
        "folds_not_started": len(folds - started) if started else 0,
        "skipped": skipped.values("triplet_id").distinct().count(),
        "imported": labels.filter(source="import", value__isnull=False).count(),
        "gold": labels.filter(triplet__gold__isnull=False, value__isnull=False).values("triplet_id").distinct().count(),
        "gold_keys": gold_keys(corpus) if gold is None else list(gold),
        "design_meta": fold_design(corpus),
    }


def judge_inputs(corpus, name=None, *, gold=None):
    """The judge's side of the report of ``corpus``: its judge's labels, the active design and the
    platform facts, each read once.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    name : str, optional
        Which judge: None, the one with the most labels in the corpus; ``""``, no judge.
    gold : list of str, optional
        ``gold_keys(corpus)`` when the caller read them already.

    Returns
    -------
    judge_labels : DataFrame or None
        As ``judge_labels``.
    design : DataFrame or None
        As ``design_frame``.
    facts : dict
        As ``sample_facts``.

    Raises
    ------
    ValueError
        When a judge named ``name`` has no labels in the corpus.
    """
    labels = None
    if name != "":
        judge = pick_judge(corpus, name)
        if name and judge is None:
            raise ValueError(f"no judge named {name!r} has labels in corpus {corpus.name}")
        labels = judge_labels(corpus, judge)
    return labels, design_frame(corpus), sample_facts(corpus, gold)


def snapshot(corpus):
    """The cheap inputs of the live page of ``corpus`` (no questions, no texts).

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.

    Returns
    -------
    predictions : DataFrame
        ``system``, ``tkey`` of each prediction with a triplet.
    labels : DataFrame
        ``tkey``, ``annotator``, ``label`` of the human labels, oldest first.
    """
    preds = pd.DataFrame.from_records(
        list(
            Prediction.objects.filter(question__corpus=corpus, triplet__isnull=False).values_list(
                "system__name", "triplet_id"
            )
        ),
        columns=["system", "triplet"],
    )
    preds = pd.DataFrame({"system": preds["system"], "tkey": _tkeys(preds["triplet"])})
    rows = list(
        counted_labels(corpus)  # issue 44: excluded participants out, as in the report
        .order_by("created_at", "id")  # SPEC 16: the order the labels arrived
        .values_list("triplet_id", "annotator_id", "value")
    )
    labels = pd.DataFrame.from_records(rows, columns=["triplet", "annotator", "label"])
    labels = pd.DataFrame(
        {"tkey": _tkeys(labels["triplet"]), "annotator": labels["annotator"], "label": labels["label"]}
    )
    return preds, labels
