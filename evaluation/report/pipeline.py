"""The whole report, from three DataFrames (questions, predictions, labels) to plain data.

``compute_report`` is pure (no database, no files): it scores every prediction (SPEC 3, 4), runs
ROVER (SPEC 5), the complexity factors (SPEC 6) and the agreement (SPEC 7), with bootstrap
confidence intervals and Holm-corrected p-values, and returns a ``Report``: ``data`` is the
``report.json`` content (SPEC 9 keys), ``tables`` the DataFrames behind each CSV / LaTeX table and
``figures`` the data behind each figure (rendered by ``evaluation.render.figures``).

Scores are held as (questions x systems) matrices, one per metric, the ROVER column last. A missing
prediction scores 0 on the automatic metrics (the official SQuAD convention) and is undefined (NaN)
on the human metrics, like an unlabeled one.
"""

from __future__ import annotations

import contextlib
import gc
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from annotation.dedup import DEFAULT_POLICY
from annotation.interchange import REFERENCE
from annotation.labels import LABEL_RANKS
from evaluation.science import agreement, human, metrics, rover, stats
from evaluation.science import factors as fx

METRICS = ("hscore", "hcorrect", "rouge_l", "f1", "em")
HUMAN_METRICS = ("hscore", "hcorrect")
AUTO_METRICS = ("rouge_l", "f1", "em")
FALLBACK_METRIC = "f1"
# Means reported in percent (SPEC 3: Hcorrect as %); every other metric is reported in [0, 1].
PERCENT_METRICS = {"hcorrect"}
ROVER_NAME = "ROVER"
DEFAULT_COMBINATION = ("nb_fes", "entropy")
SIGNIFICANCE_MARKS = ("raw", "holm")
MAX_FLIP_NOTES = 10  # one note per possible ranking flip up to this many, then one summary line


def canonical_metric(name: str) -> str:
    """The metric name of ``METRICS`` that ``name`` means (case, ``-`` and ROUGE spellings forgiven).

    Parameters
    ----------
    name : str
        A metric name as a user writes it.

    Returns
    -------
    str
        One of ``METRICS``; ``ValueError`` for an unknown name.

    Examples
    --------
    >>> canonical_metric("ROUGE-L"), canonical_metric("F1")
    ('rouge_l', 'f1')
    """
    key = str(name).strip().lower().replace("-", "_")
    key = {"rougel": "rouge_l", "rouge": "rouge_l"}.get(key, key)
    if key not in METRICS:
        raise ValueError(f"unknown metric {name!r}; choose one of {', '.join(METRICS)}")
    return key


@dataclass
class ReportConfig:
    """The choices of a report (checked on creation; ``ValueError`` for a bad one).

    Examples
    --------
    >>> config = ReportConfig(metric="F1", n_boot=0)
    >>> config.metric, config.as_dict()["n_boot"]
    ('f1', 0)
    """

    systems: list | None = None  # ROVER voters, in tie-break order; default: all but `reference`
    alpha: float = rover.DEFAULT_ALPHA
    metric: str = "hscore"
    factors: tuple = fx.DEFAULT_FACTORS
    entropy_source: str = "corpus"
    lexicon: dict | None = None  # frame -> list of LU names, for entropy_source="lexicon"
    dedup_policy: str = DEFAULT_POLICY
    combination: tuple = DEFAULT_COMBINATION
    n_boot: int = stats.DEFAULT_BOOT
    seed: int = 0
    significance: float = fx.SIGNIFICANCE
    hard_partitions: tuple = ()  # hard subset export: questions in these partitions ...
    hard_factors: tuple = ()  # ... or in E_f of these factors
    hard_require: str = "any"  # "any" criterion, or "all" of them
    human_aggregate: str = "mean"  # SPEC 3: "mean" of the labels' values, or "majority"
    table_significance: str = "raw"  # bold cells of the paper tables: raw p, or "holm"-corrected p
    # Choices made before the computation (which labels, which judge), recorded in ``config``:
    adjudicated: bool = False  # an admin's final label replaces the labels of an adjudicated answer
    include_excluded: bool = False  # labels of participants excluded from a study counted
    judge: str | None = None  # the automatic judge of the prediction-powered estimates (SPEC 10)
    design: str = "uniform"  # how the human-labelled answers were chosen (SPEC 12)

    def __post_init__(self):
        self.metric = canonical_metric(self.metric)
        self.factors = tuple(fx.parse_factor(f) for f in self.factors)
        names = [f.name for f in self.factors]
        if len(set(names)) != len(names):
            raise ValueError(f"two factors share a name: {names}")
        if self.hard_require not in ("any", "all"):
            raise ValueError("hard_require must be 'any' or 'all'")
        if not self.alpha > 0:
            raise ValueError(f"alpha must be positive, got {self.alpha!r}")
        if self.n_boot < 0:
            raise ValueError("n_boot must be >= 0")
        if self.human_aggregate not in human.AGGREGATES:
            raise ValueError(
                f"human_aggregate must be one of {', '.join(human.AGGREGATES)}, got {self.human_aggregate!r}"
            )
        if self.table_significance not in SIGNIFICANCE_MARKS:
            raise ValueError(
                f"table_significance must be one of {', '.join(SIGNIFICANCE_MARKS)}, got {self.table_significance!r}"
            )

    def as_dict(self) -> dict:
        """The configuration as plain data (``report.json``'s ``config``).

        Returns
        -------
        dict
            Every option, JSON-ready.

        Examples
        --------
        >>> ReportConfig(alpha=3).as_dict()["alpha"]
        3
        """
        return {
            "systems": list(self.systems) if self.systems else None,
            "alpha": self.alpha,
            "metric": self.metric,
            "factors": [f.as_dict() for f in self.factors],
            "entropy_source": self.entropy_source,
            "dedup_policy": self.dedup_policy,
            "combination": list(self.combination),
            "n_boot": self.n_boot,
            "seed": self.seed,
            "significance": self.significance,
            "hard_partitions": list(self.hard_partitions),
            "hard_factors": list(self.hard_factors),
            "hard_require": self.hard_require,
            "human_aggregate": self.human_aggregate,
            "table_significance": self.table_significance,
            "adjudicated": self.adjudicated,
            "include_excluded": self.include_excluded,
            "judge": self.judge,
            "design": self.design,
        }


@dataclass
class ScoreTable:
    """Every score of every prediction and of ROVER, from ``score_table``."""

    question_ids: pd.Index
    columns: list  # systems then ROVER
    matrices: dict  # metric -> (questions x columns) float array, NaN = undefined
    present: np.ndarray  # (questions x columns) bool: a prediction exists
    partition: np.ndarray  # per question: k (0 when no ROVER voter answered)
    rover_source: list  # per question: the system the ROVER answer came from (None)
    rover_systems: list
    n_unmatched_labels: int = 0
    labels: pd.DataFrame | None = None  # the labels with their triplet key (``tkey``)
    label_matched: np.ndarray | None = None  # per label: its triplet is one of a prediction

    def column(self, name):
        """The column index of a system (or ``ROVER_NAME``) in the matrices.

        Parameters
        ----------
        name : str
            A system's name, or ``ROVER_NAME``.

        Returns
        -------
        int

        Examples
        --------
        >>> table = score_table(*_example_inputs(), config=ReportConfig())
        >>> table.column("s2"), table.column(ROVER_NAME)
        (1, 2)
        """
        return self.columns.index(name)


@dataclass
class Report:
    """A computed report: ``data`` (report.json), its tables, bold cells and figures' data."""

    data: dict
    tables: dict = field(default_factory=dict)  # name -> DataFrame
    bold: dict = field(default_factory=dict)  # table name -> DataFrame of bools (significant cells)
    figures: dict = field(default_factory=dict)  # name -> plotting data
    scores: ScoreTable | None = None
    sides: pd.DataFrame | None = None
    hard_subset: pd.DataFrame | None = None


def _noop(**kwargs):
    pass


def _example_inputs():
    """(questions, predictions, labels) of a tiny corpus: the examples of this module use it."""
    from evaluation.report.inputs import questions_frame

    questions = questions_frame(
        [
            {
                "id": "q1",
                "context": "Denver Broncos won.",
                "question": "Who won?",
                "answers": ["Denver Broncos"],
                "frame": "Win",
                "dist": 1,
            },
            {
                "id": "q2",
                "context": "Warsaw is the capital.",
                "question": "Capital?",
                "answers": ["Warsaw"],
                "frame": "Capital",
                "dist": 3,
            },
        ]
    )
    predictions = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2", "q2"],
            "system": ["s1", "s2", "s1", "s2"],
            "answer": ["Denver Broncos", "Carolina", "Warsaw", "Poland"],
        }
    )
    labels = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2"],
            "answer": ["Denver  Broncos", "Carolina", "Warsaw"],
            "annotator": "ann",
            "label": ["correct", "incorrect", "partial"],
        }
    )
    return questions, predictions, labels


# --- scoring ---------------------------------------------------------------------------------


def _check_predictions(questions, predictions):
    """The question index and the system code of every prediction, and the systems in order of
    first appearance; bad input is a clear error."""
    missing = {"question_id", "system", "answer"} - set(predictions.columns)
    if missing:
        raise ValueError(f"predictions need the columns question_id, system, answer; missing {sorted(missing)}")
    q = questions.index.get_indexer(predictions["question_id"])
    if (q < 0).any():
        raise ValueError(f"prediction for unknown question id {predictions['question_id'].iloc[np.argmax(q < 0)]!r}")
    s, systems = pd.factorize(predictions["system"].to_numpy(dtype=object))
    key = s.astype(np.int64) * max(len(questions), 1) + q
    # counting the (system, question) keys is cheaper than hashing them when they are dense; the
    # first duplicate row is searched only when there is one
    dense = len(key) and int(key.max()) < 4 * len(key) + (1 << 16)
    dup = pd.Series(key).duplicated().to_numpy() if not dense or np.bincount(key).max() > 1 else np.zeros(0, bool)
    if dup.any():
        row = predictions.iloc[np.argmax(dup)]
        raise ValueError(f"two predictions of system {row['system']!r} for question {row['question_id']!r}")
    if ROVER_NAME in set(systems):
        raise ValueError(f"{ROVER_NAME!r} is reserved for the systems' combination")
    return q, s, list(systems)


def score_table(
    questions: pd.DataFrame, predictions: pd.DataFrame, labels: pd.DataFrame | None, *, config: ReportConfig
) -> ScoreTable:
    """Score every prediction on every metric (SPEC 3, 4) and add ROVER as a column (SPEC 5).

    Parameters
    ----------
    questions, predictions, labels : pandas.DataFrame
        The three inputs (``evaluation.report.inputs``); ``labels`` may be None.
    config : ReportConfig
        ROVER's voters and alpha, the dedup policy, the human aggregate.

    Returns
    -------
    ScoreTable
        (questions x systems then ROVER) matrices per metric; ``ValueError`` for bad input.

    Examples
    --------
    >>> table = score_table(*_example_inputs(), config=ReportConfig())
    >>> table.columns, table.matrices["hscore"].tolist()
    (['s1', 's2', 'ROVER'], [[1.0, 0.0, 1.0], [0.5, nan, 0.5]])
    """
    q, s, systems = _check_predictions(questions, predictions)
    rover_systems = list(config.systems) if config.systems else [name for name in systems if name != REFERENCE]
    unknown = [name for name in rover_systems if name not in systems]
    if unknown:
        raise ValueError(f"unknown system(s) for ROVER: {', '.join(unknown)}; known: {', '.join(systems)}")
    if not rover_systems:
        raise ValueError("ROVER needs at least one system")
    n_q, columns = len(questions), [*systems, ROVER_NAME]
    # Every string is handled once per distinct value: answers, then (question, answer) pairs,
    # normalized answers and triplets are integer codes.
    answer_code, answer_texts = _text_codes(predictions["answer"])
    shape = (n_q, len(columns))
    cell = q.astype(np.int64) * shape[1] + s  # each prediction's cell of the flattened matrices
    mats, pair_code, pairs = _automatic_scores(
        questions, q, cell, answer_code=answer_code, answer_texts=answer_texts, shape=shape
    )
    present = np.zeros(shape, dtype=bool)
    present.ravel()[cell] = True

    # Human metrics through triplets: a prediction's triplet is its (question, normalized answer),
    # or its ``tkey``; a label's triplet is found from its own (question, answer) or ``tkey``.
    normalized = np.array(human.normalize_all(answer_texts, config.dedup_policy), dtype=object)
    norm_code, norm_texts = pd.factorize(normalized)
    norm_texts = np.asarray(norm_texts, dtype=object)
    pred_norm = norm_code[answer_code]
    n_unmatched, keyed, label_matched = 0, None, None
    if labels is not None and len(labels):
        triplets = _Triplets(
            questions,
            predictions,
            (pair_code, pairs // len(answer_texts), norm_code[pairs % len(answer_texts)]),
            norm_texts=norm_texts,
            answers=(answer_texts, normalized, norm_code),
        )
        label_triplet, keyed = triplets.of_labels(labels, config.dedup_policy)
        human.check_labels(keyed["label"])
        counts = human.label_counts(label_triplet, keyed["annotator"], keyed["label"], n_triplets=triplets.n)
        score, correct, _ = human.scores_from_counts(counts, config.human_aggregate)
        matched = np.flatnonzero(triplets.code >= 0)
        for metric, per_triplet in (("hscore", score), ("hcorrect", correct)):
            mats[metric].ravel()[cell[matched]] = per_triplet[triplets.code[matched]]
        label_matched = label_triplet >= 0
        n_unmatched = int((~label_matched).sum())

    partition, source = _rover_column(
        mats,
        present,
        (q, s, pred_norm, norm_texts, (pair_code, pairs, len(answer_texts), norm_code)),
        systems=systems,
        rover_systems=rover_systems,
        config=config,
    )
    return ScoreTable(
        questions.index, columns, mats, present, partition, source, rover_systems, n_unmatched, keyed, label_matched
    )


def _normalized_pairs(raw_pairs, n_norm):
    """``pandas.factorize`` of the predictions' (question, normalized answer) keys (question x
    normalized answers + normalized answer), from their distinct (question, answer) pairs."""
    pair_code, pairs, n_answers, norm_code = raw_pairs
    n_answers = max(n_answers, 1)
    of_pair, keys = pd.factorize(pairs // n_answers * n_norm + norm_code[pairs % n_answers])
    return of_pair[pair_code], np.asarray(keys)


def _rover_column(mats, present, codes, *, systems, rover_systems, config):
    """ROVER's column (the last) of the matrices: its answer is the prediction of one system, with
    that prediction's scores. Returns (partition k per question, the source system per question)."""
    q, s, pred_norm, norm_texts, raw_pairs = codes
    n_q = len(present)
    rover_index = pd.Index(rover_systems)
    rank = rover_index.get_indexer(np.asarray(systems, dtype=object))[s]
    voting = rank >= 0
    if voting.all():  # every system votes: the arrays as they are, and their pairs already coded
        args, pairs = (q, rank, pred_norm), _normalized_pairs(raw_pairs, len(norm_texts))
    else:
        args, pairs = (q[voting], rank[voting], pred_norm[voting]), None
    result = rover.rover_codes(*args, texts=norm_texts, n_questions=n_q, alpha=config.alpha, checked=True, pairs=pairs)
    src_rank = result["system"].to_numpy()
    has = src_rank >= 0
    src_col = np.full(n_q, -1)
    src_col[has] = pd.Index(systems).get_indexer(rover_index[src_rank[has]])
    rover_col = len(systems)
    rows = np.flatnonzero(has)
    for m in METRICS:  # (a question without ROVER answer scores 0 on the automatic metrics, NaN on the others)
        mats[m][rows, rover_col] = mats[m][rows, src_col[rows]]
    present[rows, rover_col] = True
    return result["k"].to_numpy(), [systems[c] if c >= 0 else None for c in src_col]


def _text_codes(values: pd.Series):
    """Integer codes and the distinct strings (object array, first-seen order) of a text column,
    a missing value as ``""``."""
    given = values.to_numpy(dtype=object)
    if isinstance(values.dtype, pd.StringDtype) or pd.api.types.infer_dtype(given, skipna=False) == "string":
        codes, uniques = pd.factorize(given)  # strings already: no copy converting them (5 million answers)
        if not (codes < 0).any():
            return codes, np.asarray(uniques, dtype=object)
    codes, uniques = pd.factorize(values.fillna("").astype(str).to_numpy(dtype=object))
    return codes, np.asarray(uniques, dtype=object)


def _automatic_scores(questions, q, cell, *, answer_code, answer_texts, shape):
    """The (questions x columns) matrix of every metric: EM, F1 and ROUGE-L of each prediction
    (computed once per distinct (question, answer)), 0 for a missing one; NaN elsewhere. With the
    (question, answer) pair code of each prediction and the pairs (question * answers + answer)."""
    n_answers = max(len(answer_texts), 1)
    code, pairs = pd.factorize(q.astype(np.int64) * n_answers + answer_code)
    uq, ua = pairs // n_answers, pairs % n_answers
    refs = questions["answers"].to_numpy()
    langs = questions["language"].to_numpy()
    em, f1, rl = metrics.score_pairs(answer_texts[ua], refs[uq], langs[uq])
    # a missing prediction scores 0 on the automatic metrics (official SQuAD), and is NaN on the others
    mats = {m: np.zeros(shape) if m in AUTO_METRICS else np.full(shape, np.nan) for m in METRICS}
    for m, values in (("em", em), ("f1", f1), ("rouge_l", rl)):
        mats[m].ravel()[cell] = values[code]
    return mats, code, pairs


class _Triplets:
    """The triplet code of every prediction (``code``, -1 for none) and the way to the triplet of
    a label: by integer codes of (question, normalized answer), or by ``tkey`` strings when the
    predictions or the labels carry them (the database's triplets)."""

    def __init__(self, questions, predictions, pairs, *, norm_texts, answers):
        """``pairs``: the (question, answer) pair code of each prediction, and per pair its
        question and normalized answer codes; ``answers``: the distinct answers, their normalized
        texts and codes."""
        self.questions, self.norm_texts, self.answers = questions, norm_texts, answers
        self.by_key = "tkey" in predictions.columns
        if self.by_key:
            self.code, keys = pd.factorize(predictions["tkey"].astype(object))  # None -> -1
            self.keys = pd.Index(keys)
            self.n = len(keys)
        else:  # a triplet per distinct (question, normalized answer) of the pairs
            pair_code, pair_question, pair_norm = pairs
            self.n_norm = max(len(norm_texts), 1)
            of_pair, self.pairs = pd.factorize(pair_question * self.n_norm + pair_norm)
            self.code, self.n = of_pair[pair_code], len(self.pairs)

    def key_strings(self) -> pd.Index:
        """The ``tkey`` of each triplet code: question id, ``human.KEY_SEP``, normalized answer."""
        if self.by_key:
            return self.keys
        qids = self.questions.index.astype(str).to_numpy(dtype=object)
        return pd.Index(qids[self.pairs // self.n_norm] + human.KEY_SEP + self.norm_texts[self.pairs % self.n_norm])

    def of_labels(self, labels, policy):
        """(triplet code per label, -1 for none; the labels with their ``tkey``)."""
        answer_texts, normalized, norm_code = self.answers
        if (
            self.by_key
            or not len(answer_texts)
            or "tkey" in labels.columns
            or _missing_label_columns(labels)
            or labels["question_id"].isna().any()
        ):
            keyed = with_triplet_keys(labels, policy, dict(zip(answer_texts, normalized)))
            return self.key_strings().get_indexer(keyed["tkey"]), keyed
        code, texts = _text_codes(labels["answer"])
        given = pd.Index(answer_texts).get_indexer(texts)  # the label answers some prediction gave
        norm = norm_code[given]  # (-1 where none: set below)
        text_norm = self.norm_texts[norm]
        new = np.flatnonzero(given < 0)
        if len(new):  # label answers no prediction gave (as such): normalized here
            text_norm[new] = human.normalize_all(texts[new], policy)
            norm[new] = pd.Index(self.norm_texts).get_indexer(text_norm[new])
        qid_code, qids = _text_codes(labels["question_id"].astype(str))
        question = self.questions.index.astype(str).get_indexer(qids)[qid_code]
        norm = norm[code]
        known = (question >= 0) & (norm >= 0)
        triplet = np.full(len(labels), -1, dtype=np.int64)
        triplet[known] = pd.Index(self.pairs).get_indexer(question[known].astype(np.int64) * self.n_norm + norm[known])
        return triplet, labels.assign(tkey=qids[qid_code] + human.KEY_SEP + text_norm[code])


def with_triplet_keys(labels: pd.DataFrame, policy: str, normalized: dict | None = None) -> pd.DataFrame:
    """``labels`` with a ``tkey`` column (kept when given): ``human.triplet_keys`` of each label.

    Parameters
    ----------
    labels : pandas.DataFrame
        Columns question_id, answer, annotator, label (or a ``tkey`` already).
    policy : str
        The dedup policy.
    normalized : dict, optional
        Answers already normalized under ``policy`` (answer -> normalized), reused.

    Returns
    -------
    pandas.DataFrame
        ``labels`` with ``tkey``; ``ValueError`` when a column is missing.

    Examples
    --------
    >>> _, _, labels = _example_inputs()
    >>> keyed = with_triplet_keys(labels, "whitespace")
    >>> keyed["tkey"][0] == "q1" + human.KEY_SEP + "Denver Broncos"
    True
    """
    if "tkey" in labels.columns:
        return labels
    missing = _missing_label_columns(labels)
    if missing:
        raise ValueError(f"labels need the columns question_id, answer, annotator, label; missing {sorted(missing)}")
    return labels.assign(tkey=human.triplet_keys(labels["question_id"], labels["answer"], policy, known=normalized))


def _missing_label_columns(labels: pd.DataFrame) -> set:
    return {"question_id", "answer", "annotator", "label"} - set(labels.columns)


# --- helpers ---------------------------------------------------------------------------------


def clean(value):
    """Plain JSON data: numpy scalars to Python, NaN and infinities to None.

    Parameters
    ----------
    value : object
        Nested dicts, lists, tuples, numpy arrays and scalars.

    Returns
    -------
    object
        The same structure of plain Python values (dict keys as strings).

    Examples
    --------
    >>> clean({1: np.array([0.5, np.nan]), "n": np.int64(3), "ok": np.bool_(True)})
    {'1': [0.5, None], 'n': 3, 'ok': True}
    """
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [clean(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def _scale(metric, value):
    return value * 100 if metric in PERCENT_METRICS and value is not None else value


def _scaled(metric, array):
    array = np.asarray(array, dtype=float)
    return array * 100 if metric in PERCENT_METRICS else array


def _group_means(X, groups, keys):
    return {k: stats.nanmean_rows(X, groups == k) for k in keys}


def _side_codes(side):
    return np.where(side == 1.0, 1, np.where(side == 0.0, 0, -1))


def _frame_codes(questions):
    if "frame" not in questions or not questions["frame"].notna().any():
        return None, []
    codes, names = pd.factorize(questions["frame"])
    return codes, list(names)


def _combination_code(sides, pair, active_names):
    fa, fb = (*tuple(pair), None, None)[:2]
    if fa not in active_names or fb not in active_names:
        return None, None, None
    masks = fx.combination_masks(sides[fa].to_numpy(), sides[fb].to_numpy())
    code = np.full(len(sides), -1)
    for j, mask in enumerate(masks.values()):
        code[mask] = j
    return (fa, fb), masks, code


# --- the report, step by step ----------------------------------------------------------------
#
# ``compute_report`` runs named steps over one ``Context``; each step reads what the earlier ones
# left there and adds its keys to ``ctx.data`` (the report.json content). A new section of the
# report is one more step (a function of the context) added to ``STEPS``.


@dataclass
class Context:
    """What the steps of ``compute_report`` share: the inputs, the scores, and ``data`` so far."""

    questions: pd.DataFrame
    predictions: pd.DataFrame
    labels: pd.DataFrame | None
    config: ReportConfig
    table: ScoreTable
    has_labels: bool
    available: tuple
    metric: str
    notes: list
    sides: pd.DataFrame
    thresholds: dict
    active: list
    entropy: pd.Series
    frame_codes: np.ndarray | None = None
    frame_names: list = field(default_factory=list)
    combo: tuple = (None, None, None)
    boot: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    hard: pd.DataFrame | None = None

    @property
    def X(self):
        return self.table.matrices

    @property
    def cols(self):
        return self.table.columns

    @property
    def n_q(self):
        return len(self.table.question_ids)

    def boot_ci(self, name):
        """The percentile intervals of a bootstrap task, per group (empty without bootstrap).

        Parameters
        ----------
        name : str
            A task of ``bootstrap_step`` (``"systems"``, ``"partitions"``, ``"factor:<name>"``...).

        Returns
        -------
        dict
            ``{group: array (2, columns)}``: lower and upper bounds.

        Examples
        --------
        >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
        >>> ctx.boot_ci("systems")
        {}
        """
        return {g: stats.percentile_ci(r) for g, r in self.boot.get(name, {}).items()}


def prepare(questions, predictions, labels, *, config) -> Context:
    """Score every prediction, resolve the metric and the factor sides: the steps' context.

    Parameters
    ----------
    questions, predictions, labels : pandas.DataFrame
        As in ``compute_report``.
    config : ReportConfig
        The report's choices.

    Returns
    -------
    Context
        The context the ``STEPS`` run on.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> ctx.metric, ctx.cols, [f.name for f in ctx.active]
    ('hscore', ['s1', 's2', 'ROVER'], ['dist'])
    """
    table = score_table(questions, predictions, labels, config=config)
    has_labels = labels is not None and len(labels) > 0
    available = METRICS if has_labels else AUTO_METRICS
    metric, notes = config.metric, []
    if metric in HUMAN_METRICS and not has_labels:
        metric = FALLBACK_METRIC
        notes.append(
            f"no labels: human metrics are null; tables and figures use {FALLBACK_METRIC} instead of {config.metric}"
        )
    if table.n_unmatched_labels:
        notes.append(
            f"{table.n_unmatched_labels} label(s) match no prediction's answer and count for no system "
            "(nor for the agreement)"
        )
    entropy = fx.frame_entropy(questions, config.entropy_source, config.lexicon)
    sides, thresholds = fx.factor_sides(questions, config.factors, entropy)
    active = [f for f in config.factors if (~np.isnan(sides[f.name].to_numpy())).any()]
    ctx = Context(
        questions,
        predictions,
        labels,
        config,
        table,
        has_labels,
        available,
        metric,
        notes,
        sides,
        thresholds,
        active,
        entropy,
    )
    ctx.frame_codes, ctx.frame_names = _frame_codes(questions)
    ctx.combo = _combination_code(sides, config.combination, [f.name for f in active])
    return ctx


def bootstrap_step(ctx: Context) -> None:
    """One bootstrap (the same resamples of the questions) for every interval of the report.

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> bootstrap_step(ctx)
    >>> sorted(ctx.boot)
    ['factor:dist', 'frames', 'partitions', 'systems']
    """
    if not ctx.config.n_boot:
        return
    X, part = ctx.X, ctx.table.partition
    stacked = np.hstack([X[m] for m in ctx.available])
    tasks = {
        "systems": (stacked, np.zeros(ctx.n_q, dtype=int)),
        "partitions": (X[ctx.metric], np.where(part > 0, part, -1)),
    }
    for f in ctx.active:
        tasks[f"factor:{f.name}"] = (stacked, _side_codes(ctx.sides[f.name].to_numpy()))
    if ctx.frame_codes is not None:
        tasks["frames"] = (X[ctx.metric], ctx.frame_codes)
    if ctx.combo[0] is not None:
        tasks["combination"] = (X[ctx.metric], ctx.combo[2])
    ctx.boot = stats.bootstrap_group_means(tasks, ctx.n_q, ctx.config.n_boot, seed=ctx.config.seed)


def systems_step(ctx: Context) -> None:
    """Table 1: every metric per system and ROVER, coverage and its bounds (SPEC 3).

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> systems_step(ctx)
    >>> [(row["system"], row["hscore"], row["coverage"]) for row in ctx.data["systems"]]
    [('s1', 0.75, 1.0), ('s2', 0.0, 0.5), ('ROVER', 0.75, 1.0)]
    """
    X, cols, n_q, available = ctx.X, ctx.cols, ctx.n_q, ctx.available
    sys_ci = {}
    everyone = ctx.boot_ci("systems").get(0)
    if everyone is not None:
        for i, m in enumerate(available):
            sys_ci[m] = everyone[:, i * len(cols) : (i + 1) * len(cols)]
    rows = []
    # one system = one row of the transposed matrices: contiguous, the same values in the same order
    by_system = {m: np.ascontiguousarray(X[m].T) for m in METRICS}
    present_by_system = np.ascontiguousarray(ctx.table.present.T)
    for c, name in enumerate(cols):
        present = present_by_system[c]
        n = int(present.sum())
        row = {"system": name, "n": n, "missing": int(n_q - n)}
        labeled = ~np.isnan(by_system["hscore"][c]) & present
        row["n_labeled"] = int(labeled.sum())
        row["coverage"] = float(labeled.sum() / n) if ctx.has_labels and n else None
        for m in METRICS:
            col = by_system[m][c]
            value = float(np.nanmean(col)) if m in available and (~np.isnan(col)).any() else None
            row[m] = _scale(m, value)
        for m in HUMAN_METRICS:  # unlabeled predictions counted 0 (low) and 1 (high), over all of them
            low = high = None
            if ctx.has_labels and n:
                known = np.nansum(by_system[m][c][labeled])
                low, high = float(known / n), float((known + (n - labeled.sum())) / n)
            row[f"{m}_low"], row[f"{m}_high"] = _scale(m, low), _scale(m, high)
        for m in available:
            if m in sys_ci:
                row[f"{m}_ci"] = list(_scaled(m, sys_ci[m][:, c]))
        rows.append(row)
    ctx.data["systems"] = rows
    ctx.data["ranking_flips"] = ranking_flips(rows) if ctx.has_labels else []
    flips = ctx.data["ranking_flips"]
    for flip in flips[:MAX_FLIP_NOTES]:
        ctx.notes.append(
            f"partial coverage: {flip['higher']} ranks above {flip['lower']} by Hscore "
            f"({flip['higher_hscore']:.3f} > {flip['lower_hscore']:.3f}), but the bounds with unlabeled predictions "
            f"counted 0 / 1 ({flip['higher_low']:.3f}-{flip['higher_high']:.3f} and "
            f"{flip['lower_low']:.3f}-{flip['lower_high']:.3f}) let the ranking flip"
        )
    if len(flips) > MAX_FLIP_NOTES:
        ctx.notes.append(
            f"partial coverage: {len(flips) - MAX_FLIP_NOTES} more pairs of systems could flip (all in ranking_flips)"
        )


def ranking_flips(rows) -> list:
    """Pairs of rows whose ranking by Hscore could flip inside the coverage bounds (SPEC 3).

    One of the two is below 100% coverage and the higher one's low bound is below the lower one's
    high bound.

    Parameters
    ----------
    rows : list of dict
        Rows of the systems table (``system``, ``hscore``, ``hscore_low``, ``hscore_high``,
        ``coverage``).

    Returns
    -------
    list of dict
        One entry per pair that could flip, the higher system first.

    Examples
    --------
    >>> rows = [{"system": "a", "hscore": 0.8, "hscore_low": 0.4, "hscore_high": 0.9, "coverage": 0.5},
    ...         {"system": "b", "hscore": 0.6, "hscore_low": 0.6, "hscore_high": 0.6, "coverage": 1.0}]
    >>> [(f["higher"], f["lower"]) for f in ranking_flips(rows)]
    [('a', 'b')]
    """
    ranked = sorted(
        (r for r in rows if r.get("hscore") is not None and r.get("hscore_low") is not None), key=lambda r: -r["hscore"]
    )
    flips = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if (
                (a["coverage"] < 1 or b["coverage"] < 1)
                and a["hscore"] > b["hscore"]
                and a["hscore_low"] < b["hscore_high"]
            ):
                flips.append(
                    {
                        "higher": a["system"],
                        "lower": b["system"],
                        "higher_hscore": a["hscore"],
                        "lower_hscore": b["hscore"],
                        "higher_low": a["hscore_low"],
                        "higher_high": a["hscore_high"],
                        "lower_low": b["hscore_low"],
                        "lower_high": b["hscore_high"],
                    }
                )
    return flips


def partitions_step(ctx: Context) -> None:
    """ROVER agreement partitions (Figure 3).

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> partitions_step(ctx)
    >>> ctx.data["partitions"]["counts"]
    {1: 2, 2: 0}
    """
    X, part, cols, metric = ctx.X, ctx.table.partition, ctx.cols, ctx.metric
    n_sys = len(ctx.table.rover_systems)
    keys = list(range(1, n_sys + 1))
    pmeans = _group_means(X[metric], part, keys)
    pci = ctx.boot_ci("partitions")
    ctx.data["partitions"] = {
        "n_systems": n_sys,
        "alpha": ctx.config.alpha,
        "systems": ctx.table.rover_systems,
        "metric": metric,
        "counts": {k: int((part == k).sum()) for k in keys},
        "no_vote": int((part == 0).sum()),
        "by_system": {name: {k: _scale(metric, pmeans[k][c]) for k in keys} for c, name in enumerate(cols)},
        "by_system_ci": {
            name: {k: list(_scaled(metric, pci[k][:, c])) if k in pci else None for k in keys}
            for c, name in enumerate(cols)
        },
    }
    # P(f | P_k) (Table 3)
    ctx.data["factor_by_partition"] = {
        f.name: fx.share_by_group(ctx.sides[f.name].to_numpy(), part, keys) for f in ctx.active
    }


def factors_step(ctx: Context) -> None:
    """Table 2 for every available metric: delta, Mann-Whitney U and p, Holm over each metric.

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> factors_step(ctx)
    >>> [(e["factor"], e["metric"]) for e in ctx.data["factors"]][:2]
    [('dist', 'hscore'), ('dist', 'hcorrect')]
    """
    X, cols, config = ctx.X, ctx.cols, ctx.config
    entries, holm_family = [], {}
    ties = {m: stats.tie_groups(X[m]) for m in ctx.available} if ctx.active else {}  # ranked once per metric
    if ctx.active:  # every side is a union of cells of the sides: counted once per cell
        cell = stats.cells_of([_side_codes(ctx.sides[f.name].to_numpy()) for f in ctx.active], ctx.n_q)
        for t in ties.values():
            t.count_by_cells(cell)
    for f in ctx.active:
        side = ctx.sides[f.name].to_numpy()
        diff_ci = None
        reps = ctx.boot.get(f"factor:{f.name}", {})
        if 0 in reps and 1 in reps:
            diff_ci = stats.percentile_ci(reps[1] - reps[0])
        for i, m in enumerate(ctx.available):
            eff = fx.factor_effect(X[m], side, ties[m])
            rows = []
            for c, name in enumerate(cols):
                ci = diff_ci[:, i * len(cols) + c] if diff_ci is not None else None
                rows.append(
                    {
                        "system": name,
                        "delta": stats.floor_delta(eff["diff"][c]),
                        "diff": eff["diff"][c],
                        "u": eff["u"][c],
                        "p_value": eff["p_value"][c],
                        "significant": fx.is_significant(float(eff["p_value"][c]), config.significance),
                        "s_hard": _scale(m, eff["s_hard"][c]),
                        "s_easy": _scale(m, eff["s_easy"][c]),
                        "n_hard": int(eff["n_hard_scored"][c]),
                        "n_easy": int(eff["n_easy_scored"][c]),
                        "diff_ci": list(ci) if ci is not None else None,
                        "delta_ci": [stats.floor_delta(v) for v in ci] if ci is not None else None,
                    }
                )
            entries.append(
                {
                    "factor": f.name,
                    "metric": m,
                    "attribute": f.attribute,
                    "op": f.op,
                    "threshold": ctx.thresholds[f.name],
                    "threshold_spec": f.threshold,
                    "size_pct": eff["size_pct"],
                    "size_pct_corpus": eff["size_pct_corpus"],
                    "n_hard": eff["n_hard"],
                    "n_easy": eff["n_easy"],
                    "rows": rows,
                }
            )
            holm_family.setdefault(m, []).extend(rows)
    for rows in holm_family.values():
        adjusted = stats.holm([r["p_value"] for r in rows])
        for r, p in zip(rows, adjusted):
            r["p_holm"] = p
            r["significant_holm"] = fx.is_significant(float(p), config.significance)
    ctx.data["factors"] = entries
    skipped = [f for f in config.factors if f not in ctx.active]
    ctx.data["factors_skipped"] = [f.name for f in skipped]
    ctx.data["factors_skipped_reasons"] = {f.name: fx.skip_reason(ctx.questions, f, ctx.entropy) for f in skipped}


def frames_step(ctx: Context) -> None:
    """The metric per frame, ROVER first (Figure 4), sorted by ROVER's value.

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> frames_step(ctx)
    >>> [(r["frame"], float(r["by_system"]["ROVER"])) for r in ctx.data["per_frame"]]
    [('Win', 1.0), ('Capital', 0.5)]
    """
    per_frame = []
    if ctx.frame_codes is not None:
        codes, names, cols, metric = ctx.frame_codes, ctx.frame_names, ctx.cols, ctx.metric
        fmeans = _group_means(ctx.X[metric], codes, range(len(names)))
        fci = ctx.boot_ci("frames")
        rc = cols.index(ROVER_NAME)
        for i, name in enumerate(names):
            per_frame.append(
                {
                    "frame": name,
                    "n": int((codes == i).sum()),
                    "by_system": {sname: _scale(metric, fmeans[i][c]) for c, sname in enumerate(cols)},
                    "rover_ci": list(_scaled(metric, fci[i][:, rc])) if i in fci else None,
                }
            )

        def rover_value(r):
            v = r["by_system"][ROVER_NAME]
            return v if v is not None and math.isfinite(v) else -math.inf

        per_frame.sort(key=lambda r: (-rover_value(r), r["frame"]))
    ctx.data["per_frame"] = per_frame


def combinations_step(ctx: Context) -> None:
    """The metric on the four subsets of two factors (Figure 5).

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps; this step adds its keys to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> combinations_step(ctx)
    >>> ctx.data["combinations"] is None  # the default pair (nb_fes, entropy) needs frame elements
    True
    """
    combinations = None
    if ctx.combo[0] is not None:
        (fa, fb), masks, _ = ctx.combo
        cols, metric = ctx.cols, ctx.metric
        cci = ctx.boot_ci("combination")
        subsets = {}
        for j, (label, mask) in enumerate(masks.items()):
            means = stats.nanmean_rows(ctx.X[metric], mask)
            subsets[label] = {
                "n": int(mask.sum()),
                "by_system": {name: _scale(metric, means[c]) for c, name in enumerate(cols)},
                "by_system_ci": {name: list(_scaled(metric, cci[j][:, c])) for c, name in enumerate(cols)}
                if j in cci
                else None,
            }
        combinations = {"pair": [fa, fb], "metric": metric, "subsets": subsets}
    ctx.data["combinations"] = combinations


def agreement_step(ctx: Context) -> None:
    """Krippendorff's alpha (SPEC 7) on the labels that match a triplet.

    The same label set in the offline and the in-app report (the app's labels are on triplets by
    construction).

    Parameters
    ----------
    ctx : Context
        From ``prepare``; this step adds ``agreement`` to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> agreement_step(ctx)
    >>> ctx.data["agreement"]["n_items"]  # one annotator: no item with two labels
    0
    """
    if ctx.has_labels:
        lab = ctx.table.labels
        if lab is None:
            lab = with_triplet_keys(ctx.labels, ctx.config.dedup_policy)
        if ctx.table.label_matched is not None:
            lab = lab[ctx.table.label_matched]
        agree = agreement.krippendorff_alpha(
            pd.DataFrame({"item": lab["tkey"], "annotator": lab["annotator"], "value": lab["label"]}), LABEL_RANKS
        )
    else:
        agree = {
            "alpha_ordinal": None,
            "alpha_nominal": None,
            "n_items": 0,
            "n_labels": 0,
            "n_annotators": 0,
            "pairs": [],
        }
    ctx.data["agreement"] = agree


def hard_subset_step(ctx: Context) -> None:
    """The hard subset export (``hard_subset``) when the configuration asks for one.

    Parameters
    ----------
    ctx : Context
        From ``prepare``; this step adds ``hard_subset`` to ``ctx.data``.

    Examples
    --------
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0, hard_factors=("dist",)))
    >>> hard_subset_step(ctx)
    >>> ctx.data["hard_subset"]["n"], ctx.hard.index.tolist()
    (1, ['q2'])
    """
    c = ctx.config
    if c.hard_partitions or c.hard_factors:
        ctx.hard = hard_subset(
            ctx.questions,
            ctx.table.partition,
            ctx.sides,
            partitions=c.hard_partitions,
            factor_names=c.hard_factors,
            require=c.hard_require,
        )
    ctx.data["hard_subset"] = (
        {
            "n": len(ctx.hard),
            "partitions": list(c.hard_partitions),
            "factors": list(c.hard_factors),
            "require": c.hard_require,
        }
        if ctx.hard is not None
        else None
    )


# (progress message, step); ``compute_report`` runs them in this order.
STEPS = (
    ("bootstrap", bootstrap_step),
    ("systems table", systems_step),
    ("ROVER partitions", partitions_step),
    ("complexity factors", factors_step),
    ("frames and combinations", frames_step),
    ("frames and combinations", combinations_step),
    ("agreement", agreement_step),
    ("hard subset", hard_subset_step),
)


def compute_report(
    questions: pd.DataFrame,
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    config: ReportConfig | None = None,
    progress=_noop,
) -> Report:
    """The whole report from the three inputs: scores, ROVER, factors, agreement, intervals.

    Parameters
    ----------
    questions, predictions, labels : pandas.DataFrame
        The inputs (``evaluation.report.inputs``); ``labels`` may be None (no human metrics).
    config : ReportConfig, optional
        The report's choices; default ``ReportConfig()``.
    progress : callable, optional
        Called with ``done``, ``total`` (first call) and ``message`` keywords as the steps run.

    Returns
    -------
    Report
        ``data`` is the ``report.json`` content; ``ValueError`` for bad input.

    Examples
    --------
    >>> report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> [(row["system"], row["hscore"], row["em"]) for row in report.data["systems"]]
    [('s1', 0.75, 1.0), ('s2', 0.0, 0.0), ('ROVER', 0.75, 1.0)]
    >>> sorted(report.tables)[:3]
    ['factor_by_partition', 'factors_em', 'factors_f1']
    """
    config = config or ReportConfig()
    total = len(STEPS) + 1
    progress(done=0, total=total, message="scoring predictions")
    with _gc_paused():
        ctx = prepare(questions, predictions, labels, config=config)
        for done, (message, step) in enumerate(STEPS, start=1):
            progress(done=done, message=message)
            step(ctx)
    d = ctx.data
    data = {
        "metric": ctx.metric,
        "metric_requested": config.metric,
        "available_metrics": list(ctx.available),
        "has_labels": ctx.has_labels,
        "notes": ctx.notes,
        "config": config.as_dict(),
        "human_aggregate": config.human_aggregate,
        "n_questions": ctx.n_q,
        "n_predictions": len(predictions),
        "entropy": {
            "source": config.entropy_source,
            "n_frames": len(ctx.entropy),
            "median": float(ctx.entropy.median()) if len(ctx.entropy) else None,
        },
        **d,
    }
    data = clean(data)
    report = Report(data=data, scores=ctx.table, sides=ctx.sides, hard_subset=ctx.hard)
    build_tables(report)
    progress(done=total, message="done")
    return report


@contextlib.contextmanager
def _gc_paused():
    """Python's cycle collector off while the report is computed (then as it was): each of its
    full passes walks every element of the large object arrays (the answers: millions) once more,
    looking for cycles the computation does not make. Memory is freed by reference counting as
    before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def hard_subset(questions, partition, sides, *, partitions=(), factor_names=(), require="any") -> pd.DataFrame:
    """Questions in the chosen ROVER partitions and/or in E_f of the chosen factors.

    Parameters
    ----------
    questions : pandas.DataFrame
        The questions.
    partition : numpy.ndarray
        The ROVER partition k of each question.
    sides : pandas.DataFrame
        Per factor, 1.0 for E_f, 0.0 for the other side, NaN for neither.
    partitions : iterable of int
        Partitions k to keep.
    factor_names : iterable of str
        Factors whose E_f to keep (``ValueError`` for an unknown one).
    require : str
        ``"any"`` criterion, or ``"all"`` of them.

    Returns
    -------
    pandas.DataFrame
        The kept questions with their ``partition``; none when no criterion is given.

    Examples
    --------
    >>> questions = pd.DataFrame({"question": ["a?", "b?", "c?"]}, index=["q1", "q2", "q3"])
    >>> sides = pd.DataFrame({"dist": [1.0, 0.0, 1.0]})
    >>> hard_subset(questions, np.array([1, 1, 3]), sides, partitions=[1], factor_names=["dist"],
    ...             require="all").index.tolist()
    ['q1']
    """
    criteria = []
    if partitions:
        criteria.append(np.isin(partition, [int(k) for k in partitions]))
    for name in factor_names:
        if name not in sides:
            raise ValueError(f"hard subset: unknown factor {name!r}; known: {', '.join(sides.columns)}")
        criteria.append(sides[name].to_numpy() == 1.0)
    if not criteria:
        return questions.iloc[:0]
    stack = np.vstack(criteria)
    keep = stack.all(axis=0) if require == "all" else stack.any(axis=0)
    return questions[keep].assign(partition=partition[keep])


# --- tables ----------------------------------------------------------------------------------


def build_tables(report: Report) -> None:
    """The DataFrames behind the CSV / LaTeX tables and the figures' data, into ``report``.

    Parameters
    ----------
    report : Report
        A report whose ``data`` is complete; fills ``tables``, ``bold`` and ``figures``.

    Examples
    --------
    >>> report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> report.tables = {}
    >>> build_tables(report)
    >>> float(report.tables["systems"].loc["s1", "hscore"])
    0.75
    """
    d = report.data
    metric = d["metric"]
    systems = pd.DataFrame(d["systems"])
    base = ["system", "n", "missing", "n_labeled", "coverage", *METRICS]
    systems = systems[base + [c for c in systems.columns if c not in base]]
    for column in [c for c in systems.columns if c.endswith("_ci")]:
        # A table cell holds one number: the interval becomes two columns, low and high.
        bounds = systems.pop(column).map(lambda ci: ci if isinstance(ci, (list, tuple)) else (None, None))
        systems[f"{column}_low"] = [b[0] for b in bounds]
        systems[f"{column}_high"] = [b[1] for b in bounds]
    report.tables["systems"] = systems.set_index("system")

    keys = [str(k) for k in range(d["partitions"]["n_systems"], 0, -1)]  # P_n ... P_1, as in the paper
    part = pd.DataFrame({f"P{k}": {s: v.get(k) for s, v in d["partitions"]["by_system"].items()} for k in keys})
    report.tables["partitions"] = part.rename_axis("system")
    report.tables["partition_counts"] = pd.DataFrame(
        {"partition": [f"P{k}" for k in keys], "n": [d["partitions"]["counts"][k] for k in keys]}
    ).set_index("partition")
    report.figures["partitions"] = {
        "metric": metric,
        "keys": keys[::-1],
        "by_system": d["partitions"]["by_system"],
        "counts": d["partitions"]["counts"],
    }

    for m in {e["metric"] for e in d["factors"]}:
        entries = [e for e in d["factors"] if e["metric"] == m]
        delta = pd.DataFrame({e["factor"]: {r["system"]: r["delta"] for r in e["rows"]} for e in entries})
        bold = pd.DataFrame({e["factor"]: {r["system"]: r["significant"] for r in e["rows"]} for e in entries})
        size = pd.DataFrame([{e["factor"]: e["size_pct"] for e in entries}], index=["size of Ef (%)"])
        table = pd.concat([size, delta]).rename_axis("system")
        report.tables[f"factors_{m}"] = table
        report.bold[f"factors_{m}"] = pd.concat([size.astype(bool) & False, bold]).fillna(False).astype(bool)

    if d["factor_by_partition"]:
        fbp = pd.DataFrame({f"P{k}": {f: v.get(k) for f, v in d["factor_by_partition"].items()} for k in keys})
        report.tables["factor_by_partition"] = fbp.rename_axis("factor")
    if d["per_frame"]:
        frame = pd.DataFrame([{"frame": r["frame"], "n": r["n"], **r["by_system"]} for r in d["per_frame"]])
        report.tables["per_frame"] = frame.set_index("frame")
        report.figures["per_frame"] = {"metric": metric, "rows": d["per_frame"]}
    if d["combinations"]:
        combo = d["combinations"]
        table = pd.DataFrame({label: {"n": sub["n"], **sub["by_system"]} for label, sub in combo["subsets"].items()})
        report.tables["combinations"] = table.rename_axis("system")
        report.figures["combinations"] = combo
    pairs = d["agreement"]["pairs"]
    if pairs:
        report.tables["agreement_pairs"] = pd.DataFrame(
            [
                {
                    "annotator_a": p["annotators"][0],
                    "annotator_b": p["annotators"][1],
                    **{k: v for k, v in p.items() if k != "annotators"},
                }
                for p in pairs
            ]
        )
