"""``seq2seq``: T5 / mT5 / FLAN-T5 generation with the paper's input (appendix A.2)."""

from __future__ import annotations

from models_runner import prompts

from .base import BackendError
from .hf import HFBackend


class Seq2SeqBackend(HFBackend):
    name = "seq2seq"
    defaults = {"template": prompts.SEQ2SEQ_TEMPLATE, "max_length": 512, "max_new_tokens": 40, "num_beams": 1}

    def check_options(self):
        super().check_options()
        try:
            prompts.check_template(self.options["template"])
        except ValueError as exc:
            raise BackendError(str(exc)) from None
        for key in ("max_length", "max_new_tokens", "num_beams"):
            self.int_option(key)
        self.prompt_template = self.options["template"]

    def load_model(self, path):
        from transformers import AutoModelForSeq2SeqLM

        return AutoModelForSeq2SeqLM.from_pretrained(path, local_files_only=True, dtype=self.dtype)

    def answer(self, items):
        self.ensure_loaded()
        if not items:
            return []
        texts = [prompts.seq2seq_input(it.question, it.context, self.options["template"]) for it in items]
        encoded = self.tokenizer(
            texts, truncation=True, max_length=self.options["max_length"], padding="longest", return_tensors="pt"
        )
        with self.torch.inference_mode():
            out = self.model.generate(
                **self.to_device(encoded, ["input_ids", "attention_mask"]),
                max_new_tokens=self.options["max_new_tokens"],
                num_beams=self.options["num_beams"],
                do_sample=False,
            )
        return [text.strip() for text in self.tokenizer.batch_decode(out, skip_special_tokens=True)]
