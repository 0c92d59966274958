import json

import pytest
from django.core.management import CommandError, call_command

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Label, LabelEvent, Prediction, Question, System, Triplet
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db


def counts():
    return (
        Corpus.objects.count(),
        Question.objects.count(),
        Prediction.objects.count(),
        Triplet.objects.count(),
        System.objects.count(),
        Label.objects.count(),
    )


def test_tiny_corpus_triplets_link_every_prediction(tiny_corpus):
    assert Question.objects.filter(corpus=tiny_corpus).count() == 3
    assert Prediction.objects.count() == 12  # 3 reference + 9
    # every prediction is linked but sys-gamma's empty answer to q2: no empty answer is a triplet
    unlinked = Prediction.objects.filter(triplet__isnull=True)
    assert list(unlinked.values_list("system__name", "question__external_id", "answer")) == [("sys-gamma", "q2", "")]
    # q1: "Denver Broncos" (ref, a, b merged by whitespace) + "Carolina Panthers"; q2: Warsaw, Poland; q3: 2
    assert Triplet.objects.count() == 2 + 2 + 2
    t = Triplet.objects.get(question__external_id="q1", answer="Denver Broncos")
    assert sorted(t.predictions.values_list("system__name", flat=True)) == ["reference", "sys-alpha", "sys-beta"]
    assert System.objects.get(name="reference").kind == System.KIND_REFERENCE


def test_small_squad_import_pins_counts(squad_small):
    import_corpus(squad_small / "corpus.jsonl", "small")
    corpus = Corpus.objects.get(name="small")
    result = import_predictions(squad_small / "predictions.jsonl", corpus)
    assert result["predictions"] == 10570 and len(result["systems"]) == 10
    assert Prediction.objects.count() == 11627
    assert Triplet.objects.count() == 3144


@pytest.mark.parametrize(
    ("bad_line", "field", "reason"),
    [
        ('{"question_id": "q1", "system": "z", "answer": ', None, "malformed JSON"),
        ({"question_id": "q1", "answer": "x"}, "system", "missing required field"),
        ({"question_id": "nope", "system": "z", "answer": "x"}, "question_id", "unknown question id 'nope'"),
        ({"question_id": "q1", "system": "sys-alpha", "answer": "again"}, "question_id", "already has a prediction"),
        ({"question_id": "q2", "system": "z", "answer": "x"}, "question_id", "duplicate prediction of system 'z'"),
    ],
)
def test_bad_prediction_line_imports_nothing(tiny_corpus, tmp_path, bad_line, field, reason):
    before = counts()
    path = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"question_id": "q1", "system": "z", "answer": "new"},
            {"question_id": "q2", "system": "z", "answer": "y"},
            bad_line,
        ],
    )
    with pytest.raises(InterchangeError) as err:
        import_predictions(path, tiny_corpus)
    assert (err.value.line, err.value.field) == (3, field) and reason in err.value.reason
    assert counts() == before


def test_every_bad_line_is_listed_not_only_the_first(tiny_corpus, tmp_path):
    before = counts()
    path = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"question_id": "q1", "system": "z", "answer": "new"},
            {"question_id": "nope", "system": "z", "answer": "x"},
            "{broken",
            {"question_id": "q1", "system": "z", "answer": "again"},
        ]
        + [{"question_id": "q2", "answer": "x"}] * 30,
    )
    with pytest.raises(InterchangeError) as err:
        import_predictions(path, tiny_corpus)
    lines = str(err.value).splitlines()
    assert lines[0] == f"{path}:2: 33 bad lines:"
    assert lines[1] == f"{path}:2: field 'question_id': unknown question id 'nope'"
    assert lines[2].startswith(f"{path}:3: malformed JSON")
    assert (
        lines[3]
        == f"{path}:4: field 'question_id': duplicate prediction of system 'z' for question 'q1' (first at line 1)"
    )
    assert lines[4] == f"{path}:5: field 'system': missing required field"
    assert len(lines) == 1 + 20 + 1 and lines[-1] == "... and 13 more bad lines"
    assert [r["line"] for r in err.value.rejects] == list(range(2, 35))
    assert counts() == before
    corpus = write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": "a", "question": "Q?", "answers": []}, {"id": "a"}, {"id": "a", "question": "Q?", "answers": []}],
    )
    with pytest.raises(InterchangeError) as err:
        import_corpus(corpus, "new")
    assert [(r["line"], r["field"]) for r in err.value.rejects] == [(2, "question"), (3, "id")]


def test_bad_corpus_and_empty_file_import_nothing(tmp_path, db):
    good = {"id": "x1", "context": "c", "question": "q", "answers": ["a"]}
    for rows, reason in [
        ([good, {**good}], "duplicate id"),
        ([], "file is empty"),
        ([good, {**good, "id": "x2", "question": " "}], "must not be empty"),
    ]:
        path = write_jsonl(tmp_path / "c.jsonl", rows)
        with pytest.raises(InterchangeError, match=reason):
            import_corpus(path, "new")
        assert counts() == (0, 0, 0, 0, 0, 0)


def test_labels_import_maps_answers_to_triplets_and_keeps_history(tiny_corpus, tmp_path):
    path = write_jsonl(
        tmp_path / "l.jsonl",
        [
            {"question_id": "q1", "answer": "Denver  Broncos ", "annotator": "ext1", "label": "correct"},
            {"question_id": "q2", "answer": "Poland", "annotator": "ext1", "label": "incorrect"},
        ],
    )
    result = import_labels(path, tiny_corpus)
    assert result["created"] == 2
    label = Label.objects.get(triplet__answer="Denver Broncos")
    assert (
        label.annotator.username == "ext1"
        and not label.annotator.is_active
        and not label.annotator.has_usable_password()
    )
    write_jsonl(path, [{"question_id": "q1", "answer": "Denver Broncos", "annotator": "ext1", "label": "partial"}])
    assert import_labels(path, tiny_corpus)["changed"] == 1
    label.refresh_from_db()
    assert label.value == "partial"
    assert list(LabelEvent.objects.filter(label=label).values_list("value", flat=True)) == ["correct", "partial"]


def test_label_for_an_answer_nobody_gave_is_an_error(tiny_corpus, tmp_path):
    path = write_jsonl(
        tmp_path / "l.jsonl",
        [
            {"question_id": "q1", "answer": "Denver Broncos", "annotator": "e", "label": "correct"},
            {"question_id": "q1", "answer": "Seattle", "annotator": "e", "label": "correct"},
        ],
    )
    with pytest.raises(InterchangeError, match="no answer 'Seattle'") as err:
        import_labels(path, tiny_corpus)
    assert err.value.line == 2 and Label.objects.count() == 0


def test_100_mb_file_streams_and_a_bad_last_line_imports_nothing(tiny_corpus, tmp_path):
    path = tmp_path / "big.jsonl"
    filler = "x" * 2000
    with open(path, "w") as f:
        n = 0
        while f.tell() < 100 * 1024 * 1024:
            f.write(json.dumps({"question_id": "q1", "system": f"s{n}", "answer": filler}) + "\n")
            n += 1
        f.write('{"question_id": "q1", "system": "last", "answer": "unterminated\n')
    before = counts()
    with pytest.raises(InterchangeError, match="malformed JSON") as err:
        import_predictions(path, tiny_corpus)
    assert err.value.line == n + 1
    assert counts() == before


def test_commands_report_errors_with_file_line_field(tiny_corpus, tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "system": "z"}])
    with pytest.raises(CommandError, match=r"nothing imported: .*p.jsonl:1: field 'answer': missing required field"):
        call_command("import_predictions", str(path), corpus="tiny")
    with pytest.raises(CommandError, match="no corpus named 'nope'"):
        call_command("import_predictions", str(path), corpus="nope")


@pytest.mark.slow
def test_full_squad_dev_import_gives_the_whitespace_triplet_count(squad_small):
    from annotation.fold_store import create_folds

    full = squad_small.parent
    import_corpus(full / "corpus.jsonl", "dev")
    corpus = Corpus.objects.get(name="dev")
    result = import_predictions(full / "predictions.jsonl", corpus)
    assert Question.objects.count() == 10570 and result["predictions"] == 105687
    assert Prediction.objects.count() == 105687 + 10570
    # 116,257 predictions deduplicate to 35,027 triplets under `whitespace` (35,040 exact, 35,006
    # casefold); the systems' 17 empty answers are no triplet
    assert result["empty_answers"] == 17
    assert Triplet.objects.count() == 35027
    folds = create_folds(corpus, k=10, seed=0)
    sizes = [f.items.filter(is_overlap=False).count() for f in folds]
    assert sum(sizes) == 35027 and max(sizes) - min(sizes) <= 30


def test_predictions_imported_after_folds_join_them_beside_their_question(tiny_corpus, tmp_path):
    from annotation.fold_store import create_folds
    from annotation.models import FoldItem

    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=0)
    home = {fi.triplet.question.external_id: fi.fold_id for fi in FoldItem.objects.select_related("triplet__question")}
    path = write_jsonl(
        tmp_path / "late.jsonl",
        [
            {"question_id": "q1", "system": "late", "answer": "Denver Broncos"},  # an existing triplet
            {"question_id": "q2", "system": "late", "answer": "Krakow"},  # a new one
        ],
    )
    result = import_predictions(path, tiny_corpus)
    assert result["new_triplets"] == 1 and result["added_to_folds"] == 1
    new = FoldItem.objects.get(triplet__answer="Krakow")
    assert new.fold_id == home["q2"]
    positions = sorted(FoldItem.objects.filter(fold_id=home["q2"]).values_list("position", flat=True))
    assert positions == list(range(len(positions)))  # interleaved, positions stay dense
    assert FoldItem.objects.count() == sum(f.items.count() for f in folds) == Triplet.objects.count()


def test_questions_without_a_reference_answer_never_become_an_empty_triplet(tmp_path, db):
    """SQuAD 2.0's unanswerable questions (``answers: []``), with or without a passage, and a JSONL
    line whose answers are blank: no reference triplet, no empty answer, and the import says how many."""
    from io import StringIO

    squad = tmp_path / "squad.json"
    qas = [
        {"id": "a1", "question": "Who won?", "answers": [{"text": "Denver", "answer_start": 0}]},
        {"id": "n1", "question": "Who lost?", "answers": []},
    ]
    data = [
        {
            "paragraphs": [
                {"context": "Denver won.", "qas": qas},
                {"context": "", "qas": [{"id": "n2", "question": "Open and unanswerable?", "answers": []}]},
            ]
        }
    ]
    squad.write_text(json.dumps({"version": "v2.0", "data": data}), encoding="utf-8")
    result = import_corpus(squad, "squad2", fmt="squad")
    assert result["questions"] == 3 and result["without_reference"] == 2 and result["new_triplets"] == 1
    jsonl = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": "b1", "context": "c", "question": "q?", "answers": ["", " ", "yes"]},
            {"id": "b2", "context": "c", "question": "q2?", "answers": ["  "]},
        ],
    )
    out = StringIO()
    call_command("import_corpus", str(jsonl), corpus="blank", stdout=out)
    assert "1 questions without a reference answer" in out.getvalue()
    assert sorted(Triplet.objects.values_list("answer", flat=True)) == ["Denver", "yes"]
    assert not Prediction.objects.filter(answer__regex=r"^\s*$").exists()


def _stored(corpus):
    """Every stored row of ``corpus`` an import writes, by its external names (ids differ per database)."""
    questions = Question.objects.filter(corpus=corpus).order_by("position")
    return (
        list(questions.values_list("external_id", "position", "context", "question", "answers", "meta")),
        sorted(
            Prediction.objects.filter(question__corpus=corpus).values_list(
                "system__name", "question__external_id", "answer", "meta", "triplet__answer"
            ),
            key=repr,
        ),
        sorted(
            Triplet.objects.filter(question__corpus=corpus).values_list("question__external_id", "answer", "answer_key")
        ),
    )


def test_a_file_too_large_to_keep_is_read_twice_with_the_same_rows(squad_small, tmp_path, monkeypatch):
    """Pass 2 of an import uses the records pass 1 kept (compact: a prediction as a tuple, the corpus's
    contexts shared) or, past ``READ_ONCE_BYTES``, the file parsed again: the rows stored are the same."""
    from annotation import importers

    predictions = [json.loads(line) for line in (squad_small / "predictions.jsonl").read_text().splitlines()]
    for i, p in enumerate(predictions[:50]):
        p["meta"] = {"rank": i, "source": "beam"}  # a meta that is not empty, kept as written
    path = write_jsonl(tmp_path / "p.jsonl", predictions)
    stored = []
    for limit in (importers.READ_ONCE_BYTES, 0):
        monkeypatch.setattr(importers, "READ_ONCE_BYTES", limit)
        import_corpus(squad_small / "corpus.jsonl", f"kept-{limit}")
        corpus = Corpus.objects.get(name=f"kept-{limit}")
        result = import_predictions(path, corpus)
        assert result["predictions"] == len(predictions)
        stored.append(_stored(corpus))
    assert stored[0] == stored[1] and len(stored[0][1]) > len(predictions)
    assert ("beam", 7) in {(m.get("source"), m.get("rank")) for _, _, _, m, _ in stored[0][1]}
