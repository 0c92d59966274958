"""Fuzzed interchange files: the importers either import everything or raise InterchangeError and
write nothing. Any other exception, or a partial import, is a failure."""

import json

import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Label, LabelEvent, Prediction, Question, System, Triplet

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
texts = st.text(max_size=30) | st.sampled_from(
    ["", " ", "\x00", "\ud800", "<script>x</script>", "é" * 3, "\u202e", "a\r\nb"]
)
question_ids = st.sampled_from(["q1", "q2", "q3", "unknown"]) | texts | json_values


def lines_of(objects):
    """A file: JSON lines built from ``objects``, mixed with raw text, raw bytes and blank lines."""
    line = (
        objects.map(lambda o: json.dumps(o).encode())
        | st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass"))
        | st.binary(max_size=20)
        | st.just(b"")
        | st.just(b"\xef\xbb\xbf{}")
    )
    return st.lists(line, max_size=6).map(lambda ls: b"\n".join(ls) + st_terminator(ls))


def mostly_valid(valid, objects):
    """Files of valid lines where one line in a few is hostile: the all-or-nothing case that matters."""
    line = valid.map(lambda o: json.dumps(o).encode()) | valid.map(
        lambda o: json.dumps(o, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
    return lines_of(objects) | st.lists(line, min_size=1, max_size=5).map(lambda ls: b"\n".join(ls) + b"\n")


def st_terminator(lines):
    return b"\n" if len(lines) % 2 else b""


nasty = st.sampled_from(["ok", "a\x00b", "\ud800", "\udfff x", "\U0001f600", "<b>", "\u0085"])
valid_predictions = st.fixed_dictionaries(
    {
        "question_id": st.sampled_from(["q1", "q2", "q3"]),
        "system": st.sampled_from(["fz-a", "fz-b"]) | nasty,
        "answer": texts | nasty,
    }
)
predictions = valid_predictions | st.fixed_dictionaries(
    {},
    optional={
        "question_id": question_ids,
        "system": texts | json_values,
        "answer": texts | json_values,
        "meta": json_values,
        "extra": json_values,
    },
)
valid_labels = st.fixed_dictionaries(
    {
        "question_id": st.sampled_from(["q1", "q2"]),
        "annotator": st.sampled_from(["fz1", "fz2"]) | nasty,
        "label": st.sampled_from(["correct", "partial", "incorrect"]),
        "answer": st.sampled_from(["Denver Broncos", "Warsaw", "Poland", "Carolina Panthers"]),
    }
)
labels = valid_labels | st.fixed_dictionaries(
    {},
    optional={
        "question_id": question_ids,
        "annotator": texts | json_values,
        "label": st.sampled_from(["correct", "partial", "incorrect", "CORRECT", "yes"]) | json_values,
        "answer": st.sampled_from(["Denver Broncos", "Warsaw", "Poland", ""]) | texts | json_values,
    },
)
valid_corpus = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1, max_size=3) | nasty,
        "context": nasty | st.just("ctx"),
        "question": st.just("why?") | nasty,
        "answers": st.lists(nasty, max_size=2),
    },
    optional={"meta": json_values, "language": nasty},
)
corpus_lines = valid_corpus | st.fixed_dictionaries(
    {},
    optional={
        "id": question_ids,
        "context": texts | json_values,
        "question": texts | json_values,
        "answers": st.lists(texts, max_size=2) | json_values,
        "language": texts | json_values,
        "frame": texts | json_values,
        "dist": json_values,
        "coref": json_values,
        "frame_elements": json_values,
        "frame_freq": json_values,
    },
)


def counts():
    return (
        Question.objects.count(),
        Prediction.objects.count(),
        Triplet.objects.count(),
        System.objects.count(),
        Label.objects.count(),
        LabelEvent.objects.count(),
        get_user_model().objects.count(),
        Corpus.objects.count(),
    )


def attempt(importer, tmp_path, content):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(content)
    before = counts()
    try:
        result = importer(path)
    except InterchangeError as exc:
        error = exc
    else:
        event("imported")
        return before, counts(), result
    assert counts() == before, f"partial import after error {error}"
    assert str(error)  # names file, line, field
    event("rejected")
    return None


@FUZZ
@given(content=mostly_valid(valid_predictions, predictions))
def test_fuzzed_predictions_import_all_or_nothing(tiny_corpus, tmp_path, content):
    out = attempt(lambda p: import_predictions(p, tiny_corpus), tmp_path, content)
    if out:
        before, after, result = out
        assert after[1] - before[1] == result["predictions"] > 0


@FUZZ
@given(content=mostly_valid(valid_labels, labels))
def test_fuzzed_labels_import_all_or_nothing(tiny_corpus, tmp_path, content):
    out = attempt(lambda p: import_labels(p, tiny_corpus), tmp_path, content)
    if out:
        before, after, result = out
        assert after[4] - before[4] == result["created"]
        assert after[5] - before[5] == result["created"] + result["changed"]


@FUZZ
@given(content=mostly_valid(valid_corpus, corpus_lines))
def test_fuzzed_corpus_import_all_or_nothing(db, tmp_path, content):
    out = attempt(lambda p: import_corpus(p, "fuzzed"), tmp_path, content)
    if out:
        before, after, result = out
        assert after[0] - before[0] == result["questions"] > 0


@pytest.mark.parametrize(("answer", "reason"), [("a\\u0000b", "NUL"), ("\\ud800", "surrogate"), ("ok", None)])
def test_text_no_database_can_store_is_a_clear_error(tiny_corpus, tmp_path, answer, reason):
    (tmp_path / "p.jsonl").write_text(
        f'{{"question_id": "q1", "system": "s", "answer": "{answer}", "meta": {{"k": "{answer}"}}}}\n'
    )
    before = counts()
    if reason is None:
        assert import_predictions(tmp_path / "p.jsonl", tiny_corpus)["predictions"] == 1
        return
    with pytest.raises(InterchangeError, match=reason) as exc:
        import_predictions(tmp_path / "p.jsonl", tiny_corpus)
    assert exc.value.line == 1 and exc.value.field == "answer"
    assert counts() == before
