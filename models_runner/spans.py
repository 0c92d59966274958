"""Answer spans from extractive-QA logits: pure functions on numpy arrays.

A long context is cut into overlapping features (doc stride); each feature gives start and end
logits over its tokens. The answer of a question is the best span over all its features:
score = start_logit + end_logit, the span lies inside the context part of the feature (not the
question, not special tokens), end >= start, and it has at most ``max_answer_len`` tokens.
The text is sliced from the original context through the tokens' character offsets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Span:
    score: float
    start_char: int
    end_char: int


def best_span_in_feature(start_logits, end_logits, offsets, *, context_mask, max_answer_len=30, n_best=20):
    """The best span of one feature, or None when the feature has no context token.

    ``offsets``: (n_tokens, 2) character offsets into the context; ``context_mask``: booleans, True
    for tokens of the context. Only the ``n_best`` highest starts and ends are combined (as the
    Hugging Face post-processing does), which is exact for the maximum unless all of them are
    invalid pairs.
    """
    start_logits = np.asarray(start_logits, dtype=np.float64)
    end_logits = np.asarray(end_logits, dtype=np.float64)
    mask = np.asarray(context_mask, dtype=bool)
    if max_answer_len < 1:
        raise ValueError("max_answer_len must be at least 1")
    if not mask.any():
        return None
    idx = np.flatnonzero(mask)
    starts = idx[np.argsort(-start_logits[idx], kind="stable")[:n_best]]
    ends = idx[np.argsort(-end_logits[idx], kind="stable")[:n_best]]
    best = None
    for s in starts:
        for e in ends:
            if e < s or e - s + 1 > max_answer_len:
                continue
            score = float(start_logits[s] + end_logits[e])
            if best is None or score > best[0]:
                best = (score, int(s), int(e))
    if best is None:  # every top pair invalid: fall back to the single best context token
        s = int(idx[np.argmax(start_logits[idx] + end_logits[idx])])
        best = (float(start_logits[s] + end_logits[s]), s, s)
    score, s, e = best
    return Span(score, int(offsets[s][0]), int(offsets[e][1]))


def best_answer(features, context, *, max_answer_len=30, n_best=20):
    """Best span text over the features of one question. ``features``: iterable of dicts with
    ``start_logits``, ``end_logits``, ``offsets``, ``context_mask``. Empty string when none."""
    best = None
    for f in features:
        span = best_span_in_feature(
            f["start_logits"],
            f["end_logits"],
            f["offsets"],
            context_mask=f["context_mask"],
            max_answer_len=max_answer_len,
            n_best=n_best,
        )
        if span is not None and (best is None or span.score > best.score):
            best = span
    if best is None:
        return ""
    return context[best.start_char : best.end_char].strip()
