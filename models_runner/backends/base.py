"""The backend interface and option checking shared by all backends."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import UserFacingError


class BackendError(UserFacingError, ValueError):
    """Bad backend name or options: the message says what to fix."""


@dataclass(frozen=True)
class QAItem:
    key: object  # the caller's id for the question (a Question pk, a corpus id)
    question: str
    context: str
    language: str = "en"


class Backend:
    """Subclasses set ``name`` and ``defaults`` (every accepted option with its default value) and
    implement ``load()`` and ``answer(items) -> list[str]`` (one answer per item, "" = no answer).

    Options common to all: ``batch_size`` (used by the job runner), ``device`` (auto/cpu/cuda).
    """

    name = "base"
    defaults: dict = {}
    common = {"batch_size": 8, "device": "auto"}
    # The InferenceRun being answered (set by the inference job; None outside one): a backend that
    # records its exchanges (OpenAI-compatible chat) ties them to it.
    run = None

    def __init__(self, options=None):
        options = dict(options or {})
        allowed = {**self.common, **self.defaults}
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise BackendError(
                f"unknown option(s) {', '.join(unknown)} for backend {self.name!r}; "
                f"accepted: {', '.join(sorted(allowed))}"
            )
        self.options = {**allowed, **{k: v for k, v in options.items() if v is not None}}
        self.check_options()
        self.loaded = False
        self.device = "cpu"

    def check_options(self):
        bs = self.options["batch_size"]
        if not isinstance(bs, int) or isinstance(bs, bool) or bs < 1:
            raise BackendError(f"batch_size must be a positive integer, got {bs!r}")

    def int_option(self, key, minimum=1):
        value = self.options[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise BackendError(f"{key} must be an integer >= {minimum}, got {value!r}")
        return value

    def number_option(self, key, minimum=0.0):
        value = self.options[key]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < minimum:
            raise BackendError(f"{key} must be a number >= {minimum}, got {value!r}")
        return value

    def str_option(self, key, choices=None):
        value = self.options[key]
        if not isinstance(value, str):
            raise BackendError(f"{key} must be a string, got {value!r}")
        if choices and value not in choices:
            raise BackendError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
        return value

    def load(self):
        self.loaded = True
        return self

    def answer(self, items: list[QAItem]) -> list[str]:
        raise NotImplementedError

    def ensure_loaded(self):
        if not self.loaded:
            self.load()

    # What gets written on the InferenceRun row.
    model_path = ""
    revision = ""
    prompt_template = ""

    def describe(self) -> dict:
        params = {k: v for k, v in self.options.items() if k not in ("batch_size", "device")}
        return {
            "backend": self.name,
            "model_path": self.model_path,
            "revision": self.revision,
            "prompt_template": self.prompt_template,
            "parameters": params,
            "device": self.device,
            "batch_size": self.options["batch_size"],
        }
