"""Answering backends behind one interface (``Backend``: load, answer a batch, describe), by name.

Backend modules are registered by their dotted paths and imported on first use (core.registry) so that
``baseline`` and ``openai`` never import torch.
"""

from __future__ import annotations

from core.registry import Registry

from .base import Backend, BackendError, QAItem

#: backend name -> its class (core.registry's shape).
REGISTRY = Registry("backends")
REGISTRY.register_path("baseline", "models_runner.backends.baseline:BaselineBackend")
REGISTRY.register_path("extractive", "models_runner.backends.extractive:ExtractiveBackend")
REGISTRY.register_path("seq2seq", "models_runner.backends.seq2seq:Seq2SeqBackend")
REGISTRY.register_path("causal", "models_runner.backends.causal:CausalBackend")
REGISTRY.register_path("openai", "models_runner.backends.openai_chat:OpenAIBackend")


def gettext_noop(text):
    """Marks a word for the catalogues (``makemessages`` collects this name) without importing Django."""
    return text


#: Each backend in words, for the forms (English here; the forms translate them with gettext).
TITLES = {
    "baseline": gettext_noop("baseline (lexical overlap, no model)"),
    "extractive": gettext_noop("extractive (a span of the passage)"),
    "seq2seq": gettext_noop("seq2seq (sequence to sequence)"),
    "causal": gettext_noop("causal (language model)"),
    "openai": gettext_noop("openai (OpenAI-compatible chat API)"),
}
LOCAL = ("baseline", "extractive", "seq2seq", "causal")
NEEDS_WEIGHTS = ("extractive", "seq2seq", "causal")


def backend_class(name: str) -> type[Backend]:
    if name not in REGISTRY:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(REGISTRY)}")
    return REGISTRY[name]


def create_backend(name: str, options=None, **kwargs) -> Backend:
    """Build (not load) a backend; ``options`` and keyword options are merged, then validated."""
    return backend_class(name)({**(options or {}), **kwargs})


__all__ = [
    "LOCAL",
    "NEEDS_WEIGHTS",
    "REGISTRY",
    "TITLES",
    "Backend",
    "BackendError",
    "QAItem",
    "backend_class",
    "create_backend",
]
