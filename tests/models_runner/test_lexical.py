import pytest

from models_runner.lexical import best_window, content_keys, extract_answer, tokenize


def test_content_words_drop_stop_words_and_stem():
    assert content_keys("Which NFL team represented the AFC?") == {"nfl", "team", "repres", "afc"}
    assert content_keys("Qui est le président de la France ?") == {"présid", "france"}


def test_window_with_most_overlap_wins():
    tokens = tokenize("alpha beta gamma delta epsilon zeta eta theta iota kappa")
    assert best_window(tokens, {"gamma", "delta"}, 3)[:2] == (2, 1)
    assert best_window(tokens, {"nothing"}, 3)[0] == 0


def test_answer_is_an_extractive_span_next_to_the_match():
    context = (
        "The game was played on February 7, 2016, at Levi's Stadium in the San Francisco Bay Area "
        "at Santa Clara, California."
    )
    answer = extract_answer("At which stadium was the game played?", context)
    assert answer in context and answer
    assert "Levi" in answer or "February" in answer


def test_no_overlap_gives_empty_answer():
    assert extract_answer("Quantum chromodynamics?", "Warsaw is the capital of Poland.") == ""
    assert extract_answer("", "Warsaw is the capital of Poland.") == ""
    with pytest.raises(ValueError):
        extract_answer("q", "c", window=0)


def test_baseline_beats_chance_on_squad_small(squad_small):
    """On the real SQuAD sample, the baseline finds a token of the reference for a fair share of questions."""
    import json

    with open(squad_small / "corpus.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f][:300]
    hits = 0
    for r in rows:
        answer = extract_answer(r["question"], r["context"]).lower().split()
        assert " ".join(answer) in r["context"].lower() or not answer
        if any(set(answer) & set(ref.lower().split()) for ref in r["answers"]):
            hits += 1
    assert hits / len(rows) > 0.2
