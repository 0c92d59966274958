"""Active statistical inference (SPEC 12) on the real SQuAD v1.1 dev data, with simulated humans and
simulated judges that state their confidence: coverage of the 95% intervals over many seeds, and the
human labels needed for a +-2 point Hscore interval by the classical estimate, uniform PPI++ (SPEC 10)
and the active design.

    .venv/bin/python bench/active_bench.py                 # 500 seeds, a budget of 5% of the triplets
    .venv/bin/python bench/active_bench.py --seeds 40      # the short form
    .venv/bin/python bench/active_bench.py --human-accuracy 1.0

Simulation (per seed, every triplet of the 10 systems + reference, deduplicated as the platform does;
the true label as in ``bench/ppi_bench.py``: correct when EM = 1, partial when F1 >= 0.4, else incorrect):
- a **human** gives the true label with probability ``--human-accuracy`` (0.9), else one of the two
  others at random;
- a **calibrated judge** of accuracy a draws, per triplet, a confidence c ~ Beta(k a, k (1 - a))
  (mean a, ``--concentration`` k = 4); it names the true label with probability c, else one of the
  two others at random, and states q = c on its label and (1 - c) / 2 on each other one, so that
  P(true label = v | q) = q_v exactly: its stated confidence is calibrated against the truth
  (``--calibration truth``); by default (``--calibration human``) it states that q passed through the
  humans' errors, q_h = a_h q + (1 - a_h) / 2 (1 - q), so that P(human label = v | q_h) = q_h,v: the
  judge is calibrated against the label the estimate targets (a judge calibrated on human labels);
- the **over-confident** judge labels like the good one (c as for a = 0.85) but states
  c' = 1 - (1 - c) / 4: it claims a quarter of its real error;
- the **one-hot** judge is the good one without probabilities (q one-hot): the design falls back to
  uniform (``annotation.design.design``) and active is uniform inverse-probability weighting.
The budget B (``--label-share`` of the triplets) is spent by the design of ``evaluation.active``
(u from q, pi_min = 0.1 B / T, seeded Bernoulli draw); uniform PPI++ and the classical estimate get a
uniform random share of the same size. The target of each system is its Hscore if every triplet
had a human label (that seed's humans); coverage is the share of seeds x systems whose interval holds
it. The estimates are ``evaluation.active.estimate`` and ``evaluation.ppi.estimate`` themselves.

Labels needed for +-w (w = 0.02 Hscore), per system, from the expected variances at the optimal
lambda of each seed's labels (the first ``--need-seeds`` seeds, averaged): classical
n = var(h) / (w / 1.96)^2; uniform PPI++ as ``bench/ppi_bench.py``; active: the expected
variance [var(h) + mean((h - l f)^2 (1 - pi) / pi)] / N of the estimate of SPEC 12 on a grid of budgets,
and the system's expected human labels sum(pi) at the smallest budget that reaches (w / 1.96)^2.
"""

import argparse
import sys
import time

import numpy as np
from ppi_bench import SCORES, SQUAD, load, needed

from annotation import design
from evaluation.science import active, ppi

JUDGES = {
    "excellent (0.95, calibrated)": (0.95, "calibrated"),
    "good (0.85, calibrated)": (0.85, "calibrated"),
    "over-confident (0.85, claims 1/4 of its error)": (0.85, "overconfident"),
    "one-hot (0.85, no probabilities)": (0.85, "onehot"),
}
Z = active.Z95


def labels_of(truth, accuracy, rng):
    """Label indices: the true one with probability ``accuracy``, else one of the two others at random."""
    wrong = rng.random(truth.shape) >= accuracy
    return np.where(wrong, (truth + rng.integers(1, 3, truth.shape)) % 3, truth)


def judge_q(truth, judge, rng, args):
    """(T, 3) stated distributions q of a simulated judge (see the module docstring)."""
    accuracy, kind = judge
    k = args.concentration
    c = rng.beta(k * accuracy, k * (1 - accuracy), truth.shape)
    label = np.where(rng.random(truth.shape) < c, truth, (truth + rng.integers(1, 3, truth.shape)) % 3)
    stated = {"calibrated": c, "overconfident": 1 - (1 - c) / 4, "onehot": np.ones(truth.shape)}[kind]
    q = np.repeat(((1 - stated) / 2)[:, None], 3, axis=1)
    np.put_along_axis(q, label[:, None], stated[:, None], axis=1)
    if args.calibration == "human" and kind != "onehot":
        # q over the human's label: the true label passed through the humans' errors
        a = args.human_accuracy
        q = a * q + (1 - a) / 2 * (1 - q)
    return q


class Population:
    """SQuAD dev as the population: each seed draws its corpus of questions from it with replacement."""

    def __init__(self, systems, scode, tcode, truth, qcode):
        self.systems, self.truth = systems, truth
        order = np.argsort(qcode, kind="stable")
        self.scode, self.tcode, self.qcode = scode[order], tcode[order], qcode[order]
        self.n_questions = qcode.max() + 1
        self.ptr = np.concatenate([[0], np.cumsum(np.bincount(self.qcode, minlength=self.n_questions))])

    def targets(self, human_accuracy):
        """Per system: its expected Hscore over the population (E[h | true label] for humans that are
        ``human_accuracy`` right, averaged over the system's predictions)."""
        expected = human_accuracy * SCORES + (1 - human_accuracy) / 2 * (SCORES.sum() - SCORES)
        return np.bincount(self.scode, weights=expected[self.truth[self.tcode]]) / np.bincount(self.scode)

    def draw(self, rng):
        """One corpus: (system code, item triplet code, base triplet of each item triplet)."""
        drawn = rng.integers(0, self.n_questions, self.n_questions)
        counts = self.ptr[drawn + 1] - self.ptr[drawn]
        starts = np.repeat(self.ptr[drawn] - np.cumsum(counts) + counts, counts)
        rows = starts + np.arange(counts.sum())  # the predictions of each drawn question, copy by copy
        copy = np.repeat(np.arange(len(drawn)), counts)
        key = copy.astype(np.int64) * len(self.truth) + self.tcode[rows]
        keys, item = np.unique(key, return_inverse=True)
        return self.scode[rows], item, keys % len(self.truth)


def run_judge(name, population, args):
    """Coverage, widths and labels needed of one judge over every seed."""
    rng = np.random.default_rng(args.seed)
    targets = population.targets(args.human_accuracy)
    n_sys = len(population.systems)
    stats = {m: {"cover": 0, "width": 0.0} for m in ("classical", "ppi", "active", "active_half")}
    need = {m: np.zeros(n_sys) for m in ("classical", "ppi", "active")}
    fallback = None
    t0 = time.perf_counter()
    for seed in range(args.seeds):
        scode, item, base = population.draw(rng)
        truth = population.truth[base]
        h_t = SCORES[labels_of(truth, args.human_accuracy, rng)]
        q = judge_q(truth, JUDGES[name], rng, args)
        f_t, u_t = design.expected_score(q), design.uncertainty(q)
        pi_t, fallback = design.design(u_t, args.label_share * len(truth))
        xi_t = design.draw(pi_t, seed=int(rng.integers(2**32)))
        xi_half, pi_half, _ = design.live_design(pi_t, xi_t, rng.random(len(truth)) < 0.5)
        uniform_t = rng.random(len(truth)) < args.label_share
        for s in range(n_sys):
            t = item[scode == s]
            h, f = h_t[t], f_t[t]
            _cover(stats["active"], targets[s], active.estimate(h, f, xi=xi_t[t], pi=pi_t[t]))
            _cover(stats["active_half"], targets[s], active.estimate(h, f, xi=xi_half[t], pi=pi_half[t]))
            _uniform(stats, targets[s], (h, f, uniform_t[t]))
        if seed < args.need_seeds:
            _need(need, (h_t, f_t, u_t), (scode, item), args)
    total = args.seeds * n_sys
    for m in stats.values():
        m["cover"] /= total
        m["width"] /= total
    need = {m: v / min(args.need_seeds, args.seeds) for m, v in need.items()}
    return {"judge": name, "stats": stats, "need": need, "fallback": fallback, "seconds": time.perf_counter() - t0}


def _cover(stat, target, e):
    low, high = active.interval(e)
    stat["cover"] += int(low <= target <= high)
    stat["width"] += high - low


def _uniform(stats, target, arrays):
    """Classical and uniform PPI++ through ``evaluation.ppi.estimate``."""
    h, f, lab = arrays
    e = ppi.estimate(h[lab], f[lab], f[~lab])
    pairs = (("ppi", e["estimate"], e["variance"]), ("classical", e["classical"], e["classical_variance"]))
    for key, mean, var in pairs:
        half = Z * np.sqrt(var)
        stats[key]["cover"] += int(mean - half <= target <= mean + half)
        stats[key]["width"] += 2 * half


def _need(need, arrays, corpus, args):
    """Add one seed's labels needed per system (classical, uniform PPI++, active) to ``need``."""
    h_t, f_t, u_t = arrays
    scode, item = corpus
    target_var = (args.half_width / Z) ** 2
    grid = np.geomspace(0.002, 1.0, 60) * len(u_t)
    pi_grid, _ = design.design(np.broadcast_to(u_t, (len(grid), len(u_t))), grid)
    for s in range(len(need["classical"])):
        t = item[scode == s]
        h, f = h_t[t], f_t[t]
        n_cls, n_ppi = needed(h, f, args.half_width)
        need["classical"][s] += n_cls
        need["ppi"][s] += n_ppi
        pi = np.clip(pi_grid[:, t], 1e-12, 1)
        w = (1 - pi) / pi
        lam = np.clip((w * h * f).sum(axis=1) / np.maximum((w * f * f).sum(axis=1), 1e-300), 0, 1)
        variance = (h.var(ddof=1) + (w * (h - lam[:, None] * f) ** 2).mean(axis=1)) / len(h)
        ok = np.flatnonzero(variance <= target_var)
        need["active"][s] += pi[ok[0]].sum() if len(ok) else len(h)


def report(results, population, args):
    systems, truth = population.systems, population.truth
    print(
        f"\n{args.seeds} seeds, budget {args.label_share:.0%} of the triplets (~{args.label_share * len(truth):,.0f}), "
        f"humans {args.human_accuracy:.0%} right, judge confidence Beta concentration {args.concentration}, "
        f"calibrated against the {args.calibration} label"
    )
    print(f"coverage of the 95% intervals (mean width) over {args.seeds} seeds x {len(systems)} systems:")
    print(f"  {'judge':48s} {'classical':>16s} {'uniform PPI++':>16s} {'active':>16s} {'active, half':>16s}")
    for r in results:
        cells = " ".join(f"{r['stats'][m]['cover']:6.3f} ({r['stats'][m]['width']:.4f})" for m in r["stats"])
        print(f"  {r['judge']:48s} {cells}")
    print(
        f"\nhuman labels needed per system for +-{args.half_width} Hscore "
        f"(mean over systems, first {args.need_seeds} seeds):"
    )
    print(f"  {'judge':48s} {'classical':>10s} {'PPI++':>8s} {'active':>8s} {'active/classical':>17s}")
    for r in results:
        c, p, a = (r["need"][m].mean() for m in ("classical", "ppi", "active"))
        print(f"  {r['judge']:48s} {c:10.0f} {p:8.0f} {a:8.0f} {a / c:17.2f}  ({r['seconds']:.0f} s)")
        if r["fallback"]:
            print(f"  {'':48s} design: {r['fallback']}")
    bad = [r["judge"] for r in results if not 0.93 <= r["stats"]["active"]["cover"] <= 0.97]
    print("\nactive coverage of every judge within 93-97%:", "yes" if not bad else f"NO ({', '.join(bad)})")
    return 0 if not bad else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--need-seeds", type=int, default=5, help="seeds averaged for the labels needed")
    parser.add_argument("--label-share", type=float, default=0.05)
    parser.add_argument("--half-width", type=float, default=0.02)
    parser.add_argument("--human-accuracy", type=float, default=0.9)
    parser.add_argument("--concentration", type=float, default=4.0)
    parser.add_argument(
        "--calibration",
        default="human",
        choices=["human", "truth"],
        help="the judge's q is calibrated against the human label (default) or against the true label",
    )
    parser.add_argument("--judge", action="append", help="only these judges (a prefix of the name)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    population = Population(*load(SQUAD, with_questions=True))
    names = [n for n in JUDGES if not args.judge or any(n.startswith(p) for p in args.judge)]
    results = []
    for name in names:
        results.append(run_judge(name, population, args))
        print(f"  {name}: {results[-1]['seconds']:.0f} s", flush=True)
    sys.exit(report(results, population, args))


if __name__ == "__main__":
    main()
