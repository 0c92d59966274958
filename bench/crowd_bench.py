"""Crowd labels against the truth (SPEC 17): how far each human aggregate's Hscore is from the true
one, whether the ranking holds, whether the intervals cover, and what screening does to people.

Data: SQuAD dev (each study labels its own draw of ``--questions`` questions of the 10 real
systems, out of 10,570; a triplet per (question, normalized answer), its truth from its answer
against the references: exact match correct, F1 >= 0.4 partial, else incorrect; an empty answer is
no triplet and counts incorrect, the report's rule) and NQ301-like data (301 questions, 12 close
systems, simulated truth, a triplet per prediction).

Crowds (``bench/kit/crowd_sim.py``, whose docstring gives the sources): honest workers calibrated on
NQ301's real expert disagreement (13% of pairs of labels), ``lenient`` ones, clickers and random
clickers in the shares of the experts / typical / poor / lenient crowds; ``typical-untrained`` is the
typical mix with honest workers twice as noisy (this bench's earlier, unsourced guess). A study: 8
gold items (real clear triplets, labelled by every participant, the first 3 as the qualification
block), folds of about ``--fold`` triplets (whole questions; 40 + 8 gold items is about a 12-16
minute panel task at an assumed 15-20 s per item), ``--labels`` participants per fold, SPEC 17's
screening (block failed: screened out; in the fold: stopped after 2 gold misses below 0.7; the slot
goes to a new participant).

What is measured is the production code: the Hscore of every aggregate from
``human.triplet_scores`` (what the report's, PPI's and the live page's human scores read), averaged
per system over its predictions as the report does, and the intervals from
``crowd_section.two_way_intervals`` (the report's ``crowd_intervals``, empty answers with their rule
scores). Per aggregate (mean, majority, ds) it prints, averaged over the studies:

- ``err``: per study the mean over systems of |Hscore - true Hscore| in points (Hscore x 100), then
  the mean over studies; ``bias``: the same without the absolute value (signed);
- ``tau``: Kendall's tau between the estimated and the true ranking; ``flips``: system pairs ordered
  the other way round (out of all pairs);
- ``cov2w``: share of (system, study) whose two-way bootstrap 95% interval (participants, then
  questions, aggregation refitted, centred on the estimate) holds the truth, and its mean width;
  ``covq`` (mean only): the questions-only bootstrap. That truth is the true Hscore of the questions
  labelled; the intervals also carry the sampling of questions, so they are conservative for it.
  ``covpop`` (SQuAD): the same intervals against the true Hscore of all of SQuAD dev, the target of
  an interval that resamples questions;
- per crowd: honest people stopped in the fold, bad workers caught (stopped or screened out) and
  honest people screened out at the start (paid), under SPEC 17's rule and under the old rule
  (below ``min_gold`` after 3 gold items, no block).

    python bench/crowd_bench.py                              # small: 2 studies, 40 replicates
    python bench/crowd_bench.py --studies 12 --boot 100      # the README's figures (about 3 min)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.kit import crowd_sim
from evaluation.report import crowd_section
from evaluation.science import human, metric_registry

SQUAD = Path("/work/shared/data/squad-v1.1-dev")
AGGREGATES = ("mean", "majority", "ds")
NAMES = np.array(["correct", "partial", "incorrect"], dtype=object)  # ``human.LABEL_CODES`` order


def squad(n_questions, seed):
    """SQuAD dev (``n_questions`` drawn with ``seed``, or all of them when None): ``(truth per
    triplet, pred_task, question of each triplet)``; ``pred_task``
    (questions x systems) holds each prediction's triplet, -1 where a system has no prediction and
    -2 for an empty answer (no triplet: the report scores it by rule, incorrect here since every
    SQuAD v1.1 question has a reference)."""
    from evaluation.science import metrics

    questions = [json.loads(line) for line in (SQUAD / "corpus.jsonl").open(encoding="utf-8")]
    rng = np.random.default_rng(seed)
    size = len(questions) if n_questions is None else min(n_questions, len(questions))
    keep = sorted(rng.choice(len(questions), size=size, replace=False))
    chosen = {questions[i]["id"]: (j, questions[i]["answers"]) for j, i in enumerate(keep)}
    preds = [json.loads(line) for line in (SQUAD / "predictions.jsonl").open(encoding="utf-8")]
    systems = sorted({p["system"] for p in preds})
    pred_task = np.full((len(keep), len(systems)), -1)
    tasks, truth, group = {}, [], []
    for p in preds:
        if p["question_id"] not in chosen:
            continue
        q, refs = chosen[p["question_id"]]
        key = (q, " ".join(p["answer"].lower().split()))
        if not key[1]:
            pred_task[q, systems.index(p["system"])] = -2
            continue
        if key not in tasks:
            em, f1 = metrics.exact_match(p["answer"], refs), metrics.f1(p["answer"], refs)
            tasks[key] = len(truth)
            truth.append(crowd_sim.C if em else crowd_sim.P if f1 >= 0.4 else crowd_sim.I)
            group.append(q)
        pred_task[q, systems.index(p["system"])] = tasks[key]
    return np.array(truth), pred_task, np.array(group)


def nq(rng):
    truth, pred_task = crowd_sim.nq_like(rng)
    return truth, pred_task, np.arange(len(truth)) // pred_task.shape[1]


def sample(data, n_questions, rng):
    """``n_questions`` questions of ``data`` drawn without replacement, triplets renumbered."""
    truth, pred_task, groups = data
    rows = pred_task[np.sort(rng.choice(len(pred_task), size=n_questions, replace=False))]
    tasks = np.unique(rows[rows >= 0])
    rows = np.where(rows >= 0, np.searchsorted(tasks, rows), rows)
    return truth[tasks], rows, groups[tasks]


def system_means(per_task, pred_task, empty_value=0.0):
    """Per system the mean over its predictions (the report's Hscore: -1 none, -2 empty answer)."""
    values = np.concatenate([per_task, [empty_value, np.nan]])[pred_task]
    return np.nanmean(values, axis=0)


def frames(study, pred_task):
    """The study's kept labels and the predictions as the report reads them (``tkey`` t<triplet>,
    gold items carrying their expected label) and the systems."""
    task, worker, label = study.kept()
    gold = study.gold[task]
    labels = pd.DataFrame(
        {
            "tkey": np.char.add("t", task.astype(str)),
            "annotator": np.char.add("w", worker.astype(str)),
            "label": NAMES[label],
            "gold": np.where(gold >= 0, NAMES[gold.clip(0)], None),
        }
    )
    q, s = np.nonzero(pred_task != -1)
    cell = pred_task[q, s]
    systems = [f"s{j:02d}" for j in range(pred_task.shape[1])]
    predictions = pd.DataFrame(
        {
            "question_id": np.char.add("q", q.astype(str)),
            "system": np.array(systems, dtype=object)[s],
            "tkey": np.where(cell >= 0, np.char.add("t", cell.astype(str)), np.char.add("empty-", q.astype(str))),
        }
    )
    return labels, predictions, systems


def report_hscores(labels, pred_task, aggregate):
    """The report's Hscore per system under ``aggregate``, from the production functions
    (``human.triplet_scores``: the triplets' scores every report, PPI and live estimate reads; an
    empty answer's rule value from ``metric_registry``), or None when ``ds`` is refused."""
    try:
        scores = human.triplet_scores(labels, aggregate)["score"]
    except ValueError:
        return None
    per_task = np.full(int(pred_task.max()) + 1, np.nan)
    tasks = scores.index.str.slice(1).astype(int)
    keep = tasks < len(per_task)
    per_task[tasks[keep]] = scores.to_numpy()[keep]
    empty = float(metric_registry.get("hscore").per_triplet(np.array([[0, 0, 1]]), aggregate)[0])
    return system_means(per_task, pred_task, empty), per_task


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


def one_study(data, crowd_name, args, rng):
    """One simulated study: per aggregate the report's Hscores (production code) against the truth
    (each triplet's true label value, empty answers by the same rule), and screening rates. With
    ``data = (full, n)`` the study labels ``n`` questions drawn from ``full`` and the intervals are
    also held against the true Hscore of all of ``full`` (``covpop``)."""
    population = None
    full, n_sample = data
    if n_sample is not None and n_sample < len(full[1]):
        population = system_means(crowd_sim.VALUES[full[0]], full[1])
        full = sample(full, n_sample, rng)
    truth, pred_task, groups = full
    true = system_means(crowd_sim.VALUES[truth], pred_task)
    sim = {"rng": rng, "labels_per": args.labels, "fold_size": args.fold, "groups": groups}
    study = crowd_sim.simulate(truth, crowd_name, rules=crowd_sim.Rules(n_gold=args.gold), **sim)
    labels, predictions, systems = frames(study, pred_task)
    out = {"rates": study.rates()}
    for agg in AGGREGATES:
        got = report_hscores(labels, pred_task, agg)
        if got is None:
            out[agg] = None
            continue
        est, per_task = got
        rule = float(metric_registry.get("hscore").per_triplet(np.array([[0, 0, 1]]), agg)[0])
        empty = np.where(predictions["tkey"].str.startswith("empty-").to_numpy()[:, None], rule, np.nan)
        boot = crowd_section.two_way_intervals(
            predictions,
            labels,
            systems,
            aggregate=agg,
            n_boot=args.boot,
            seed=int(rng.integers(1 << 30)),
            empty_scores=np.repeat(empty, 2, axis=1),  # Hscore and Hcorrect of an incorrect answer: 0
        )
        scale = metric_registry.get("hscore").scale
        low, high = (np.array([r[f"hscore_{k}"] for r in boot], dtype=float) / scale for k in ("low", "high"))
        row = {
            "err": float(np.mean(np.abs(est - true)) * 100),
            "bias": float(np.mean(est - true) * 100),
            "tau": float(kendalltau(est, true).statistic),
            "flips": _flips(est, true),
            "cov2w": float(np.mean((low <= true) & (true <= high))),
            "width": float(np.mean(high - low) * 100),
        }
        if population is not None:
            row["covpop"] = float(np.mean((low <= population) & (population <= high)))
        if agg == "mean":
            qb = questions_bootstrap(per_task, pred_task, args.boot, rng)
            row["covq"] = float(np.mean((qb[:, 0] <= true) & (true <= qb[:, 1])))
        out[agg] = row
    legacy = crowd_sim.simulate(truth, crowd_name, rules=crowd_sim.Rules("legacy", n_gold=args.gold), **sim)
    out["legacy_rates"] = legacy.rates()
    return out


def report(name, results, n_pairs):
    for agg in AGGREGATES:
        rows = [r[agg] for r in results if r[agg] is not None]
        if not rows:
            print(f"  {agg:9s} refused")
            continue
        covq = f"  covq {np.mean([r['covq'] for r in rows]):.2f}" if agg == "mean" else ""
        if "covpop" in rows[0]:
            covq = f"  covpop {np.mean([r['covpop'] for r in rows]):.2f}" + covq
        err, bias, tau, flips, cov, width = (
            np.mean([r[k] for r in rows]) for k in ("err", "bias", "tau", "flips", "cov2w", "width")
        )
        print(
            f"  {agg:9s} err {err:5.2f} pts (bias {bias:+.2f})  tau {tau:.3f}  flips {flips:4.1f}/{n_pairs}  "
            f"cov2w {cov:.2f} (width {width:.1f} pts)" + covq
        )
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
    parser.add_argument("--fold", type=int, default=40, help="triplets per fold (whole questions), gold apart")
    parser.add_argument("--gold", type=int, default=8, help="gold items each participant labels")
    parser.add_argument("--crowds", default=",".join(crowd_sim.CROWDS))
    parser.add_argument("--data", default="squad,nq")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    datasets = {}
    if "squad" in args.data:  # each study labels its own draw of --questions questions
        datasets["SQuAD dev"] = (squad(None, args.seed), args.questions)
    if "nq" in args.data:
        datasets["NQ301-like"] = (nq(rng), None)
    for name, data in datasets.items():
        n_q, n_s = data[0][1].shape
        n_q = min(n_q, data[1] or n_q)
        print(f"{name}: {n_q} questions per study, {n_s} systems, {args.labels} labels per triplet")
        for crowd_name in args.crowds.split(","):
            start = time.perf_counter()
            results = [one_study(data, crowd_name, args, rng) for _ in range(args.studies)]
            print(f" crowd {crowd_name} ({args.studies} studies, {time.perf_counter() - start:.0f} s)")
            report(crowd_name, results, n_s * (n_s - 1) // 2)


if __name__ == "__main__":
    main()
