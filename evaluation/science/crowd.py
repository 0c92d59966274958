"""Labels from a crowd (SPEC 17): Dawid-Skene with fixed gold, the ``ds`` refusal rule, the spammer
score, crowd sensitivity and the two-way bootstrap. Pure numpy, no database.

Labels are given as integer codes: ``task`` (the triplet, ``0 <= task < n_tasks``), ``worker`` and
``label`` (0 correct, 1 partial, 2 incorrect: ``human.LABEL_CODES``), one row per (task, worker)
(``human.latest_labels`` keeps the last one).

``dawid_skene`` starts and stops exactly as ``crowdkit.aggregation.DawidSkene(n_iter=500,
tol=1e-7)`` of crowd-kit 1.4.2 (not a copy of its code: the same algorithm on integer codes):
majority-vote initialisation (share of each label per task), gold rows set one-hot, priors the mean
posterior, an M step whose (worker, observed label) counts are clipped at 1e-10 before each true
class's column is normalised over the labels that worker gave, an E step in log space, and after
each M step the evidence lower bound divided by the number of labels; it stops as soon as that
bound grew by less than ``tol`` (or fell), or after ``n_iter`` rounds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

EPS = 1e-10  # crowd-kit 1.4.2's ``_EPS``
N_ITER, TOL = 500, 1e-7
N_CLASSES = 3  # correct, partial, incorrect (``human.LABEL_CODES`` order)
VALUES = np.array([1.0, 0.5, 0.0])  # the value of each class (SPEC 3)
SPAMMER_FLAG = 0.1  # below this spammer score the labels carry (almost) no information
MIN_SHARE_TWO = 0.5  # ``ds`` needs 2+ labels on at least this share of the labelled triplets


@dataclass
class DSFit:
    """One Dawid-Skene fit.

    ``posteriors``: (n_tasks, 3) probability of each true class (NaN rows for tasks without a
    label); ``priors``: (3,); ``confusion``: (n_workers, 3 true, 3 given), each row sums to 1 over the
    labels the worker gave (a class absent from the data has prior 0); ``losses``: the bound per
    round; ``n_rounds``: rounds run.
    """

    posteriors: np.ndarray
    priors: np.ndarray
    confusion: np.ndarray
    losses: list
    n_rounds: int


def _codes(task, worker, label):
    task, worker, label = (np.asarray(a, dtype=np.int64) for a in (task, worker, label))
    if not (len(task) == len(worker) == len(label)):
        raise ValueError("task, worker and label need the same length")
    if len(label) and (label.min() < 0 or label.max() >= N_CLASSES):
        raise ValueError("label codes must be 0 (correct), 1 (partial) or 2 (incorrect)")
    return task, worker, label


def _m_step(probas, task, *, cell, observed, n_workers, k):
    """Confusion (workers, true, given) from the posteriors: counts clipped at EPS where the worker
    gave that label, normalised per true class over the labels the worker gave."""
    counts = np.stack([np.bincount(cell, weights=probas[task, c], minlength=n_workers * k) for c in range(k)], 1)
    counts = np.where(observed[:, None], np.maximum(counts, EPS), 0.0)
    counts = counts.reshape(n_workers, k, k)  # (worker, given, true)
    with np.errstate(invalid="ignore"):  # a worker code without labels: a NaN row, never read
        return counts / counts.sum(axis=1, keepdims=True)


def _e_step(priors, log_err, task, *, n_tasks):
    """Posteriors from the priors and each label's log-likelihood per true class."""
    ll = np.stack([np.bincount(task, weights=log_err[:, c], minlength=n_tasks) for c in range(log_err.shape[1])], 1)
    ll = ll + np.log(np.maximum(priors, EPS))
    ll = np.exp(ll - ll.max(axis=1, keepdims=True))
    return ll / ll.sum(axis=1, keepdims=True)


def _fix_gold(probas, gold_rows, gold_cols):
    if len(gold_rows):
        probas[gold_rows] = 0.0
        probas[gold_rows, gold_cols] = 1.0
    return probas


def _bound(probas, priors, *, log_err, task):
    """crowd-kit's evidence lower bound: expected complete log-likelihood plus the entropy."""
    joint = float((probas[task] * (log_err + np.log(np.maximum(priors, EPS)))).sum())
    clipped = np.maximum(probas, EPS)
    return joint - float((np.log(clipped) * clipped).sum())


def dawid_skene(task, worker, label, *, n_tasks=None, gold=None, n_iter=N_ITER, tol=TOL) -> DSFit:
    """Dawid-Skene by EM (SPEC 17), as crowd-kit 1.4.2's ``DawidSkene(n_iter, tol)``, gold fixed.

    Parameters
    ----------
    task, worker, label : array-like of int
        One row per label (one per task and worker); worker codes ``0..n_workers-1``.
    n_tasks : int, optional
        Number of task codes (default: ``max(task) + 1``).
    gold : array-like of int, optional
        Per task, the known class code or -1: that task's posterior is one-hot at every round.

    Returns
    -------
    DSFit
        ``ValueError`` for codes out of range.

    Examples
    --------
    >>> fit = dawid_skene([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [0, 0, 2, 2, 2, 0])
    >>> fit.posteriors.round(3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    task, worker, label = _codes(task, worker, label)
    n_tasks = int(task.max()) + 1 if n_tasks is None and len(task) else int(n_tasks or 0)
    n_workers = int(worker.max()) + 1 if len(worker) else 0
    if len(task) > 1 and (task[1:] < task[:-1]).any():
        # the labels in task order: every round's sums per task and gathers of a task's posterior
        # then walk memory in order (a two-way replicate's rows come worker by worker: 1.6x faster at
        # 10x SQuAD dev, where the arrays outgrow the caches; the same fit, summed in another order)
        order = np.argsort(task, kind="stable")
        task, worker, label = task[order], worker[order], label[order]
    posteriors = np.full((n_tasks, N_CLASSES), np.nan)
    if not len(task):
        return DSFit(posteriors, np.full(N_CLASSES, np.nan), np.zeros((0, N_CLASSES, N_CLASSES)), [], 0)
    has = np.bincount(task, minlength=n_tasks) > 0
    gold = np.full(n_tasks, -1) if gold is None else np.asarray(gold, dtype=np.int64)
    # the classes of the data (crowd-kit's columns), gold's known classes included
    present = np.union1d(np.unique(label), np.unique(gold[has & (gold >= 0)]))
    k = len(present)
    index = np.full(N_CLASSES, -1)
    index[present] = np.arange(k)
    t_code = np.cumsum(has) - 1  # tasks with a label, compacted
    t, lab = t_code[task], index[label]
    n_t = int(has.sum())
    g = gold[has]
    gold_rows = np.flatnonzero(g >= 0)
    gold_cols = index[g[gold_rows]]
    cell = worker * k + lab
    observed = np.bincount(cell, minlength=n_workers * k) > 0
    counts = np.stack([np.bincount(t, weights=(lab == c).astype(float), minlength=n_t) for c in range(k)], 1)
    probas = _fix_gold(counts / counts.sum(axis=1, keepdims=True), gold_rows, gold_cols)
    priors = probas.mean(axis=0)
    err = _m_step(probas, t, cell=cell, observed=observed, n_workers=n_workers, k=k)
    loss, losses = -np.inf, []
    for _ in range(n_iter):
        with np.errstate(divide="ignore"):
            log_err = np.log(err[worker, lab])  # (labels, true)
        probas = _fix_gold(_e_step(priors, log_err, t, n_tasks=n_t), gold_rows, gold_cols)
        priors = probas.mean(axis=0)
        err = _m_step(probas, t, cell=cell, observed=observed, n_workers=n_workers, k=k)
        with np.errstate(divide="ignore"):
            log_err = np.log(err[worker, lab])
        new_loss = _bound(probas, priors, log_err=log_err, task=t) / len(task)
        losses.append(new_loss)
        if new_loss - loss < tol:
            break
        loss = new_loss
    posteriors[np.ix_(has, present)] = probas
    posteriors[np.ix_(has, np.setdiff1d(np.arange(N_CLASSES), present))] = 0.0
    full_priors = np.zeros(N_CLASSES)
    full_priors[present] = priors
    confusion = np.zeros((n_workers, N_CLASSES, N_CLASSES))
    confusion[np.ix_(np.arange(n_workers), present, present)] = err.transpose(0, 2, 1)  # (worker, true, given)
    return DSFit(posteriors, full_priors, confusion, losses, len(losses))


def ds_refusal(n_labels) -> str | None:
    """Why ``ds`` is refused for these per-triplet label counts (SPEC 17), or None when it is not.

    Parameters
    ----------
    n_labels : array-like of int
        The number of labels of each triplet (0: not labelled, left out).

    Returns
    -------
    str or None
        SPEC 17's message with the counts, or None when at least half of the labelled triplets
        have two labels or more.

    Examples
    --------
    >>> ds_refusal([1, 1, 2]) is not None, ds_refusal([2, 2, 1])
    (True, None)
    """
    n = np.asarray(n_labels)
    labelled, two = int((n > 0).sum()), int((n >= 2).sum())
    if labelled and two >= MIN_SHARE_TWO * labelled:
        return None
    return (
        f"human_aggregate ds needs at least 2 labels on at least half of the labelled triplets; "
        f"{two} of {labelled} labelled triplets have 2 or more"
    )


def spammer_score(confusion) -> np.ndarray:
    """Per worker, the distance of its confusion matrix (true x given) from a rank-one matrix:
    the mean squared difference between the rows of two true classes, scaled so that a perfect
    annotator scores 1 and one whose labels do not depend on the truth scores 0 (Raykar & Yu 2012).

    Parameters
    ----------
    confusion : array-like
        (workers, k, k) confusion matrices, rows the true classes; give only the classes present
        (a class with prior 0 has an empty row, which would count as a difference).

    Returns
    -------
    numpy.ndarray
        One score per worker, in [0, 1].

    Examples
    --------
    >>> spammer_score(np.array([np.eye(3), np.full((3, 3), 1 / 3)])).round(3).tolist()
    [1.0, 0.0]
    """
    confusion = np.asarray(confusion, dtype=float)
    k = confusion.shape[1]
    diffs = [((confusion[:, a] - confusion[:, b]) ** 2).sum(axis=1) for a in range(k) for b in range(a + 1, k)]
    return np.sum(diffs, axis=0) / (k * (k - 1)) if diffs else np.zeros(len(confusion))


def ds_accuracy(fit: DSFit) -> np.ndarray:
    """Per worker, the estimated probability that its label is the true one (priors-weighted).

    Parameters
    ----------
    fit : DSFit
        A ``dawid_skene`` fit.

    Returns
    -------
    numpy.ndarray
        Sum over the true classes of prior x the worker's probability of giving that class.

    Examples
    --------
    >>> fit = dawid_skene([0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 2, 0], gold=[0, 2])
    >>> ds_accuracy(fit).round(2).tolist()
    [1.0, 0.5]
    """
    diag = np.diagonal(fit.confusion, axis1=1, axis2=2)
    return (diag * np.nan_to_num(fit.priors)).sum(axis=1)


def resample_workers(codes, rng):
    """One draw of the workers with replacement: the rows of each drawn worker, each copy a new
    worker (so a worker drawn twice counts as two).

    Parameters
    ----------
    codes : tuple
        ``(task, worker, label)`` integer codes.
    rng : numpy.random.Generator
        The draw.

    Returns
    -------
    tuple of numpy.ndarray
        ``(task, worker, label)`` of the drawn rows, workers renumbered by copy.

    Examples
    --------
    >>> t, w, lab = resample_workers(([0, 1, 0], [0, 0, 1], [0, 2, 1]), np.random.default_rng(0))
    >>> len(t) in (2, 3, 4), sorted(set(w.tolist())) == list(range(len(set(w.tolist()))))
    (True, True)
    """
    task, worker, label = _codes(*codes)
    names, worker = np.unique(worker, return_inverse=True)
    order = np.argsort(worker, kind="stable")
    starts = np.searchsorted(worker[order], np.arange(len(names) + 1))
    drawn = rng.integers(len(names), size=len(names))
    rows = [order[starts[w] : starts[w + 1]] for w in drawn]
    copy = np.repeat(np.arange(len(drawn)), [len(r) for r in rows])
    rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    return task[rows], copy, label[rows]


def _system_means(values, pred_task, fixed=None):
    """Per system (column of ``pred_task``) the mean of its predictions' task values (-1: none),
    a prediction with a value in ``fixed`` (same shape, NaN elsewhere) taking that value."""
    per = np.append(np.asarray(values, dtype=float), np.nan)[pred_task]  # -1: no triplet, NaN
    if fixed is not None:
        per = np.where(np.isnan(fixed), per, fixed)
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):  # all-NaN column
        return np.nanmean(per, axis=0)


def two_way_bootstrap(codes, pred_task, score_fn, *, n_boot=200, seed=0, level=0.95, fixed=None):
    """Intervals of each system's mean human score and correct-share under crowd labels (SPEC 17):
    per replicate the workers are drawn with replacement, then the questions, and the aggregation
    is refitted (``score_fn``); the interval is the replicates' percentile interval moved so that
    the replicates' median sits on the estimate from all the labels.

    Why moved: a replicate's workers come with replacement from the whole study, so a triplet gets
    0, 1, 2, ... labels instead of its study's 3 and a drawn-twice worker's copies agree perfectly.
    ``mean`` does not care (its replicates centre on its estimate), but Dawid-Skene's posteriors of
    a triplet with fewer labels lean towards the corpus-wide prior: on simulated panels
    (``bench/crowd_bench.py``) the refitted ``ds`` Hscores sat 0.5 to 1.2 points below the estimate
    from all the labels, as much as the spread the workers add, and the plain percentile interval
    missed the truth on that side. The spread comes from the replicates, the centre from the labels.

    Parameters
    ----------
    codes : tuple
        ``(task, worker, label, gold)`` integer codes (``gold`` per task, -1 where none).
    pred_task : numpy.ndarray
        (questions, systems) task code of each prediction, -1 where it has no triplet.
    score_fn : callable
        ``score_fn((task, worker, label, gold), n_tasks) -> (score, correct)`` per task (NaN where a
        task has no label), or None when the aggregation is refused for that replicate (skipped).
    n_boot, seed, level : int, int, float
        Replicates, seed, interval level.
    fixed : tuple of numpy.ndarray, optional
        ``(score, correct)``, each shaped as ``pred_task``: the values of predictions scored by rule
        (empty answers, SPEC 1), NaN for the others; resampled with their questions.

    Returns
    -------
    dict
        ``score`` and ``correct``: (systems, 2) low and high bounds (NaN where no replicate gave a
        value); ``score_shift`` and ``correct_shift``: per system how far the percentile interval
        was moved (estimate minus the replicates' median); ``n_boot``: replicates used. When the
        aggregation is refused for all the labels, the plain percentile interval (no shift).

    Examples
    --------
    >>> mean = lambda c, n: (np.bincount(c[0], 1.0 - np.asarray(c[2]) / 2, n) / np.bincount(c[0], None, n),) * 2
    >>> codes = ([0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 2, 1], [-1, -1])
    >>> out = two_way_bootstrap(codes, np.array([[0], [1]]), mean, n_boot=50)
    >>> out["n_boot"], bool((out["score"][:, 0] <= out["score"][:, 1]).all())
    (50, True)
    """
    task, worker, label, gold = codes
    task, worker, label = _codes(task, worker, label)
    gold = np.asarray(gold, dtype=np.int64)
    pred_task = np.asarray(pred_task, dtype=np.int64)
    n_q, n_s = pred_task.shape
    rng = np.random.default_rng(seed)
    scores, corrects = [], []
    fixed = (None, None) if fixed is None else tuple(np.asarray(f, dtype=float) for f in fixed)
    for _ in range(n_boot):
        t, w, lab = resample_workers((task, worker, label), rng)
        got = score_fn((t, w, lab, gold), len(gold))
        if got is None:
            continue
        drawn = rng.integers(n_q, size=n_q)
        for values, out, rule in zip(got, (scores, corrects), fixed):
            out.append(_system_means(values, pred_task[drawn], None if rule is None else rule[drawn]))
    full = score_fn((task, worker, label, gold), len(gold))
    alpha = (1 - level) / 2
    result = {"n_boot": len(scores)}
    for i, (name, values) in enumerate((("score", scores), ("correct", corrects))):
        reps = np.array(values).reshape(-1, n_s)
        shift = np.zeros(n_s)
        with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
            bounds = np.nanquantile(reps, [alpha, 1 - alpha], axis=0).T if len(reps) else np.full((n_s, 2), np.nan)
            if full is not None and len(reps):
                shift = np.nan_to_num(_system_means(full[i], pred_task, fixed[i]) - np.nanmedian(reps, axis=0))
        result[name], result[f"{name}_shift"] = bounds + shift[:, None], shift
    return result
