"""Complexity factors as data (SPEC section 6). Pure pandas/numpy/scipy, no database.

A factor names an attribute of the questions, a comparison and a threshold (a number, a string, a
boolean, or ``median``). E_f (hard) holds the questions for which ``attribute <op> threshold`` is
true, the easy side the others; a question lacking the attribute is on neither side.

Attributes are the columns of the questions table (SPEC 6: frame, lu, lu_pos, frame_elements,
coref, dist, trigger_in_question, frame_freq), two derived ones (``nb_fes`` = number of frame
elements, ``entropy`` = the entropy of the question's frame), or any key of a question's ``meta``.
``median`` is the median of the attribute over the questions that have it, or, with
``median_over="frames"``, over frames (the entropy factor: the median entropy over frames).
"""
from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from evaluation.stats import TieGroups, mann_whitney, nanmean_counts, split_counts

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
MEDIAN = "median"
BALANCED = "balanced"
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Factor:
    name: str
    attribute: str
    op: str
    threshold: object
    median_over: str = "questions"

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"factor {self.name!r}: comparison {self.op!r} is not one of {' '.join(OPS)}")
        if self.median_over not in ("questions", "frames"):
            raise ValueError(f"factor {self.name!r}: median_over must be 'questions' or 'frames'")
        if not self.name or not self.attribute:
            raise ValueError("a factor needs a name and an attribute")

    def as_dict(self):
        return asdict(self)


DEFAULT_FACTORS = (
    Factor("bias", "frame_freq", "<", BALANCED),
    Factor("coref", "coref", "==", True),
    Factor("trigger", "lu_pos", "==", "noun"),
    Factor("lu_in_q", "trigger_in_question", "==", False),
    Factor("dist", "dist", ">=", 2),
    Factor("nb_fes", "nb_fes", "<=", 2),
    Factor("entropy", "entropy", ">", MEDIAN, median_over="frames"),
)
FACTORS_BY_NAME = {f.name: f for f in DEFAULT_FACTORS}


def _coerce_threshold(text: str):
    low = text.strip().lower()
    if low in (MEDIAN, BALANCED):
        return low
    if low in ("true", "false"):
        return low == "true"
    try:
        number = float(text)
    except ValueError:
        return text.strip()
    return int(number) if number.is_integer() and "." not in text else number


def parse_factor(spec) -> Factor:
    """A factor from a dict, a Factor, the name of a predefined one, or ``name:attribute:op:threshold``
    (optionally ``:frames`` for a median over frames), e.g. ``long_ctx:ctx_len:>=:median``."""
    if isinstance(spec, Factor):
        return spec
    if isinstance(spec, dict):
        spec = dict(spec)
        if isinstance(spec.get("threshold"), str):
            spec["threshold"] = _coerce_threshold(spec["threshold"])
        return Factor(**spec)
    text = str(spec).strip()
    if text in FACTORS_BY_NAME:
        return FACTORS_BY_NAME[text]
    parts = text.split(":")
    if len(parts) not in (4, 5):
        raise ValueError(f"factor {text!r}: expected a predefined name ({', '.join(FACTORS_BY_NAME)}) "
                         "or name:attribute:op:threshold[:frames]")
    name, attribute, op, threshold = parts[:4]
    return Factor(name, attribute, op, _coerce_threshold(threshold), parts[4] if len(parts) == 5 else "questions")


def _plogp_entropy(counts: pd.Series) -> float:
    p = counts.to_numpy(dtype=float) / counts.sum()
    return float(-(p * np.log2(p)).sum())


def frame_entropy(questions: pd.DataFrame, source: str = "corpus", lexicon: dict | None = None) -> pd.Series:
    """Entropy (bits) of the LU distribution of each frame.

    ``corpus``: over the LUs of the frame's questions in this corpus (questions without an LU are
    not counted). ``lexicon``: uniform over the frame's LUs in ``lexicon`` (a mapping frame -> list
    of LU names), i.e. log2(number of distinct LUs), for every frame of the lexicon.
    """
    if source == "corpus":
        if "frame" not in questions or "lu" not in questions:
            return pd.Series(dtype=float)
        known = questions[["frame", "lu"]].dropna()
        if known.empty:
            return pd.Series(dtype=float)
        counts = known.groupby(["frame", "lu"]).size()
        return counts.groupby(level="frame").apply(_plogp_entropy).astype(float)
    if source == "lexicon":
        if not lexicon:
            raise ValueError("entropy source 'lexicon' needs a mapping frame -> list of LU names")
        return pd.Series({frame: math.log2(len(set(lus))) if lus else float("nan") for frame, lus in lexicon.items()},
                         dtype=float).dropna()
    raise ValueError(f"unknown entropy source {source!r}: 'corpus' or 'lexicon'")


def attribute(questions: pd.DataFrame, name: str, entropy: pd.Series | None = None) -> pd.Series:
    """The values of attribute ``name`` per question (NaN/None where the question lacks it)."""
    if name == "nb_fes":
        if "frame_elements" not in questions:
            return pd.Series(np.nan, index=questions.index)
        return questions["frame_elements"].map(lambda v: float(len(v)) if isinstance(v, (list, tuple)) else np.nan)
    if name == "entropy":
        if entropy is None or "frame" not in questions:
            return pd.Series(np.nan, index=questions.index)
        return questions["frame"].map(entropy).astype(float)
    if name in questions.columns and name != "meta":
        return questions[name]
    if "meta" in questions.columns:
        return questions["meta"].map(lambda m: m.get(name) if isinstance(m, dict) else None)
    return pd.Series(None, index=questions.index, dtype=object)


def _present(values: pd.Series) -> pd.Series:
    return values.map(lambda v: v is not None and not (isinstance(v, float) and math.isnan(v)))


def factor_side(questions: pd.DataFrame, factor: Factor, entropy: pd.Series | None = None):
    """Per question: 1.0 hard (in E_f), 0.0 easy, NaN lacking the attribute; and the threshold used."""
    values = attribute(questions, factor.attribute, entropy)
    known = _present(values).to_numpy(dtype=bool)
    threshold = factor.threshold
    if threshold == BALANCED:
        threshold = balanced_threshold(values[known], factor.op)
    elif threshold == MEDIAN:
        if factor.median_over == "frames":
            if factor.attribute == "entropy" and entropy is not None:
                population = entropy
            else:
                population = pd.DataFrame({"f": questions.get("frame"), "v": values})[known].dropna().groupby("f")["v"].first()
        else:
            population = values[known]
        population = pd.to_numeric(population, errors="coerce").dropna()
        threshold = float(population.median()) if len(population) else None
    side = np.full(len(questions), np.nan)
    if threshold is not None and known.any():
        compare = OPS[factor.op]
        try:
            hits = np.array([bool(compare(v, threshold)) for v in values[known]], dtype=bool) \
                if values.dtype == object else np.asarray(compare(values[known].to_numpy(), threshold), dtype=bool)
        except TypeError as exc:
            raise ValueError(f"factor {factor.name!r}: cannot compare {factor.attribute} {factor.op} {threshold!r} ({exc})") from None
        side[known] = hits.astype(float)
    return side, threshold


def balanced_threshold(values: pd.Series, op: str = "<"):
    """The threshold that puts the hard side closest to 50% of ``values`` (SPEC 6, ``bias``).

    Candidates are the distinct values themselves, so every question with one value (all the
    questions of a frame: ``frame_freq`` is a property of the frame) lands on one side: a frame is
    never split. With ``<`` (hard = rare frames) the hard share of candidate t is the share of
    values below t; the candidate closest to 50% wins, the smaller one on a tie. Computed from
    integer counts. ``op`` must be ``<`` or ``<=`` (``<=`` takes the same split, expressed as the
    largest value on the hard side).
    """
    if op not in ("<", "<="):
        raise ValueError(f"a balanced threshold needs the comparison < or <=, not {op!r}")
    numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float)
    if not len(numbers):
        return None
    distinct, counts = np.unique(numbers, return_counts=True)
    below = np.concatenate([[0], np.cumsum(counts)[:-1]])  # values strictly below each candidate
    if op == "<=":
        below = np.cumsum(counts)  # values at or below each candidate
    n = len(numbers)
    best = int(np.argmin(np.abs(2 * below - n)))  # |below / n - 1/2| compared on integers
    return float(distinct[best])


def factor_sides(questions: pd.DataFrame, factors, entropy: pd.Series | None = None):
    """DataFrame (questions x factors) of 1/0/NaN, and the thresholds used (median resolved)."""
    sides, thresholds = {}, {}
    for factor in factors:
        sides[factor.name], thresholds[factor.name] = factor_side(questions, factor, entropy)
    return pd.DataFrame(sides, index=questions.index), thresholds


def factor_effect(X: np.ndarray, side: np.ndarray, ties: TieGroups | None = None) -> dict:
    """For each column (system) of the per-question scores ``X``: S(E_f), S(not E_f), their raw
    difference, delta = floor(100 x diff), the Mann-Whitney U and its p-value. ``ties``:
    ``tie_groups(X)`` when the caller tests several splits of one matrix."""
    hard, easy = side == 1.0, side == 0.0
    h = e = None
    if ties is not None:  # the tie groups' counts on each side, shared by the means and the test
        h, e = split_counts(ties, hard, easy)
    (s_hard, n_hard_scored), (s_easy, n_easy_scored) = nanmean_counts(X, hard, ties=ties, group_counts=h), \
        nanmean_counts(X, easy, ties=ties, group_counts=e)
    u, p = mann_whitney(X, hard, easy, ties=ties, counts=(h, e) if ties is not None else None)
    n_known = int(hard.sum() + easy.sum())
    return {
        "s_hard": s_hard, "s_easy": s_easy, "diff": s_hard - s_easy, "u": u, "p_value": p,
        "n_hard": int(hard.sum()), "n_easy": int(easy.sum()),
        "n_hard_scored": n_hard_scored, "n_easy_scored": n_easy_scored,
        "size_pct": 100.0 * hard.sum() / n_known if n_known else np.nan,
        "size_pct_corpus": 100.0 * hard.sum() / len(side) if len(side) else np.nan,
    }


def share_by_group(side: np.ndarray, groups: np.ndarray, keys) -> dict:
    """P(f | group): among the questions of each group that have the attribute, the share in E_f."""
    out = {}
    for k in keys:
        in_group = (groups == k) & ~np.isnan(side)
        out[k] = float(side[in_group].mean()) if in_group.any() else np.nan
    return out


def combination_masks(side_a: np.ndarray, side_b: np.ndarray) -> dict:
    """The four subsets of two factors, among the questions that have both attributes."""
    a, b = side_a == 1.0, side_b == 1.0
    known = ~np.isnan(side_a) & ~np.isnan(side_b)
    return {"neither": known & ~a & ~b, "only_f1": known & a & ~b, "only_f2": known & ~a & b, "both": known & a & b}


DERIVED_SOURCES = {
    "nb_fes": "no question has `frame_elements`: import frame annotation or predict frames",
    "entropy": "no question has a `frame` with an `lu` (entropy source corpus): import frame annotation or "
               "predict frames",
}


def skip_reason(questions: pd.DataFrame, factor: Factor, entropy: pd.Series | None = None) -> str:
    """Why ``factor`` has no question on either side: a sentence for the report and its page."""
    name = factor.attribute
    if name == "entropy" and entropy is not None and len(entropy) and "frame" in questions:
        return "no question's `frame` has an entropy (not in the lexicon, or no `lu`)"
    if name in DERIVED_SOURCES:
        return DERIVED_SOURCES[name]
    hint = ": import frame annotation or predict frames" if name in ("frame", "lu", "lu_pos", "frame_freq") else \
        ": add it to the corpus (a column of SPEC 9 or a key of `meta`)"
    return f"no question has `{name}`{hint}"


def is_significant(p_value, level: float = SIGNIFICANCE) -> bool:
    return bool(p_value is not None and not (isinstance(p_value, float) and math.isnan(p_value)) and p_value < level)
