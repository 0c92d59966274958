"""Watching the live page while labels arrive (SPEC 16), on the real SQuAD v1.1 dev answers: how often
the fixed-n 95% intervals and the confidence sequences ever exclude a system's true Hscore, or ever
call a pair settled in the wrong order, and how many labels each needs to settle the ranking.

    .venv/bin/python bench/anytime_bench.py              # 500 runs, the page read after every 10 labels
    .venv/bin/python bench/anytime_bench.py --runs 50 --every 10 --judge 0.85

Simulation (per run), every triplet of the 10 systems + reference of SQuAD v1.1 dev, deduplicated
as the platform does (``bench/ppi_bench.load``):
- the **true label** of a triplet comes from the real answer and the references (correct when EM = 1,
  partial when F1 >= 0.4, else incorrect);
- a **human** gives the true label with probability 0.9; a wrong label is an *adjacent* one (correct
  or incorrect -> partial, partial -> correct or incorrect at random): people confuse neighbours;
- the **judge** labels every triplet as in ``bench/ppi_bench.py``: the true label with probability q
  (``--judge``, default 0.85), else one of the two others at random;
- **labels arrive in random order**: one label per triplet, the triplets in a random permutation (the
  platform serves folds in random order), up to ``--max-share`` of them;
- the **page is read** after every ``--every`` labels, from the moment a system has 30 labels.
The truth of a system is its Hscore once every one of its predictions is labelled by that run's humans
(the finite population of SPEC 16). At each read the page shows, per system:
- *fixed PPI*: today's fixed-n 95% interval around the PPI++ estimate (SPEC 10, ``ppi.estimate``'s
  formula on running sums), *fixed classical*: mean +- 1.96 sd / sqrt(n);
- *sequence PPI* and *sequence classical*: SPEC 16 (``anytime.radius``; alpha 0.05 / 11 systems;
  n_plan = the system's predictions, as the app's default when every triplet is in an answer fold).
A run **ever misses** when some system's interval excludes its truth at some read; it **ever calls a
wrong pair** when at some read two systems' intervals are apart in the order opposite to (or with a
tie of) their truths. **Labels to settle**: the first read at which every pair is apart (the ranking
settled), in triplets labelled; runs that never settle within the budget are counted apart.
Every statistic is computed with numpy on running sums (vectorised over reads).
"""

import argparse
import itertools
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from ppi_bench import SCORES, SQUAD, load, noisy  # noqa: E402  (sets up Django)

from evaluation.science import anytime, ppi  # noqa: E402

HUMAN_ACCURACY = 0.9
Z = ppi.Z95
METHODS = ("fixed classical", "fixed PPI", "sequence classical", "sequence PPI")
# The researcher's report: every system (near-ties included: some pairs differ by 0.001 in Hscore and
# never settle), or six whose ranking can settle within the corpus.
SCENARIOS = {
    "all 11 systems": None,
    "6 systems apart": ("reference", "bert-ens", "rnet-plus-ens", "coattention", "dcr", "logreg-baseline"),
}


def adjacent_noisy(truth, accuracy, rng):
    """Human labels (indices into SCORES: 0 correct, 1 partial, 2 incorrect): the true one with
    probability ``accuracy``, else an adjacent one (0 or 2 -> 1; 1 -> 0 or 2 at random)."""
    out = truth.copy()
    wrong = rng.random(len(truth)) >= accuracy
    to_partial = wrong & (truth != 1)
    out[to_partial] = 1
    from_partial = wrong & (truth == 1)
    out[from_partial] = np.where(rng.random(from_partial.sum()) < 0.5, 0, 2)
    return out


def _running(values, n):
    """Running sums of ``values`` (in label order) read at counts ``n`` (0 -> 0)."""
    c = np.concatenate([[0.0], np.cumsum(values)])
    return c[n]


def system_reads(h, f, times, reads, *, alpha_s, n_plan):
    """Per read (labels so far in ``reads``): n and the four intervals of one system.

    ``h``, ``f``: human and judge scores of its predictions; ``times``: when each prediction's triplet
    is labelled (its position in the arrival order). Returns n and a dict method -> (low, high)."""
    order = np.argsort(times, kind="stable")
    hs, fs = h[order], f[order]
    n = np.searchsorted(times[order], reads, side="left")  # predictions labelled before each read
    big_n = len(h)
    s_h, s_f = _running(hs, n), _running(fs, n)
    s_hh, s_ff, s_hf = _running(hs * hs, n), _running(fs * fs, n), _running(hs * fs, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        nn = n.astype(float)
        m_h, m_f = s_h / nn, s_f / nn
        var_h = (s_hh - nn * m_h**2) / (nn - 1)
        var_f = (s_ff - nn * m_f**2) / (nn - 1)
        cov = (s_hf - nn * m_h * m_f) / (nn - 1)
        var_h, var_f = np.maximum(var_h, 0), np.maximum(var_f, 0)
        out = {}
        half = Z * np.sqrt(var_h / nn)
        out["fixed classical"] = (m_h - half, m_h + half)
        # PPI++ (SPEC 10): lambda with (1 + n / N_u) and the variance of f over all N predictions
        nu = big_n - nn
        f_all_sum, f_all_sq = f.sum(), (f * f).sum()
        var_all = (f_all_sq - f_all_sum**2 / big_n) / (big_n - 1)
        lam = np.clip(cov / ((1 + nn / nu) * var_all), 0, 1) if var_all > 0 else np.zeros_like(nn)
        lam = np.where(np.isfinite(lam), lam, 0.0)
        m_fu = (f_all_sum - s_f) / nu
        var_fu = np.maximum(((f_all_sq - s_ff) - nu * m_fu**2) / (nu - 1), 0)
        var_x = np.maximum(var_h - 2 * lam * cov + lam**2 * var_f, 0)
        theta = m_h - lam * m_f + lam * m_fu
        half = Z * np.sqrt(var_x / nn + lam**2 * var_fu / nu)
        few_left = nu < 2  # SPEC 10: with fewer than two unlabelled predictions, the classical estimate only
        theta = np.where(few_left, m_h, theta)
        half = np.where(few_left, Z * np.sqrt(var_h / nn), half)
        out["fixed PPI"] = (theta - half, theta + half)
        # SPEC 16
        radius = anytime.radius(np.maximum(nn, 1), np.sqrt(var_h), alpha=alpha_s, n_plan=n_plan)
        out["sequence classical"] = (m_h - radius, m_h + radius)
        lam16 = np.where(var_f > 0, np.clip(cov / var_f, 0, 1), 0.0)
        lam16 = np.where(np.isfinite(lam16), lam16, 0.0)
        var_x16 = np.maximum(var_h - 2 * lam16 * cov + lam16**2 * var_f, 0)
        est = lam16 * f.mean() + m_h - lam16 * m_f
        radius = anytime.radius(np.maximum(nn, 1), np.sqrt(var_x16), alpha=alpha_s, n_plan=n_plan)
        out["sequence PPI"] = (est - radius, est + radius)
    shown = n >= anytime.MIN_LABELS
    for key, (lo, hi) in out.items():
        out[key] = (np.where(shown, lo, np.nan), np.where(shown, hi, np.nan))
    return n, out


def one_run(data, rng, args):
    """One run: (ever missed, ever wrong pair, labels to settle or None, share of pairs settled at the
    last read) per method."""
    systems, _scode, tcode, truth, groups = data
    n_triplets = len(truth)
    h_t = SCORES[adjacent_noisy(truth, HUMAN_ACCURACY, rng)]
    f_t = SCORES[noisy(truth, args.judge, rng)]
    when = rng.permutation(n_triplets)  # position of each triplet in the arrival order
    budget = int(args.max_share * n_triplets)
    reads = np.arange(args.every, budget + 1, args.every)
    k = len(systems)
    bounds = {m: (np.full((k, len(reads)), np.nan), np.full((k, len(reads)), np.nan)) for m in METHODS}
    targets = np.empty(k)
    for s, idx in enumerate(groups):
        h, f = h_t[tcode[idx]], f_t[tcode[idx]]
        targets[s] = h.mean()
        plan = args.n_plan or len(idx)
        _n, out = system_reads(h, f, when[tcode[idx]], reads, alpha_s=0.05 / k, n_plan=plan)
        for m in METHODS:
            bounds[m][0][s], bounds[m][1][s] = out[m]
    result = {}
    pairs = list(itertools.combinations(range(k), 2))
    a_idx, b_idx = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    for m in METHODS:
        lo, hi = bounds[m]
        with np.errstate(invalid="ignore"):
            missed = bool(np.any((lo > targets[:, None]) | (hi < targets[:, None])))
            a_ahead = lo[a_idx] > hi[b_idx]  # (pairs, reads): a called ahead of b
            b_ahead = lo[b_idx] > hi[a_idx]
        ta, tb = targets[a_idx][:, None], targets[b_idx][:, None]
        wrong = bool(np.any((a_ahead & (ta <= tb)) | (b_ahead & (tb <= ta))))
        settled = np.all(a_ahead | b_ahead, axis=0)
        first = np.flatnonzero(settled)
        last = (a_ahead | b_ahead)[:, -1].mean()
        result[m] = (missed, wrong, int(reads[first[0]]) if len(first) else None, float(last))
    return result


def run(args):
    systems, scode, tcode, truth = load(SQUAD)
    print(
        f"\n{args.runs} runs; humans {HUMAN_ACCURACY:.0%} right (adjacent errors), judge {args.judge:.2f}; "
        f"the page read every {args.every} labels up to {args.max_share:.0%} of {len(truth):,} triplets; "
        f"alpha 0.05 / K for the sequences; n_plan {args.n_plan or 'each system s predictions'}"
    )
    bad = []
    for scenario, names in SCENARIOS.items():
        chosen = [s for s, name in enumerate(systems) if names is None or name in names]
        groups = [np.flatnonzero(scode == s) for s in chosen]
        data = ([systems[s] for s in chosen], scode, tcode, truth, groups)
        rng = np.random.default_rng(args.seed)
        t0 = time.perf_counter()
        tallies = {m: {"missed": 0, "wrong": 0, "settle": [], "last": []} for m in METHODS}
        for _ in range(args.runs):
            for m, (missed, wrong, settle, last) in one_run(data, rng, args).items():
                tallies[m]["missed"] += missed
                tallies[m]["wrong"] += wrong
                tallies[m]["settle"].append(settle)
                tallies[m]["last"].append(last)
        seconds = time.perf_counter() - t0
        k = len(chosen)
        print(f"\n{scenario} (K = {k}, {k * (k - 1) // 2} pairs), {args.runs} runs in {seconds:.1f} s")
        print_table(tallies, args.runs)
        bad += [
            f"{scenario}: {m}"
            for m in METHODS
            if m.startswith("sequence") and max(tallies[m]["missed"], tallies[m]["wrong"]) > 0.05 * args.runs
        ]
    print("\nsequences' error rate under watching <= 5% (systems and pairs):", "yes" if not bad else f"NO ({bad})")
    return 0 if not bad else 1


def print_table(tallies, runs):
    print(
        "| read after every batch | ever excludes a truth | ever calls a wrong pair settled "
        "| pairs settled at the end | ranking settled | labels to settle it (median) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for m in METHODS:
        t = tallies[m]
        settled = [s for s in t["settle"] if s is not None]
        median = f"{int(np.median(settled)):,}" if settled else "never"
        print(
            f"| {m} | {t['missed'] / runs:.1%} | {t['wrong'] / runs:.1%} | {np.mean(t['last']):.0%} "
            f"| {len(settled) / runs:.0%} of runs | {median} |"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--every", type=int, default=10, help="read the page after every this many labels")
    parser.add_argument("--judge", type=float, default=0.85, help="the judge's accuracy")
    parser.add_argument("--max-share", type=float, default=1.0, help="label at most this share of the triplets")
    parser.add_argument("--n-plan", type=int, default=None, help="default: each system's predictions")
    parser.add_argument("--seed", type=int, default=0)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
