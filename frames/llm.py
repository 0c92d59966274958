"""The frame proxy's LLM: an adapter on the project's OpenAI-compatible chat client
(``models_runner.chat``) that the proxy calls with the purpose of each request."""

from __future__ import annotations

import os

from models_runner.chat import ChatClient

DEFAULT_MODEL = os.environ.get("QAEVAL_FRAME_MODEL", "gpt-3.5-turbo")


class FrameChat:
    """``chat(messages, *, purpose, question=None) -> str`` on ``models_runner.chat.ChatClient``:
    retries, rate limit, and one stored ``LLMExchange`` row per request, with the purpose the proxy
    names (``proxy.FRAME_SELECTION`` or ``proxy.FRAME_ELEMENTS``) and linked to the question."""

    def __init__(self, client):
        self.client = client
        self.model = client.model

    def __call__(self, messages, *, purpose, question=None):
        return self.client.send(messages, purpose=purpose, question=question)


def make_chat(model=DEFAULT_MODEL, *, base_url=None, max_tokens=300, **options):
    """The frame proxy's LLM on an OpenAI-compatible server (``base_url``, else ``OPENAI_BASE_URL``).

    Other ``options`` go to :class:`ChatClient` with its defaults (api_key, api_key_env
    ``OPENAI_API_KEY``, max_retries 5, requests_per_minute, temperature 0.0, timeout 60 s, ...).
    """
    client = ChatClient(
        model=model,
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
        max_tokens=max_tokens,
        **options,
    )
    return FrameChat(client)
