"""Per-annotator quality figures and adjudication: pure functions on plain label rows.

A label row is ``(annotator, triplet_id, value, seconds, updated_at)``. Figures per annotator:
- accuracy on gold: share of their labels on gold triplets equal to the expected label;
- agreement with others: over every pair (their label, another annotator's label) on the same triplet,
  the share of equal pairs (overlap items only);
- speed: median seconds per labelled item; last activity: their latest label time.
Ratios are computed from integers, so equal figures are equal floats. ``None`` when there is nothing
to measure.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime


@dataclass(frozen=True)
class AnnotatorQuality:
    annotator: str
    n_labels: int
    gold_n: int
    gold_agree: int
    overlap_pairs: int
    overlap_agree: int
    median_seconds: float | None
    last_activity: datetime | None

    @property
    def gold_accuracy(self):
        return self.gold_agree / self.gold_n if self.gold_n else None

    @property
    def agreement(self):
        return self.overlap_agree / self.overlap_pairs if self.overlap_pairs else None

    def as_dict(self):
        data = asdict(self)
        data.update(gold_accuracy=self.gold_accuracy, agreement=self.agreement)
        data["last_activity"] = self.last_activity.isoformat() if self.last_activity else None
        return data


def annotator_quality(rows, gold):
    """Rows as in the module doc; ``gold`` maps triplet id -> expected label. One entry per annotator, sorted."""
    by_triplet = defaultdict(list)
    mine = defaultdict(list)
    for annotator, triplet, value, seconds, updated in rows:
        by_triplet[triplet].append((annotator, value))
        mine[annotator].append((triplet, value, seconds, updated))
    out = []
    for annotator in sorted(mine):
        labels = mine[annotator]
        gold_hits = [value == gold[t] for t, value, _, _ in labels if t in gold]
        pairs = agree = 0
        for t, value, _, _ in labels:
            for other, their in by_triplet[t]:
                if other != annotator:
                    pairs += 1
                    agree += value == their
        seconds = [s for _, _, s, _ in labels]
        out.append(
            AnnotatorQuality(
                annotator=annotator,
                n_labels=len(labels),
                gold_n=len(gold_hits),
                gold_agree=sum(gold_hits),
                overlap_pairs=pairs,
                overlap_agree=agree,
                median_seconds=float(statistics.median(seconds)) if seconds else None,
                last_activity=max((u for _, _, _, u in labels), default=None),
            )
        )
    return out


def disagreements(rows, decided=()):
    """Triplets labelled by several annotators with different labels: {triplet: {annotator: value}}."""
    by_triplet = defaultdict(dict)
    for annotator, triplet, value, _seconds, _updated in rows:
        by_triplet[triplet][annotator] = value
    return {
        t: labels
        for t, labels in sorted(by_triplet.items())
        if len(labels) > 1 and len(set(labels.values())) > 1 and t not in decided
    }


def apply_adjudications(labels, decisions, key="triplet"):
    """Labels (DataFrame with ``key`` and ``label`` columns) where every label of an adjudicated triplet
    is replaced by the admin's decision (``decisions``: triplet -> label). The input is not changed."""
    if labels is None or not decisions:
        return labels
    out = labels.copy()
    decided = out[key].map(decisions)
    out["label"] = decided.where(decided.notna(), out["label"])
    return out
