"""Statistics beyond the paper: seeded bootstrap confidence intervals and Holm's correction.

The bootstrap resamples the questions with replacement, and every statistic of the report (a
system's mean, a partition's, a frame's, the two sides of a factor) is computed on the same
resamples. It is vectorized: each block of replicates is a weights matrix (replicates x questions,
counts of draws) multiplied with the score matrices (questions x columns).
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


def bootstrap_group_means(tasks: dict, n_rows: int, n_boot: int = DEFAULT_BOOT, seed: int = 0,
                          cells: int = 4_000_000) -> dict:
    """Bootstrap replicates of group means, every statistic on the same resamples of the rows.

    ``tasks``: ``{name: (X, codes)}`` with ``X`` (n_rows x columns) floats (NaN = undefined) and
    ``codes`` an integer group per row (negative = in no group). Each replicate draws n_rows rows
    with replacement (the questions of a new corpus); a group's replicate mean is the weighted mean
    of its drawn rows' defined values. Returns ``{name: {group: array (n_boot, columns)}}`` (NaN
    where a replicate drew no defined value of the group).
    """
    rng = np.random.default_rng(seed)
    prepared = {}
    for name, (X, codes) in tasks.items():
        X = np.asarray(X, dtype=float)
        codes = np.asarray(codes)
        groups = {}
        for g in np.unique(codes[codes >= 0]):
            rows = np.flatnonzero(codes == g)
            sub = X[rows]
            defined = ~np.isnan(sub)
            masks = None
            if not defined.all():  # counts are needed per distinct pattern of defined values only
                patterns, inverse = np.unique(defined, axis=1, return_inverse=True)
                masks = (patterns.astype(np.float32), inverse.ravel())
            groups[int(g)] = (rows, np.where(defined, sub, 0.0).astype(np.float32), masks)
        prepared[name] = groups
    out = {name: {g: np.empty((n_boot, v[1].shape[1])) for g, v in groups.items()} for name, groups in prepared.items()}
    block = max(1, min(n_boot, cells // max(1, n_rows)))
    for start in range(0, n_boot, block):
        n = min(block, n_boot - start)
        W = _block_weights(rng, n_rows, n)
        for name, groups in prepared.items():
            for g, (rows, xs, ms) in groups.items():
                Wg = W[:, rows]
                sums = Wg @ xs
                if ms is None:
                    counts = np.repeat(Wg.sum(axis=1, keepdims=True), xs.shape[1], axis=1)
                else:
                    counts = (Wg @ ms[0])[:, ms[1]]
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[name][g][start:start + n] = np.where(counts > 0, sums / np.maximum(counts, 1e-12), np.nan)
    return out


def percentile_ci(replicates: np.ndarray, level: float = CI_LEVEL) -> np.ndarray:
    """(2, columns): lower and upper percentile bounds (linear interpolation, as numpy's default),
    NaN replicates left out, NaN where every replicate is NaN. Vectorized over columns."""
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
