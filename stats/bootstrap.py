"""Seeded bootstrap confidence intervals (beyond the paper): the report's resampling of the questions.

The bootstrap resamples the questions with replacement, and every statistic of the report (a
system's mean, a partition's, a frame's, the two sides of a factor) is computed on the same
resamples. It is vectorized: each block of replicates is a weights matrix (replicates x questions,
counts of draws) multiplied with the score matrices (questions x columns), all columns of a
group in one product; cost B x n x columns, linear in the questions.
Undefined scores (NaN, e.g. unlabeled predictions) are left out of each replicate's mean, exactly as
in the point estimate. The tests of significance (Mann-Whitney U, Holm) are ``stats.significance``.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from stats.intervals import LEVEL

DEFAULT_BOOT = 1000


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
    >>> from stats.bootstrap import cells_of
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


def percentile_ci(replicates: np.ndarray, level: float = LEVEL) -> np.ndarray:
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
