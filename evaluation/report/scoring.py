"""Scoring every prediction (SPEC 3, 4, 5): the (questions x systems) matrices of each metric, ROVER's
column last, and the triplet keys that tie labels to predictions. Pure, no database."""

from __future__ import annotations

import numpy as np
import pandas as pd

from annotation.interchange import REFERENCE
from evaluation.report.config import ROVER_NAME, ReportConfig, ScoreTable
from evaluation.science import human, metric_registry, rover


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
    >>> from evaluation.report.inputs import _example_inputs
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
        if config.human_aggregate == "ds":  # SPEC 17: Dawid-Skene posteriors in place of the counts
            counts = _ds_counts(keyed, label_triplet, triplets.n)
        matched = np.flatnonzero(triplets.code >= 0)
        for metric in metric_registry.human_keys():  # each human metric's value of each triplet
            per_triplet = metric_registry.get(metric).per_triplet(counts, config.human_aggregate)
            mats[metric].ravel()[cell[matched]] = np.asarray(per_triplet, dtype=float)[triplets.code[matched]]
        label_matched = label_triplet >= 0
        n_unmatched = int((~label_matched).sum())
        _score_empty_answers(
            mats, questions, q=q, cell=cell, empty=norm_texts[pred_norm] == "", aggregate=config.human_aggregate
        )

    partition, source = _rover_column(
        mats,
        present,
        (q, s, pred_norm, norm_texts, (pair_code, pairs, len(answer_texts), norm_code)),
        systems=systems,
        rover_systems=rover_systems,
        config=config,
    )
    empty = norm_texts[pred_norm] == ""
    empty_answers = {systems[i]: int(n) for i, n in enumerate(np.bincount(s[empty], minlength=len(systems))) if n}
    return ScoreTable(
        questions.index,
        columns,
        mats,
        present,
        partition,
        source,
        rover_systems,
        n_unmatched,
        keyed,
        label_matched,
        empty_answers,
    )


def _ds_counts(keyed, label_triplet, n_triplets):
    """(n_triplets, 3) Dawid-Skene posteriors of the matched labels (``human.aggregated_label_counts``)."""
    matched = label_triplet >= 0
    rows = keyed.loc[matched, [c for c in ("annotator", "label", "gold") if c in keyed.columns]]
    tkeys, post = human.aggregated_label_counts(rows.assign(tkey=label_triplet[matched]), "ds")
    out = np.zeros((n_triplets, 3))
    out[np.asarray(tkeys, dtype=np.int64)] = post
    return out


def _score_empty_answers(mats, questions, *, q, cell, empty, aggregate=human.DEFAULT_AGGREGATE):
    """The human scores of empty answers, given by rule (no human ever sees an empty answer: it is
    never a triplet). As EM's "empty vs empty = 1" (SPEC 4): correct when the question has no
    reference answer, incorrect otherwise, that is, each human metric's value of a triplet labelled
    all correct, or all incorrect (Hscore and Hcorrect: 1 and 0); a rule-scored answer counts as
    labelled.

    >>> questions = pd.DataFrame({"answers": [["Paris"], []]}, index=["q1", "q2"])
    >>> mats = {"hscore": np.full((2, 1), np.nan), "hcorrect": np.full((2, 1), np.nan)}
    >>> _score_empty_answers(mats, questions, q=np.array([0, 1]), cell=np.array([0, 1]), empty=np.array([True, True]))
    >>> mats["hscore"].ravel().tolist()
    [0.0, 1.0]
    """
    if not empty.any():
        return
    no_reference = np.array([not any(str(a).strip() for a in answers) for answers in questions["answers"]], bool)
    rule = no_reference[q[empty]]
    all_correct_or_incorrect = np.array([[1, 0, 0], [0, 0, 1]])
    for metric in metric_registry.human_keys():
        correct, incorrect = metric_registry.get(metric).per_triplet(all_correct_or_incorrect, aggregate)
        mats[metric].ravel()[cell[empty]] = np.where(rule, float(correct), float(incorrect))


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
    # a question without ROVER answer scores 0 on the automatic metrics, NaN on the others
    for m in metric_registry.all_keys():
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
    """The (questions x columns) matrix of every metric: each automatic metric of each prediction
    (computed once per distinct (question, answer), by its bulk scorer; metrics sharing a scorer in
    one call), 0 for a missing one; NaN elsewhere. With the (question, answer) pair code of each
    prediction and the pairs (question * answers + answer)."""
    n_answers = max(len(answer_texts), 1)
    code, pairs = pd.factorize(q.astype(np.int64) * n_answers + answer_code)
    uq, ua = pairs // n_answers, pairs % n_answers
    refs = questions["answers"].to_numpy()
    langs = questions["language"].to_numpy()
    automatic = metric_registry.automatic_keys()
    scores = {}
    for scorer in dict.fromkeys(metric_registry.get(m).bulk for m in automatic):  # each scorer once, in order
        scores.update(scorer(answer_texts[ua], refs[uq], langs[uq]))
    # a missing prediction scores 0 on the automatic metrics (official SQuAD), and is NaN on the others
    mats = {m: np.zeros(shape) if m in automatic else np.full(shape, np.nan) for m in metric_registry.all_keys()}
    for m in automatic:
        mats[m].ravel()[cell] = np.asarray(scores[m], dtype=float)[code]
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
    >>> from evaluation.report.inputs import _example_inputs
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
