"""Simulated crowds labelling triplets (SPEC 17), for ``bench/crowd_bench.py`` and the tests.

A worker is a confusion matrix (true class x given label, classes in ``human.LABEL_CODES`` order:
correct, partial, incorrect). On gold items (clear cases only: correct or incorrect) an honest worker
errs less: its off-diagonal mass is multiplied by ``GOLD_EASE``. A study splits the triplets into
folds; every fold is labelled by ``labels_per`` workers drawn from the crowd; the fold carries
``n_gold`` gold items (the first ``qualification`` of them at its start as a qualification block);
a worker who fails the qualification block is screened out (its labels never count), one who breaks
the stop rule inside the fold is stopped (its labels excluded) and the slot goes to a new worker.

Pure numpy. The worker mixes are assumptions of this bench (README, crowd section), not data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

C, P, I = 0, 1, 2
VALUES = np.array([1.0, 0.5, 0.0])
GOLD_EASE = 0.25
WORKERS = {
    # trained annotators: about 13% disagreement with the truth, most of it on partial answers
    "expert": np.array([[0.94, 0.05, 0.01], [0.15, 0.72, 0.13], [0.01, 0.06, 0.93]]),
    # an honest panel member: careful, less sure on partial answers
    "diligent": np.array([[0.90, 0.07, 0.03], [0.25, 0.55, 0.20], [0.04, 0.10, 0.86]]),
    # honest but lenient: partial answers pass as correct, wrong ones as partial
    "lenient": np.array([[0.95, 0.04, 0.01], [0.55, 0.40, 0.05], [0.12, 0.30, 0.58]]),
    # clicks "correct" for nearly everything
    "clicker": np.array([[0.96, 0.02, 0.02], [0.96, 0.02, 0.02], [0.96, 0.02, 0.02]]),
    # answers at random
    "random": np.full((3, 3), 1 / 3),
}
HONEST = frozenset({"expert", "diligent", "lenient"})
CROWDS = {
    "experts": {"expert": 1.0},
    "typical": {"diligent": 0.78, "lenient": 0.05, "clicker": 0.09, "random": 0.08},
    "poor": {"diligent": 0.50, "lenient": 0.10, "clicker": 0.22, "random": 0.18},
    "lenient": {"lenient": 0.9, "diligent": 0.1},
}


@dataclass
class Study:
    """Simulated labels: ``task``, ``worker``, ``label``, ``excluded`` (per label), ``gold`` (per
    task: the known class or -1), the type of each worker, who was stopped / screened out."""

    task: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    excluded: np.ndarray
    gold: np.ndarray
    types: list = field(default_factory=list)
    stopped: set = field(default_factory=set)
    screened: set = field(default_factory=set)

    def kept(self, with_excluded=False):
        keep = np.ones(len(self.task), bool) if with_excluded else ~self.excluded
        return self.task[keep], self.worker[keep], self.label[keep]

    def rates(self):
        """Honest people stopped in the fold (share), bad workers caught (stopped or screened out),
        honest people screened out by the qualification block (paid)."""
        honest = [w for w, t in enumerate(self.types) if t in HONEST]
        bad = [w for w, t in enumerate(self.types) if t not in HONEST]
        caught = self.stopped | self.screened
        return (
            sum(w in self.stopped for w in honest) / max(len(honest), 1),
            sum(w in caught for w in bad) / max(len(bad), 1),
            sum(w in self.screened for w in honest) / max(len(honest), 1),
        )


def _gold_matrix(kind):
    m = WORKERS[kind].copy()
    if kind in HONEST:
        off = m * (1 - np.eye(3)) * GOLD_EASE
        m = off + np.diag(1 - off.sum(axis=1))
    return m


def _label(rng, matrix, truth):
    u = rng.random(len(truth))
    cum = matrix[truth].cumsum(axis=1)
    return (u[:, None] > cum).sum(axis=1).clip(0, 2)


@dataclass
class Rules:
    """Screening: ``rule`` "two-misses" (SPEC 17: at least 2 gold misses and below ``min_gold``),
    "legacy" (below ``min_gold`` after 3 gold items: SPEC 13 before) or "none"."""

    rule: str = "two-misses"
    min_gold: float = 0.7
    qualification: int = 3
    n_gold: int = 8


def _worker_run(rng, kind, items, gold_truth, rules):
    """One worker through one fold: (labels of items, status) with status ok/stopped/screened."""
    n_q = rules.qualification if rules.rule != "legacy" else 0
    gold_seen = _label(rng, _gold_matrix(kind), gold_truth)
    misses = np.cumsum(gold_seen != gold_truth)
    if n_q and misses[n_q - 1] >= 2:
        return None, "screened"
    rest = len(gold_truth) - n_q
    # the in-fold gold items sit at random positions among the fold's items
    slots = np.sort(rng.choice(len(items) + rest, size=rest, replace=False)) if rest else np.zeros(0, int)
    for j, slot in enumerate(slots):
        k = n_q + j + 1  # gold items seen so far
        acc = 1 - misses[k - 1] / k
        stop = (rules.rule == "two-misses" and misses[k - 1] >= 2 and acc < rules.min_gold) or (
            rules.rule == "legacy" and k >= 3 and acc < rules.min_gold
        )
        if stop:
            done = slot - j  # the fold's items labelled before this gold item
            return (_label(rng, WORKERS[kind], items[:done]), gold_seen[:k]), "stopped"
    return (_label(rng, WORKERS[kind], items), gold_seen), "ok"


def simulate(truth, crowd, *, rng, labels_per=3, fold_size=40, rules=None) -> Study:
    """A study over the triplets whose true classes are ``truth`` (codes), with gold items appended
    as extra tasks (half correct, half incorrect: clear cases)."""
    rules = rules or Rules()
    truth = np.asarray(truth)
    n = len(truth)
    gold_truth = np.array([C, I] * (rules.n_gold // 2) + [I] * (rules.n_gold % 2))
    rng.shuffle(gold_truth[rules.qualification :])
    gold = np.concatenate([np.full(n, -1), gold_truth])
    kinds, weights = zip(*CROWDS[crowd].items())
    order = rng.permutation(n)
    rows, types, stopped, screened = [], [], set(), set()
    for start in range(0, n, fold_size):
        fold = order[start : start + fold_size]
        for _slot in range(labels_per):
            while True:
                w = len(types)
                types.append(kinds[rng.choice(len(kinds), p=weights)])
                got, status = _worker_run(rng, types[w], truth[fold], gold_truth, rules)
                if status == "screened":
                    screened.add(w)
                    continue
                (item_labels, gold_labels) = got
                bad = status == "stopped"
                rows.append((fold[: len(item_labels)], w, item_labels, bad))
                rows.append((n + np.arange(len(gold_labels)), w, gold_labels, bad))
                if bad:
                    stopped.add(w)
                    continue
                break
    task = np.concatenate([r[0] for r in rows])
    worker = np.concatenate([np.full(len(r[0]), r[1]) for r in rows])
    label = np.concatenate([r[2] for r in rows])
    excluded = np.concatenate([np.full(len(r[0]), r[3]) for r in rows])
    return Study(task, worker, label.astype(np.int64), excluded, gold, types, stopped, screened)


def nq_like(rng, n_questions=301, n_systems=12):
    """NQ301-like data: close systems on hard questions; one triplet per prediction. Returns
    ``(truth per triplet, pred_task (questions x systems))``."""
    difficulty = rng.normal(0, 1.2, n_questions)
    skill = np.linspace(-0.15, 0.25, n_systems)
    z = skill[None, :] - difficulty[:, None] + rng.normal(0, 0.6, (n_questions, n_systems))
    truth = np.where(z > 0.35, C, np.where(z > -0.1, P, I)).ravel()
    return truth, np.arange(n_questions * n_systems).reshape(n_questions, n_systems)
