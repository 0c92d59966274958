"""Tiny random-weight models built once per session, and a small corpus."""

import pytest

from models_runner import tiny_models

WORDS = (
    "Denver Broncos defeated the Carolina Panthers to win Super Bowl 50 in 2016 .",
    "Warsaw is the capital of Poland and its largest city .",
    "The game was played in Santa Clara , California at Levi's Stadium .",
    "Who won ? Capital of Poland ? Where was the game ? Which team won Super Bowl 50 ?",
    *tiny_models.DEFAULT_SENTENCES,
)

QUESTIONS = [
    {
        "id": "q1",
        "context": "The Denver Broncos defeated the Carolina Panthers to win Super Bowl 50 in 2016.",
        "question": "Which team won Super Bowl 50?",
        "answers": ["Denver Broncos"],
    },
    {
        "id": "q2",
        "context": "Warsaw is the capital of Poland and its largest city.",
        "question": "What is the capital of Poland?",
        "answers": ["Warsaw"],
    },
    {
        "id": "q3",
        "context": "The game was played in Santa Clara, California, at Levi's Stadium.",
        "question": "Where was the game played?",
        "answers": ["Santa Clara"],
    },
    {
        "id": "q4",
        "context": "Levi's Stadium opened in 2014 in Santa Clara.",
        "question": "When did Levi's Stadium open?",
        "answers": ["2014"],
    },
    {
        "id": "q5",
        "context": "The Carolina Panthers lost the game.",
        "question": "Which team lost?",
        "answers": ["Carolina Panthers"],
    },
]


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("tiny-models")


@pytest.fixture(scope="session")
def extractive_model(tiny_dir):
    return tiny_models.build_extractive(tiny_dir / "extractive", sentences=WORDS)


@pytest.fixture(scope="session")
def seq2seq_model(tiny_dir):
    return tiny_models.build_seq2seq(tiny_dir / "seq2seq", sentences=WORDS)


@pytest.fixture(scope="session")
def causal_model(tiny_dir):
    return tiny_models.build_causal(tiny_dir / "causal", sentences=WORDS)


@pytest.fixture(scope="session")
def lora_adapter(tiny_dir, causal_model):
    return tiny_models.build_lora_adapter(causal_model, tiny_dir / "lora")


@pytest.fixture
def corpus(db, tmp_path):
    from annotation.importers import import_corpus
    from annotation.models import Corpus
    from tests.conftest import write_jsonl

    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", QUESTIONS), "mini")
    return Corpus.objects.get(name="mini")
