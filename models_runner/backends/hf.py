"""Shared loading for the Hugging Face backends (extractive, seq2seq, causal)."""

from __future__ import annotations

from models_runner import loading

from .base import Backend, BackendError


class HFBackend(Backend):
    """Options shared by the transformers backends: ``model`` (a local directory or a cached hub
    id, required) and ``dtype`` (auto: bf16/fp16 on cuda, fp32 on cpu)."""

    hf_defaults = {"model": "", "dtype": "auto"}

    def __init__(self, options=None):
        self.defaults = {**self.hf_defaults, **self.defaults}
        super().__init__(options)
        self.str_option("model")
        self.str_option("dtype", ("auto", "float32", "float16", "bfloat16"))
        if not self.options["model"]:
            raise BackendError(f"backend {self.name!r} needs a model: give the option model (a local model directory)")

    def load(self):
        path = loading.resolve_model_path(self.options["model"])
        loading.disable_progress_bars()
        import torch
        from transformers import AutoTokenizer

        self.device = loading.resolve_device(self.options["device"])
        self.dtype = loading.torch_dtype(self.options["dtype"], self.device)
        self.model_path = str(path)
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = self.load_model(path).to(self.device).eval()
        self.revision = loading.model_revision(path)
        self.torch = torch
        self.loaded = True
        return self

    def load_model(self, path):
        raise NotImplementedError

    def to_device(self, encoded, keys=None):
        keys = keys or [k for k in encoded if k in ("input_ids", "attention_mask", "token_type_ids")]
        return {k: encoded[k].to(self.device) for k in keys}
