"""The weight backends on tiny random-weight models saved with save_pretrained and loaded back
through the app's own loader (local files only)."""

import json

import pytest
import torch

from models_runner import loading, tiny_models
from models_runner.backends import BackendError, QAItem, backend_class, create_backend
from tests.models_runner.conftest import QUESTIONS, WORDS

ITEMS = [QAItem(q["id"], q["question"], q["context"]) for q in QUESTIONS]


def test_registry_and_option_errors():
    assert backend_class("baseline").name == "baseline"
    with pytest.raises(BackendError, match="unknown backend 'nope'"):
        create_backend("nope")
    with pytest.raises(BackendError, match=r"unknown option.*temprature"):
        create_backend("baseline", {"temprature": 1})
    with pytest.raises(BackendError, match="needs a model"):
        create_backend("seq2seq")
    with pytest.raises(BackendError, match="batch_size"):
        create_backend("baseline", batch_size=0)
    for name, bad in [
        ("openai", {"model": "m", "shots": "x"}),
        ("openai", {"model": 3}),
        ("openai", {"model": "m", "backoff_base": "soon"}),
        ("baseline", {"window": "8"}),
        ("baseline", {"delay_s": -1}),
        ("causal", {"model": "m", "adapter": 7}),
        ("extractive", {"model": "m", "dtype": "int4"}),
    ]:
        with pytest.raises(BackendError):
            create_backend(name, bad)
    with pytest.raises(BackendError, match="lacks"):
        create_backend("seq2seq", {"model": "x", "template": "{question} only"})


def test_missing_model_is_a_clear_error_naming_the_path(tmp_path):
    missing = tmp_path / "no-such-model"
    backend = create_backend("extractive", {"model": str(missing)})
    with pytest.raises(loading.ModelNotFound, match=str(missing)):
        backend.load()
    (tmp_path / "empty").mkdir()
    with pytest.raises(loading.ModelNotFound, match=r"no config\.json"):
        loading.resolve_model_path(str(tmp_path / "empty"))
    with pytest.raises(loading.ModelNotFound, match="not in the local Hugging Face cache"):
        loading.resolve_model_path("some-org/some-model-that-is-not-cached")


def test_revision_is_commit_hash_or_weights_hash(tmp_path, extractive_model):
    rev = loading.model_revision(extractive_model)
    assert rev.startswith("sha256:") and len(rev) == len("sha256:") + 64
    assert loading.model_revision(extractive_model) == rev
    other = tmp_path / "m"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"_commit_hash": "a" * 40}))
    assert loading.model_revision(other) == "git:" + "a" * 40
    snap = tmp_path / "models--org--name" / "snapshots" / ("b" * 40)
    snap.mkdir(parents=True)
    assert loading.model_revision(snap) == "git:" + "b" * 40


def test_device_is_auto_or_checked():
    assert loading.resolve_device(None) == ("cuda" if torch.cuda.is_available() else "cpu")
    assert loading.resolve_device("cpu") == "cpu"
    with pytest.raises(ValueError, match="unknown device"):
        loading.resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            loading.resolve_device("cuda")


def test_extractive_answers_are_context_spans_in_batches(extractive_model):
    backend = create_backend("extractive", {"model": str(extractive_model)}, device="cpu").load()
    answers = backend.answer(ITEMS)
    assert len(answers) == len(ITEMS)
    for item, answer in zip(ITEMS, answers):
        assert answer and answer in item.context
    one_by_one = [backend.answer([it])[0] for it in ITEMS]
    assert one_by_one == answers  # padding inside a batch changes nothing
    info = backend.describe()
    assert info["backend"] == "extractive" and info["device"] == "cpu" and info["revision"].startswith("sha256:")


def test_extractive_doc_stride_finds_the_answer_in_a_later_window(tmp_path):
    """A QA model wired by hand so that the word 'broncos' gets the highest start and end logits;
    placed far beyond max_length tokens, it is only reachable through the overflowing windows."""
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(0)
    tokenizer = tiny_models.word_tokenizer(WORDS)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = BertForQuestionAnswering(config)
    target = tokenizer.convert_tokens_to_ids("broncos")
    with torch.no_grad():
        emb = model.bert.embeddings
        emb.position_embeddings.weight.zero_()
        emb.token_type_embeddings.weight.zero_()
        emb.word_embeddings.weight.normal_(0, 0.02)
        emb.word_embeddings.weight[target] = 0
        emb.word_embeddings.weight[target, 0] = 10.0
        layer = model.bert.encoder.layer[0]
        layer.attention.output.dense.weight.zero_()
        layer.attention.output.dense.bias.zero_()
        layer.output.dense.weight.zero_()
        layer.output.dense.bias.zero_()
        model.qa_outputs.weight.zero_()
        model.qa_outputs.bias.zero_()
        model.qa_outputs.weight[:, 0] = 1.0
    path = tiny_models._save(model, tokenizer, tmp_path / "wired")
    context = " ".join(["the game was played in santa clara ."] * 30) + " The Broncos won."
    item = QAItem("x", "Which team won?", context)
    wide = create_backend("extractive", {"model": str(path), "max_length": 64, "doc_stride": 16}, device="cpu").load()
    assert wide.answer([item]) == ["Broncos"]
    encoded = wide.tokenizer(
        item.question, item.context, truncation="only_second", max_length=64, stride=16, return_overflowing_tokens=True
    )
    windows = encoded["input_ids"]
    assert len(windows) > 3  # the context really was cut into several windows
    # The word is out of reach of the first window: only the overflowing ones hold it.
    assert target not in windows[0] and target in windows[-1]


def test_seq2seq_generates_at_most_max_new_tokens_batched(seq2seq_model):
    backend = create_backend("seq2seq", {"model": str(seq2seq_model), "max_new_tokens": 5}, device="cpu").load()
    answers = backend.answer(ITEMS)
    assert len(answers) == len(ITEMS)
    assert all(len(backend.tokenizer(a, add_special_tokens=False)["input_ids"]) <= 5 for a in answers)
    assert [backend.answer([it])[0] for it in ITEMS] == answers
    assert backend.describe()["prompt_template"] == "question: {question} contexte : {context}"
    assert backend.options["max_new_tokens"] == 5
    assert create_backend("seq2seq", {"model": "x"}).options["max_new_tokens"] == 40  # the paper's limit


def test_causal_backend_with_and_without_lora(causal_model, lora_adapter):
    base = create_backend("causal", {"model": str(causal_model), "max_new_tokens": 6}, device="cpu").load()
    tuned = create_backend(
        "causal", {"model": str(causal_model), "adapter": str(lora_adapter), "max_new_tokens": 6}, device="cpu"
    ).load()
    from peft import PeftModel

    assert isinstance(tuned.model, PeftModel) and not isinstance(base.model, PeftModel)
    a, b = base.answer(ITEMS), tuned.answer(ITEMS)
    assert len(a) == len(b) == len(ITEMS)
    assert a != b  # the adapter's weights change what the model writes
    assert "+adapter:sha256:" in tuned.describe()["revision"]
    assert "### Question:\n{question}\n### Answer:\n" in base.describe()["prompt_template"]
    assert base.tokenizer.padding_side == "left"


def test_causal_missing_adapter_names_the_path(causal_model, tmp_path):
    backend = create_backend("causal", {"model": str(causal_model), "adapter": str(tmp_path / "nope")}, device="cpu")
    with pytest.raises(loading.ModelNotFound, match="nope"):
        backend.load()
