"""Tests of significance (SPEC 6): the Mann-Whitney U test of the complexity factors, computed from
tie groups in linear time, Holm's correction of a family of p-values, and the paper's delta.

Pure numpy / scipy. The bootstrap intervals are ``stats.bootstrap``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special
from scipy.stats import mannwhitneyu


def holm(p_values) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1).

    Parameters
    ----------
    p_values : array_like of float
        The raw p-values of one family of tests; NaN stays NaN and is not counted in the family
        size.

    Returns
    -------
    ndarray of float
        The adjusted p-values, in the order given.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.significance import holm
    >>> holm([0.01, 0.04, 0.03, np.nan])
    array([0.03, 0.06, 0.06,  nan])
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    vals = p[ok]
    order = np.argsort(vals, kind="mergesort")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * vals[order])
    adjusted = np.minimum(adjusted, 1.0)
    res = np.empty(m)
    res[order] = adjusted
    out[ok] = res
    return out


def floor_delta(diff: float) -> int | None:
    """delta = floor(100 x diff), as in the paper.

    The product is rounded to 9 decimals first so that a difference of exactly -0.03 is -3, not
    -4 (binary floating point).

    Parameters
    ----------
    diff : float or None
        S(E_f) - S(not E_f).

    Returns
    -------
    int or None
        None when ``diff`` is None or not finite.

    Examples
    --------
    >>> from stats.significance import floor_delta
    >>> floor_delta(-0.03), floor_delta(0.1234), floor_delta(float("nan"))
    (-3, 12, None)
    """
    if diff is None or not math.isfinite(diff):
        return None
    return math.floor(round(100 * diff, 9))


# --- Mann-Whitney U from tie groups (the complexity factors' test, SPEC 6) -------------------


def nanmean_rows(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The mean of each column of ``X`` over the chosen rows, NaN values left out.

    Parameters
    ----------
    X : ndarray of float
        (rows x columns), NaN where undefined.
    rows : ndarray of bool
        The rows to average.

    Returns
    -------
    ndarray of float
        One mean per column, NaN where the rows hold no defined value.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.significance import nanmean_rows
    >>> X = np.array([[1.0, 0.5], [0.0, np.nan], [1.0, 1.0]])
    >>> nanmean_rows(X, np.array([True, True, False]))
    array([0.5, 0.5])
    """
    sub = X[rows]
    counts = (~np.isnan(sub)).sum(axis=0)
    sums = np.nansum(sub, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _mwu(hard: np.ndarray, easy: np.ndarray):
    """Two-sided Mann-Whitney U per column, straight from ``scipy.stats.mannwhitneyu`` (default
    method); NaN values left out. The report uses ``mann_whitney`` (same numbers, linear time); this
    is its fallback where scipy's default is the exact test, and its reference in the tests."""
    n_cols = hard.shape[1]
    u, p = np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    if not len(hard) or not len(easy):
        return u, p
    if not (np.isnan(hard).any() or np.isnan(easy).any()):
        with np.errstate(invalid="ignore", divide="ignore"):
            res = mannwhitneyu(hard, easy, alternative="two-sided", axis=0)
        return np.asarray(res.statistic, dtype=float), np.asarray(res.pvalue, dtype=float)
    for c in range(n_cols):
        x, y = hard[:, c], easy[:, c]
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        if len(x) and len(y):
            with np.errstate(invalid="ignore", divide="ignore"):
                res = mannwhitneyu(x, y, alternative="two-sided")
            u[c], p[c] = res.statistic, res.pvalue
    return u, p


# scipy's method="auto" is asymptotic when both samples have more than this many values.
_EXACT_MAX = 8


@dataclass
class TieGroups:
    """The tie groups of every column of a score matrix, computed once and reused by every
    Mann-Whitney test on a split of its rows (each factor, each metric).

    ``codes[i, c]`` is the tie group of value ``X[i, c]`` (``n_groups`` for NaN); groups are
    numbered column by column, in increasing value within a column, so the rank sums of any split
    follow from per-group counts: no sorting per test.
    """

    codes: np.ndarray  # (rows x columns) int64
    column: np.ndarray  # (n_groups,) the column of each group
    first: np.ndarray  # (columns,) the first group of each column (n_groups when it has none)
    # (a group may be empty: with few distinct values every (column, value) pair is a group)
    n_groups: int
    n_columns: int
    value: np.ndarray | None = None  # (n_groups,) the value of each group: the sums of any split of the rows
    _all_counts: np.ndarray | None = None
    _cells: tuple | None = None  # (cell of each row, rows per cell, group counts per cell): see count_by_cells

    def count_by_cells(self, cell: np.ndarray, *, max_entries: int = 1 << 23) -> bool:
        """Count the tie groups once per cell of rows (``cells_of`` the factors' sides), so that
        ``counts`` of a union of cells (a factor's side) is a sum over cells, not a pass over the
        rows.

        Parameters
        ----------
        cell : ndarray of int
            The cell of each row.
        max_entries : int
            The most (cells x groups) counts kept.

        Returns
        -------
        bool
            False, and nothing kept, where cells x groups would pass ``max_entries``.

        Examples
        --------
        >>> import numpy as np
        >>> from stats.significance import tie_groups
        >>> ties = tie_groups(np.array([[0.5, 1.0], [0.0, 1.0], [0.5, np.nan], [1.0, 0.0]]))
        >>> ties.count_by_cells(np.array([0, 0, 1, 1]))
        True
        >>> ties.counts(np.array([True, True, False, False]))
        array([1, 1, 0, 0, 0, 2])
        """
        cell = np.asarray(cell, dtype=np.int64)
        n_cells, width = int(cell.max(initial=-1)) + 1, self.n_groups + 1
        if n_cells * width > max_entries:
            return False
        per_cell = np.bincount((cell[:, None] * width + self.codes).ravel(), minlength=n_cells * width)
        self._cells = (cell, np.bincount(cell, minlength=n_cells), per_cell.reshape(n_cells, width)[:, :-1])
        return True

    def counts(self, rows: np.ndarray) -> np.ndarray:
        """Values of each tie group on ``rows``; all rows are counted once, then cached.

        Parameters
        ----------
        rows : ndarray of bool
            A mask of the matrix's rows.

        Returns
        -------
        ndarray of int
            One count per tie group.

        Examples
        --------
        >>> import numpy as np
        >>> from stats.significance import tie_groups
        >>> ties = tie_groups(np.array([[0.5, 1.0], [0.0, 1.0], [0.5, np.nan], [1.0, 0.0]]))
        >>> ties.counts(np.array([True, True, False, False]))
        array([1, 1, 0, 0, 0, 2])
        """
        if rows.all():
            if self._all_counts is None:
                self._all_counts = _group_counts(self, rows)
            return self._all_counts
        if self._cells is not None:
            cell, sizes, per_cell = self._cells
            hit = np.bincount(cell[rows], minlength=len(sizes))
            if ((hit == 0) | (hit == sizes)).all():  # whole cells: their counts (integers, exact)
                return per_cell[hit > 0].sum(axis=0)
        return _group_counts(self, rows)


def tie_groups(X: np.ndarray) -> TieGroups:
    """Tie groups of each column of ``X`` (hash-based, linear in the size of ``X``).

    Parameters
    ----------
    X : array_like of float
        (rows x columns), NaN where undefined.

    Returns
    -------
    TieGroups
        Group codes per value (``n_groups`` for NaN), numbered column by column in increasing
        value.

    Raises
    ------
    ValueError
        When ``X`` is not two-dimensional.

    Examples
    --------
    Three distinct values in two columns: six groups, (column, value) by (column, value).

    >>> import numpy as np
    >>> from stats.significance import tie_groups
    >>> ties = tie_groups(np.array([[0.5, 1.0], [0.0, 1.0], [0.5, np.nan], [1.0, 0.0]]))
    >>> ties.codes
    array([[1, 5],
           [0, 5],
           [1, 6],
           [2, 3]])
    >>> ties.column, ties.n_groups
    (array([0, 0, 0, 1, 1, 1]), 6)
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError("tie_groups needs a (rows x columns) matrix")
    n_rows, n_cols = X.shape
    value_code, uniques = pd.factorize(X.ravel())  # NaN -> -1
    # rank of each distinct value; np.unique merges -0.0 and 0.0 as the ranking does
    ranked = np.unique(uniques)  # the distinct values, increasing
    value_rank = np.searchsorted(ranked, uniques)
    n_values = int(value_rank.max()) + 1 if len(uniques) else 0
    missing = value_code < 0
    if not len(uniques):
        value_rank = np.zeros(1, dtype=np.int64)
    codes = value_rank[value_code].reshape(n_rows, n_cols) + (n_values * np.arange(n_cols))[None, :]
    if n_values * n_cols <= max(X.size, 1 << 16):  # few distinct values: one group per (column, value)
        n_groups = n_values * n_cols
        column = np.repeat(np.arange(n_cols, dtype=np.int64), n_values)
        first = n_values * np.arange(n_cols, dtype=np.int64)
        value = np.tile(ranked, n_cols)
    else:  # many: keep the (column, value) pairs that occur
        present = codes.ravel()[~missing]
        group, keys = pd.factorize(present, sort=True)
        codes.ravel()[~missing] = group
        n_groups = len(keys)
        column = np.asarray(keys, dtype=np.int64) // n_values
        first = np.full(n_cols, n_groups, dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
        first[column[starts]] = starts
        value = ranked[np.asarray(keys, dtype=np.int64) % n_values]
    codes.ravel()[missing] = n_groups
    return TieGroups(codes, column, first, n_groups, n_cols, value)


def _group_counts(ties: TieGroups, rows: np.ndarray) -> np.ndarray:
    return np.bincount(ties.codes[rows].ravel(), minlength=ties.n_groups + 1)[: ties.n_groups]


def split_counts(ties: TieGroups, hard: np.ndarray, easy: np.ndarray):
    """Per tie group, the values on the hard rows and on the easy rows.

    When the two masks cover every row, the easy counts are all rows' counts minus the hard ones
    (integers, exact).

    Parameters
    ----------
    ties : TieGroups
        ``tie_groups`` of the score matrix.
    hard, easy : ndarray of bool
        Two disjoint masks of its rows.

    Returns
    -------
    hard_counts, easy_counts : ndarray of int
        One count per tie group each.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.significance import split_counts, tie_groups
    >>> ties = tie_groups(np.array([[0.5, 1.0], [0.0, 1.0], [0.5, np.nan], [1.0, 0.0]]))
    >>> split_counts(ties, np.array([True, True, False, False]), np.array([False, False, True, True]))
    (array([1, 1, 0, 0, 0, 2]), array([0, 1, 1, 1, 0, 0]))
    """
    h = ties.counts(hard)
    everyone = hard | easy
    return h, (ties.counts(everyone) - h if everyone.all() else ties.counts(easy))


def mann_whitney(
    X: np.ndarray, hard: np.ndarray, easy: np.ndarray, *, ties: TieGroups | None = None, counts: tuple | None = None
):
    """Two-sided Mann-Whitney U of each column of ``X``, hard rows against easy rows.

    The numbers of ``scipy.stats.mannwhitneyu(x, y, alternative="two-sided")`` (U of the hard
    sample, p-value) with NaN values left out, computed from per-tie-group counts instead of
    ranking each sample.

    With n1, n2 values on each side, h_g / e_g the hard / easy values of tie group g and E_g the
    easy values below g: U1 = sum_g h_g (E_g + e_g / 2) (= R1 - n1(n1+1)/2 with average ranks), and
    the p-value is scipy's asymptotic one: z = (max(U1, n1 n2 - U1) - n1 n2 / 2 - 1/2) / s with
    s^2 = n1 n2 / 12 ((n + 1) - sum_g (t_g^3 - t_g) / (n (n - 1))), p = 2 Phi(-z) clipped to 1.
    Where scipy's default is its exact test (a side with at most 8 values and no ties) scipy
    itself is called.

    Parameters
    ----------
    X : ndarray of float
        (rows x columns) scores, NaN where undefined.
    hard, easy : ndarray of bool
        Two disjoint masks of the rows.
    ties : TieGroups, optional
        ``tie_groups(X)``, computed once per matrix by the caller (else here).
    counts : tuple of ndarray, optional
        ``split_counts(ties, hard, easy)``, when the caller has them.

    Returns
    -------
    u, p : ndarray of float
        U and the p-value per column, NaN where a side has no defined value.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.significance import mann_whitney
    >>> X = np.array([3, 4, 2, 5, 4, 3, 5, 4, 2, 5, 1, 2, 2, 3, 1, 2, 3, 1, 4, 2], dtype=float)[:, None]
    >>> hard = np.arange(20) < 10
    >>> u, p = mann_whitney(X, hard, ~hard)
    >>> u, p.round(4)
    (array([84.5]), array([0.0085]))
    """
    X = np.asarray(X, dtype=float)
    hard, easy = np.asarray(hard, dtype=bool), np.asarray(easy, dtype=bool)
    ties = ties if ties is not None else tie_groups(X)
    n_cols = ties.n_columns
    u, p = np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    if not hard.any() or not easy.any():
        return u, p
    h, e = counts if counts is not None else split_counts(ties, hard, easy)
    col = ties.column
    n1 = np.bincount(col, weights=h, minlength=n_cols).astype(np.int64)
    n2 = np.bincount(col, weights=e, minlength=n_cols).astype(np.int64)
    below = np.cumsum(e) - e  # easy values in the groups before g, all columns together
    below = below - below[ties.first[col]]  # ... within g's column
    two_u1 = np.bincount(col, weights=h * (2 * below + e), minlength=n_cols)  # integers, exact
    t = h + e
    tie_term = np.bincount(col, weights=t**3 - t, minlength=n_cols)
    u1 = two_u1 / 2
    fast = (n1 > _EXACT_MAX) & (n2 > _EXACT_MAX)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = n1 + n2
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        z = (np.maximum(u1, n1 * n2 - u1) - n1 * n2 / 2 - 0.5) / s
        pv = np.clip(special.ndtr(-z) * 2, 0.0, 1.0)
    u[fast], p[fast] = u1[fast], pv[fast]
    slow = ~fast & (n1 > 0) & (n2 > 0)
    if slow.any():
        # scipy's own choice (exact or asymptotic), with its vectorized call where it was made
        su, sp = (
            _mwu(X[hard][:, slow], X[easy][:, slow])
            if not np.isnan(X[hard | easy]).any()
            else _mwu_columns(X, hard, easy, columns=np.flatnonzero(slow))
        )
        u[slow], p[slow] = su, sp
    return u, p


def _mwu_columns(X, hard, easy, *, columns):
    u, p = [], []
    for c in columns:
        cu, cp = _mwu(X[hard][:, [c]], X[easy][:, [c]])
        u.append(cu[0]), p.append(cp[0])
    return np.array(u), np.array(p)


def nanmean_counts(X: np.ndarray, rows: np.ndarray, *, ties: TieGroups | None = None, group_counts=None):
    """``nanmean_rows`` and the number of defined values per column, from one copy of the rows.

    With ``ties`` (of ``X``), from its group counts alone: a column's sum is the sum over its
    distinct values of count x value, so two columns with the same values in any order have the
    same float sum (SPEC 4: ties), and no row is read again.

    Parameters
    ----------
    X : ndarray of float
        (rows x columns), NaN where undefined.
    rows : ndarray of bool
        The rows to average.
    ties : TieGroups, optional
        ``tie_groups(X)``.
    group_counts : ndarray of int, optional
        ``ties.counts(rows)``, when the caller has them.

    Returns
    -------
    means : ndarray of float
        One mean per column, NaN where no value is defined.
    counts : ndarray of int
        The defined values per column.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.significance import nanmean_counts
    >>> X = np.array([[0.5, 1.0], [0.0, 1.0], [0.5, np.nan], [1.0, 0.0]])
    >>> means, counts = nanmean_counts(X, np.array([True, False, True, True]))
    >>> means.round(3), counts
    (array([0.667, 0.5  ]), array([3, 2]))
    """
    if ties is not None and ties.value is not None:
        group_counts = ties.counts(rows) if group_counts is None else group_counts
        counts = np.bincount(ties.column, weights=group_counts, minlength=ties.n_columns).astype(np.int64)
        sums = np.bincount(ties.column, weights=group_counts * ties.value, minlength=ties.n_columns)
    else:
        sub = X[rows]
        counts = (~np.isnan(sub)).sum(axis=0)
        sums = np.nansum(sub, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan), counts
