"""Simulated crowds labelling triplets (SPEC 17), for ``bench/crowd_bench.py`` and the tests.

A worker is a confusion matrix (true class x given label, classes in ``human.LABEL_CODES`` order:
correct, partial, incorrect). Where the numbers come from (the only measured figure is the first):

- honest workers (``expert``, ``diligent``): calibrated on NQ301's real expert disagreement, 13% of
  pairs of labels on the same answer (issue 42), most of it on partial answers: two such workers
  disagree on 12.8% of NQ301-like answers (priors 0.43 / 0.13 / 0.44) and 14.8% of SQuAD dev's
  (0.41 / 0.18 / 0.41: more partial answers). A panel's honest participant is taken to be as careful
  as a trained annotator; ``untrained`` (29% pairwise disagreement on SQuAD, 26% on NQ301-like: this
  bench's earlier guess, no source) shows what happens when they are not (crowd ``typical-untrained``);
- ``lenient`` (honest, partial answers pass as correct, wrong ones as partial), ``clicker`` ("correct"
  for nearly everything) and ``random``, in the shares of the crowds below: this bench's assumptions,
  roughly in the range that published panel-quality comparisons report for inattentive participants
  (from a few percent to about a fifth of a panel; e.g. Peer et al. 2022, Douglas et al. 2023), not
  fitted to any data.

On gold items (clear cases only: correct or incorrect) an honest worker errs less: its
off-diagonal mass is multiplied by ``GOLD_EASE``. Gold items are triplets of the data themselves
(``n_gold`` clear ones, half correct, half incorrect, as an admin picks them) that every participant
labels: the first ``qualification`` open each fold as the qualification block, the others sit at
random places in the fold. The other triplets go into folds of about ``fold_size`` triplets, whole
questions per fold as the platform's ``by_question`` folds (SPEC 2); every fold is labelled by
``labels_per`` participants. A participant who fails the qualification block is screened out (its
labels never count), one who breaks the stop rule inside the fold is stopped (its labels excluded)
and the slot goes to a new participant.

Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

C, P, I = 0, 1, 2
VALUES = np.array([1.0, 0.5, 0.0])
GOLD_EASE = 0.25
#: honest worker calibrated on NQ301's expert disagreement (13% of pairs; module docstring)
CALIBRATED = np.array([[0.96, 0.03, 0.01], [0.15, 0.74, 0.11], [0.01, 0.04, 0.95]])
WORKERS = {
    # trained annotators and careful panel members alike: the calibrated honest worker
    "expert": CALIBRATED,
    "diligent": CALIBRATED,
    # honest but untrained: twice the calibrated disagreement, less sure on partial answers (no source)
    "untrained": np.array([[0.90, 0.07, 0.03], [0.25, 0.55, 0.20], [0.04, 0.10, 0.86]]),
    # honest but lenient: partial answers pass as correct, wrong ones as partial
    "lenient": np.array([[0.95, 0.04, 0.01], [0.55, 0.40, 0.05], [0.12, 0.30, 0.58]]),
    # clicks "correct" for nearly everything
    "clicker": np.array([[0.96, 0.02, 0.02], [0.96, 0.02, 0.02], [0.96, 0.02, 0.02]]),
    # answers at random
    "random": np.full((3, 3), 1 / 3),
}
HONEST = frozenset({"expert", "diligent", "untrained", "lenient"})
CROWDS = {
    "experts": {"expert": 1.0},
    "typical": {"diligent": 0.78, "lenient": 0.05, "clicker": 0.09, "random": 0.08},
    "poor": {"diligent": 0.50, "lenient": 0.10, "clicker": 0.22, "random": 0.18},
    "lenient": {"lenient": 0.9, "diligent": 0.1},
    "typical-untrained": {"untrained": 0.78, "lenient": 0.05, "clicker": 0.09, "random": 0.08},
}


def pairwise_disagreement(matrix, priors) -> float:
    """The share of pairs of labels on the same answer that differ, for two workers of ``matrix``
    on answers whose true classes have ``priors``.

    >>> round(pairwise_disagreement(CALIBRATED, [0.432, 0.127, 0.442]), 3)
    0.128
    """
    matrix = np.asarray(matrix)
    return float(1 - sum(p * matrix[c] @ matrix[c] for c, p in enumerate(priors)))


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


def _gold_items(truth, rules, rng):
    """``n_gold`` clear triplets of the data (half correct, half incorrect), the qualification block
    first (alternating incorrect, correct) and the others shuffled."""
    n_i = rules.n_gold - rules.n_gold // 2
    wrong = rng.choice(np.flatnonzero(truth == I), size=n_i, replace=False)
    right = rng.choice(np.flatnonzero(truth == C), size=rules.n_gold // 2, replace=False)
    picked = np.empty(rules.n_gold, dtype=np.int64)
    picked[0::2], picked[1::2] = wrong, right  # incorrect, correct, incorrect, ...
    rng.shuffle(picked[rules.qualification :])
    return picked


def _folds(n, groups, fold_size, rng, skip):
    """Folds of about ``fold_size`` triplets, whole groups (questions) per fold, ``skip`` left out."""
    groups = np.arange(n) if groups is None else np.asarray(groups)
    keep = np.ones(n, bool)
    keep[skip] = False
    names = rng.permutation(np.unique(groups[keep]))
    rank = np.empty(int(groups.max()) + 1, dtype=np.int64)
    rank[names] = np.arange(len(names))
    items = np.flatnonzero(keep)
    items = items[np.argsort(rank[groups[items]], kind="stable")]
    sizes = np.bincount(rank[groups[items]], minlength=len(names))
    folds, current, size = [], [], 0
    at = 0
    for k in sizes:  # whole questions, a new fold once this one holds fold_size triplets
        current.append(items[at : at + k])
        at, size = at + k, size + k
        if size >= fold_size:
            folds.append(np.concatenate(current))
            current, size = [], 0
    if current:
        folds.append(np.concatenate(current))
    return [rng.permutation(f) for f in folds]


def simulate(truth, crowd, *, rng, labels_per=3, fold_size=40, rules=None, groups=None) -> Study:
    """A study over the triplets whose true classes are ``truth`` (codes): ``rules.n_gold`` of them
    are gold (clear cases, labelled by every participant), the others go into folds of about
    ``fold_size`` triplets, whole ``groups`` (the question of each triplet) per fold."""
    rules = rules or Rules()
    truth = np.asarray(truth)
    n = len(truth)
    gold_items = _gold_items(truth, rules, rng) if rules.n_gold else np.zeros(0, np.int64)
    gold_truth = truth[gold_items]
    gold = np.full(n, -1)
    gold[gold_items] = gold_truth
    kinds, weights = zip(*CROWDS[crowd].items())
    rows, types, stopped, screened = [], [], set(), set()
    for fold in _folds(n, groups, fold_size, rng, gold_items):
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
                rows.append((gold_items[: len(gold_labels)], w, gold_labels, bad))
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
