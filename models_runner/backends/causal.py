"""``causal``: a causal LM (LLaMA-2 in the paper) with the few-shot extraction prompt of appendix A.3,
optionally with a PEFT LoRA adapter; the answer is parsed from the completion ("NULL" -> "")."""

from __future__ import annotations

from pathlib import Path

from models_runner import loading, prompts

from .base import BackendError
from .hf import HFBackend


class CausalBackend(HFBackend):
    name = "causal"
    defaults = {"adapter": "", "examples": None, "max_new_tokens": 40, "max_length": 4096}

    def check_options(self):
        super().check_options()
        try:
            self.examples = prompts.parse_examples(self.options["examples"])
        except ValueError as exc:
            raise BackendError(str(exc)) from None
        self.int_option("max_new_tokens")
        self.int_option("max_length")
        self.str_option("adapter")
        self.prompt_template = prompts.few_shot_prompt("{question}", "{context}", self.examples)

    def load_model(self, path):
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=self.dtype)
        adapter = self.options["adapter"]
        if adapter:
            adapter_path = Path(adapter).expanduser()
            if not (adapter_path / "adapter_config.json").exists():
                raise loading.ModelNotFound(
                    f"LoRA adapter not found: no adapter_config.json in {adapter_path.resolve()}"
                )
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(adapter_path), is_trainable=False)
            self.adapter_path = str(adapter_path.resolve())
        return model

    def load(self):
        super().load()
        if self.options["adapter"]:
            self.revision = f"{self.revision}+adapter:{loading.model_revision(self.adapter_path)}"
            self.model_path = f"{self.model_path} + {self.adapter_path}"
        tok = self.tokenizer
        tok.padding_side = "left"  # generation continues the prompt: pad on the left
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        return self

    def answer(self, items):
        self.ensure_loaded()
        if not items:
            return []
        texts = [prompts.few_shot_prompt(it.question, it.context, self.examples) for it in items]
        encoded = self.tokenizer(
            texts, truncation=True, max_length=self.options["max_length"], padding="longest", return_tensors="pt"
        )
        inputs = self.to_device(encoded, ["input_ids", "attention_mask"])
        with self.torch.inference_mode():
            out = self.model.generate(
                **inputs,
                max_new_tokens=self.options["max_new_tokens"],
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        completions = self.tokenizer.batch_decode(out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        return [prompts.parse_completion(text) for text in completions]
