"""Prediction-powered estimates (SPEC 10) on the real SQuAD v1.1 dev data, with simulated humans and
judges of several qualities: human labels needed for a +-2 point Hscore interval (classical vs
prediction-powered) and the observed coverage of the 95% intervals over many seeds.

    .venv/bin/python bench/ppi_bench.py                  # 500 seeds, 5% of the triplets human-labeled
    .venv/bin/python bench/ppi_bench.py --seeds 1000 --label-share 0.02

Simulation (per seed, every triplet of the 10 systems + reference, deduplicated as the platform does):
- the **true label** of a triplet comes from the real answer and the references: correct when EM = 1,
  partial when F1 >= 0.4, else incorrect;
- a **human** gives the true label with probability 0.9, else one of the two others at random;
- a **judge** of quality q gives the true label with probability q, else one of the two others; the
  ``lenient`` judge also calls every partial answer correct (a biased judge), ``random`` is quality 1/3;
- a uniform random share of the triplets gets a human label (``--label-share``); every triplet has
  the judge's label.
The target of each system is its Hscore if every triplet had a human label (that seed's humans);
coverage is the share of seeds x systems whose 95% interval holds it. The estimates are
``stats.ppi.estimate`` itself, not a re-implementation.

Labels needed for +-w (w = 0.02): classical n = (1.96 sd(h) / w)^2; prediction-powered: the smallest
n whose PPI++ variance at the optimal lambda, var(h - l f) / n + l^2 var(f) / (N - n), is <= (w / 1.96)^2,
from the population moments of each system (averaged over seeds).
"""

import argparse
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from annotation.interchange import REFERENCE  # noqa: E402
from evaluation.report.inputs import read_inputs  # noqa: E402
from evaluation.science import human, metrics  # noqa: E402
from stats import intervals, ppi  # noqa: E402

SHARED = (
    [pathlib.Path(os.environ["QAEVAL_SHARED_DATA"])]
    if os.environ.get("QAEVAL_SHARED_DATA")
    else [p / "shared" / "data" for p in ROOT.parents]
)  # ../shared/data from the main checkout or a worktree
SQUAD = next((p / "squad-v1.1-dev" for p in SHARED if (p / "squad-v1.1-dev").is_dir()), SHARED[0] / "squad-v1.1-dev")
SCORES = np.array([1.0, 0.5, 0.0])  # correct, partial, incorrect
HUMAN_ACCURACY = 0.9
JUDGES = {
    "excellent (0.95)": (0.95, False),
    "good (0.85)": (0.85, False),
    "fair (0.70)": (0.70, False),
    "lenient (0.85, partial->correct)": (0.85, True),
    "random (1/3)": (1 / 3, False),
}
Z = intervals.Z95


def load(path, *, with_questions=False):
    """(systems, system code, triplet code of each prediction, true label of each triplet), and the
    question code of each prediction when ``with_questions``."""
    t0 = time.perf_counter()
    questions, predictions, _ = read_inputs(path / "corpus.jsonl", path / "predictions.jsonl")
    refs = pd.DataFrame(
        {
            "question_id": questions.index,
            "system": REFERENCE,
            "answer": questions["answers"].map(lambda a: a[0] if a else ""),
        }
    )
    predictions = pd.concat([predictions, refs], ignore_index=True)
    predictions["tkey"] = human.triplet_keys(predictions["question_id"], predictions["answer"])
    tcode, tkeys = pd.factorize(predictions["tkey"])
    first = pd.Series(np.arange(len(predictions))).groupby(tcode).first().to_numpy()
    rows = predictions.iloc[first]
    em, f1, _ = metrics.score_pairs(
        rows["answer"].tolist(), questions.loc[rows["question_id"], "answers"].tolist(), ["en"] * len(rows)
    )
    truth = np.where(em == 1, 0, np.where(f1 >= 0.4, 1, 2))  # index into SCORES
    systems, scode = np.unique(predictions["system"].to_numpy(), return_inverse=True)
    print(
        f"SQuAD v1.1 dev: {len(questions):,} questions, {len(predictions):,} predictions of {len(systems)} systems, "
        f"{len(tkeys):,} triplets; truth: {np.bincount(truth, minlength=3).tolist()} correct/partial/incorrect "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    if with_questions:
        return systems, scode, tcode, truth, pd.factorize(predictions["question_id"])[0]
    return systems, scode, tcode, truth


def noisy(truth, accuracy, rng, lenient=False):
    """Labels (indices into SCORES): the true one with probability ``accuracy``, else another at random."""
    out = truth.copy()
    wrong = rng.random(len(truth)) >= accuracy
    out[wrong] = (truth[wrong] + rng.integers(1, 3, wrong.sum())) % 3
    if lenient:
        out[out == 1] = 0
    return out


def run(args):
    systems, scode, tcode, truth = load(SQUAD)
    n_triplets = len(truth)
    half = args.half_width
    groups = [np.flatnonzero(scode == s) for s in range(len(systems))]
    print(
        f"\n{args.seeds} seeds, {args.label_share:.0%} of the triplets human-labeled "
        f"(~{int(args.label_share * n_triplets):,}), target +-{half} Hscore"
    )
    results = []
    for name, (quality, lenient) in JUDGES.items():
        t0 = time.perf_counter()
        rng = np.random.default_rng(args.seed)
        cover_ppi = cover_cls = total = 0
        width_ppi, width_cls, gains = [], [], []
        need_cls = np.zeros(len(systems))
        need_ppi = np.zeros(len(systems))
        for _ in range(args.seeds):
            h_t = SCORES[noisy(truth, HUMAN_ACCURACY, rng)]
            f_t = SCORES[noisy(truth, quality, rng, lenient)]
            labeled_t = rng.random(n_triplets) < args.label_share
            for s, idx in enumerate(groups):
                h, f, lab = h_t[tcode[idx]], f_t[tcode[idx]], labeled_t[tcode[idx]]
                target = h.mean()
                e = ppi.estimate(h[lab], f[lab], f[~lab])
                lo, hi = intervals.normal(e["estimate"], e["variance"])
                clo, chi = intervals.normal(e["classical"], e["classical_variance"])
                cover_ppi += lo <= target <= hi
                cover_cls += clo <= target <= chi
                total += 1
                width_ppi.append(hi - lo)
                width_cls.append(chi - clo)
                gains.append(e["gain"])
                nc, npi = needed(h, f, half)
                need_cls[s] += nc / args.seeds
                need_ppi[s] += npi / args.seeds
        results.append(
            {
                "judge": name,
                "coverage_ppi": cover_ppi / total,
                "coverage_classical": cover_cls / total,
                "width_ppi": float(np.mean(width_ppi)),
                "width_classical": float(np.mean(width_cls)),
                "gain": float(np.median(gains)),
                "need_cls": need_cls,
                "need_ppi": need_ppi,
                "seconds": time.perf_counter() - t0,
            }
        )
        r = results[-1]
        print(
            f"  {name:34s} coverage PPI {r['coverage_ppi']:.3f}  classical {r['coverage_classical']:.3f}  "
            f"mean width {r['width_ppi']:.4f} vs {r['width_classical']:.4f}  gain {r['gain']:.2f}  "
            f"({r['seconds']:.0f} s)"
        )
    print_tables(results, systems, groups, n_triplets, half, args)
    bad = [r["judge"] for r in results if not 0.93 <= r["coverage_ppi"] <= 0.97]
    print("\ncoverage of every judge within 93-97%:", "yes" if not bad else f"NO ({', '.join(bad)})")
    return 0 if not bad else 1


def needed(h, f, half):
    """Human labels for +-half: classical, and prediction-powered at the optimal lambda (population
    moments of this system; N - n unlabeled predictions keep the judge's score)."""
    n_all = len(h)
    target_var = (half / Z) ** 2
    n_cls = int(np.ceil(h.var(ddof=1) / target_var))
    n = np.arange(2, n_all - 1)
    var_f, cov = f.var(ddof=1), np.cov(h, f, ddof=1)[0, 1]
    nu = n_all - n
    lam = np.clip(cov / ((1 + n / nu) * var_f), 0, 1) if var_f > 0 else np.zeros(len(n))
    var_res = h.var(ddof=1) + lam**2 * var_f - 2 * lam * cov
    variance = var_res / n + lam**2 * var_f / nu
    ok = np.flatnonzero(variance <= target_var)
    n_ppi = int(n[ok[0]]) if len(ok) else n_all
    return min(n_cls, n_all), n_ppi


def print_tables(results, systems, groups, n_triplets, half, args):
    print(
        f"\nhuman labels needed per system for +-{half} Hscore (mean over systems; each system has "
        f"~{int(np.mean([len(g) for g in groups])):,} predictions):"
    )
    print(
        f"  {'judge':34s} {'classical':>10s} {'PPI':>8s} {'saved':>7s}   "
        f"all systems at once (triplets, share of {n_triplets:,})"
    )
    for r in results:
        c, p = r["need_cls"].mean(), r["need_ppi"].mean()
        # All systems at once: a uniform share of the triplets, large enough for the hardest system.
        share_c = max(r["need_cls"][s] / len(g) for s, g in enumerate(groups))
        share_p = max(r["need_ppi"][s] / len(g) for s, g in enumerate(groups))
        print(
            f"  {r['judge']:34s} {c:10.0f} {p:8.0f} {1 - p / c:7.0%}   {share_c * n_triplets:8,.0f} vs "
            f"{share_p * n_triplets:8,.0f} ({share_c:.1%} vs {share_p:.1%})"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--label-share", type=float, default=0.05)
    parser.add_argument("--half-width", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    sys.exit(run(parser.parse_args()))


if __name__ == "__main__":
    main()
