"""Watching the live page while labels arrive (SPEC 16, amended): how often the betting confidence
sequences ever exclude a system's truth (per system and family-wise), whether any has zero width before
every prediction is labelled, and how many labels settle the ranking; in the worlds SPEC 16 names.

    .venv/bin/python bench/anytime_bench.py                         # the full run (long: see README)
    .venv/bin/python bench/anytime_bench.py --runs 20 --n 400 --squad-runs 1 --squad-share 0.2   # a short one

Worlds (``WORLDS``; each system's N predictions are its own triplets unless said otherwise):
- *reference, humans 90% / 95% right*: the reference answers, all correct, labelled 1 by people 90%
  (95%) of the time and 0.5 otherwise (people call a right answer partial), beside two systems of
  Hscore about 0.8 and 0.6 (three-valued labels, humans 90% right with adjacent errors);
- *two strong systems*: 97% and 98% correct, adjudicated labels (the label is the truth);
- *near-tie*: two systems 0.003 apart in Hscore (0.700 and 0.703, labels 1 / 0.5 / 0);
- *overconfident judge*: the judge calls 95% of answers correct whatever they are (systems 0.8, 0.6);
- *SQuAD dev*: the 10 systems and the reference of SQuAD v1.1 dev, deduplicated as the platform does
  (``bench/ppi_bench.load``; true label from EM / F1, humans 90% right with adjacent errors).
Every other world has a judge right 85% of the time (another label at random otherwise). The target of
a system is the mean of its humans' scores over all its N predictions (the finite population of SPEC
16); labels arrive in a random order of the triplets (one label each), up to ``--share`` of them (SQuAD:
``--squad-share``). The page shows the prediction-powered sequence (a judge exists in every world) and
the classical one is measured beside it; alpha 0.05 split over the K systems.

Per world and sequence: the share of runs in which some system's sequence ever excludes its truth
(family-wise; the sequence is a running intersection, so "ever" is "at the end"), the worst per-system
share, the runs in which some sequence had zero width before its N-th label (read after every
``--every`` labels and at N - 1), and the labels (triplets labelled) at the first read where the ranking
is settled (every adjacent pair apart, or tied within ``--tie-margin``), counted on a corpus holding only
the world's systems. A second part times the background job's step (``anytime.advance``) at SQuAD
scale and at ten times (``--no-cost`` skips it).
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
import pandas as pd  # noqa: E402
from ppi_bench import SCORES, SQUAD, load, noisy  # noqa: E402  (sets up Django)

from evaluation.science import anytime  # noqa: E402
from stats.betting import Capital  # noqa: E402

ALPHA = 0.05
KINDS = ("PPI", "classical")


def adjacent_noisy(truth, accuracy, rng):
    """Human labels (indices into SCORES: 0 correct, 1 partial, 2 incorrect): the true one with
    probability ``accuracy``, else an adjacent one (0 or 2 -> 1; 1 -> 0 or 2 at random)."""
    out = truth.copy()
    wrong = rng.random(len(truth)) >= accuracy
    out[wrong & (truth != 1)] = 1
    from_partial = wrong & (truth == 1)
    out[from_partial] = np.where(rng.random(from_partial.sum()) < 0.5, 0, 2)
    return out


def _three_valued(n, hscore, rng):
    """True labels (SCORES indices) of ``n`` answers whose Hscore is about ``hscore`` (10% partial)."""
    p_correct = max(0.0, min(1.0, hscore - 0.05))
    return rng.choice(3, size=n, p=[p_correct, 0.1, 1 - p_correct - 0.1])


def _reference_world(accuracy):
    def make(n, rng):
        systems = []
        ref_truth = np.zeros(n, dtype=int)
        ref_h = np.where(rng.random(n) < accuracy, 1.0, 0.5)  # a right answer called partial
        systems.append(("reference", ref_h, SCORES[noisy(ref_truth, 0.85, rng)]))
        for name, hscore in (("sys-a", 0.8), ("sys-b", 0.6)):
            truth = _three_valued(n, hscore, rng)
            systems.append((name, SCORES[adjacent_noisy(truth, 0.9, rng)], SCORES[noisy(truth, 0.85, rng)]))
        return systems

    return make


def _strong(n, rng):
    out = []
    for name, p in (("strong-97", 0.97), ("strong-98", 0.98)):
        truth = np.where(rng.random(n) < p, 0, 2)
        out.append((name, SCORES[truth], SCORES[noisy(truth, 0.85, rng)]))  # adjudicated: h is the truth
    return out


def _near_tie(n, rng):
    out = []
    for name, target in (("tie-a", 0.700), ("tie-b", 0.703)):
        truth = _three_valued(n, target, rng)
        out.append((name, SCORES[adjacent_noisy(truth, 0.9, rng)], SCORES[noisy(truth, 0.85, rng)]))
    return out


def _overconfident(n, rng):
    out = []
    for name, hscore in (("sys-a", 0.8), ("sys-b", 0.6)):
        truth = _three_valued(n, hscore, rng)
        f = np.where(rng.random(n) < 0.95, 1.0, SCORES[noisy(truth, 0.85, rng)])
        out.append((name, SCORES[adjacent_noisy(truth, 0.9, rng)], f))
    return out


WORLDS = {
    "reference, humans 90% right": _reference_world(0.90),
    "reference, humans 95% right": _reference_world(0.95),
    "two strong systems (97%, 98%, adjudicated)": _strong,
    "near-tie (0.003 apart)": _near_tie,
    "overconfident judge": _overconfident,
}


def watch(systems, order_of, budget, args):
    """One run: labels arrive in ``order_of`` (per system: the arrival rank of each prediction); returns
    per kind (missed per system, zero width before N, labels to settle or None)."""
    k = len(systems)
    alpha_s = ALPHA / k
    result = {}
    for kind in KINDS:
        bounds, missed, zero = [], [], False
        reads = np.arange(args.every, budget + 1, args.every)
        for (_name, h, f), rank in zip(systems, order_of, strict=True):
            arrived = np.argsort(rank, kind="stable")
            arrived = arrived[rank[arrived] < budget]
            cap = Capital(alpha_s, len(h), f if kind == "PPI" else None)
            counts = np.searchsorted(np.sort(rank[arrived]), reads, side="left")
            seen, lows, highs = 0, [], []
            for c in counts:
                step = arrived[seen:c]
                if kind == "PPI":
                    cap.update(h[step], f[step])
                else:
                    cap.update(h[step])
                seen = c
                low, high = cap.bounds()
                lows.append(low)
                highs.append(high)
                zero |= high <= low and cap.n < len(h) and not cap.empty
            rest = arrived[seen:]  # the labels after the last read, up to the budget
            before_last = max(0, min(len(rest), len(h) - 1 - seen))
            for step in (rest[:before_last], rest[before_last:]):
                if len(step):
                    cap.update(h[step], f[step]) if kind == "PPI" else cap.update(h[step])
                    zero |= cap.bounds()[1] <= cap.bounds()[0] and cap.n < len(h) and not cap.empty
            truth = h.mean()
            low, high = cap.bounds()  # a running intersection: ever excluded is excluded at the end
            missed.append(not (low - 1e-12 <= truth <= high + 1e-12))
            bounds.append((np.array(lows), np.array(highs), truth))
        result[kind] = (missed, zero, _settle(bounds, reads, args.tie_margin))
    return result


def _settle(bounds, reads, margin):
    """The first read at which every adjacent pair (by the final truth order of the estimates: the
    sequences' midpoints) is apart or tied within ``margin``; None if never."""
    lows = np.vstack([b[0] for b in bounds])
    highs = np.vstack([b[1] for b in bounds])
    for j in range(lows.shape[1]):
        mid = (lows[:, j] + highs[:, j]) / 2
        order = np.argsort(-mid)
        ok = True
        for a, b in itertools.pairwise(order):
            apart = lows[a, j] > highs[b, j]
            tied = highs[a, j] - lows[b, j] <= margin and highs[b, j] - lows[a, j] <= margin
            if not (apart or tied):
                ok = False
                break
        if ok:
            return int(reads[j])
    return None


def run_world(name, make, args):
    rng = np.random.default_rng(args.seed)
    tallies = {kind: {"family": 0, "per_system": None, "zero": 0, "settle": []} for kind in KINDS}
    t0 = time.perf_counter()
    for _ in range(args.runs):
        systems = make(args.n, rng)
        k = len(systems)
        arrival = rng.permutation(k * args.n)  # each system's predictions are its own triplets
        order_of = [arrival[i * args.n : (i + 1) * args.n] for i in range(k)]
        budget = int(args.share * k * args.n)
        for kind, (missed, zero, settle) in watch(systems, order_of, budget, args).items():
            t = tallies[kind]
            t["family"] += any(missed)
            t["per_system"] = np.array(missed, dtype=int) + (0 if t["per_system"] is None else t["per_system"])
            t["zero"] += zero
            t["settle"].append(settle)
    report(name, tallies, args.runs, time.perf_counter() - t0, k)
    return tallies


def run_squad(args):
    systems, scode, tcode, truth = load(SQUAD)
    rng = np.random.default_rng(args.seed)
    tallies = {kind: {"family": 0, "per_system": None, "zero": 0, "settle": []} for kind in KINDS}
    n_triplets = len(truth)
    t0 = time.perf_counter()
    for _ in range(args.squad_runs):
        h_t = SCORES[adjacent_noisy(truth, 0.9, rng)]
        f_t = SCORES[noisy(truth, 0.85, rng)]
        when = rng.permutation(n_triplets)
        world = [(name, h_t[tcode[scode == s]], f_t[tcode[scode == s]]) for s, name in enumerate(systems)]
        order_of = [when[tcode[scode == s]] for s in range(len(systems))]
        budget = int(args.squad_share * n_triplets)
        sub = argparse.Namespace(**{**vars(args), "every": args.squad_every})
        for kind, (missed, zero, settle) in watch(world, order_of, budget, sub).items():
            t = tallies[kind]
            t["family"] += any(missed)
            t["per_system"] = np.array(missed, dtype=int) + (0 if t["per_system"] is None else t["per_system"])
            t["zero"] += zero
            t["settle"].append(settle)
    report("SQuAD dev (11 systems)", tallies, args.squad_runs, time.perf_counter() - t0, len(systems))


def report(name, tallies, runs, seconds, k):
    print(f"\n{name} (K = {k}), {runs} runs in {seconds:.1f} s")
    print(
        "| sequence | family-wise miss | worst system's miss | zero width before N | ranking settled "
        "| labels to settle (median) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for kind, t in tallies.items():
        settled = [s for s in t["settle"] if s is not None]
        median = f"{int(np.median(settled)):,}" if settled else "never"
        worst = t["per_system"].max() / runs if t["per_system"] is not None else 0.0
        print(
            f"| {kind} | {t['family'] / runs:.1%} | {worst:.1%} | {t['zero']} of {runs} "
            f"| {len(settled) / runs:.0%} of runs | {median} |"
        )


def cost(args):
    """The background job's step at SQuAD scale (11 systems x 10,570 predictions, about 30% labelled)
    and at ten times: a full recomputation, and one incremental step of 100 new labels."""
    rng = np.random.default_rng(args.seed)
    for scale in (1, 10):
        n, k = 10_570 * scale, 11
        labelled = int(0.3 * n)
        rows = []
        for s in range(k):
            h = rng.choice([0.0, 0.5, 1.0], size=n)
            rows.append(
                pd.DataFrame(
                    {
                        "system": f"s{s}",
                        "tkey": [f"s{s}-{i}" for i in range(n)],
                        "h_hscore": np.where(np.arange(n) < labelled, h, np.nan),
                        "h_hcorrect": np.where(np.arange(n) < labelled, (h == 1.0).astype(float), np.nan),
                        "f_hscore": h,
                        "f_hcorrect": (h == 1.0).astype(float),
                    }
                )
            )
        scores = pd.concat(rows, ignore_index=True)
        systems = 1 if scale > 1 and not args.full_cost else k
        part = scores[scores["system"].isin([f"s{s}" for s in range(systems)])]
        before = part.assign(
            h_hscore=np.where(part["tkey"].str.split("-").str[1].astype(int) < labelled - 100, part["h_hscore"], np.nan)
        )
        before["h_hcorrect"] = np.where(before["h_hscore"].isna(), np.nan, part["h_hcorrect"])
        t0, c0 = time.perf_counter(), time.process_time()
        _rows, state = anytime.advance(None, before)
        full, full_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        anytime.advance(state, part)
        step, step_cpu = time.perf_counter() - t0, time.process_time() - c0
        packed = len(anytime.pack({"": state}))
        factor = k / systems
        print(
            f"{scale}x SQuAD ({k} systems x {n:,} predictions, {labelled:,} labelled each, judge): full recomputation "
            f"{full * factor:.1f} s wall / {full_cpu * factor:.1f} s CPU"
            f"{' (1 system timed, x 11)' if factor > 1 else ''}; "
            f"100 new labels per system {step * factor:.2f} s wall / {step_cpu * factor:.2f} s CPU; "
            f"stored state {packed * factor / 2**20:.1f} MiB"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=400, help="simulated studies per synthetic world")
    parser.add_argument("--n", type=int, default=2000, help="predictions per system in the synthetic worlds")
    parser.add_argument("--share", type=float, default=1.0, help="label at most this share of the triplets")
    parser.add_argument("--every", type=int, default=50, help="read the page after every this many labels")
    parser.add_argument("--tie-margin", type=float, default=0.02)
    parser.add_argument("--squad-runs", type=int, default=20)
    parser.add_argument("--squad-share", type=float, default=1.0)
    parser.add_argument("--squad-every", type=int, default=1000)
    parser.add_argument("--worlds", default="", help="comma-separated world names' starts (default: all)")
    parser.add_argument("--no-cost", action="store_true")
    parser.add_argument("--full-cost", action="store_true", help="time all 11 systems at 10x too (slow)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(
        f"alpha {ALPHA} split over K; the page read every {args.every} labels (SQuAD: {args.squad_every}); "
        f"tie margin {args.tie_margin}; labels up to {args.share:.0%} of the triplets (SQuAD {args.squad_share:.0%})"
    )
    chosen = [w for w in args.worlds.split(",") if w]
    for name, make in WORLDS.items():
        if not chosen or any(name.startswith(c) for c in chosen):
            run_world(name, make, args)
    if args.squad_runs and (not chosen or any("SQuAD".startswith(c) for c in chosen)):
        run_squad(args)
    if not args.no_cost:
        print()
        cost(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
