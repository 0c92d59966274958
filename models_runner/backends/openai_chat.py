"""``openai``: any OpenAI-compatible chat API with the paper's one- or two-shot prompt (section 4).

Options: ``model`` (required), ``base_url`` (default: the client's, i.e. api.openai.com),
``api_key_env`` (name of the environment variable holding the key, default ``OPENAI_API_KEY``),
``endpoint`` (the name of an LLM endpoint record: its base_url, key variable and default model),
``shots`` (1 for GPT-3.5, 2 for Mixtral in the paper), ``examples``, ``requests_per_minute``,
``max_retries``, ``backoff_base``, ``backoff_max``, ``timeout``, ``temperature``, ``max_tokens``,
``on_error`` (``fail``: the run stops; ``empty``: the question gets an empty answer and the error is
kept in the exchange row). Every request goes through ``models_runner.chat.ChatClient``.
"""

from __future__ import annotations

from models_runner import prompts
from models_runner.chat import SETTINGS_DEFAULTS, ChatClient, ChatError
from models_runner.endpoints import EndpointError, client_settings

from .base import Backend, BackendError


class OpenAIBackend(Backend):
    name = "openai"
    defaults = {**SETTINGS_DEFAULTS, "max_tokens": 100, "shots": 1, "examples": None}

    def __init__(self, options=None, sleep=None):
        super().__init__(options)
        self._sleep = sleep

    def check_options(self):
        super().check_options()
        for key in ("endpoint", "model", "base_url", "api_key_env"):
            self.str_option(key)
        try:
            self.options = client_settings(self.options)
        except EndpointError as exc:
            raise BackendError(str(exc)) from None
        if not self.options["model"]:
            raise BackendError("backend 'openai' needs the option model (the API's model name)")
        self.int_option("shots", minimum=0)
        self.int_option("max_tokens")
        for key in ("requests_per_minute", "backoff_base", "backoff_max", "temperature"):
            self.number_option(key)
        self.number_option("timeout", minimum=0.001)
        try:
            self.examples = prompts.parse_examples(self.options["examples"])
            prompts.chat_messages("q", "c", shots=self.options["shots"], examples=self.examples)
        except ValueError as exc:
            raise BackendError(str(exc)) from None
        self.int_option("max_retries", minimum=0)
        if self.options["on_error"] not in ("fail", "empty"):
            raise BackendError("on_error must be 'fail' or 'empty'")
        shots = self.options["shots"]
        self.prompt_template = "\n\n".join(
            f"[{m['role']}]\n{m['content']}"
            for m in prompts.chat_messages("{question}", "{context}", shots=shots, examples=self.examples)
        )

    def load(self):
        o = self.options
        extra = {"sleep": self._sleep} if self._sleep else {}
        try:
            self.client = ChatClient.from_settings(o, **extra)
        except ChatError as exc:
            raise BackendError(str(exc)) from None
        self.device = "api"
        self.model_path = f"{o['base_url'] or 'https://api.openai.com/v1'} :: {o['model']}"
        self.revision = o["model"]
        self.loaded = True
        return self

    def answer(self, items):
        self.ensure_loaded()
        answers = []
        for it in items:
            messages = prompts.chat_messages(
                it.question, it.context, shots=self.options["shots"], examples=self.examples
            )
            # Inside a run, QAItem.key is the Question pk: the exchange points at its question.
            question = it.key if self.run is not None and isinstance(it.key, int) else None
            try:
                reply = self.client.send(messages, purpose="answer", run=self.run, question=question)
            except ChatError:
                if self.options["on_error"] == "fail":
                    raise
                answers.append("")
                continue
            answers.append(prompts.parse_chat_reply(reply))
        return answers
