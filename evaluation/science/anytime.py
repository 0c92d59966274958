"""Conclusions that stay true however often they are watched (SPEC 16, amended): betting confidence sequences.

A fixed-n 95% interval looked at again and again while labels arrive covers far less than 95%
(optional stopping). A **confidence sequence** holds at every number of labels at once, so a study
may stop whenever it likes and its conclusions keep their level. This module gives, per system, the
classical and the prediction-powered betting sequences of SPEC 16 for a finite population (exact
for scores in [0, 1] at every n, no planned size; the capital itself is ``stats.betting``),
split between the systems (alpha / K) so that every statement on the live page holds at once.

- ``sequence``: one system's classical and prediction-powered sequences from its labels in arrival order;
- ``advance``: every system's sequences carried forward from a stored state (the background job's
  incremental step; from no state it is the full recomputation, ``sequence_rows``);
- ``sequence_rows``: per system and metric, from ``ppi.prediction_scores`` (the report's fields);
- ``settled``, ``tied_pairs``: per pair of systems, whether their sequences are apart, or bound the
  difference of their targets within the tie margin; ``ranking_settled``;
- ``live_section``: ``report.json``'s ``live`` section;
- ``live_conclusions`` / ``live_from_rows``: what the live page shows (sequence, done, settled and
  tied pairs, ranking, stop).

The sequence is a running intersection: a value once excluded stays excluded, so a pair once
settled stays settled. Pure numpy / pandas.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pandas as pd

from evaluation.science import metric_registry, ppi
from evaluation.science.rows import SequenceRow, records
from stats.betting import Capital
from stats.intervals import interval_pairs

ALPHA = 0.05  # the level of every statement of the page, split between the systems
DEFAULT_WIDTH = 0.02  # the target half-width on the [0, 1] scale (x 100 for Hcorrect in %)
TIE_MARGIN = 0.02  # delta: two systems whose targets are bound within +-delta are tied (Hscore scale)


def sequence(h, f=None, f_all=None, *, alpha, population=None) -> dict:
    """One system's classical and prediction-powered confidence sequences after its labels (SPEC 16).

    Parameters
    ----------
    h : array_like of float
        Human scores (in [0, 1]) of the n labelled predictions, in the order the labels arrived.
    f : array_like of float, optional
        The judge's scores of the same n predictions, same order.
    f_all : array_like of float, optional
        The judge's scores of all N predictions of the system (N = len(f_all)).
    alpha : float
        The system's level (alpha / K).
    population : int, optional
        N without a judge (required then).

    Returns
    -------
    dict
        ``n``, ``classical``, ``classical_low``, ``classical_high``, ``lambda``, ``estimate``, ``low``,
        ``high``, ``ppi`` (bool). The bounds exist at every n (0 and 1 before any label). Without a
        judge ``estimate``, ``low`` and ``high`` repeat the classical ones and ``lambda`` is None.

    Raises
    ------
    ValueError
        Without N, with more labels than N, or scores outside [0, 1].

    Examples
    --------
    40 labels, a judge that agrees with them on all but 4, 100 judged predictions in all:

    >>> import numpy as np
    >>> from evaluation.science.anytime import sequence
    >>> h = np.array([1.0, 0.0, 0.5, 1.0] * 10)
    >>> f = h.copy(); f[:4] = [0.0, 1.0, 0.5, 0.5]
    >>> f_all = np.concatenate([f, np.tile([1.0, 0.0, 1.0], 20)])
    >>> s = sequence(h, f, f_all, alpha=0.025)
    >>> round(s["lambda"], 3), round(s["estimate"], 4), s["low"], s["high"]
    (0.43, 0.6483, 0.4935, 0.775)
    >>> s["classical"], s["classical_low"], s["classical_high"]
    (0.625, 0.4515, 0.7835)
    >>> sequence([], alpha=0.025, population=10)["classical_low"], sequence([], alpha=0.025, population=10)["high"]
    (0.0, 1.0)
    """
    h = np.asarray(h, dtype=float)
    judged = f is not None and f_all is not None
    N = len(f_all) if f_all is not None else population
    if N is None:
        raise ValueError("give the system's number of predictions (population=) or the judge's scores of all (f_all)")
    classical = Capital(alpha, N)
    classical.update(h)
    capital = None
    if judged:
        f, f_all = np.asarray(f, dtype=float), np.asarray(f_all, dtype=float)
        capital = Capital(alpha, N, f_all)
        capital.update(h, f)
    return _result((h, f if judged else None, f_all if judged else None), classical, capital)


def _result(labels, classical, capital):
    """``sequence``'s dict from the capitals and the labels (h, f, f_all: the point estimates of sections
    3 and 10)."""
    h, f, f_all = labels
    n = len(h)
    out = {"n": n, "ppi": capital is not None, "lambda": None}
    out["classical"] = out["estimate"] = float(h.mean()) if n else None
    out["classical_low"], out["classical_high"] = classical.bounds()
    out["low"], out["high"] = (capital or classical).bounds()
    if capital is not None:
        out["lambda"], out["estimate"] = _point(h, f, f_all)
    return out


def _point(h, f, f_all):
    """(lambda, estimate) of SPEC 10 over all n labels; the classical mean (lambda 0) when SPEC 10 gives none."""
    n, N = len(h), len(f_all)
    fu_mean = (float(f_all.sum()) - float(f.sum())) / (N - n) if n < N else 0.0
    if n < 2 or N - n < 2:
        return 0.0, (float(h.mean()) if n else None)
    var_all = f_all.var(ddof=1)
    lam = 0.0
    if var_all > 0:
        lam = float(np.clip(np.cov(h, f, ddof=1)[0, 1] / ((1 + n / (N - n)) * var_all), 0.0, 1.0))
    return lam, float((h - lam * f).mean() + lam * fu_mean)


def _ordered(part, metric, rank):
    """The system's labelled rows in arrival order: (h, f labelled, f of all, keys)."""
    h, f = part[f"h_{metric}"].to_numpy(dtype=float), part[f"f_{metric}"].to_numpy(dtype=float)
    labelled = np.flatnonzero(~np.isnan(h))
    if rank is not None:
        r = rank.get_indexer(part["tkey"].to_numpy()[labelled])
        labelled = labelled[np.lexsort((labelled, np.where(r < 0, np.iinfo(np.int64).max, r)))]
    all_judged = len(f) > 0 and not np.isnan(f).any()
    keys = part["tkey"].to_numpy()[labelled]
    return h[labelled], (f[labelled] if all_judged else None), (f if all_judged else None), keys


def _fingerprint(values) -> str:
    return "" if values is None else hashlib.sha1(np.ascontiguousarray(values, dtype=float).tobytes()).hexdigest()


def advance(state, scores: pd.DataFrame, systems=None, *, arrival=None, alpha: float = ALPHA):
    """Every system's sequences carried forward from ``state`` over the labels that arrived since.

    The background job's step (SPEC 16: each grid value's capital carried forward). A system whose
    labels so far are, in order and value, those the state entered takes only the new ones; one whose
    past changed (a triplet's score changed with a second label, the judge re-scored, systems
    added) is recomputed from its first label. From ``state`` None it is the full recomputation.

    Parameters
    ----------
    state : dict or None
        What the previous call returned as its second value.
    scores : DataFrame
        ``ppi.prediction_scores`` (``system``, ``tkey``, ``h_<metric>``, ``f_<metric>``).
    systems : iterable of str, optional
        The report's systems (default: those of ``scores``, in order of appearance).
    arrival : array_like of str, optional
        Triplet keys in the order their labels arrived (first label first; repeats ignored).
        None: the order of ``scores``.
    alpha : float, default 0.05
        The level of all statements at once (alpha / K per system).

    Returns
    -------
    rows : list of SequenceRow
        ``sequence_rows``.
    state : dict
        Plain data (numpy arrays, numbers, strings) to store and pass back next time.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> scores = ppi.prediction_scores(predictions, labels, judge)
    >>> rows, state = anytime.advance(None, scores.assign(h_hscore=float("nan"), h_hcorrect=float("nan")))
    >>> again, _ = anytime.advance(state, scores)
    >>> again == anytime.sequence_rows(scores)
    True
    """
    parts = ppi.system_parts(scores, systems)
    alpha_s = alpha / max(len(parts), 1)
    rank = pd.Index(pd.unique(np.asarray(arrival, dtype=object))) if arrival is not None else None
    old, new, rows = (state or {}), {}, []
    for system, part in parts:
        for metric in metric_registry.human_keys():
            h, f, f_all, keys = _ordered(part, metric, rank)
            key = f"{system}\x1f{metric}"
            entry = _carry(old.get(key), (h, f, f_all, keys), alpha=alpha_s, population=len(part))
            new[key] = entry
            s = _result((h, f, f_all), Capital.from_state(entry["classical"]), _ppi_capital(entry))
            rows.append(_row(system, metric, s, n_total=len(part), alpha_split=alpha_s))
    return rows, new


def _ppi_capital(entry):
    return Capital.from_state(entry["ppi"]) if entry["ppi"] is not None else None


def _carry(entry, labels, *, alpha, population):
    """One system and metric's stored entry carried over the labels it has not entered yet (``labels``:
    h, f, f_all and the triplet keys, in arrival order)."""
    h, f, f_all, keys = labels
    judge = _fingerprint(f_all)
    n0 = 0 if entry is None else len(entry["keys"])
    same = (
        entry is not None
        and entry["alpha"] == alpha
        and entry["N"] == population
        and entry["judge"] == judge
        and n0 <= len(h)
        and list(entry["keys"]) == [str(k) for k in keys[:n0]]
        and np.array_equal(entry["h"], h[:n0])
        and (f is None or np.array_equal(entry["f"], f[:n0]))
    )
    if same:
        classical, capital = Capital.from_state(entry["classical"]), _ppi_capital(entry)
    else:
        n0, classical = 0, Capital(alpha, population)
        capital = Capital(alpha, population, f_all) if f is not None else None
    classical.update(h[n0:])
    if capital is not None:
        capital.update(h[n0:], f[n0:])
    return {
        "alpha": alpha,
        "N": population,
        "judge": judge,
        "keys": [str(k) for k in keys],
        "h": h,
        "f": f,
        "classical": classical.to_state(),
        "ppi": None if capital is None else capital.to_state(),
    }


def pack(states: dict) -> bytes:
    """``advance`` states by name (a judge's, ``""`` for none) as one compressed numpy archive (no pickle).

    Parameters
    ----------
    states : dict
        Name -> the state ``advance`` returned.

    Returns
    -------
    bytes
        What ``unpack`` reads.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> rows, state = anytime.advance(None, ppi.prediction_scores(predictions, labels, judge))
    >>> again = anytime.unpack(anytime.pack({"judge-1": state}))["judge-1"]
    >>> anytime.advance(again, ppi.prediction_scores(predictions, labels, judge))[0] == rows
    True
    """
    import io

    arrays = {"names": np.array(list(states), dtype=str)}
    for j, state in enumerate(states.values()):
        arrays[f"{j}.entries"] = np.array(list(state), dtype=str)
        for e, entry in enumerate(state.values()):
            for field, value in entry.items():
                if isinstance(value, dict):
                    arrays.update({f"{j}.{e}.{field}.{k}": np.asarray(v) for k, v in value.items()})
                elif value is not None:
                    arrays[f"{j}.{e}.{field}"] = np.asarray(value, dtype=str if field == "keys" else None)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def unpack(data: bytes) -> dict:
    """``pack``'s states by name (empty without data).

    Parameters
    ----------
    data : bytes
        ``pack``'s output, or empty.

    Returns
    -------
    dict
        Name -> state, for ``advance``.

    Examples
    --------
    >>> from evaluation.science.anytime import unpack
    >>> unpack(b"")
    {}
    """
    import io

    if not data:
        return {}
    with np.load(io.BytesIO(bytes(data)), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    out = {}
    for j, name in enumerate(arrays["names"].tolist()):
        state = {}
        for e, key in enumerate(arrays[f"{j}.entries"].tolist()):
            prefix = f"{j}.{e}."
            entry = {"f": None, "ppi": None, "classical": {}}
            for full, value in arrays.items():
                if full.startswith(prefix):
                    field, _dot, sub = full[len(prefix) :].partition(".")
                    if sub:
                        entry[field] = entry.get(field) or {}
                        entry[field][sub] = value
                    else:
                        entry[field] = value
            entry["alpha"], entry["N"], entry["judge"] = float(entry["alpha"]), int(entry["N"]), str(entry["judge"])
            entry["keys"] = entry["keys"].tolist()
            state[key] = entry
        out[name] = state
    return out


def sequence_rows(scores: pd.DataFrame, systems=None, *, arrival=None, alpha: float = ALPHA) -> list[SequenceRow]:
    """Per system and metric, both confidence sequences of SPEC 16 on the report's scale.

    alpha is split between the K systems given (ROVER is never one: it has no predictions of its
    own). The prediction-powered sequence needs the judge's score of every prediction of the
    system; otherwise the classical one is repeated (``ppi`` False).

    Parameters
    ----------
    scores : DataFrame
        ``ppi.prediction_scores`` (``system``, ``tkey``, ``h_<metric>``, ``f_<metric>``).
    systems : iterable of str, optional
        The report's systems (default: those of ``scores``, in order of appearance).
    arrival : array_like of str, optional
        Triplet keys in the order their labels arrived (``advance``); None: the order of ``scores``.
    alpha : float, default 0.05
        The level of all statements at once.

    Returns
    -------
    list of SequenceRow
        ``system``, ``metric``, ``n``, ``n_total``, ``alpha_split``, ``lambda_``, ``ppi``,
        ``cs_estimate``, ``cs_low``, ``cs_high``, ``classical_cs_estimate``, ``classical_cs_low``,
        ``classical_cs_high`` (Hcorrect in %); ``evaluation.science.rows.as_json`` gives the dicts
        that ``live_section``, ``live_from_rows`` and the live state read.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled: wide
    >>> rows = anytime.sequence_rows(ppi.prediction_scores(predictions, labels, judge))
    >>> [(r.system, r.metric, r.n, r.alpha_split, r.cs_low, r.cs_high) for r in rows][:2]
    [('a', 'hscore', 2, 0.025, 0.0, 1.0), ('a', 'hcorrect', 2, 0.025, 0.0, 100.0)]
    """
    return advance(None, scores, systems, arrival=arrival, alpha=alpha)[0]


def _row(system, metric, s, *, n_total, alpha_split):
    scale = metric_registry.get(metric).scale

    def scaled(v):
        return None if v is None else v * scale

    return SequenceRow(
        system=system,
        metric=metric,
        n=s["n"],
        n_total=n_total,
        alpha_split=alpha_split,
        lambda_=s["lambda"],
        ppi=s["ppi"],
        cs_estimate=scaled(s["estimate"]),
        cs_low=scaled(s["low"]),
        cs_high=scaled(s["high"]),
        classical_cs_estimate=scaled(s["classical"]),
        classical_cs_low=scaled(s["classical_low"]),
        classical_cs_high=scaled(s["classical_high"]),
    )


def target_width(metric: str, width: float | None = None) -> float:
    """The target half-width on the metric's report scale (default 0.02 of its range).

    Parameters
    ----------
    metric : str
        A human metric.
    width : float, optional
        The researcher's choice, on the report scale.

    Returns
    -------
    float

    Examples
    --------
    >>> from evaluation.science.anytime import target_width
    >>> target_width("hscore"), target_width("hcorrect"), target_width("hscore", 0.05)
    (0.02, 2.0, 0.05)
    """
    return float(width) if width else DEFAULT_WIDTH * metric_registry.get(metric).scale


def settled(rows: list[dict], metric: str) -> list[dict]:
    """Per pair of systems of ``metric``: ``settled`` when their sequences are disjoint, and which is ahead.

    Parameters
    ----------
    rows : list of dict
        Rows with ``system``, ``metric``, ``cs_estimate``, ``cs_low``, ``cs_high`` (null bounds: never settled).
    metric : str
        The metric compared.

    Returns
    -------
    list of dict
        ``systems``, ``metric``, ``settled``, ``ahead`` (None unless settled).

    Examples
    --------
    >>> from evaluation.science.anytime import settled
    >>> rows = [{"system": "a", "metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.75, "cs_high": 0.85},
    ...         {"system": "b", "metric": "hscore", "cs_estimate": 0.6, "cs_low": 0.5, "cs_high": 0.7},
    ...         {"system": "c", "metric": "hscore", "cs_estimate": 0.6, "cs_low": None, "cs_high": None}]
    >>> [(p["systems"], p["settled"], p["ahead"]) for p in settled(rows, "hscore")]
    [(['a', 'b'], True, 'a'), (['a', 'c'], False, None), (['b', 'c'], False, None)]
    """
    return interval_pairs([r for r in rows if r["metric"] == metric], metric, low="cs_low", high="cs_high")


def tied_pairs(rows: list[dict], metric: str, margin: float | None = None) -> list[dict]:
    """The pairs of systems **tied within delta**: their sequences bound the difference of their targets
    to [-delta, delta] (high_a - low_b <= delta and high_b - low_a <= delta; SPEC 16).

    Parameters
    ----------
    rows : list of dict
        Rows with ``system``, ``metric``, ``cs_low``, ``cs_high`` (null bounds: never tied).
    metric : str
        The metric compared.
    margin : float, optional
        delta as a share of the metric's range (default ``TIE_MARGIN``; ``tie_margin``).

    Returns
    -------
    list of dict
        ``systems``, ``metric``, ``margin``: one per tied pair, in the order of ``itertools.combinations``.

    Examples
    --------
    >>> from evaluation.science.anytime import tied_pairs
    >>> rows = [{"system": "a", "metric": "hscore", "cs_low": 0.700, "cs_high": 0.712},
    ...         {"system": "b", "metric": "hscore", "cs_low": 0.701, "cs_high": 0.715},
    ...         {"system": "c", "metric": "hscore", "cs_low": 0.60, "cs_high": 0.75}]
    >>> tied_pairs(rows, "hscore")
    [{'systems': ['a', 'b'], 'metric': 'hscore', 'margin': 0.02}]
    """
    delta = tie_margin(metric, margin)
    rows = [r for r in rows if r["metric"] == metric and r["cs_low"] is not None]
    return [
        {"systems": [a["system"], b["system"]], "metric": metric, "margin": delta}
        for a, b in itertools.combinations(rows, 2)
        if _tied(a, b, delta)
    ]


def _tied(a, b, delta):
    return a["cs_high"] - b["cs_low"] <= delta + 1e-12 and b["cs_high"] - a["cs_low"] <= delta + 1e-12


def tie_margin(metric: str, margin: float | None = None) -> float:
    """delta on the metric's report scale from ``margin``, a share of the metric's range (default ``TIE_MARGIN``).

    Parameters
    ----------
    metric : str
        A human metric.
    margin : float, optional
        The share of the range.

    Returns
    -------
    float

    Examples
    --------
    >>> from evaluation.science.anytime import tie_margin
    >>> tie_margin("hscore"), tie_margin("hcorrect"), tie_margin("hscore", 0.05)
    (0.02, 2.0, 0.05)
    """
    return (TIE_MARGIN if margin is None else float(margin)) * metric_registry.get(metric).scale


def ranking_settled(rows: list[dict], margin: float | None = None) -> bool:
    """Whether every adjacent pair of ``rows`` ordered by estimate (best first) is settled (disjoint
    sequences) or tied within ``margin``.

    Parameters
    ----------
    rows : list of dict
        One metric's rows (``metric``, ``cs_estimate``, ``cs_low``, ``cs_high``).
    margin : float, optional
        delta as a share of the metric's range (``tie_margin``).

    Returns
    -------
    bool
        False when a sequence is not given yet; True for a single system with a sequence.

    Examples
    --------
    >>> from evaluation.science.anytime import ranking_settled
    >>> a = {"metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.75, "cs_high": 0.85}
    >>> b = {"metric": "hscore", "cs_estimate": 0.6, "cs_low": 0.5, "cs_high": 0.7}
    >>> near = {"metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.79, "cs_high": 0.805}
    >>> ranking_settled([b, a]), ranking_settled([a, {**b, "cs_high": 0.78}])
    (True, False)
    >>> ranking_settled([{**a, "cs_low": 0.795, "cs_high": 0.807}, near]), ranking_settled([a, near])
    (True, False)
    """
    if not rows or any(r["cs_low"] is None or r["cs_estimate"] is None for r in rows):
        return False
    delta = tie_margin(rows[0]["metric"], margin)
    ordered = sorted(rows, key=lambda r: -r["cs_estimate"])
    return all(hi["cs_low"] > lo["cs_high"] or _tied(hi, lo, delta) for hi, lo in itertools.pairwise(ordered))


def is_done(row: dict, width: float) -> bool:
    """Whether the row's sequence has a half-width of at most ``width``.

    Parameters
    ----------
    row : dict
        ``cs_low``, ``cs_high``.
    width : float
        The target half-width on the row's scale.

    Returns
    -------
    bool

    Examples
    --------
    >>> from evaluation.science.anytime import is_done
    >>> is_done({"cs_low": 0.60, "cs_high": 0.63}, 0.02), is_done({"cs_low": None, "cs_high": None}, 0.02)
    (True, False)
    """
    return row["cs_low"] is not None and (row["cs_high"] - row["cs_low"]) / 2 <= width


def live_section(rows: list[dict], widths: dict | None = None, *, margin: float | None = None) -> dict:
    """``report.json``'s ``live`` section: per system and metric the sequence a reader should quote.

    Parameters
    ----------
    rows : list of dict
        ``sequence_rows`` as ``evaluation.science.rows.records`` gives them.
    widths : dict, optional
        Target half-width by metric (default ``target_width``).
    margin : float, optional
        The tie margin delta as a share of the range (default ``TIE_MARGIN``).

    Returns
    -------
    dict
        ``rows`` (``system``, ``metric``, ``n``, ``estimate``, ``cs_low``, ``cs_high``, ``done``),
        ``settled_pairs`` (``settled`` of each metric), ``tied_pairs``, ``tie_margin``,
        ``ranking_settled`` by metric, ``widths``, ``alpha``.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> from evaluation.science.rows import records
    >>> labels, judge, predictions = ppi._example_frames()
    >>> rows = records(anytime.sequence_rows(ppi.prediction_scores(predictions, labels, judge)))
    >>> live = anytime.live_section(rows)
    >>> live["rows"][0]
    {'system': 'a', 'metric': 'hscore', 'n': 2, 'estimate': 0.5, 'cs_low': 0.0, 'cs_high': 1.0, 'done': False}
    >>> live["ranking_settled"], live["tied_pairs"], live["tie_margin"]
    ({'hscore': False, 'hcorrect': False}, [], 0.02)
    """
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    widths = {m: target_width(m, (widths or {}).get(m)) for m in metrics}
    keys = ("system", "metric", "n")
    out_rows = [
        {
            **{k: r[k] for k in keys},
            "estimate": r["cs_estimate"],
            "cs_low": r["cs_low"],
            "cs_high": r["cs_high"],
            "done": is_done(r, widths[r["metric"]]),
        }
        for r in rows
    ]
    by_metric = {m: [r for r in rows if r["metric"] == m] for m in metrics}
    return {
        "rows": out_rows,
        "settled_pairs": [p for m in metrics for p in settled(rows, m)],
        "tied_pairs": [p for m in metrics for p in tied_pairs(rows, m, margin)],
        "tie_margin": TIE_MARGIN if margin is None else float(margin),
        "ranking_settled": {m: ranking_settled(by_metric[m], margin) for m in metrics},
        "widths": widths,
        "alpha": ALPHA,
    }


STOP_RULES = ("ranking", "done")  # what the researcher waits for: the ranking settled, or every system done


def live_conclusions(
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    judge_labels: pd.DataFrame | None,
    *,
    metric: str = "hscore",
    facts: dict | None = None,
    **rule,
) -> dict:
    """What the live page shows under SPEC 16: per system its confidence sequence and whether it is done,
    per pair whether it is settled or tied, whether the ranking is settled and whether the researcher may stop.

    The prediction-powered sequence when a judge scored every prediction of the system, else the
    classical one (chosen by the presence of a judge, never by which is narrower). Gold items'
    labels are left out with a judge (as in ``ppi.conclusions``). Labels enter in the order of
    ``labels`` (oldest first).

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``), in the order they arrived.
    judge_labels : DataFrame or None
        One judge's labels.
    metric : {"hscore", "hcorrect"}, default "hscore"
        The metric shown.
    facts : dict, optional
        Platform facts (``gold_keys``).
    **rule
        ``half_width``, ``stop_when``, ``margin`` of ``live_from_rows``.

    Returns
    -------
    dict
        As ``live_from_rows``.

    Raises
    ------
    ValueError
        On another metric or stop rule, or a target width that is not positive.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.anytime import live_conclusions
    >>> predictions = pd.DataFrame({"system": ["good"] * 60 + ["poor"] * 60, "tkey": [f"t{i}" for i in range(120)]})
    >>> good, poor = ["correct"] * 9 + ["incorrect"], ["correct"] * 2 + ["incorrect"] * 8
    >>> labels = pd.DataFrame({"tkey": [f"t{i}" for i in [*range(40), *range(60, 100)]], "annotator": "ann",
    ...                        "label": good * 4 + poor * 4})
    >>> live = live_conclusions(predictions, labels, None, half_width=0.2)
    >>> [(r["system"], r["cs_low"], r["cs_high"], r["done"]) for r in live["rows"]]
    [('good', 0.7955, 0.987, True), ('poor', 0.122, 0.366, True)]
    >>> live["ranking_settled"], live["stop"], live["alpha_split"], live["tied_pairs"]
    (True, True, 0.025, [])
    """
    has_judge = judge_labels is not None and not judge_labels.empty
    scores = ppi.live_scores(predictions, labels, judge_labels, facts=facts)
    arrival = None if labels is None or labels.empty else labels["tkey"]
    return live_from_scores(scores, has_judge=has_judge, metric=metric, arrival=arrival, **rule)


def live_from_scores(scores, *, has_judge, metric="hscore", arrival=None, **rule):
    """``live_conclusions`` from the per-prediction scores already computed (``arrival``: the triplet keys
    in the order their labels arrived, ``advance``).

    Parameters
    ----------
    scores : DataFrame
        ``ppi.live_scores`` of the page's inputs.
    has_judge : bool
        Whether a judge's labels went into ``scores``.
    metric : str, default "hscore"
        The metric shown.
    arrival : array_like of str, optional
        Triplet keys in arrival order.
    **rule
        ``half_width``, ``stop_when``, ``margin`` of ``live_from_rows``.

    Returns
    -------
    dict
        As ``live_from_rows``.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> live = anytime.live_from_scores(ppi.live_scores(predictions, labels, judge), has_judge=True,
    ...                                 arrival=labels["tkey"])
    >>> live == anytime.live_conclusions(predictions, labels, judge)
    True
    """
    systems = list(pd.unique(scores["system"]))
    rows = records(r for r in sequence_rows(scores, systems, arrival=arrival) if r.metric == metric)
    return live_from_rows(rows, has_judge=has_judge, metric=metric, **rule)


def live_from_rows(rows, *, has_judge, metric="hscore", half_width=None, stop_when="ranking", margin=None):
    """What the live page shows from one metric's ``sequence_rows`` (computed now or stored by the
    background job): done, settled and tied pairs, the ranking, "you may stop now".

    Parameters
    ----------
    rows : list of dict
        ``sequence_rows`` of ``metric`` as ``evaluation.science.rows.records`` gives them (copied, not changed).
    has_judge : bool
        Whether a judge's scores went into them.
    metric : {"hscore", "hcorrect"}, default "hscore"
        The metric shown.
    half_width : float, optional
        The researcher's target half-width on the metric's scale (default ``target_width``).
    stop_when : {"ranking", "done"}, default "ranking"
        What the researcher waits for: every adjacent pair settled or tied, or every system done.
    margin : float, optional
        The tie margin delta as a share of the range (default ``TIE_MARGIN``).

    Returns
    -------
    dict
        ``metric``, ``half_width``, ``alpha``, ``alpha_split``, ``rows`` (with ``half`` and ``done``,
        the best estimate first), ``pairs`` (``settled``), ``tied_pairs``, ``tie_margin`` (on the
        metric's scale), ``ranking_settled``, ``all_done``, ``stop_when``, ``stop``, ``has_judge``.

    Raises
    ------
    ValueError
        On another metric or stop rule, or a target width or tie margin that is not positive.

    Examples
    --------
    >>> from evaluation.science.anytime import live_from_rows
    >>> rows = [{"system": "a", "metric": "hscore", "n": 90, "cs_estimate": 0.71, "cs_low": 0.70, "cs_high": 0.715},
    ...         {"system": "b", "metric": "hscore", "n": 90, "cs_estimate": 0.709, "cs_low": 0.703, "cs_high": 0.718}]
    >>> live = live_from_rows(rows, has_judge=False)
    >>> live["stop"], live["pairs"][0]["settled"], live["tied_pairs"][0]["systems"]
    (True, False, ['a', 'b'])
    """
    if metric not in metric_registry.human_keys():
        raise ValueError(f"metric must be one of {', '.join(metric_registry.human_keys())}")
    if stop_when not in STOP_RULES:
        raise ValueError(f"stop_when must be one of {', '.join(STOP_RULES)}, got {stop_when!r}")
    width = target_width(metric, half_width)
    if not width > 0:
        raise ValueError("the target half-width must be positive")
    if margin is not None and not 0 <= margin < 1:
        raise ValueError(f"the tie margin must be in [0, 1), got {margin!r}")
    rows = [dict(r) for r in rows if r["metric"] == metric]
    for r in rows:
        r["half"] = None if r["cs_low"] is None else (r["cs_high"] - r["cs_low"]) / 2
        r["done"] = is_done(r, width)
    rows.sort(key=lambda r: -math.inf if r["cs_estimate"] is None else -r["cs_estimate"])
    ranking = len(rows) > 1 and ranking_settled(rows, margin)
    all_done = bool(rows) and all(r["done"] for r in rows)
    return {
        "metric": metric,
        "half_width": width,
        "alpha": ALPHA,
        "alpha_split": ALPHA / max(len(rows), 1),
        "rows": rows,
        "pairs": settled(rows, metric),
        "tied_pairs": tied_pairs(rows, metric, margin),
        "tie_margin": tie_margin(metric, margin),
        "ranking_settled": ranking,
        "all_done": all_done,
        "stop_when": stop_when,
        "stop": ranking if stop_when == "ranking" else all_done,
        "has_judge": has_judge,
    }
