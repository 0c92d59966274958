"""Small random-weight models built locally (no download): for tests, the benchmark and demos.

Each builder trains a word-level tokenizer on the given sentences with the ``tokenizers`` library,
wraps it in ``PreTrainedTokenizerFast``, creates a model from a tiny config with random weights,
and writes both with ``save_pretrained`` into ``directory``: the backends then load them exactly
like a real checkpoint. Answers of such models are meaningless; their speed and code paths are not.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_SENTENCES = (
    "Which NFL team represented the AFC at Super Bowl 50 ?",
    "The Denver Broncos defeated the Carolina Panthers 24 - 10 to earn their third Super Bowl title .",
    "The game was played on February 7 , 2016 , at Levi's Stadium in Santa Clara , California .",
    "question : contexte : Qui ne peut pas se libérer pour la scène envisagée par Wallis ?",
    "Below is a paragraph of text , paired with a question . Extract the sequence of words in the article "
    "that answers the following question , or answer NULL if there are no answers .",
    '### Paragraph : ### Question : ### Answer : " Claude Rains " tracé du canal quelques-uns',
)
SIZES = {
    "tiny": {"hidden": 32, "layers": 2, "heads": 2, "ff": 64},
    "small": {"hidden": 256, "layers": 4, "heads": 4, "ff": 1024},
}


def _sizes(size):
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    return SIZES[size]


def word_tokenizer(
    sentences=DEFAULT_SENTENCES,
    specials=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"),
    pair_template=True,
    *,
    vocab_size=4000,
    unk="[UNK]",
    pad="[PAD]",
):
    """A ``PreTrainedTokenizerFast`` over a WordLevel model trained on ``sentences``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token=unk))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        list(sentences), trainers.WordLevelTrainer(vocab_size=vocab_size, special_tokens=list(specials))
    )
    names = {"pad_token": pad, "unk_token": unk}
    if pair_template:
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
        names.update(cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    return PreTrainedTokenizerFast(tokenizer_object=tok, **names)


def build_extractive(directory, size="tiny", sentences=DEFAULT_SENTENCES, *, seed=0):
    """A BERT-style ``AutoModelForQuestionAnswering`` with random weights."""
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    s = _sizes(size)
    torch.manual_seed(seed)
    tokenizer = word_tokenizer(sentences)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=s["hidden"],
        num_hidden_layers=s["layers"],
        num_attention_heads=s["heads"],
        intermediate_size=s["ff"],
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
    )
    return _save(BertForQuestionAnswering(config), tokenizer, directory)


def build_seq2seq(directory, size="tiny", sentences=DEFAULT_SENTENCES, *, seed=0):
    """A T5 with random weights (pad 0 = decoder start, eos 1)."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    s = _sizes(size)
    torch.manual_seed(seed)
    tokenizer = word_tokenizer(
        sentences, specials=("<pad>", "</s>", "<unk>"), pair_template=False, unk="<unk>", pad="<pad>"
    )
    tokenizer.eos_token = "</s>"
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=s["hidden"],
        d_kv=s["hidden"] // s["heads"],
        d_ff=s["ff"],
        num_layers=s["layers"],
        num_decoder_layers=s["layers"],
        num_heads=s["heads"],
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    return _save(T5ForConditionalGeneration(config), tokenizer, directory)


def build_causal(directory, size="tiny", sentences=DEFAULT_SENTENCES, *, seed=0):
    """A LLaMA-architecture causal LM with random weights (has ``q_proj``/``v_proj`` for LoRA)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    s = _sizes(size)
    torch.manual_seed(seed)
    tokenizer = word_tokenizer(
        sentences, specials=("<pad>", "<s>", "</s>", "<unk>"), pair_template=False, unk="<unk>", pad="<pad>"
    )
    tokenizer.bos_token, tokenizer.eos_token = "<s>", "</s>"
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=s["hidden"],
        intermediate_size=s["ff"],
        num_hidden_layers=s["layers"],
        num_attention_heads=s["heads"],
        num_key_value_heads=s["heads"],
        max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return _save(LlamaForCausalLM(config), tokenizer, directory)


def build_lora_adapter(base_dir, directory, r=4, *, seed=0):
    """A LoRA adapter (paper A.3 target modules ``q_proj``, ``v_proj``) on a causal model, with
    non-zero B matrices so that the adapter changes the outputs."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    base = AutoModelForCausalLM.from_pretrained(base_dir, local_files_only=True)
    model = get_peft_model(
        base,
        LoraConfig(
            r=r,
            lora_alpha=2 * r,
            target_modules=["q_proj", "v_proj"],
            lora_dropout=0.0,
            bias="none",
            task_type="CAUSAL_LM",
        ),
    )
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.5)
    directory = Path(directory)
    model.save_pretrained(directory)
    return directory


def _save(model, tokenizer, directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
