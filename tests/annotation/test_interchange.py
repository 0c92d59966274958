import io
import json

import pytest

from annotation.interchange import InterchangeError, read_corpus, read_labels, read_predictions, read_squad


def jsonl(*objs):
    return io.BytesIO("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs).encode())


Q = {"id": "q1", "context": "Paris is in France.", "question": "Where is Paris?", "answers": ["France"]}


def test_corpus_line_with_attributes_and_unknown_keys():
    [(line, rec)] = list(
        read_corpus(jsonl({**Q, "language": "FR", "frame": "Locale", "dist": 2, "frame_freq": 3, "source": "x"}))
    )
    assert line == 1 and rec["language"] == "fr" and rec["frame"] == "Locale" and rec["dist"] == 2
    assert rec["frame_freq"] == 3.0 and rec["meta"] == {"source": "x"}


@pytest.mark.parametrize(
    ("bad", "line", "field", "reason"),
    [
        ([Q, '{"id": "q2", "context": '], 2, None, "malformed JSON"),
        ([Q, {k: v for k, v in Q.items() if k != "question"}], 2, "question", "missing required field"),
        ([Q, {**Q, "answers": "France"}], 2, "answers", "list of strings"),
        ([Q, {**Q, "dist": "far"}], 2, "dist", "expected int"),
        ([Q, {**Q}], 2, "id", "duplicate id 'q1' (first at line 1)"),
        ([Q, "[1, 2]"], 2, None, "expected a JSON object"),
    ],
)
def test_corpus_errors_name_file_line_and_field(bad, line, field, reason):
    with pytest.raises(InterchangeError) as err:
        list(read_corpus(jsonl(*bad), file="corpus.jsonl"))
    assert (err.value.file, err.value.line, err.value.field) == ("corpus.jsonl", line, field)
    assert reason in err.value.reason
    assert str(err.value).startswith(f"corpus.jsonl:{line}: ")


def test_empty_file_is_an_error():
    with pytest.raises(InterchangeError, match="file is empty"):
        list(read_corpus(io.BytesIO(b"\n  \n"), file="c.jsonl"))


def test_not_utf8_is_an_error():
    with pytest.raises(InterchangeError, match="not valid UTF-8") as err:
        list(read_corpus(io.BytesIO(json.dumps(Q).encode() + b"\n\xff\xfe\n"), file="c.jsonl"))
    assert err.value.line == 2


def test_predictions_unknown_question_and_duplicates():
    good = {"question_id": "q1", "system": "s", "answer": ""}
    assert [r["answer"] for _, r in read_predictions(jsonl(good), known_questions={"q1"})] == [""]
    with pytest.raises(InterchangeError, match="unknown question id 'q9'") as err:
        list(read_predictions(jsonl(good, {**good, "question_id": "q9"}), known_questions={"q1"}))
    assert err.value.line == 2 and err.value.field == "question_id"
    with pytest.raises(InterchangeError, match="duplicate prediction of system 's'"):
        list(read_predictions(jsonl(good, good)))
    # with the questions known (the report's reading: one array of lines per system), the same refusal,
    # naming the first line; another system or question is no duplicate
    other = [{**good, "system": "t"}, {**good, "question_id": "q2"}]
    with pytest.raises(InterchangeError, match=r"system 's' for question 'q1' \(first at line 1\)") as err:
        list(read_predictions(jsonl(good, *other, good), known_questions={"q1", "q2"}))
    assert err.value.line == 4
    assert len(list(read_predictions(jsonl(good, *other), known_questions={"q1", "q2"}))) == 3
    with pytest.raises(InterchangeError, match="missing required field") as err:
        list(read_predictions(jsonl({"question_id": "q1", "answer": "x"})))
    assert err.value.field == "system"


def test_labels_wrong_value():
    ok = {"question_id": "q1", "answer": "France", "annotator": "ann", "label": "Correct"}
    assert [r["label"] for _, r in read_labels(jsonl(ok))] == ["correct"]
    with pytest.raises(InterchangeError, match="label 'maybe' is not one of correct, partial, incorrect") as err:
        list(read_labels(jsonl(ok, {**ok, "label": "maybe"})))
    assert (err.value.line, err.value.field) == (2, "label")


def test_squad_json_format():
    doc = {
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": "C",
                        "qas": [
                            {"id": "a", "question": "Q?", "answers": [{"text": "x", "answer_start": 0}]},
                            {"id": "b", "question": "Q2?", "answers": [], "is_impossible": True},
                        ],
                    }
                ],
            }
        ]
    }
    recs = [r for _, r in read_squad(io.BytesIO(json.dumps(doc).encode()))]
    assert [(r["id"], r["answers"], r["meta"]) for r in recs] == [
        ("a", ["x"], {"answer_starts": [0], "article": "T"}),  # the offsets kept for SPEC 15
        ("b", [], {"is_impossible": True, "article": "T"}),
    ]
    doc["data"][0]["paragraphs"][0]["qas"][1]["id"] = "a"
    with pytest.raises(InterchangeError, match="duplicate id 'a'") as err:
        list(read_squad(io.BytesIO(json.dumps(doc).encode()), file="s.json"))
    assert err.value.line == "data[0].paragraphs[0].qas[1]"
