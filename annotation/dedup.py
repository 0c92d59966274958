"""Answer normalization and triplet building (SPEC section 2). Pure functions on plain data.

Policies, from weakest to strongest merge:
- ``exact``: the answer string as given.
- ``whitespace`` (default): Unicode NFC, strip, collapse runs of whitespace to one space.
- ``casefold``: ``whitespace`` then Unicode case folding.
Never stronger by default: two answers a human could judge differently must not merge.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable

POLICIES = ("whitespace", "casefold", "exact")
DEFAULT_POLICY = "whitespace"
_WS = re.compile(r"\s+")


def normalize_answer(text: str, policy: str = DEFAULT_POLICY) -> str:
    if policy not in POLICIES:
        raise ValueError(f"unknown dedup policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if policy == "exact":
        return text
    text = _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()
    if policy == "casefold":
        text = text.casefold()
    return text


@dataclass
class TripletGroup:
    """One triplet to be: a question, the displayed answer, its key and the predictions behind it."""

    question_key: object
    answer: str
    normalized: str
    prediction_keys: list = field(default_factory=list)


def build_triplets(predictions: Iterable[tuple], policy: str = DEFAULT_POLICY) -> list[TripletGroup]:
    """Group ``(prediction_key, question_key, answer)`` tuples into triplets.

    Order is stable: triplets come out in first-seen order, and the displayed answer of a triplet is
    the whitespace-normalized form of the first prediction seen (so the reference, loaded first,
    usually gives the displayed spelling).
    """
    groups: dict[tuple, TripletGroup] = {}
    for pred_key, question_key, answer in predictions:
        answer = answer or ""
        key = (question_key, normalize_answer(answer, policy))
        group = groups.get(key)
        if group is None:
            shown = answer if policy == "exact" else normalize_answer(answer, "whitespace")
            group = groups[key] = TripletGroup(question_key, shown, key[1])
        group.prediction_keys.append(pred_key)
    return list(groups.values())
