"""Fold building and fold-to-annotator assignment (SPEC section 2). Pure functions on plain data.

``build_folds`` takes ``(triplet_key, question_key)`` pairs in a stable order and returns K folds:

- policy ``by_question`` (default): all triplets of a question land in one fold; questions go largest
  first into the currently lightest fold (ties: the seeded order of questions, then the lowest fold
  index), so folds are balanced by triplet count.
- policy ``by_triplet``: triplets dealt one by one (seeded order) into the lightest fold.
- ``overlap``: a seeded share of questions (default 10%) is copied into a second fold, the lightest
  one other than its own, so that its triplets get two independent labels.
- Inside a fold the order is a seeded draw in which two triplets of the same question are never
  back to back when that can be avoided, and where an item's position does not depend on how many
  triplets its question has (``spread_questions``).
- Items that come later (``interleave``) are spread over the unjudged part of a fold at seeded
  places, never appended as one block.
"""

from __future__ import annotations

import heapq
import random
from collections import OrderedDict
from dataclasses import dataclass, field

FOLD_POLICIES = ("by_question", "by_triplet")


def gettext_noop(text):
    """Marks a word for the catalogues (``makemessages`` collects this name) without importing Django."""
    return text


#: Each policy in words, for the pages (English here; pages translate them with gettext).
FOLD_POLICY_TITLES = {
    "by_question": gettext_noop("by question (the triplets of a question in one fold)"),
    "by_triplet": gettext_noop("by triplet"),
}


@dataclass
class FoldPlan:
    index: int
    items: list = field(default_factory=list)  # [(triplet_key, question_key, is_overlap)]

    @property
    def size(self):
        return len(self.items)

    def triplet_keys(self):
        return [t for t, _, _ in self.items]


def build_folds(pairs, *, k=10, seed=0, policy="by_question", overlap=0.1):
    if k < 1:
        raise ValueError("the number of folds must be at least 1")
    if policy not in FOLD_POLICIES:
        raise ValueError(f"unknown fold policy {policy!r}; choose one of {', '.join(FOLD_POLICIES)}")
    if not 0 <= overlap <= 1:
        raise ValueError("overlap must be a share between 0 and 1")
    if overlap > 0 and k < 2:
        raise ValueError("overlap needs at least 2 folds")
    rng = random.Random(seed)
    by_question: OrderedDict[object, list] = OrderedDict()
    for triplet_key, question_key in pairs:
        by_question.setdefault(question_key, []).append(triplet_key)

    folds = [FoldPlan(i) for i in range(k)]
    loads = [(0, i) for i in range(k)]  # heap of (triplet count, fold index)
    heapq.heapify(loads)
    home: dict = {}

    def place(units):
        for question_key, triplets in units:
            load, index = heapq.heappop(loads)
            folds[index].items.extend((t, question_key, False) for t in triplets)
            home.setdefault(question_key, index)
            heapq.heappush(loads, (load + len(triplets), index))

    questions = list(by_question.items())
    rng.shuffle(questions)
    if policy == "by_question":
        questions.sort(key=lambda qt: -len(qt[1]))  # stable: seeded order breaks ties
        place(questions)
    else:
        units = [(q, [t]) for q, ts in questions for t in ts]
        rng.shuffle(units)
        place(units)

    n_overlap = round(overlap * len(questions))
    if n_overlap:
        for question_key, triplets in rng.sample(questions, n_overlap):
            # the lightest fold other than the question's own, ties to the lowest index: the heap
            # holds every fold's (size, index), so this costs log K, not K (K grows with the study)
            skipped = heapq.heappop(loads)
            if skipped[1] != home[question_key]:
                load, index = skipped
            else:
                load, index = heapq.heappop(loads)
                heapq.heappush(loads, skipped)
            folds[index].items.extend((t, question_key, True) for t in triplets)
            heapq.heappush(loads, (load + len(triplets), index))

    for fold in folds:
        fold.items = spread_questions(fold.items, random.Random(f"{seed}:{fold.index}"))
    return folds


def spread_questions(items, rng):
    """Shuffle ``items`` so that no two neighbours share a question when avoidable.

    Each next item is drawn uniformly among the items left that do not share the last item's
    question, so an item's position does not depend on how many items its question has (nor on
    how many systems gave its answer). Only when one question holds more than half of what is
    left is it taken first, the one move that keeps a spread order possible.
    """
    pool = list(items)
    rng.shuffle(pool)
    left: dict = {}
    for item in pool:
        left[item[1]] = left.get(item[1], 0) + 1
    heap = [(-n, i, q) for i, (q, n) in enumerate(left.items())]
    heapq.heapify(heap)
    order = {q: i for i, q in enumerate(left)}
    out, last = [], object()
    while pool:
        biggest = _largest(heap, left, order)
        if biggest is not None and 2 * left[biggest] > len(pool) and biggest != last:
            index = next(i for i in range(len(pool) - 1, -1, -1) if pool[i][1] == biggest)
        else:
            choices = [i for i in range(len(pool)) if pool[i][1] != last] if left.get(last, 0) * 2 > len(pool) else None
            if choices is None:
                index = rng.randrange(len(pool))
                while pool[index][1] == last:
                    index = rng.randrange(len(pool))
            else:
                index = rng.choice(choices) if choices else rng.randrange(len(pool))  # unavoidable repeat
        pool[index], pool[-1] = pool[-1], pool[index]
        item = pool.pop()
        out.append(item)
        last = item[1]
        left[last] -= 1
        heapq.heappush(heap, (-left[last], order[last], last))
    return out


def _largest(heap, left, order):
    """The question with the most items left (lazy max-heap of ``(-count, order, question)``)."""
    while heap and -heap[0][0] != left[heap[0][2]]:
        heapq.heappop(heap)
    return heap[0][2] if heap and left[heap[0][2]] else None


def interleave(tail, new, rng):
    """Spread ``new`` items over ``tail`` (the unjudged part of a fold), seeded.

    Items are ``(key, question, ...)``. New items go into distinct gaps drawn uniformly among
    the ``len(tail) + 1`` gaps, so no two new items (e.g. one system's late answers) are back to
    back while there is room, and their place does not depend on when they came. Then a new item
    that sits beside an item of its own question trades places with another new item when that
    removes the clash. ``tail`` keeps its order.
    """
    new = list(new)
    rng.shuffle(new)
    gaps = len(tail) + 1
    if len(new) <= gaps:
        chosen = sorted(rng.sample(range(gaps), len(new)))
    else:  # more new items than gaps: some must be neighbours; fill gaps evenly
        chosen = sorted(i * gaps // len(new) for i in range(len(new)))
    out, slots, j = [], [], 0
    for g in range(gaps):
        while j < len(new) and chosen[j] == g:
            slots.append(len(out))
            out.append(new[j])
            j += 1
        if g < len(tail):
            out.append(tail[g])

    def clashes(pos, item):
        return any(0 <= n < len(out) and n not in (pos,) and out[n][1] == item[1] for n in (pos - 1, pos + 1))

    for a in slots:
        if not clashes(a, out[a]):
            continue
        for b in rng.sample(slots, len(slots)):
            if b != a and abs(a - b) > 1 and not clashes(a, out[b]) and not clashes(b, out[a]):
                out[a], out[b] = out[b], out[a]
                break
    return out


def assign_round_robin(fold_triplets, annotators, *, per_fold=1, existing=None, max_steps=200_000):
    """Assign each fold to ``per_fold`` annotators, never giving an annotator a triplet twice.

    ``fold_triplets``: {fold_key: set(triplet_keys)}; ``annotators``: ordered list of keys;
    ``existing``: {annotator: (n_folds, set(triplet_keys))} already held. Returns {fold_key: [annotators]}.
    Loads stay balanced (no annotator gets more than ceil(needed / annotators) new folds). A
    depth-first search with backtracking finds an assignment whenever one exists within
    ``max_steps``; otherwise ValueError names the fold that could not be placed.
    """
    if not annotators:
        raise ValueError("no annotators to assign")
    existing = existing or {}
    held = {a: set(existing.get(a, (0, set()))[1]) for a in annotators}
    load = {a: existing.get(a, (0, set()))[0] for a in annotators}
    folds = list(fold_triplets)
    cap = -(-len(folds) * per_fold // len(annotators))
    new_load = dict.fromkeys(annotators, 0)
    rank = {a: i for i, a in enumerate(annotators)}
    result = {}
    steps = 0
    deepest = [0]

    def candidates(i, fold, start):
        triplets = fold_triplets[fold]
        ok = [a for a in annotators if new_load[a] < cap and not (held[a] & triplets)]
        return sorted(ok, key=lambda a: (load[a] + new_load[a], (rank[a] - i) % len(annotators)))

    def place(i):
        nonlocal steps
        deepest[0] = max(deepest[0], i)
        if i == len(folds):
            return True
        fold = folds[i]
        for combo in _combinations(candidates(i, fold, 0), per_fold):
            steps += 1
            if steps > max_steps:
                return False
            for a in combo:
                held[a] |= fold_triplets[fold]
                new_load[a] += 1
            result[fold] = list(combo)
            if place(i + 1):
                return True
            for a in combo:
                held[a] -= fold_triplets[fold]
                new_load[a] -= 1
                _restore(a)
            del result[fold]
        return False

    def _restore(a):
        # Rebuild what ``a`` holds from scratch: a removed fold may share triplets with a kept one.
        held[a] = set(existing.get(a, (0, set()))[1]).union(*(fold_triplets[f] for f, us in result.items() if a in us))

    if not place(0):
        fold = folds[min(deepest[0], len(folds) - 1)]
        raise ValueError(
            f"fold {fold}: not enough annotators without an overlapping triplet "
            f"(need {per_fold} per fold, {len(annotators)} annotators)"
        )
    return result


def _combinations(options, k):
    from itertools import combinations

    return combinations(options, k)


def assignment_conflict(fold_triplets, annotator_folds, new_fold):
    """Triplet keys the annotator would see twice if ``new_fold`` were added to ``annotator_folds``."""
    seen = set().union(*(fold_triplets[f] for f in annotator_folds if f != new_fold)) if annotator_folds else set()
    return seen & fold_triplets[new_fold]
