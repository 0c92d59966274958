"""Chat calls to any OpenAI-compatible API, with retries, a client-side rate limit and a stored record.

Reusable beyond answering questions (frame selection prompts, ...)::

    client = ChatClient(model="gpt-3.5-turbo", base_url="https://api.openai.com/v1")
    text = client.send([{"role": "user", "content": "..."}], purpose="frame_selection", question=q)

Every call writes one ``LLMExchange`` row (messages, reply or error, status, attempts, latency),
whether it succeeds or not. Retried: HTTP 429, 5xx, connection errors and timeouts, with
exponential backoff (``backoff_base * 2**attempt``, capped at ``backoff_max``, at least the
server's ``Retry-After``); other errors (400, 401, 404, ...) fail at once.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, fields

from core.errors import UserFacingError
from models_runner.endpoints import check_key_env

# The job's error, shown translated on its pages (registered in ``models_runner.apps``; README: *The LLM
# judge and frame jobs in the demo*).
NO_KEY = "no API key: set the environment variable %(name)s"


class ChatError(UserFacingError, RuntimeError):
    """A chat request that failed for good (after retries, or not retryable)."""

    def __init__(self, message, status=None, exchange=None):
        super().__init__(message)
        self.status = status
        self.exchange = exchange


def backoff_delay(attempt: int, *, base: float = 1.0, cap: float = 30.0, retry_after: float | None = None) -> float:
    """Seconds to wait before retry number ``attempt + 1`` (attempt counts from 0)."""
    delay = min(cap, base * (2**attempt))
    if retry_after is not None:
        delay = max(delay, min(cap, retry_after))
    return delay


class RateLimiter:
    """At most ``per_minute`` request starts a minute, evenly spaced (60 / per_minute seconds apart).
    Thread-safe; ``clock`` and ``sleep`` are injectable for tests. ``None`` or 0: no limit."""

    def __init__(self, per_minute=None, clock=time.monotonic, sleep=time.sleep):
        if per_minute is not None and per_minute < 0:
            raise ValueError("requests per minute must be >= 0")
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.clock, self.sleep = clock, sleep
        self._next = None
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until a request may start; returns the seconds waited."""
        if not self.interval:
            return 0.0
        with self._lock:
            now = self.clock()
            start = now if self._next is None else max(now, self._next)
            self._next = start + self.interval
        waited = start - now
        if waited > 0:
            self.sleep(waited)
        return waited


def _retry_after(exc):
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return None


def classify(exc):
    """(retryable, http_status) for an exception raised by the openai client."""
    import openai

    status = getattr(exc, "status_code", None)
    if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError)):
        return True, None
    if isinstance(exc, openai.APIStatusError):
        return status == 429 or (status is not None and status >= 500), status
    return False, status


def store_exchange(run=None, question=None, **fields):
    """Write the ``LLMExchange`` row; ``run`` and ``question`` may be model instances or pks."""
    from models_runner.models import LLMExchange

    for name, value in (("run", run), ("question", question)):
        fields[f"{name}_id"] = getattr(value, "pk", value)
    return LLMExchange.objects.create(**fields)


@dataclass(frozen=True)
class ChatOptions:
    """How a :class:`ChatClient` asks: retries with exponential backoff (``backoff_base`` doubled per
    attempt, at most ``backoff_max`` seconds), a client-side rate limit, and the sampling parameters."""

    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    requests_per_minute: float | None = None
    temperature: float = 0.0
    max_tokens: int | None = None


# The stored settings of every user of a chat model (a backend's options, a judge's parameters), with
# their defaults: what ``ChatClient.from_settings`` reads, plus ``on_error`` (what the user does when
# a question's call fails for good). Each user adds its own and may change ``max_tokens``.
SETTINGS_DEFAULTS = {
    "endpoint": "",  # an LLM endpoint's name (models_runner.endpoints): its base_url, key variable, model
    "model": "",
    "base_url": "",
    "api_key_env": "OPENAI_API_KEY",
    "requests_per_minute": 0,
    "max_retries": 5,
    "backoff_base": 1.0,
    "backoff_max": 30.0,
    "timeout": 60.0,
    "temperature": 0.0,
    "max_tokens": None,
    "on_error": "fail",
}


@dataclass(frozen=True)
class Completion:
    """A reply: its ``text`` and ``logprobs``, per generated token ``{"token", "logprob", "top":
    [(token, logprob), ...]}`` (None when the server returned none)."""

    text: str
    logprobs: list | None = None


def token_logprobs(response) -> list | None:
    """The tokens' log-probabilities of an OpenAI chat response (``choices[0].logprobs.content``)."""
    choice = response.choices[0] if response.choices else None
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    return [
        {
            "token": t.token,
            "logprob": t.logprob,
            "top": [(alt.token, alt.logprob) for alt in (t.top_logprobs or [])],
        }
        for t in content
    ]


class ChatClient:
    def __init__(
        self,
        model,
        *,
        base_url=None,
        api_key_env="OPENAI_API_KEY",
        api_key=None,
        timeout=60.0,
        store=store_exchange,
        sleep=time.sleep,
        limiter=None,
        **options,
    ):
        """``options``: :class:`ChatOptions` (retries, backoff, requests_per_minute, temperature, max_tokens)."""
        import openai

        o = ChatOptions(**options)
        max_retries, backoff_base, backoff_max = o.max_retries, o.backoff_base, o.backoff_max
        requests_per_minute, temperature, max_tokens = o.requests_per_minute, o.temperature, o.max_tokens
        if not model:
            raise ChatError("no chat model given")
        if api_key is None:  # never read a variable not made for an LLM key (models_runner.endpoints)
            check_key_env(api_key_env or "OPENAI_API_KEY")
        key = api_key or os.environ.get(api_key_env or "OPENAI_API_KEY")
        if not key:
            raise ChatError(NO_KEY % {"name": api_key_env or "OPENAI_API_KEY"})  # README: the demo's LLM judge
        self.model, self.base_url = model, base_url or ""
        self.max_retries, self.backoff_base, self.backoff_max = (
            int(max_retries),
            float(backoff_base),
            float(backoff_max),
        )
        self.params = {"temperature": temperature}
        if max_tokens:
            self.params["max_tokens"] = int(max_tokens)
        self.store, self.sleep = store, sleep
        self.limiter = limiter or RateLimiter(requests_per_minute, sleep=sleep)
        # The client's own retries are off: ours are counted and recorded.
        self.client = openai.OpenAI(base_url=base_url or None, api_key=key, max_retries=0, timeout=timeout)

    SETTINGS = ("base_url", "api_key_env", "timeout", *(f.name for f in fields(ChatOptions)))

    @classmethod
    def from_settings(cls, settings: dict, **extra):
        """A client from stored settings (a backend's options, a judge's parameters): ``model`` and
        those of ``SETTINGS`` it holds; ``extra`` (store, sleep...) is passed on as given."""
        chosen = {name: settings[name] for name in cls.SETTINGS if name in settings}
        chosen["base_url"] = chosen.get("base_url") or None
        return cls(settings["model"], **chosen, **extra)

    def send(self, messages, *, purpose="", question=None, run=None, **params):
        """Send ``messages``; return the reply text. Raises ``ChatError`` once retries are spent."""
        return self.complete(messages, purpose=purpose, question=question, run=run, **params).text

    def complete(self, messages, *, purpose="", question=None, run=None, **params) -> Completion:
        """As ``send``, but the :class:`Completion`: the text and, when asked for with
        ``logprobs=True, top_logprobs=k`` and the server returns them, the tokens' log-probabilities."""
        params = {**self.params, **params}
        errors, status, attempt = [], None, 0
        call = {"messages": messages, "params": params, "purpose": purpose, "question": question, "run": run}
        call["started"] = time.monotonic()
        while True:
            self.limiter.wait()
            try:
                response = self.client.chat.completions.create(model=self.model, messages=messages, **params)
            except Exception as exc:
                retryable, status = classify(exc)
                errors.append(f"attempt {attempt + 1}: {type(exc).__name__}: {exc}"[:1000])
                if not retryable or attempt >= self.max_retries:
                    exchange = self._record(
                        call, reply="", status="error", http_status=status, attempts=attempt + 1, errors=errors
                    )
                    raise ChatError(
                        f"chat request failed after {attempt + 1} attempt(s): {errors[-1]}", status, exchange
                    ) from exc
                self.sleep(
                    backoff_delay(attempt, base=self.backoff_base, cap=self.backoff_max, retry_after=_retry_after(exc))
                )
                attempt += 1
                continue
            reply = (response.choices[0].message.content or "") if response.choices else ""
            self._record(call, reply=reply, status="ok", http_status=200, attempts=attempt + 1, errors=errors)
            return Completion(reply, token_logprobs(response))

    def as_chat(self, purpose="", run=None):
        """A ``chat(messages, question=None) -> str`` callable (with ``.model``) over ``send``."""

        def chat(messages, question=None):
            return self.send(messages, purpose=purpose, question=question, run=run)

        chat.model = self.model
        chat.client = self
        return chat

    def _record(self, call, *, reply, status, http_status, attempts, errors):
        """Store one exchange: ``call`` holds the request (``messages``, ``params``, ``purpose``,
        ``question``, ``run``) and when it ``started``."""
        if self.store is None:
            return None
        return self.store(
            run=call["run"],
            question=call["question"],
            purpose=call["purpose"],
            base_url=self.base_url,
            model=self.model,
            messages=list(call["messages"]),
            params=call["params"],
            reply=reply,
            status=status,
            http_status=http_status,
            attempts=attempts,
            latency_s=time.monotonic() - call["started"],
            error="\n".join(errors),
        )
