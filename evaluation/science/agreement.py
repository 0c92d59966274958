"""Krippendorff's alpha between annotators (SPEC section 7), generic over (item, annotator, value).

Used for answer labels (``stats.labels.LABEL_RANKS``: incorrect < partial < correct) and for
frame checks (``stats.labels.FRAME_CHECK_RANKS``: erroneous < partial < full). Only items with
two or more values take part. Alpha is None (JSON null) where it is undefined: fewer than two such
items (``MIN_ITEMS``; with one item alpha says nothing about agreement, however the package answers),
or no variation at all (the expected disagreement is zero). Each result carries its ``n_items``.
"""

from __future__ import annotations

import itertools
import math

import krippendorff
import numpy as np
import pandas as pd

MIN_ITEMS = 2


def _alpha(matrix: np.ndarray, level: str, domain) -> float | None:
    if matrix.shape[1] < MIN_ITEMS or matrix.shape[0] < 2:
        return None
    values = matrix[~np.isnan(matrix)]
    if len(np.unique(values)) < 2:
        return None  # no variation: expected disagreement is 0, alpha undefined
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            value = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level, value_domain=domain)
    except (ValueError, ZeroDivisionError):
        return None
    return float(value) if value is not None and math.isfinite(value) else None


def reliability_matrix(rows: pd.DataFrame, ranks: dict, min_values: int = 2):
    """Annotators x items matrix of ranks (NaN = no value), keeping items with >= ``min_values``.

    Parameters
    ----------
    rows : DataFrame
        Columns ``item``, ``annotator``, ``value``; one value per (item, annotator) (the last row
        wins); rows without a value are left out.
    ranks : dict
        Value -> rank (e.g. ``stats.labels.LABEL_RANKS``).
    min_values : int, default 2
        Items with fewer values are left out.

    Returns
    -------
    matrix : ndarray of float
        (annotators x items) ranks, NaN where an annotator gave no value.
    annotators : list
        The row labels, sorted.
    items : list
        The column labels, sorted.

    Raises
    ------
    ValueError
        When a column is missing or a value has no rank.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.agreement import reliability_matrix
    >>> rows = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4], "annotator": ["ann", "bob"] * 3 + ["ann"],
    ...                      "value": ["correct", "correct", "incorrect", "partial", "partial", "partial", "correct"]})
    >>> matrix, annotators, items = reliability_matrix(rows, {"incorrect": 0, "partial": 1, "correct": 2})
    >>> matrix
    array([[2., 0., 1.],
           [2., 1., 1.]])
    >>> annotators, items
    (['ann', 'bob'], [1, 2, 3])
    """
    missing = {"item", "annotator", "value"} - set(rows.columns)
    if missing:
        raise ValueError(f"agreement rows need the columns item, annotator, value; missing {sorted(missing)}")
    rows = rows.dropna(subset=["value"])
    unknown = set(rows["value"].unique()) - set(ranks)
    if unknown:
        raise ValueError(f"values {sorted(map(str, unknown))} have no rank; known: {sorted(map(str, ranks))}")
    # the same as drop_duplicates(["item", "annotator"], keep="last") then the items' sizes, on
    # integer codes of the two columns (the pivot below then only sees the kept rows)
    item, _ = pd.factorize(rows["item"], use_na_sentinel=False)
    annotator, annotators = pd.factorize(rows["annotator"], use_na_sentinel=False)
    last = ~pd.Series(item.astype(np.int64) * max(len(annotators), 1) + annotator).duplicated(keep="last").to_numpy()
    rows, item = rows[last], item[last]
    if len(item):  # (groupby leaves an item of NaN out)
        rows = rows[(np.bincount(item)[item] >= min_values) & rows["item"].notna().to_numpy()]
    ranked = rows.assign(rank=rows["value"].map(ranks).astype(float))
    table = ranked.pivot(index="annotator", columns="item", values="rank")
    return table.to_numpy(dtype=float), list(table.index), list(table.columns)


def krippendorff_alpha(rows: pd.DataFrame, ranks: dict, pairs: bool = True) -> dict:
    """Alpha ordinal and nominal over the multiply-rated items, overall and per annotator pair.

    Parameters
    ----------
    rows : DataFrame
        Columns ``item``, ``annotator``, ``value`` (see ``reliability_matrix``).
    ranks : dict
        Value -> rank; the ordinal distance is the distance of ranks.
    pairs : bool, default True
        Also compute alpha per pair of annotators.

    Returns
    -------
    dict
        ``{alpha_ordinal, alpha_nominal, n_items, n_labels, n_annotators, pairs: [{annotators,
        n_items, n_labels, alpha_ordinal, alpha_nominal, undefined_reason}]}``; an alpha is None
        where it is undefined (fewer than ``MIN_ITEMS`` items, or no variation).

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.agreement import krippendorff_alpha
    >>> rows = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": ["ann", "bob"] * 3,
    ...                      "value": ["correct", "correct", "incorrect", "partial", "partial", "partial"]})
    >>> result = krippendorff_alpha(rows, {"incorrect": 0, "partial": 1, "correct": 2})
    >>> round(result["alpha_ordinal"], 3), round(result["alpha_nominal"], 3), result["n_items"]
    (0.778, 0.545, 3)
    >>> result["pairs"][0]["annotators"]
    ['ann', 'bob']
    """
    matrix, annotators, items = reliability_matrix(rows, ranks)
    domain = sorted(set(ranks.values()))
    out = {
        "alpha_ordinal": _alpha(matrix, "ordinal", domain),
        "alpha_nominal": _alpha(matrix, "nominal", domain),
        "n_items": len(items),
        "n_labels": int((~np.isnan(matrix)).sum()),
        "n_annotators": len(annotators),
        "pairs": [],
    }
    if not pairs:
        return out
    present = ~np.isnan(matrix)
    for a, b in itertools.combinations(range(len(annotators)), 2):
        shared = present[a] & present[b]
        n = int(shared.sum())
        if n == 0:
            continue
        sub = matrix[[a, b]][:, shared]
        out["pairs"].append(
            {
                "annotators": [str(annotators[a]), str(annotators[b])],
                "n_items": n,
                "n_labels": 2 * n,
                "alpha_ordinal": _alpha(sub, "ordinal", domain),
                "alpha_nominal": _alpha(sub, "nominal", domain),
                "undefined_reason": None if n >= MIN_ITEMS else f"{n} shared item (alpha needs {MIN_ITEMS} or more)",
            }
        )
    return out
