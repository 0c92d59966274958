"""The three input tables of a report, as pandas DataFrames, from interchange files or records.

- questions: index ``question_id``; columns context, question, answers (list), language, the SPEC 6
  attributes (None where absent) and meta (dict).
- predictions: question_id, system, answer; optionally ``tkey`` (the triplet key, e.g. a database
  triplet id) which otherwise is derived from the answer under the dedup policy.
- labels: question_id, answer, annotator, label (or ``tkey``, annotator, label).

Files are read with ``annotation.interchange`` (validated line by line; errors raise
``InterchangeError`` with the file, line and field). The labels a database holds come as
``LabelRow`` records (``evaluation.database.label_rows``), shaped here into the report's labels
(``report_labels``) and the crowd figures' (``crowd_table``).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

import pandas as pd

from annotation import pseudonyms
from annotation.interchange import REFERENCE, SEMANTIC_FIELDS, read_corpus, read_labels, read_predictions
from annotation.quality import apply_adjudications

QUESTION_COLUMNS = ("context", "question", "answers", "language", *SEMANTIC_FIELDS, "meta")


class _Shared(dict):
    """One string object for equal strings read from a file (a question id on each of its
    predictions, a system name on each of its lines, a paragraph's context on each of its questions):
    what a table of a million lines holds, instead of a million copies.

    >>> shared = _Shared()
    >>> a, b = "".join(["bert", "-ens"]), "".join(["bert-", "ens"])
    >>> a is b, shared(a) is shared(b)
    (False, True)
    """

    def __call__(self, text):
        if not isinstance(text, str):
            return text
        return self.setdefault(text, text)


def questions_frame(records) -> pd.DataFrame:
    """The questions table from corpus records (SPEC 9).

    Parameters
    ----------
    records : iterable of dict
        Corpus records: ``id``, ``context``, ``question``, ``answers``, optional ``language``
        (default ``en``), SPEC 6 attributes and ``meta``.

    Returns
    -------
    DataFrame
        Index ``question_id``; columns ``QUESTION_COLUMNS`` (absent attributes None or NaN,
        ``answers`` a list, ``meta`` a dict).

    Raises
    ------
    ValueError
        When two records share an id.

    Examples
    --------
    >>> from evaluation.report import inputs
    >>> questions = inputs.questions_frame([
    ...     {"id": "q1", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?",
    ...      "answers": ["Warsaw"], "dist": 2},
    ...     {"id": "q2", "context": "Paris.", "question": "Where?", "answers": []}])
    >>> predictions = inputs.predictions_frame([{"question_id": "q1", "system": "a", "answer": "Warsaw"},
    ...                                         {"question_id": "q2", "system": "a", "answer": None}])
    >>> questions[["question", "answers", "language", "dist", "meta"]]
                           question   answers language  dist meta
    question_id
    q1           Capital of Poland?  [Warsaw]       en   2.0   {}
    q2                       Where?        []       en   NaN   {}
    """
    shared, columns = _Shared(), {c: [] for c in ("question_id", *QUESTION_COLUMNS)}
    for r in records:  # column by column: no dict per question kept beside the table
        columns["question_id"].append(r["id"])
        for c in QUESTION_COLUMNS:
            columns[c].append(shared(r.get(c)) if c == "context" else r.get(c))
    frame = pd.DataFrame(columns)
    del columns
    frame["language"] = frame["language"].fillna("en")
    frame["meta"] = frame["meta"].map(lambda m: m if isinstance(m, dict) else {})
    frame["answers"] = frame["answers"].map(lambda a: list(a) if isinstance(a, (list, tuple)) else [])
    if frame["question_id"].duplicated().any():
        dup = frame.loc[frame["question_id"].duplicated(), "question_id"].iloc[0]
        raise ValueError(f"duplicate question id {dup!r}")
    return frame.set_index("question_id")


def predictions_frame(records) -> pd.DataFrame:
    """The predictions table from prediction records (SPEC 9).

    Parameters
    ----------
    records : iterable of dict
        ``question_id``, ``system``, ``answer`` (None is the empty answer).

    Returns
    -------
    DataFrame
        Columns ``question_id``, ``system``, ``answer``.

    Examples
    --------
    >>> from evaluation.report import inputs
    >>> questions = inputs.questions_frame([
    ...     {"id": "q1", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?",
    ...      "answers": ["Warsaw"], "dist": 2},
    ...     {"id": "q2", "context": "Paris.", "question": "Where?", "answers": []}])
    >>> predictions = inputs.predictions_frame([{"question_id": "q1", "system": "a", "answer": "Warsaw"},
    ...                                         {"question_id": "q2", "system": "a", "answer": None}])
    >>> predictions
      question_id system  answer
    0          q1      a  Warsaw
    1          q2      a
    """
    shared = _Shared()
    return pd.DataFrame.from_records(
        [(shared(r["question_id"]), shared(r["system"]), shared(r.get("answer") or "")) for r in records],
        columns=["question_id", "system", "answer"],
    )


def labels_frame(records) -> pd.DataFrame:
    """The labels table from label records (SPEC 9).

    Parameters
    ----------
    records : iterable of dict
        ``question_id``, ``answer``, ``annotator``, ``label``.

    Returns
    -------
    DataFrame
        Columns ``question_id``, ``answer``, ``annotator``, ``label``; in the order of the records'
        ``created_at`` (in ``meta``) when they carry one (then file order; SPEC 16), else file order.

    Examples
    --------
    >>> from evaluation.report.inputs import labels_frame
    >>> labels_frame([{"question_id": "q1", "answer": "Warsaw", "annotator": "ann", "label": "correct"}])
      question_id  answer annotator    label
    0          q1  Warsaw       ann  correct
    """
    records = list(records)
    shared = _Shared()
    frame = pd.DataFrame.from_records(
        [
            (shared(r["question_id"]), r.get("answer") or "", shared(r["annotator"]), shared(r["label"]))
            for r in records
        ],
        columns=["question_id", "answer", "annotator", "label"],
    )
    created = [(r.get("meta") or {}).get("created_at") or r.get("created_at") for r in records]
    if any(created):  # SPEC 16: the labels in the order they arrived, by created_at (then file order)
        when = pd.to_datetime(pd.Series(created, dtype=object), utc=True, errors="coerce", format="ISO8601")
        frame = frame.iloc[when.reset_index(drop=True).argsort(kind="stable").to_numpy()].reset_index(drop=True)
    return frame


def triplet_key(triplet_id):
    """The key of a database triplet in the report's tables (``tkey``).

    Parameters
    ----------
    triplet_id : int or None

    Returns
    -------
    str or None
        ``t<id>``; None for None (an empty answer has no triplet).

    Examples
    --------
    >>> triplet_key(7), triplet_key(None)
    ('t7', None)
    """
    return None if triplet_id is None else f"t{triplet_id}"


class LabelRow(NamedTuple):
    """One label of a database that counts (``annotation.counted``), as ``evaluation.database.label_rows``
    reads it: the excluded participants' too, which ``report_labels`` leaves out unless asked."""

    id: int
    triplet: int
    user: int
    annotator: str
    value: str
    created_at: datetime
    updated_at: datetime


def _example_rows():
    """Three ``LabelRow`` of two accounts on triplets 1 and 2: the examples of ``report_labels`` and ``crowd_table``."""
    at = [datetime(2026, 1, 1, 9, m) for m in range(4)]
    return [
        LabelRow(3, 2, 11, "bob", "partial", at[2], at[2]),
        LabelRow(1, 1, 10, "ann", "correct", at[0], at[3]),
        LabelRow(2, 1, 11, "bob", "incorrect", at[1], at[1]),
    ]


def _with_gold(labels, gold):
    labels["gold"] = labels["tkey"].map(gold).astype(object)
    labels["gold"] = labels["gold"].where(labels["gold"].notna(), None)
    return labels


def report_labels(rows, *, excluded, gold, decided=None, include_excluded=False):
    """The report's labels table from a database's ``LabelRow`` records.

    Parameters
    ----------
    rows : list of LabelRow
    excluded : set of int
        The accounts excluded on gold (``evaluation.database.excluded_accounts``): their labels are
        left out unless ``include_excluded``.
    gold : dict
        ``tkey`` -> expected label of each gold triplet: a ``gold`` column (the expected label, else
        None) when there is gold (``ds`` fixes them, SPEC 17).
    decided : dict, optional
        Triplet id -> the admin's label (``annotation.quality_data.decisions``) when the report is
        adjudicated: every label of an adjudicated item carries it (annotation/quality.py).
    include_excluded : bool, default False
        Keep the labels of crowd-study participants excluded on gold items (SPEC 13).

    Returns
    -------
    DataFrame or None
        ``annotator`` (A01..An, SPEC 18), ``label``, ``tkey`` (and ``gold``), in the order the labels
        arrived (SPEC 16); None without labels.

    Examples
    --------
    >>> report_labels(_example_rows(), excluded={11}, gold={})
      annotator    label tkey
    0       A01  correct   t1
    >>> report_labels(_example_rows(), excluded={11}, gold={"t1": "correct"}, decided={1: "partial"},
    ...               include_excluded=True)
      annotator    label tkey     gold
    0       A01  partial   t1  correct
    1       A02  partial   t1  correct
    2       A02  partial   t2     None
    """
    if not include_excluded:
        rows = [r for r in rows if r.user not in excluded]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (r.created_at, r.id))  # SPEC 16: the sequences take them in arrival order
    labels = pd.DataFrame.from_records(
        [(r.triplet, r.annotator, r.value) for r in rows], columns=["triplet", "annotator", "label"]
    )
    # SPEC 18: reports and paper tables name annotators A01..An, never by account (a panel id once)
    labels["annotator"] = labels["annotator"].map(pseudonyms.annotator_labels(labels["annotator"]))
    if decided:
        labels = apply_adjudications(labels, decided)
    labels["tkey"] = labels.pop("triplet").map(triplet_key)
    return _with_gold(labels, gold) if gold else labels


def crowd_table(rows, *, excluded, gold, decided=None):
    """The crowd figures' labels (SPEC 17) from a database's ``LabelRow`` records: every label, flagged.

    Parameters
    ----------
    rows : list of LabelRow
    excluded : set of int
        The accounts excluded on gold (``evaluation.database.excluded_accounts``).
    gold : dict
        ``tkey`` -> expected label of each gold triplet.
    decided : dict, optional
        As ``report_labels``.

    Returns
    -------
    DataFrame or None
        ``annotator`` (the account's name), ``label``, ``excluded``, ``tkey``, ``gold`` (None off gold),
        in the order the labels were last changed; None without rows.

    Examples
    --------
    >>> crowd_table(_example_rows(), excluded={11}, gold={"t2": "partial"})
      annotator      label  excluded tkey     gold
    0       bob  incorrect      True   t1     None
    1       bob    partial      True   t2  partial
    2       ann    correct     False   t1     None
    """
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (r.updated_at, r.id))
    labels = pd.DataFrame.from_records(
        [(r.triplet, r.annotator, r.value, r.user in excluded) for r in rows],
        columns=["triplet", "annotator", "label", "excluded"],
    )
    if decided:
        labels = apply_adjudications(labels, decided)
    labels["tkey"] = labels.pop("triplet").map(triplet_key)
    return _with_gold(labels, gold)


def with_reference(questions: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """``predictions`` with the system ``reference`` first, as the import of a corpus adds it.

    The reference's answer is the first reference answer of each question ("" when it has none)
    (SPEC 1, 9).

    Parameters
    ----------
    questions : DataFrame
        The questions table (``questions_frame``).
    predictions : DataFrame
        The predictions table; returned unchanged when it already holds a system ``reference``.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> from evaluation.report import inputs
    >>> questions = inputs.questions_frame([
    ...     {"id": "q1", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?",
    ...      "answers": ["Warsaw"], "dist": 2},
    ...     {"id": "q2", "context": "Paris.", "question": "Where?", "answers": []}])
    >>> predictions = inputs.predictions_frame([{"question_id": "q1", "system": "a", "answer": "Warsaw"},
    ...                                         {"question_id": "q2", "system": "a", "answer": None}])
    >>> inputs.with_reference(questions, predictions)
      question_id     system  answer
    0          q1  reference  Warsaw
    1          q2  reference
    2          q1          a  Warsaw
    3          q2          a
    """
    if (predictions["system"] == REFERENCE).any():
        return predictions
    refs = pd.DataFrame(
        {
            "question_id": questions.index,
            "system": REFERENCE,
            "answer": [a[0] if len(a) else "" for a in questions["answers"]],
        }
    )
    return pd.concat([refs, predictions], ignore_index=True)


def _example_folder():
    """A temporary folder with the one-line corpus, predictions and labels files of this module's
    examples (the caller removes it)."""
    import json
    import pathlib
    import tempfile

    folder = pathlib.Path(tempfile.mkdtemp())
    records = {
        "corpus.jsonl": {"id": "q1", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?",
                         "answers": ["Warsaw"]},
        "predictions.jsonl": {"question_id": "q1", "system": "a", "answer": "Warsaw"},
        "labels.jsonl": {"question_id": "q1", "answer": "Warsaw", "annotator": "judge-1", "label": "correct"},
    }  # fmt: skip
    for name, record in records.items():
        (folder / name).write_text(json.dumps(record) + "\n")
    return folder


def read_inputs(corpus_path, predictions_path, labels_path=None, *, reference_system=False):
    r"""Read and validate the three JSONL files of SPEC 9.

    Parameters
    ----------
    corpus_path, predictions_path : str or Path
        The corpus and predictions files.
    labels_path : str or Path, optional
        The labels file.
    reference_system : bool, default False
        Add the corpus answers as the system ``reference`` (``with_reference``).

    Returns
    -------
    questions, predictions : DataFrame
    labels : DataFrame or None
        None without a labels file.

    Raises
    ------
    annotation.interchange.InterchangeError
        With the file, line and field of the first invalid record.

    Examples
    --------
    >>> import shutil
    >>> from evaluation.report import inputs
    >>> folder = inputs._example_folder()  # corpus, predictions and labels files, one line each
    >>> questions, predictions, labels = inputs.read_inputs(
    ...     folder / "corpus.jsonl", folder / "predictions.jsonl", folder / "labels.jsonl", reference_system=True)
    >>> predictions
      question_id     system  answer
    0          q1  reference  Warsaw
    1          q1          a  Warsaw
    >>> labels["label"].tolist()
    ['correct']
    >>> shutil.rmtree(folder)
    """
    questions = questions_frame(record for _, record in read_corpus(corpus_path))
    known = set(questions.index)
    predictions = predictions_frame(record for _, record in read_predictions(predictions_path, known_questions=known))
    if reference_system:
        predictions = with_reference(questions, predictions)
    labels = None
    if labels_path:
        labels = labels_frame(record for _, record in read_labels(labels_path, known_questions=known))
    return questions, predictions, labels


def read_judge_labels(path, questions: pd.DataFrame) -> pd.DataFrame:
    r"""A judge-labels file (SPEC 10: the labels format, ``annotator`` names the judge), validated.

    Parameters
    ----------
    path : str or Path
        The labels file.
    questions : DataFrame
        The questions table: labels of other questions are errors.

    Returns
    -------
    DataFrame
        As ``labels_frame``.

    Raises
    ------
    annotation.interchange.InterchangeError
        With the file, line and field of the first invalid record.

    Examples
    --------
    >>> import shutil
    >>> from evaluation.report import inputs
    >>> folder = inputs._example_folder()  # corpus, predictions and labels files, one line each
    >>> questions, _, _ = inputs.read_inputs(folder / "corpus.jsonl", folder / "predictions.jsonl")
    >>> inputs.read_judge_labels(folder / "labels.jsonl", questions)
      question_id  answer annotator    label
    0          q1  Warsaw   judge-1  correct
    >>> shutil.rmtree(folder)
    """
    known = set(questions.index)
    records, probs = [], []
    for line, record in read_labels(path, known_questions=known):
        records.append(record)
        probs.append(_probs(record["meta"].get("probs"), path, line))
    frame = labels_frame(records)
    if any(p is not None for p in probs):
        frame["probs"] = probs
    return frame


def _probs(value, path, line):
    """A label line's ``probs`` (SPEC 12), checked, as a dict over the three labels; None when absent."""
    from annotation.interchange import InterchangeError
    from stats.design import check_probs
    from stats.labels import LABEL_VALUES

    if value is None:
        return None
    try:
        if not isinstance(value, dict):
            raise ValueError("probs must be an object {correct, partial, incorrect}")
        return dict(zip(LABEL_VALUES, check_probs(value).tolist()))
    except ValueError as exc:
        raise InterchangeError(str(exc), str(path), line, field="probs") from None


def read_design(path, questions: pd.DataFrame) -> pd.DataFrame:
    r"""A design file (SPEC 12): JSONL ``{"question_id", "answer", "pi", "sampled"}``, one line per triplet.

    A design exported by the platform also carries ``phase`` (``"pilot"`` / ``"main"``, or null for
    a triplet not sampled) and ``p1`` (the pilot chance), so that the completion rates apply per
    phase; a file without them is one phase (both columns are then null).

    Parameters
    ----------
    path : str or Path
        The design file.
    questions : DataFrame
        The questions table: lines of other questions are errors.

    Returns
    -------
    DataFrame
        ``question_id``, ``answer``, ``pi`` (float in (0, 1]), ``sampled`` (bool), ``phase`` and
        ``p1`` (None where the line has none).

    Raises
    ------
    annotation.interchange.InterchangeError
        With the file, line and field of the first invalid line.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from evaluation.report.inputs import questions_frame, read_design
    >>> questions = questions_frame([{"id": "q1", "context": "c", "question": "q", "answers": ["a"]}])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "design.jsonl"
    ...     _ = path.write_text(json.dumps({"question_id": "q1", "answer": "a", "pi": 0.5, "sampled": True}) + "\n")
    ...     read_design(path, questions)
      question_id answer   pi  sampled phase    p1
    0          q1      a  0.5     True  None  None
    """
    import math

    from annotation.interchange import InterchangeError, _ids_as_text, _text, iter_json_lines

    name, known, rows = str(path), set(questions.index), []
    for line, raw in iter_json_lines(path, name):
        obj = _ids_as_text(raw, "question_id")
        qid = _text(obj, "question_id", name, line=line)
        if qid not in known:
            raise InterchangeError(f"unknown question id {qid!r}", name, line, field="question_id")
        answer = _text(obj, "answer", name, line=line, allow_empty=True)
        pi, sampled = obj.get("pi"), obj.get("sampled")
        if isinstance(pi, bool) or not isinstance(pi, (int, float)) or not math.isfinite(pi) or not 0 < pi <= 1:
            raise InterchangeError(f"pi must be a number in (0, 1], got {pi!r}", name, line, field="pi")
        if not isinstance(sampled, bool):
            raise InterchangeError(f"sampled must be true or false, got {sampled!r}", name, line, field="sampled")
        rows.append((qid, answer, float(pi), sampled, *_design_phase(obj, name, line)))
    return pd.DataFrame.from_records(rows, columns=["question_id", "answer", "pi", "sampled", "phase", "p1"])


def _design_phase(obj, name, line):
    """(phase, p1) of a design line: both absent (one phase), or a phase among pilot / main / null and p1 in (0, 1)."""
    import math

    from annotation.interchange import InterchangeError
    from stats.design import MAIN, PILOT

    if "phase" not in obj and "p1" not in obj:
        return None, None
    phase, p1 = obj.get("phase"), obj.get("p1")
    if phase not in (PILOT, MAIN, None):
        raise InterchangeError(f"phase must be pilot, main or null, got {phase!r}", name, line, field="phase")
    if isinstance(p1, bool) or not isinstance(p1, (int, float)) or not math.isfinite(p1) or not 0 < p1 < 1:
        raise InterchangeError(f"p1 must be a number in (0, 1) with a phase, got {p1!r}", name, line, field="p1")
    return phase, float(p1)


def corpus_records(questions: pd.DataFrame, extra_meta: dict | None = None):
    """Questions back to corpus JSONL records (SPEC 9): absent attributes are left out.

    Parameters
    ----------
    questions : DataFrame
        The questions table.
    extra_meta : dict, optional
        Question id -> keys to add to its ``meta`` (e.g. its partition in the hard subset).

    Yields
    ------
    dict
        One corpus record per question, in order.

    Examples
    --------
    >>> from evaluation.report import inputs
    >>> questions = inputs.questions_frame([
    ...     {"id": "q1", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?",
    ...      "answers": ["Warsaw"], "dist": 2},
    ...     {"id": "q2", "context": "Paris.", "question": "Where?", "answers": []}])
    >>> predictions = inputs.predictions_frame([{"question_id": "q1", "system": "a", "answer": "Warsaw"},
    ...                                         {"question_id": "q2", "system": "a", "answer": None}])
    >>> next(inputs.corpus_records(questions, {"q1": {"partition": 1}}))
    {'id': 'q1', 'context': 'Warsaw is the capital of Poland.', 'question': 'Capital of Poland?',
     'answers': ['Warsaw'], 'language': 'en', 'dist': 2, 'meta': {'partition': 1}}
    """
    extra_meta = extra_meta or {}
    for qid, row in questions.iterrows():
        record = {
            "id": qid,
            "context": row["context"],
            "question": row["question"],
            "answers": list(row["answers"]),
            "language": row["language"],
        }
        for field in SEMANTIC_FIELDS:
            value = row.get(field)
            if value is None or (isinstance(value, float) and value != value):
                continue
            value = value.item() if hasattr(value, "item") else value
            if SEMANTIC_FIELDS[field] is int:
                value = int(value)
            record[field] = value
        meta = dict(row.get("meta") or {})
        meta.update(extra_meta.get(qid, {}))
        if meta:
            record["meta"] = meta
        yield record


def _example_inputs():
    """(questions, predictions, labels) of a tiny corpus: the examples of this module use it."""
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
