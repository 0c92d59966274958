"""Per-participant figures of a crowd study (SPEC 17), pure pandas / numpy.

For each annotator: gold accuracy with its Wilson interval, items done, median seconds per item, the
share of each label against the crowd's on the same triplets, agreement with the others on shared
triplets, and from one Dawid-Skene fit over every label of the corpus (gold fixed) the estimated
accuracy and the spammer score, with a flag when the score says the labels carry (almost) no
information.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluation.science import crowd, human
from stats.intervals import wilson

LABELS = tuple(human.LABEL_CODES)  # correct, partial, incorrect
MIN_FLAG_ITEMS = 10  # fewer labels than this: no flag (the score is too noisy)


def _ds(labels):
    """(annotator -> (accuracy, spammer score)) from one fit, or {} when ``ds`` is refused."""
    tkeys, task, worker, label, gold = human.label_codes(labels)
    counts = np.bincount(task, minlength=len(tkeys))
    if crowd.ds_refusal(counts):
        return {}
    fit = crowd.dawid_skene(task, worker, label, n_tasks=len(tkeys), gold=gold)
    present = np.flatnonzero(fit.priors > 0)
    scores = crowd.spammer_score(fit.confusion[:, present][:, :, present])
    accuracy = crowd.ds_accuracy(fit)
    names = pd.factorize(human.latest_labels(labels)["annotator"].astype(str))[1]
    return {name: (float(accuracy[i]), float(scores[i])) for i, name in enumerate(names)}


def _one(mine, others):
    """The figures of one annotator from its labels and the others' labels on its triplets."""
    out = {"items": len(mine)}
    g = mine[mine["gold"].notna()] if "gold" in mine.columns else mine.iloc[:0]
    right = int((g["label"] == g["gold"]).sum())
    low, high = wilson(right, len(g))
    out.update(gold_items=len(g), gold_accuracy=right / len(g) if len(g) else None)
    out.update(gold_accuracy_low=low, gold_accuracy_high=high)
    seconds = mine["seconds"].dropna() if "seconds" in mine.columns else pd.Series(dtype=float)
    out["median_seconds"] = float(seconds.median()) if len(seconds) else None
    for name in LABELS:
        out[f"share_{name}"] = float((mine["label"] == name).mean()) if len(mine) else None
        out[f"crowd_share_{name}"] = float((others["label"] == name).mean()) if len(others) else None
    pairs = others.merge(mine[["tkey", "label"]], on="tkey", suffixes=("", "_mine"))
    out["agreement"] = float((pairs["label"] == pairs["label_mine"]).mean()) if len(pairs) else None
    out["agreement_items"] = int(pairs["tkey"].nunique())
    return out


def participant_figures(labels: pd.DataFrame, annotators) -> dict:
    """``{annotator: figures}`` for each of ``annotators`` (those without a label get ``items`` 0).

    Parameters
    ----------
    labels : pandas.DataFrame
        Every label of the corpus: ``tkey``, ``annotator``, ``label``, optional ``seconds`` and
        ``gold`` (the expected label of a gold triplet, else None), in submission order.
    annotators : iterable
        The annotators to describe.

    Returns
    -------
    dict
        Per annotator: ``items``, ``gold_items``, ``gold_accuracy`` with ``gold_accuracy_low`` /
        ``_high`` (Wilson 95%), ``median_seconds``, ``share_<label>`` and ``crowd_share_<label>``,
        ``agreement`` and ``agreement_items``, ``ds_accuracy``, ``spammer_score`` (None when ``ds``
        is refused) and ``flag``.

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2", "t2"], "annotator": ["a", "b", "a", "b"],
    ...                        "label": ["correct", "correct", "incorrect", "correct"],
    ...                        "gold": [None, None, "incorrect", "incorrect"], "seconds": [3.0, 5.0, 4.0, 1.0]})
    >>> f = participant_figures(labels, ["a", "b", "c"])
    >>> f["a"]["gold_accuracy"], f["b"]["gold_accuracy"], f["a"]["agreement"], f["a"]["median_seconds"]
    (1.0, 0.0, 0.5, 3.5)
    >>> f["c"]["items"], f["a"]["ds_accuracy"] > f["b"]["ds_accuracy"]
    (0, True)
    """
    labels = labels.assign(annotator=labels["annotator"].astype(str))
    if len(labels):
        labels = human.latest_labels(labels)
    ds = _ds(labels) if len(labels) else {}
    out = {}
    for name in annotators:
        key = str(name)
        mine = labels[labels["annotator"] == key]
        others = labels[(labels["annotator"] != key) & labels["tkey"].isin(set(mine["tkey"]))]
        figures = _one(mine, others)
        accuracy, score = ds.get(key, (None, None))
        figures.update(ds_accuracy=accuracy, spammer_score=score)
        figures["flag"] = bool(score is not None and score < crowd.SPAMMER_FLAG and len(mine) >= MIN_FLAG_ITEMS)
        out[name] = figures
    return out
