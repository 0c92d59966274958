"""Crowd labels against the truth (SPEC 17): how far each human aggregate's Hscore is from the true
one, whether the ranking holds, whether the intervals cover, and what screening does to people.

For each data set (SQuAD dev: ``--questions`` questions of the 10 real systems, the truth of each
triplet from its answer against the references: exact match correct, F1 >= 0.4 partial, else
incorrect; NQ301-like: 301 questions, 12 close systems, simulated truth) and each simulated crowd
(``bench/kit/crowd_sim.py``: experts, typical panel, poor panel, lenient), ``--studies`` studies are
simulated with ``--labels`` labels per triplet, gold items and a screening rule, and per aggregate
(mean, majority, ds) it prints:

- ``err``: mean over systems of |Hscore - true Hscore|, in points (Hscore x 100);
- ``tau``: Kendall's tau between the estimated and the true ranking; ``flips``: system pairs ordered
  the other way round (out of all pairs);
- ``cov2w``: share of (system, study) whose two-way bootstrap 95% interval (participants then
  questions, aggregation refitted) holds the truth; ``covq`` (mean only): the questions-only
  bootstrap the report used before;
- per crowd: honest people stopped in the fold, bad workers caught (stopped or screened out) and honest
  people screened out at the start (paid), under SPEC 17's rule (qualification block of 3 gold items +
  two misses, ``min_gold`` 0.7, 8 gold items per fold of 40) and under the old rule (below
  ``min_gold`` after 3 gold items, no block).

    python bench/crowd_bench.py                              # small: 2 studies, 40 replicates
    python bench/crowd_bench.py --studies 10 --boot 100      # the README's figures
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.kit import crowd_sim
from evaluation.science import crowd, human

SQUAD = Path("/work/shared/data/squad-v1.1-dev")
AGGREGATES = ("mean", "majority", "ds")


def squad(n_questions, seed):
    """(truth per triplet, pred_task (questions x systems), systems) from SQuAD dev."""
    from evaluation.science import metrics

    questions = [json.loads(line) for line in (SQUAD / "corpus.jsonl").open(encoding="utf-8")]
    rng = np.random.default_rng(seed)
    keep = sorted(rng.choice(len(questions), size=min(n_questions, len(questions)), replace=False))
    chosen = {questions[i]["id"]: (j, questions[i]["answers"]) for j, i in enumerate(keep)}
    preds = [json.loads(line) for line in (SQUAD / "predictions.jsonl").open(encoding="utf-8")]
    systems = sorted({p["system"] for p in preds})
    pred_task = np.full((len(keep), len(systems)), -1)
    tasks, truth = {}, []
    for p in preds:
        if p["question_id"] not in chosen:
            continue
        q, refs = chosen[p["question_id"]]
        key = (q, " ".join(p["answer"].lower().split()))
        if key not in tasks:
            em, f1 = metrics.exact_match(p["answer"], refs), metrics.f1(p["answer"], refs)
            tasks[key] = len(truth)
            truth.append(crowd_sim.C if em else crowd_sim.P if f1 >= 0.4 else crowd_sim.I)
        pred_task[q, systems.index(p["system"])] = tasks[key]
    return np.array(truth), pred_task


def system_means(per_task, pred_task):
    values = np.append(per_task, np.nan)[pred_task]
    return np.nanmean(values, axis=0)


def _flips(est, true):
    n, flips = len(true), 0
    for a in range(n):
        for b in range(a + 1, n):
            flips += (true[a] - true[b]) * (est[a] - est[b]) < 0
    return flips


def questions_bootstrap(per_task, pred_task, n_boot, rng):
    n_q = len(pred_task)
    reps = [system_means(per_task, pred_task[rng.integers(n_q, size=n_q)]) for _ in range(n_boot)]
    return np.quantile(np.array(reps), [0.025, 0.975], axis=0).T


def one_study(truth, pred_task, crowd_name, args, rng):
    true = system_means(crowd_sim.VALUES[truth], pred_task)
    study = crowd_sim.simulate(truth, crowd_name, rng=rng, labels_per=args.labels, rules=crowd_sim.Rules())
    task, worker, label = study.kept()
    codes = (task, worker, label, study.gold)
    n_tasks = len(study.gold)
    out = {"rates": study.rates()}
    for agg in AGGREGATES:
        got = human.code_scores(codes, n_tasks, agg)
        if got is None:
            out[agg] = None
            continue
        est = system_means(got[0], pred_task)
        boot = crowd.two_way_bootstrap(
            codes,
            pred_task,
            lambda c, n, a=agg: human.code_scores(c, n, a),
            n_boot=args.boot,
            seed=int(rng.integers(1 << 30)),
        )["score"]
        row = {
            "err": float(np.mean(np.abs(est - true)) * 100),
            "tau": float(kendalltau(est, true).statistic),
            "flips": _flips(est, true),
            "cov2w": float(np.mean((boot[:, 0] <= true) & (true <= boot[:, 1]))),
        }
        if agg == "mean":
            qb = questions_bootstrap(got[0], pred_task, args.boot, rng)
            row["covq"] = float(np.mean((qb[:, 0] <= true) & (true <= qb[:, 1])))
        out[agg] = row
    legacy = crowd_sim.simulate(truth, crowd_name, rng=rng, labels_per=args.labels, rules=crowd_sim.Rules("legacy"))
    out["legacy_rates"] = legacy.rates()
    return out


def report(name, results, n_pairs):
    for agg in AGGREGATES:
        rows = [r[agg] for r in results if r[agg] is not None]
        if not rows:
            print(f"  {agg:9s} refused")
            continue
        covq = f"  covq {np.mean([r['covq'] for r in rows]):.2f}" if agg == "mean" else ""
        err, tau, flips, cov = (np.mean([r[k] for r in rows]) for k in ("err", "tau", "flips", "cov2w"))
        print(f"  {agg:9s} err {err:5.2f} pts  tau {tau:.3f}  flips {flips:4.1f}/{n_pairs}  cov2w {cov:.2f}" + covq)
    honest, caught, screened = np.mean([r["rates"] for r in results], axis=0)
    old_honest, old_caught, _ = np.mean([r["legacy_rates"] for r in results], axis=0)
    print(
        f"  screening: honest stopped {honest:.1%}, bad caught {caught:.1%}, honest screened out (paid) {screened:.1%} "
        f"(old rule: honest stopped {old_honest:.1%}, bad caught {old_caught:.1%})"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=600)
    parser.add_argument("--studies", type=int, default=2)
    parser.add_argument("--boot", type=int, default=40)
    parser.add_argument("--labels", type=int, default=3, help="labels per triplet")
    parser.add_argument("--crowds", default=",".join(crowd_sim.CROWDS))
    parser.add_argument("--data", default="squad,nq")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    datasets = {}
    if "squad" in args.data:
        datasets["SQuAD dev"] = squad(args.questions, args.seed)
    if "nq" in args.data:
        datasets["NQ301-like"] = crowd_sim.nq_like(rng)
    for name, (truth, pred_task) in datasets.items():
        n_s = pred_task.shape[1]
        print(
            f"{name}: {pred_task.shape[0]} questions, {n_s} systems, {len(truth)} triplets, {args.labels} labels each"
        )
        for crowd_name in args.crowds.split(","):
            start = time.perf_counter()
            results = [one_study(truth, pred_task, crowd_name, args, rng) for _ in range(args.studies)]
            print(f" crowd {crowd_name} ({args.studies} studies, {time.perf_counter() - start:.0f} s)")
            report(crowd_name, results, n_s * (n_s - 1) // 2)


if __name__ == "__main__":
    main()
