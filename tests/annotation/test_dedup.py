import pytest

from annotation.dedup import build_triplets, normalize_answer
from annotation.interchange import read_corpus, read_predictions


def test_whitespace_policy_is_nfc_strip_collapse_only():
    assert normalize_answer("  Denver\u00a0 \n Broncos ") == "Denver Broncos"
    assert normalize_answer("Cafe\u0301") == "Caf\u00e9"  # NFC
    assert normalize_answer("Denver Broncos") != normalize_answer("denver broncos")
    assert normalize_answer("the Broncos") != normalize_answer("Broncos")  # never stronger by default


def test_casefold_and_exact():
    assert normalize_answer(" Straße ", "casefold") == "strasse"
    assert normalize_answer(" a  b ", "exact") == " a  b "
    with pytest.raises(ValueError, match="unknown dedup policy"):
        normalize_answer("x", "stem")


def test_build_triplets_groups_per_question_and_keeps_first_spelling():
    rows = [("p1", "q1", "Paris"), ("p2", "q1", " Paris "), ("p3", "q2", "Paris"), ("p4", "q1", "paris")]
    groups = build_triplets(rows)
    assert [(g.question_key, g.answer, g.prediction_keys) for g in groups] == [
        ("q1", "Paris", ["p1", "p2"]),
        ("q2", "Paris", ["p3"]),
        ("q1", "paris", ["p4"]),
    ]
    assert len(build_triplets(rows, "casefold")) == 2


def _squad_rows(folder):
    rows = [(("reference", r["id"]), r["id"], r["answers"][0]) for _, r in read_corpus(folder / "corpus.jsonl")]
    rows += [
        ((p["system"], p["question_id"]), p["question_id"], p["answer"])
        for _, p in read_predictions(folder / "predictions.jsonl")
    ]
    return rows


def test_triplet_counts_on_small_squad(squad_small):
    rows = _squad_rows(squad_small)
    assert len(rows) == 1057 * 11
    counts = {policy: len(build_triplets(rows, policy)) for policy in ("exact", "whitespace", "casefold")}
    assert counts == {"exact": 3144, "whitespace": 3144, "casefold": 3143}
