"""Answering backends behind one interface (``Backend``: load, answer a batch, describe), by name.

Backend modules are imported on first use so that ``baseline`` and ``openai`` never import torch.
"""

from __future__ import annotations

import importlib

from .base import Backend, BackendError, QAItem

REGISTRY = {
    "baseline": "models_runner.backends.baseline:BaselineBackend",
    "extractive": "models_runner.backends.extractive:ExtractiveBackend",
    "seq2seq": "models_runner.backends.seq2seq:Seq2SeqBackend",
    "causal": "models_runner.backends.causal:CausalBackend",
    "openai": "models_runner.backends.openai_chat:OpenAIBackend",
}
LOCAL = ("baseline", "extractive", "seq2seq", "causal")
NEEDS_WEIGHTS = ("extractive", "seq2seq", "causal")


def backend_class(name: str) -> type[Backend]:
    if name not in REGISTRY:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(REGISTRY)}")
    module, attr = REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), attr)


def create_backend(name: str, options=None, **kwargs) -> Backend:
    """Build (not load) a backend; ``options`` and keyword options are merged, then validated."""
    return backend_class(name)({**(options or {}), **kwargs})


__all__ = ["LOCAL", "NEEDS_WEIGHTS", "REGISTRY", "Backend", "BackendError", "QAItem", "backend_class", "create_backend"]
