"""Statistics: the Mann-Whitney U test of the complexity factors (from tie groups, at the end) and,
beyond the paper, seeded bootstrap confidence intervals and Holm's correction.

The bootstrap resamples the questions with replacement, and every statistic of the report (a
system's mean, a partition's, a frame's, the two sides of a factor) is computed on the same
resamples. It is vectorized: each block of replicates is a weights matrix (replicates x questions,
counts of draws) multiplied with the score matrices (questions x columns), all columns of a
group in one product; cost B x n x columns, linear in the questions.
Undefined scores (NaN, e.g. unlabeled predictions) are left out of each replicate's mean, exactly as
in the point estimate.
"""

from __future__ import annotations

import math
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special
from scipy.stats import mannwhitneyu
from threadpoolctl import threadpool_limits

DEFAULT_BOOT = 1000
CI_LEVEL = 0.95


def _block_weights(rng, n_rows: int, n_reps: int, *, weights: np.ndarray | None = None) -> np.ndarray:
    """(n_reps, n_rows) draw counts of a bootstrap resample of n_rows rows, each row of it (int32
    draws are the same stream as int64 ones; counting per replicate keeps the counts in cache),
    written into ``weights`` when given (a slice of the batch: no copy)."""
    draws = rng.integers(0, n_rows, size=(n_reps, n_rows), dtype=np.int32)
    if weights is None:
        weights = np.empty((n_reps, n_rows), dtype=np.float32)
    for r in range(n_reps):
        weights[r] = np.bincount(draws[r], minlength=n_rows)
    return weights


class _Matrix:
    """A score matrix as the right-hand side of the weight products: its values (NaN as 0) then one
    0/1 column per distinct pattern of defined values (the counts), float32.

    The patterns are in ``np.unique(defined, axis=1)`` order (lexicographic, False before True),
    found by hashing each column's bytes: sorting the columns as records costs seconds at 100k rows.
    """

    def __init__(self, X):
        X = np.asarray(X, dtype=float)
        n_rows, self.n_cols = X.shape
        defined = ~np.isnan(X)
        if defined.all():
            patterns, self.inverse = np.ones((n_rows, 1), dtype=bool), np.zeros(self.n_cols, dtype=np.int64)
        else:  # counts are needed per distinct pattern of defined values only
            patterns, self.inverse = _column_patterns(defined)
        self.rhs = np.empty((n_rows, self.n_cols + patterns.shape[1]), dtype=np.float32)
        values = self.rhs[:, : self.n_cols]
        np.copyto(values, X, casting="same_kind")  # the float32 of each value, NaN stays NaN ...
        np.copyto(values, 0.0, where=~defined)  # ... then 0
        self.rhs[:, self.n_cols :] = patterns
        self.cells = None  # (row order, cell bounds) once _plan_cells sorts the rows by cell


def _column_patterns(defined: np.ndarray):
    """(patterns, inverse) as ``np.unique(defined, axis=1, return_inverse=True)`` gives them: the
    distinct columns in lexicographic order (bytes of 0/1 compare as the booleans do) and, per
    column, the index of its pattern."""
    keys = [column.tobytes() for column in np.ascontiguousarray(defined.T)]
    distinct = sorted(set(keys))
    position = {key: i for i, key in enumerate(distinct)}
    inverse = np.array([position[key] for key in keys], dtype=np.int64)
    patterns = np.frombuffer(b"".join(distinct), dtype=bool).reshape(len(distinct), len(defined)).T
    return patterns, inverse


def _plan(tasks: dict, n_rows: int):
    """Per task, per group: the rows, and whether the group is derived by subtraction (all rows
    minus the task's other groups) instead of its own product."""
    matrices, plans = {}, {}
    for name, (X, given_codes) in tasks.items():
        if id(X) not in matrices:
            matrices[id(X)] = _Matrix(X)
        codes = np.asarray(given_codes)
        if codes.shape != (n_rows,):
            raise ValueError(f"bootstrap task {name!r}: {codes.shape[0]} group codes for {n_rows} rows")
        groups = {int(g): np.flatnonzero(codes == g) for g in np.unique(codes[codes >= 0])}
        plans[name] = (id(X), groups)
    # Where a matrix has a task with one group of every row (the systems table), its total is
    # computed once; a task of that matrix whose groups cover every row then gets its largest group
    # (when it holds at least a third of the rows) as the total minus its other groups.
    has_total = {
        key for key, groups in plans.values() if len(groups) == 1 and len(next(iter(groups.values()))) == n_rows
    }
    out = {}
    for name, (key, groups) in plans.items():
        derived = None
        if key in has_total and len(groups) > 1 and sum(map(len, groups.values())) == n_rows:
            largest = max(groups, key=lambda g: len(groups[g]))
            if 3 * len(groups[largest]) >= n_rows:
                derived = largest
        parts = {
            g: (rows, None if len(rows) == n_rows else matrices[key].rhs[rows])
            for g, rows in groups.items()
            if g != derived
        }
        out[name] = (matrices[key], parts, derived, None)
    for key, m in matrices.items():
        _plan_cells(m, {name: tasks[name][1] for name, (k, _) in plans.items() if k == key}, out)
    return matrices, out


def _plan_groups(plan) -> list:
    """The groups of one task's plan: its products', its derived one, or its cells'."""
    _, parts, derived, from_cells = plan
    if from_cells is not None:
        return list(from_cells[0])
    return [*parts, *([derived] if derived is not None else [])]


MAX_CELLS = 512  # cells of one matrix's tasks (see _plan_cells): their products are kept per batch
MIN_CELL_ROWS = 32  # fewer rows per cell on average: the products are too small to pay


def cells_of(codes, n_rows: int) -> np.ndarray:
    """The cell of each row: rows in the same group of every grouping share a cell.

    Parameters
    ----------
    codes : iterable of ndarray of int
        Groupings of the rows: a group code per row, negative = in no group.
    n_rows : int
        The rows.

    Returns
    -------
    ndarray of int
        The cell of each row, numbered 0, 1, ... in order of first row.

    Examples
    --------
    >>> import numpy as np
    >>> from evaluation.science.stats import cells_of
    >>> cells_of([np.array([0, 0, 1, 1]), np.array([-1, 2, -1, -1])], 4).tolist()
    [0, 1, 2, 2]
    """
    cell = np.zeros(n_rows, dtype=np.int64)
    for grouping in codes:
        given = np.asarray(grouping, dtype=np.int64)
        cell = pd.factorize(cell * (int(given.max(initial=0)) + 2) + (given + 1))[0]  # the codes stay small
    return cell


def _plan_cells(m, codes: dict, plans: dict) -> None:
    """Where the tasks of one matrix split the rows in few cells (rows with the same group in
    every task: the seven factors' sides make at most 3^7), and their own products would cover
    the rows more than once: one product per cell, on the cells' rows (sorted by cell, so that a
    cell is a slice), and each group's sums as the sum of its cells' (a small product with 0/1
    membership). Every row is then multiplied once, not once per task. Changes ``m`` and the
    tasks' plans in place; nothing where it does not pay."""
    covered = sum(len(rows) for name in codes for rows, _ in plans[name][1].values())
    if len(codes) < 2 or covered < 1.5 * len(m.rhs):
        return
    cell = cells_of(codes.values(), len(m.rhs))
    n_cells = int(cell.max()) + 1
    if n_cells > MAX_CELLS or len(cell) < MIN_CELL_ROWS * n_cells:
        return
    order = np.argsort(cell, kind="stable")
    m.rhs, m.cells = m.rhs[order], (order, np.searchsorted(cell[order], np.arange(n_cells + 1)))
    for name, given in codes.items():
        groups = _plan_groups(plans[name])
        of_cell = np.full(n_cells, -2)
        of_cell[cell] = given
        members = np.array([of_cell == g for g in groups], dtype=np.float32)
        plans[name] = (m, {}, None, (groups, members))


def bootstrap_group_means(
    tasks: dict,
    n_rows: int,
    n_boot: int = DEFAULT_BOOT,
    *,
    seed: int = 0,
    cells: int = 4_000_000,
    batch_cells: int = 8_000_000,
    workers: int | None = None,
) -> dict:
    """Bootstrap replicates of group means, every statistic on the same resamples of the rows.

    Each replicate draws ``n_rows`` rows with replacement (the questions of a new corpus); a
    group's replicate mean is the weighted mean of its drawn rows' defined values. The draws come
    in blocks of ``cells // n_rows`` replicates, in order from one generator (the resamples of a
    seed depend on that only). Blocks are stacked into batches of about ``batch_cells`` weights;
    each batch costs one (replicates x group rows) @ (group rows x columns) product per group, all
    columns at once. Tasks passing the same ``X`` object share its preparation, and one whose
    groups cover every row gets its largest group by subtraction from the total. Batches run on
    ``workers`` threads, each with a single-threaded BLAS: on a shared machine BLAS's own threads
    lose more waiting for each other than they gain.

    Parameters
    ----------
    tasks : dict
        ``{name: (X, codes)}``: ``X`` (n_rows x columns) floats, NaN = undefined; ``codes`` an
        integer group per row, negative = in no group.
    n_rows : int
        The rows (questions) of every ``X``.
    n_boot : int
        The replicates.
    seed : int
        The seed of the one generator of the draws.
    cells, batch_cells : int
        Weights per block of draws and per batch of products (memory against overhead).
    workers : int, optional
        Threads for the batches; default one per CPU.

    Returns
    -------
    dict
        ``{name: {group: array (n_boot, columns)}}``, NaN where a replicate drew no defined value
        of the group.

    Examples
    --------
    >>> X = np.array([[1.0, 0.5], [0.0, np.nan], [1.0, 1.0], [0.0, 0.0]])
    >>> reps = bootstrap_group_means({"all": (X, np.zeros(4, dtype=int))}, 4, 300, seed=1)["all"][0]
    >>> reps.shape
    (300, 2)
    >>> bool(np.nanmin(reps) >= 0.0 and np.nanmax(reps) <= 1.0)
    True
    """
    rng = np.random.default_rng(seed)
    _, plans = _plan(tasks, n_rows)
    out = {name: {g: np.empty((n_boot, plan[0].n_cols)) for g in _plan_groups(plan)} for name, plan in plans.items()}
    block = max(1, min(n_boot, cells // max(1, n_rows)))
    per_batch = block * max(1, batch_cells // max(1, block * n_rows))

    def draw(start):  # in order, from the one generator
        n = min(per_batch, n_boot - start)
        W = np.empty((n, n_rows), dtype=np.float32)
        for i in range(0, n, block):
            _block_weights(rng, n_rows, min(block, n - i), weights=W[i : i + block])
        return np.asfortranarray(W)  # a group's columns W[:, rows] are then contiguous runs to gather

    _run_batches(plans, out, starts=range(0, n_boot, per_batch), draw=draw, workers=workers)
    return out


def _run_batches(plans: dict, out: dict, *, starts: range, draw, workers: int | None) -> None:
    """The batches' products on ``workers`` threads (single-threaded BLAS each), drawn in order."""
    workers = max(1, min(len(starts), workers or os.cpu_count() or 1))
    with threadpool_limits(1, user_api="blas"):
        if workers == 1:
            for start in starts:
                _batch_means(plans, out, start=start, W=draw(start))
            return
        with ThreadPoolExecutor(workers) as pool:
            pending = deque()
            for start in starts:
                W = draw(start)  # the next batch is drawn while the pool works
                while len(pending) >= workers:
                    pending.popleft().result()
                pending.append(pool.submit(_batch_means, plans, out, start=start, W=W))
            for future in pending:
                future.result()


def _batch_means(plans: dict, out: dict, *, start: int, W: np.ndarray) -> None:
    """The group means of the replicates ``start:start + len(W)`` (weights ``W``), into ``out``."""
    totals, cells = {}, {}

    def total(m):
        if id(m) not in totals:
            totals[id(m)] = W @ m.rhs
        return totals[id(m)]

    def cell_products(m):  # (cells, replicates x columns): one product per cell, on its slice of rows
        if id(m) not in cells:
            order, bounds = m.cells
            Wc = W[:, order]
            products = np.empty((len(bounds) - 1, len(W), m.rhs.shape[1]), dtype=np.float32)
            for c in range(len(bounds) - 1):
                np.matmul(Wc[:, bounds[c] : bounds[c + 1]], m.rhs[bounds[c] : bounds[c + 1]], out=products[c])
            cells[id(m)] = products.reshape(len(products), -1)
        return cells[id(m)]

    for name, (m, parts, derived, from_cells) in plans.items():
        if from_cells is not None:
            groups, members = from_cells
            sums = (members @ cell_products(m)).reshape(len(groups), len(W), -1)
            res = dict(zip(groups, sums))
        else:
            res = {g: total(m) if rhs is None else W[:, rows] @ rhs for g, (rows, rhs) in parts.items()}
        if derived is not None:
            res[derived] = total(m) - sum(res.values())
        for g, r in res.items():
            sums, counts = r[:, : m.n_cols], r[:, m.n_cols :][:, m.inverse]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[name][g][start : start + len(W)] = np.where(counts > 0, sums / np.maximum(counts, 1e-12), np.nan)


def percentile_ci(replicates: np.ndarray, level: float = CI_LEVEL) -> np.ndarray:
    """Percentile confidence bounds of each column of bootstrap replicates.

    Linear interpolation between order statistics, as numpy's default percentile; NaN replicates
    are left out. Vectorized over the columns.

    Parameters
    ----------
    replicates : numpy.ndarray
        (replicates x columns) values, NaN = undefined.
    level : float
        The confidence level.

    Returns
    -------
    numpy.ndarray
        (2, columns): lower and upper bounds, NaN where every replicate of a column is NaN.

    Examples
    --------
    >>> percentile_ci(np.arange(5.0)[:, None], level=0.5).ravel().tolist()
    [1.0, 3.0]
    >>> percentile_ci(np.array([[1.0, np.nan], [3.0, np.nan]]), level=0.5).tolist()
    [[1.5, nan], [2.5, nan]]
    """
    reps = np.sort(np.asarray(replicates, dtype=float), axis=0)  # NaN sort last
    counts = (~np.isnan(reps)).sum(axis=0)
    out = np.full((2, reps.shape[1]), np.nan)
    ok = counts > 0
    tail = (1 - level) / 2
    for i, q in enumerate((tail, 1 - tail)):
        pos = (np.maximum(counts, 1) - 1) * q
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, np.maximum(counts - 1, 0))
        frac = pos - lo
        a = np.take_along_axis(reps, lo[None, :], axis=0)[0]
        b = np.take_along_axis(reps, hi[None, :], axis=0)[0]
        out[i, ok] = (a + (b - a) * frac)[ok]
    return out


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
    >>> from evaluation.science.stats import holm
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
    >>> from evaluation.science.stats import floor_delta
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
    >>> from evaluation.science.stats import nanmean_rows
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
        >>> from evaluation.science.stats import tie_groups
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
        >>> from evaluation.science.stats import tie_groups
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
    >>> from evaluation.science.stats import tie_groups
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
    >>> from evaluation.science.stats import split_counts, tie_groups
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
    >>> from evaluation.science.stats import mann_whitney
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
    >>> from evaluation.science.stats import nanmean_counts
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
