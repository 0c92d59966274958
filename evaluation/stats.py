"""Statistics beyond the paper: seeded bootstrap confidence intervals and Holm's correction.

The bootstrap resamples questions with replacement, within strata (a partition, a frame, the hard
and the easy side of a factor), and is vectorized: each block of replicates is a weights matrix
(replicates x questions, counts of draws) multiplied with the score matrix (questions x columns).
Undefined scores (NaN, e.g. unlabeled predictions) are left out of each replicate's mean, exactly as
in the point estimate.
"""
from __future__ import annotations

import math

import numpy as np

DEFAULT_BOOT = 1000
CI_LEVEL = 0.95


def _block_weights(rng, n_rows: int, n_reps: int) -> np.ndarray:
    """(n_reps, n_rows) draw counts of a bootstrap resample of n_rows rows, each row of it."""
    draws = rng.integers(0, n_rows, size=(n_reps, n_rows), dtype=np.int64)
    draws += np.arange(n_reps, dtype=np.int64)[:, None] * n_rows
    flat = draws
    return np.bincount(flat.ravel(), minlength=n_reps * n_rows).reshape(n_reps, n_rows).astype(np.float32)


def stratified_bootstrap_means(X: np.ndarray, groups: np.ndarray, n_boot: int = DEFAULT_BOOT, seed: int = 0,
                               cells: int = 2_000_000) -> dict:
    """Bootstrap replicates of the column means of ``X`` within each group.

    ``X``: (rows, columns) floats, NaN = undefined; ``groups``: an integer code per row (negative =
    left out).
    Returns ``{group: array (n_boot, columns)}`` of replicate means (NaN where a replicate drew no
    defined value).
    """
    rng = np.random.default_rng(seed)
    X = np.asarray(X, dtype=float)
    groups = np.asarray(groups)
    defined = ~np.isnan(X)
    X0 = np.where(defined, X, 0.0).astype(np.float32)
    M = defined.astype(np.float32)
    out = {}
    for g in np.unique(groups[groups >= 0]):
        rows = np.flatnonzero(groups == g)
        xs, ms = X0[rows], M[rows]
        all_defined = bool(ms.all())
        reps = np.empty((n_boot, X.shape[1]))
        block = max(1, min(n_boot, cells // max(1, len(rows))))  # replicates per weights matrix
        for start in range(0, n_boot, block):
            n = min(block, n_boot - start)
            W = _block_weights(rng, len(rows), n)
            sums = W @ xs
            counts = np.full_like(sums, len(rows)) if all_defined else W @ ms
            with np.errstate(invalid="ignore", divide="ignore"):
                reps[start:start + n] = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        out[int(g)] = reps
    return out


def percentile_ci(replicates: np.ndarray, level: float = CI_LEVEL) -> np.ndarray:
    """(2, columns): the lower and upper percentile bounds, NaN where every replicate is NaN."""
    tail = (1 - level) / 2 * 100
    reps = np.asarray(replicates, dtype=float)
    out = np.full((2, reps.shape[1]), np.nan)
    ok = ~np.isnan(reps).all(axis=0)
    if ok.any():
        out[:, ok] = np.nanpercentile(reps[:, ok], [tail, 100 - tail], axis=0)
    return out


def holm(p_values) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1). NaN stays NaN and is
    not counted in the family size."""
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
    """delta = floor(100 x diff), as in the paper; the product is rounded to 9 decimals first so
    that a difference of exactly -0.03 is -3, not -4 (binary floating point)."""
    if diff is None or not math.isfinite(diff):
        return None
    return int(math.floor(round(100 * diff, 9)))
