"""Reading and validating the interchange files of SPEC section 9. Pure, streaming, no database.

Every reader is a generator of ``(line_number, record)``; a line that breaks the rules raises
``InterchangeError`` naming the file, the line and the field. Unknown keys are kept in ``meta``.
Callers that must be atomic consume the whole generator before writing anything.

Formats:
- corpus JSONL: ``{"id", "context"?, "question", "answers": [..], "language"?, <SPEC 6 attributes>?}``
  (an empty or missing context is an open-domain question)
- SQuAD JSON (v1.1/v2.0): ``{"data": [{"title", "paragraphs": [{"context", "qas": [...]}]}]}``
- predictions JSONL: ``{"question_id", "system", "answer"}``
- labels JSONL: ``{"question_id", "answer", "annotator", "label"}``
"""

from __future__ import annotations

import array
import io
import json
import os

from core.errors import UserFacingError
from core.safe_json import HostileValue, loads_checked, unstorable
from stats.labels import LABEL_VALUES

# The system of the reference answers: its name in the predictions files, the database and the report
# (the first reference answer of each question, judged blind like any other), and its System kind.
REFERENCE = "reference"

SEMANTIC_FIELDS = {
    "frame": str,
    "lu": str,
    "lu_pos": str,
    "frame_elements": list,
    "coref": bool,
    "dist": int,
    "trigger_in_question": bool,
    "frame_freq": float,
}
CORPUS_FIELDS = ("id", "context", "question", "answers", "language", "meta", *SEMANTIC_FIELDS)
PREDICTION_FIELDS = ("question_id", "system", "answer", "meta")
LABEL_FIELDS = ("question_id", "answer", "annotator", "label", "meta")


class InterchangeError(UserFacingError, ValueError):
    """A bad input: ``str()`` reads ``file:line: field 'x': reason``."""

    def __init__(self, reason, file=None, line=None, *, field=None):
        self.reason, self.file, self.line, self.field = reason, file, line, field
        super().__init__(self.describe())

    def describe(self):
        where = str(self.file or "<input>")
        if self.line is not None:
            where += f":{self.line}"
        what = f"field '{self.field}': " if self.field else ""
        return f"{where}: {what}{self.reason}"

    def as_dict(self):
        return {
            "file": str(self.file) if self.file else None,
            "line": self.line,
            "field": self.field,
            "reason": self.reason,
            "message": self.describe(),
        }


def _open_text(source):
    """Yield a text stream for a path, a binary or a text file object (UTF-8, BOM tolerated)."""
    if isinstance(source, (str, os.PathLike)):
        return open(source, encoding="utf-8-sig", newline=""), str(source)
    name = getattr(source, "name", None) or "<upload>"
    if isinstance(source, io.TextIOBase):
        return source, name
    return io.TextIOWrapper(source, encoding="utf-8-sig", newline=""), name


def _binary_lines(source):
    """Raw lines of a path or a file object, as bytes (decoded per line for exact error lines)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as stream:
            yield from stream
    elif isinstance(source, io.TextIOBase):
        for line in source:
            yield line.encode("utf-8")
    else:
        yield from source


def iter_json_lines(source, file=None):
    """``(line_number, dict)`` for each non-blank line. Empty file and bad JSON are errors."""
    name = file or _name_of(source)
    seen_any = False
    for line_no, raw in enumerate(_binary_lines(source), start=1):
        obj = json_object(raw, name, line_no, bom=line_no == 1)
        if obj is None:
            continue
        seen_any = True
        yield line_no, obj
    if not seen_any:
        raise InterchangeError("file is empty: no JSON line found", name)


def json_object(raw, name, line_no, *, bom=False):
    """The JSON object of one line (bytes), or None when it is blank; ``InterchangeError`` when it is
    not UTF-8, not JSON, hostile (``core.safe_json``), not an object, or holds what no column stores.
    ``bom``: a leading byte order mark is dropped (the first line of a file)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InterchangeError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", name, line_no) from None
    if bom:
        text = text.lstrip("\ufeff")
    if not text.strip():
        return None
    try:
        obj = loads_checked(text)
    except json.JSONDecodeError as exc:
        raise InterchangeError(f"malformed JSON ({exc.msg} at column {exc.colno})", name, line_no) from None
    except HostileValue as exc:
        raise InterchangeError(str(exc), name, line_no) from None
    if not isinstance(obj, dict):
        raise InterchangeError(f"expected a JSON object, got {type(obj).__name__}", name, line_no)
    if "\\u" in text:  # NUL and lone surrogates can only come in as \u escapes
        _check_storable(obj, name, line_no)
    return obj


def _check_storable(obj, name, line):
    found = unstorable(obj)
    if found:
        raise InterchangeError(found[1], name, line, field=found[0] if isinstance(found[0], str) else None)


def _text(obj, field, name, *, line, allow_empty=False):
    if field not in obj or obj[field] is None:
        raise InterchangeError("missing required field", name, line, field=field)
    value = obj[field]
    if not isinstance(value, str):
        raise InterchangeError(f"expected a string, got {type(value).__name__}", name, line, field=field)
    if not allow_empty and not value.strip():
        raise InterchangeError("must not be empty", name, line, field=field)
    return value


def _ids_as_text(obj, field):
    """Integer ids (some tools write them) are read as their decimal text."""
    value = obj.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        return {**obj, field: str(value)}
    return obj


def _split_meta(obj, known):
    meta = dict(obj.get("meta") or {}) if isinstance(obj.get("meta"), dict) else {}
    for key, value in obj.items():
        if key not in known:
            meta[key] = value
    return meta


def parse_semantic(obj, name=None, line=None):
    """The SPEC 6 attributes present on a corpus line, type-checked (None means absent)."""
    out = {}
    for field, kind in SEMANTIC_FIELDS.items():
        value = obj.get(field)
        if value is None:
            continue
        if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = float(value)
        elif kind is int and isinstance(value, bool):
            raise InterchangeError("expected an integer, got a boolean", name, line, field=field)
        elif kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InterchangeError("expected a list of strings", name, line, field=field)
        elif not isinstance(value, kind):
            raise InterchangeError(f"expected {kind.__name__}, got {type(value).__name__}", name, line, field=field)
        out[field] = value
    return out


def corpus_record(obj, name=None, line=None):
    obj = _ids_as_text(obj, "id")
    record = {
        "id": _text(obj, "id", name, line=line),
        # open-domain QA has no passage: an empty or missing context is allowed (SPEC 9)
        "context": "" if obj.get("context") is None else _text(obj, "context", name, line=line, allow_empty=True),
        "question": _text(obj, "question", name, line=line),
    }
    answers = obj.get("answers")
    if answers is None:
        raise InterchangeError("missing required field", name, line, field="answers")
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise InterchangeError("expected a list of strings", name, line, field="answers")
    record["answers"] = answers
    language = obj.get("language", "en")
    if not isinstance(language, str) or not language.strip():
        raise InterchangeError("expected a language code such as 'en' or 'fr'", name, line, field="language")
    record["language"] = language.strip().lower()
    record.update(parse_semantic(obj, name, line))
    record["meta"] = _split_meta(obj, CORPUS_FIELDS)
    check_columns(record, name, line)
    return record


def read_corpus(source, file=None):
    """Corpus JSONL -> ``(line, record)``; duplicate ids are an error."""
    seen = {}
    name = file or _name_of(source)
    for line, obj in iter_json_lines(source, name):
        record = corpus_record(obj, name, line)
        if record["id"] in seen:
            raise InterchangeError(
                f"duplicate id {record['id']!r} (first at line {seen[record['id']]})", name, line, field="id"
            )
        seen[record["id"]] = line
        yield line, record


def read_squad(source, file=None):
    """SQuAD-format JSON -> corpus records. ``line`` is the JSON path, e.g. ``data[0].paragraphs[3].qas[1]``."""
    name = file or _name_of(source)
    stream, _ = _open_text(source)
    try:
        try:
            doc = loads_checked(stream.read())
        except json.JSONDecodeError as exc:
            raise InterchangeError(f"malformed JSON ({exc.msg})", name, exc.lineno) from None
        except HostileValue as exc:
            raise InterchangeError(str(exc), name) from None
    finally:
        if isinstance(source, (str, os.PathLike)):
            stream.close()
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        raise InterchangeError("not SQuAD format: expected an object with a 'data' list", name, None, field="data")
    _check_storable(doc, name, None)
    language = doc.get("language", "en") if isinstance(doc.get("language", "en"), str) else "en"
    seen = {}
    count = 0
    for a, article in enumerate(doc["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise InterchangeError("expected a list", name, f"data[{a}]", field="paragraphs")
        for p, paragraph in enumerate(paragraphs):
            where = f"data[{a}].paragraphs[{p}]"
            if not isinstance(paragraph, dict) or not isinstance(paragraph.get("qas"), list):
                raise InterchangeError("expected a list", name, where, field="qas")
            for q, qa in enumerate(paragraph["qas"]):
                at = f"{where}.qas[{q}]"
                if not isinstance(qa, dict):
                    raise InterchangeError("expected an object", name, at)
                raw_answers = qa.get("answers", [])
                if not isinstance(raw_answers, list) or not all(
                    isinstance(x, dict) and isinstance(x.get("text"), str) for x in raw_answers
                ):
                    raise InterchangeError("expected a list of {text, answer_start}", name, at, field="answers")
                meta = {k: v for k, v in qa.items() if k not in ("id", "question", "answers")}
                if any("answer_start" in x for x in raw_answers):  # the answers' offsets (SPEC 15)
                    meta["answer_starts"] = [x.get("answer_start") for x in raw_answers]
                if isinstance(article.get("title"), str):
                    meta["article"] = article["title"]
                record = corpus_record(
                    {
                        "id": qa.get("id"),
                        "context": paragraph.get("context"),
                        "question": qa.get("question"),
                        "answers": [x["text"] for x in raw_answers],
                        "language": language,
                        "meta": meta,
                    },
                    name,
                    at,
                )
                if record["id"] in seen:
                    raise InterchangeError(
                        f"duplicate id {record['id']!r} (first at {seen[record['id']]})", name, at, field="id"
                    )
                seen[record["id"]] = at
                count += 1
                yield at, record
    if not count:
        raise InterchangeError("file is empty: no question found", name)


def read_predictions(source, file=None, known_questions=None):
    """Predictions JSONL -> ``(line, record)``. ``known_questions``: a set of valid question ids."""
    name = file or _name_of(source)
    seen = PredictionLines(known_questions)
    for line, obj in iter_json_lines(source, name):
        record = prediction_record(obj, name, line)
        if known_questions is not None and record["question_id"] not in known_questions:
            raise InterchangeError(f"unknown question id {record['question_id']!r}", name, line, field="question_id")
        if first := seen.add(record["system"], record["question_id"], line):
            raise InterchangeError(
                f"duplicate prediction of system {record['system']!r} for question {record['question_id']!r} "
                f"(first at line {first})",
                name,
                line,
                field="question_id",
            )
        yield line, record


class PredictionLines:
    """The line of each (system, question) prediction read so far: with the questions known, one
    array of lines per system (8 bytes a question) rather than a dict of a million pairs (about
    150 bytes each, and the fragments they leave: 10x SQuAD dev's report, issue 46).

    >>> lines = PredictionLines({"q1", "q2"})
    >>> lines.add("s", "q1", 3), lines.add("s", "q2", 4), lines.add("s", "q1", 5), lines.first("t", "q1")
    (0, 0, 3, 0)
    """

    def __init__(self, known_questions=None):
        self.position = None if known_questions is None else {q: i for i, q in enumerate(known_questions)}
        self.lines = {}

    def first(self, system, question):
        """The line of the pair's prediction recorded so far, 0 when none."""
        if self.position is None:
            return self.lines.get((system, question), 0)
        lines = self.lines.get(system)
        return lines[self.position[question]] if lines is not None else 0

    def add(self, system, question, line):
        """Record ``line``; the line of the same pair's earlier prediction, 0 when none."""
        if self.position is None:
            first = self.lines.get((system, question), 0)
            if not first:
                self.lines[(system, question)] = line
            return first
        lines = self.lines.get(system)
        if lines is None:
            lines = self.lines[system] = array.array("q", bytes(8 * len(self.position)))
        i = self.position[question]
        first, lines[i] = lines[i], lines[i] or line
        return first


def prediction_record(obj, name=None, line=None):
    """One predictions line, checked (SPEC 9)."""
    obj = _ids_as_text(obj, "question_id")
    record = {
        "question_id": _text(obj, "question_id", name, line=line),
        "system": _text(obj, "system", name, line=line).strip(),
        "answer": _text(obj, "answer", name, line=line, allow_empty=True),
        "meta": _split_meta(obj, PREDICTION_FIELDS),
    }
    check_columns(record, name, line)
    return record


def read_labels(source, file=None, known_questions=None):
    """Labels JSONL -> ``(line, record)``; the label must be one of correct / partial / incorrect."""
    name = file or _name_of(source)
    for line, obj in iter_json_lines(source, name):
        record = label_record(obj, name, line)
        if known_questions is not None and record["question_id"] not in known_questions:
            raise InterchangeError(f"unknown question id {record['question_id']!r}", name, line, field="question_id")
        yield line, record


def label_record(obj, name=None, line=None):
    """One labels line, checked (SPEC 9)."""
    obj = _ids_as_text(obj, "question_id")
    record = {
        "question_id": _text(obj, "question_id", name, line=line),
        "answer": _text(obj, "answer", name, line=line, allow_empty=True),
        "annotator": _text(obj, "annotator", name, line=line).strip(),
        "label": _text(obj, "label", name, line=line).strip().lower(),
        "meta": _split_meta(obj, LABEL_FIELDS),
    }
    check_columns(record, name, line)
    if record["label"] not in LABEL_VALUES:
        raise InterchangeError(
            f"label {obj['label']!r} is not one of {', '.join(LABEL_VALUES)}", name, line, field="label"
        )
    return record


def _name_of(source):
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return getattr(source, "name", None) or "<upload>"


def write_jsonl(records, stream):
    for record in records:
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")


# --- reading a file that may hold bad lines: every problem listed, dry runs, rejects files --------

LISTED_PROBLEMS = 20  # how many bad lines a message lists before "... and N more bad lines"


def each_line(source, parse, file=None):
    """``(line, raw_text, record or InterchangeError)`` for every non-blank line of a JSONL file.

    Unlike the ``read_*`` readers it does not stop at a bad line: each line is checked on its own
    with the same rules (``iter_json_lines``, then ``parse(obj, name, line)``: ``corpus_record``,
    ``prediction_record`` or ``label_record``), so that every problem can be listed. Rules across
    lines (duplicates, known ids) are the caller's. An empty file still raises.
    """
    name = file or _name_of(source)
    seen_any = False
    for line_no, line_bytes in enumerate(_binary_lines(source), start=1):
        raw, text = line_bytes, line_bytes.decode("utf-8", errors="replace")
        if line_no == 1:
            text, raw = text.lstrip("\ufeff"), raw.removeprefix(b"\xef\xbb\xbf")
        if not text.strip():
            continue
        seen_any = True
        try:
            obj = json_object(raw, name, line_no, bom=True)  # as read alone, each line may start with one
            if obj is None:
                continue
            yield line_no, text, parse(obj, name, line_no)
        except InterchangeError as exc:
            yield line_no, text, InterchangeError(exc.reason, name, line_no, field=exc.field)
    if not seen_any:
        raise InterchangeError("file is empty: no JSON line found", name)


def each_label_line(source, file=None):
    return each_line(source, label_record, file)


def rejected(line, raw, error, *, field=None):
    """A rejected line as written to a rejects file: ``{"line", "field", "reason", "input"}``
    (``error``: an ``InterchangeError`` or a reason)."""
    if isinstance(error, InterchangeError):
        error, field = error.reason, error.field
    return {"line": line, "field": field, "reason": error, "input": raw.rstrip("\r\n")}


def problem_lines(rejects, file, limit=LISTED_PROBLEMS):
    """``file:line: field 'x': reason`` for the first ``limit`` rejects, then ``... and N more bad lines``."""
    lines = [InterchangeError(r["reason"], file, r["line"], field=r["field"]).describe() for r in rejects[:limit]]
    if len(rejects) > limit:
        lines.append(f"... and {len(rejects) - limit} more bad lines")
    return lines


class BadLines(InterchangeError):
    """Every bad line of a file (``rejects``). One bad line reads like any ``InterchangeError``;
    several read ``file:first: N bad lines:`` and then the capped list."""

    def __init__(self, file, rejects):
        self.rejects = rejects
        first = rejects[0]
        if len(rejects) == 1:
            super().__init__(first["reason"], file, first["line"], field=first["field"])
        else:
            listing = "\n".join(problem_lines(rejects, file))
            super().__init__(f"{len(rejects)} bad lines:\n{listing}", file, first["line"])


# --- Hostile values: what no column (or JSON column) can hold is refused with file:line ----------
# JSON numbers must be finite and fit 64 bits and nesting is bounded (``core.safe_json``, shared with
# the API's parser); here each field fits its column.

INT_COLUMNS = {"dist": 2**31 - 1}  # IntegerField on both databases
TEXT_COLUMNS = {
    "id": 200,
    "question_id": 200,
    "language": 16,
    "frame": 200,
    "lu": 200,
    "lu_pos": 40,
    "system": 200,
    "annotator": 150,
}


def check_columns(record, name=None, line=None):
    """Each text field fits its column, each integer its column's range."""
    for field, value in record.items():  # a record holds a few of the columns: walk the record, not them
        limit = TEXT_COLUMNS.get(field)
        if limit is not None and isinstance(value, str) and len(value) > limit:
            raise InterchangeError(f"longer than {limit} characters ({len(value)})", name, line, field=field)
    for field, limit in INT_COLUMNS.items():
        value = record.get(field)
        if isinstance(value, int) and not -limit - 1 <= value <= limit:
            raise InterchangeError(
                f"integer {value} is out of range (at most {limit} in absolute value)", name, line, field=field
            )
