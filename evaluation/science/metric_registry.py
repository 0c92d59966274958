"""The report's metrics, each one ``Metric`` record: the one place that names, scales and formats them.

Everything downstream reads this registry, never a list of its own: the report (which score
matrices, which scale, which metric needs labels: ``evaluation.report``), the data and paper tables
(titles, LaTeX titles, decimals), the figures (axis titles), the report page, the report form and
API (the metric choices) and the prediction-powered estimates (``evaluation.science.ppi``: the
human metrics and their scale). An automatic metric brings its bulk scorer; metrics sharing one
scorer (EM, F1 and ROUGE-L share one tokenization) are computed in one call; a human metric brings
its per-triplet scorer, which turns each triplet's label counts into the triplet's value (the report
gives every prediction its triplet's value). Adding a metric, human or automatic, is
``register(Metric(...))`` (docs/architecture.md, "Where new things go").

Pure, no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from annotation import human_metrics
from core.registry import Registry
from evaluation.science import human, metrics


@dataclass(frozen=True)
class Metric:
    """One metric of the report.

    ``key`` is its report.json name; ``title`` what the page and the paper tables print, ``latex``
    the same in LaTeX, ``axis`` a figure's axis title; ``scale`` multiplies its means (100: reported
    in %, SPEC 3's Hcorrect); ``decimals`` on the page, ``paper_decimals`` in the paper tables;
    ``human`` whether it comes from labels (SPEC 3) or is automatic (SPEC 4). ``bulk`` (automatic
    metrics): ``bulk(answers, references, languages) -> {key: array}``, one score per aligned
    (answer, reference list, language); a missing prediction scores 0. ``per_triplet`` (human
    metrics): ``per_triplet(counts, aggregate) -> array``, the value of each triplet from its
    (triplets, 3) counts of correct, partial and incorrect labels (``human.label_counts``) under the
    report's human aggregate (``"mean"`` or ``"majority"``), NaN for a triplet without labels; an
    empty answer, never labelled, gets by rule the value of an all-correct triplet when its question
    has no reference answer and of an all-incorrect one otherwise. ``aliases``: other spellings a
    user may type (lowercase, ``-`` as ``_``).
    """

    key: str
    title: str
    latex: str
    axis: str
    scale: float = 1.0
    decimals: int = 3
    paper_decimals: int = 2
    human: bool = False
    bulk: Callable | None = None
    per_triplet: Callable | None = None
    aliases: tuple = ()


def squad_scores(answers, references, languages) -> dict:
    """EM, F1 and ROUGE-L of aligned answers in one pass (``evaluation.science.metrics.score_pairs``).

    Parameters
    ----------
    answers : sequence of str or None
        The answers.
    references : sequence of list of str
        The reference answers of each.
    languages : sequence of str
        The language of each question.

    Returns
    -------
    dict
        ``{"em": array, "f1": array, "rouge_l": array}``.

    Examples
    --------
    >>> scores = squad_scores(["Denver Broncos"], [["Denver Broncos", "Broncos"]], ["en"])
    >>> {k: float(v[0]) for k, v in scores.items()}
    {'em': 1.0, 'f1': 1.0, 'rouge_l': 1.0}
    """
    em, f1, rouge_l = metrics.score_pairs(answers, references, languages)
    return {"em": em, "f1": f1, "rouge_l": rouge_l}


def hscore(counts, aggregate: str = human.DEFAULT_AGGREGATE):
    """Hscore of each triplet (SPEC 3): its labels' mean value (correct 1, partial 1/2, incorrect 0),
    or under ``majority`` the value of the most frequent label (the tied labels' mean on a tie).

    Parameters
    ----------
    counts : numpy.ndarray
        (triplets, 3) counts of correct, partial and incorrect labels.
    aggregate : str
        ``"mean"`` or ``"majority"``.

    Returns
    -------
    numpy.ndarray
        One value per triplet, NaN where it has no label (``human.scores_from_counts``).

    Examples
    --------
    >>> import numpy as np
    >>> hscore(np.array([[1, 1, 0], [2, 0, 1], [0, 0, 0]])).tolist()
    [0.75, 0.6666666666666666, nan]
    >>> hscore(np.array([[1, 1, 0], [2, 0, 1]]), "majority").tolist()
    [0.75, 1.0]
    """
    return human.scores_from_counts(counts, aggregate)[0]


def hcorrect(counts, aggregate: str = human.DEFAULT_AGGREGATE):
    """Hcorrect of each triplet (SPEC 3): the share of its labels that say correct, or under
    ``majority`` whether correct is the most frequent label (its share among the tied ones on a tie).

    Parameters
    ----------
    counts : numpy.ndarray
        (triplets, 3) counts of correct, partial and incorrect labels.
    aggregate : str
        ``"mean"`` or ``"majority"``.

    Returns
    -------
    numpy.ndarray
        One value per triplet (a share, before the metric's scale), NaN where it has no label.

    Examples
    --------
    >>> import numpy as np
    >>> hcorrect(np.array([[1, 1, 0], [2, 0, 1], [0, 0, 0]])).tolist()
    [0.5, 0.6666666666666666, nan]
    >>> hcorrect(np.array([[1, 1, 0], [2, 0, 1]]), "majority").tolist()
    [0.5, 1.0]
    """
    return human.scores_from_counts(counts, aggregate)[1]


#: Every metric, by its key, in the tables' order (core.registry's shape).
METRICS = Registry("metrics")


def register(metric: Metric) -> Metric:
    """Add ``metric`` after the registered ones (its place in every table); ``ValueError`` if its key is taken.

    Parameters
    ----------
    metric : Metric
        The new metric; an automatic one needs ``bulk``, a human one ``per_triplet``.

    Returns
    -------
    Metric
        ``metric``.

    Examples
    --------
    >>> toy = register(Metric(key="length", title="Length", latex="Length", axis="Length",
    ...                       bulk=lambda answers, refs, langs: {"length": [len(a or "") for a in answers]}))
    >>> all_keys()[-1], get("length").title
    ('length', 'Length')
    >>> unregister("length")
    """
    if metric.key in METRICS:
        raise ValueError(f"metric {metric.key!r} is already registered")
    if not metric.human and metric.bulk is None:
        raise ValueError(f"automatic metric {metric.key!r} needs a bulk scorer")
    if metric.human and metric.per_triplet is None:
        raise ValueError(f"human metric {metric.key!r} needs a per-triplet scorer (per_triplet)")
    METRICS.register(metric.key, metric)
    if metric.human:
        human_metrics.register(metric.key, label_values(metric.key))
    return metric


def unregister(key: str) -> None:
    """Remove a metric (for tests that add a toy one).

    Parameters
    ----------
    key : str
        Its key.

    Returns
    -------
    None

    Examples
    --------
    >>> _ = register(Metric(key="toy", title="Toy", latex="Toy", axis="Toy", human=True, per_triplet=hscore))
    >>> unregister("toy"); "toy" in all_keys()
    False
    """
    METRICS.unregister(key)
    human_metrics.unregister(key)


def get(key: str) -> Metric:
    """The metric of ``key``; ``KeyError`` for an unknown one.

    Parameters
    ----------
    key : str
        A metric key.

    Returns
    -------
    Metric

    Examples
    --------
    >>> get("hcorrect").scale, get("rouge_l").title
    (100.0, 'ROUGE-L')
    """
    return METRICS[key]


def label_values(key: str) -> np.ndarray:
    """The value of each label (correct, partial, incorrect) under the human metric ``key``: its
    per-triplet scorer applied to a triplet with that one label (the active design's f and u, SPEC 12).

    Parameters
    ----------
    key : str
        A human metric's key.

    Returns
    -------
    numpy.ndarray
        Three values on the 0-1 scale (before the metric's scale).

    Examples
    --------
    >>> label_values("hscore").tolist(), label_values("hcorrect").tolist()
    ([1.0, 0.5, 0.0], [1.0, 0.0, 0.0])
    """
    return np.asarray(get(key).per_triplet(np.eye(3, dtype=int), "mean"), dtype=float)


def title(key: str) -> str:
    """The title of metric ``key``, or ``key`` itself for a metric not registered (a report written
    by a version that had it).

    Parameters
    ----------
    key : str
        A metric key.

    Returns
    -------
    str

    Examples
    --------
    >>> title("hcorrect"), title("bleu")
    ('% Hcorrect', 'bleu')
    """
    metric = METRICS.get(key)
    return metric.title if metric else key


def all_keys() -> tuple:
    """Every metric's key, in table order (human metrics first, as the paper).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> all_keys()
    ('hscore', 'hcorrect', 'rouge_l', 'f1', 'em')
    """
    return tuple(METRICS)


def human_keys() -> tuple:
    """The keys of the metrics computed from human labels (SPEC 3).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> human_keys()
    ('hscore', 'hcorrect')
    """
    return tuple(k for k, m in METRICS.all().items() if m.human)


def automatic_keys() -> tuple:
    """The keys of the automatic metrics (SPEC 4).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> automatic_keys()
    ('rouge_l', 'f1', 'em')
    """
    return tuple(k for k, m in METRICS.all().items() if not m.human)


def lookup(name: str) -> str | None:
    """The key that a user's spelling of a metric means (case, ``-`` and aliases forgiven), or None.

    Parameters
    ----------
    name : str
        A metric name as typed.

    Returns
    -------
    str or None

    Examples
    --------
    >>> lookup("ROUGE-L"), lookup("rouge"), lookup("BLEU")
    ('rouge_l', 'rouge_l', None)
    """
    typed = str(name).strip().lower().replace("-", "_")
    for key, metric in METRICS.all().items():
        if typed == key or typed in metric.aliases:
            return key
    return None


for _metric in (
    Metric(key="hscore", title="Hscore", latex="Hscore", axis="Hscore", human=True, per_triplet=hscore),
    Metric(
        key="hcorrect",
        title="% Hcorrect",
        latex=r"\% Hcorrect",
        axis="Hcorrect (%)",
        scale=100.0,
        decimals=1,
        paper_decimals=1,
        human=True,
        per_triplet=hcorrect,
    ),
    Metric(
        key="rouge_l", title="ROUGE-L", latex="ROUGE-L", axis="ROUGE-L", bulk=squad_scores, aliases=("rougel", "rouge")
    ),
    Metric(key="f1", title="F1", latex="F1", axis="F1", bulk=squad_scores),
    Metric(key="em", title="EM", latex="EM", axis="EM", bulk=squad_scores),
):
    register(_metric)
