"""LLM endpoints by name: the one function that turns a stored setting ``endpoint`` into the settings
of a chat client (``base_url``, ``model``, ``api_key_env``). Frame prediction, the LLM judges and the
OpenAI backend all read their endpoint through :func:`client_settings`.

Without ``endpoint`` the settings are used as given, and the environment stays the fallback: an
empty ``base_url`` is the OpenAI client's default (``OPENAI_BASE_URL``, else api.openai.com) and the
key is read from the variable named by ``api_key_env``.
"""

from core.errors import UserFacingError


class EndpointError(UserFacingError, ValueError):
    """An endpoint name that no LLM endpoint record has."""


def client_settings(settings, endpoints=None):
    """``settings`` with its ``endpoint`` (a name) resolved: the record's ``base_url`` and
    ``api_key_env`` replace the settings' own, its ``model`` is used when the settings name none.

    ``endpoints`` maps names to records (anything with ``base_url``, ``model``, ``api_key_env``);
    default: the ``LLMEndpoint`` table.

    >>> from types import SimpleNamespace as R
    >>> local = {"local": R(base_url="http://127.0.0.1:9/v1", model="m1", api_key_env="LOCAL_KEY")}
    >>> s = client_settings({"endpoint": "local", "model": "", "base_url": "", "temperature": 0}, local)
    >>> s["base_url"], s["model"], s["api_key_env"], s["temperature"]
    ('http://127.0.0.1:9/v1', 'm1', 'LOCAL_KEY', 0)
    >>> client_settings({"endpoint": "local", "model": "m2"}, local)["model"]
    'm2'
    >>> client_settings({"model": "m3", "base_url": ""}, local) == {"model": "m3", "base_url": ""}
    True
    >>> client_settings({"endpoint": "gone"}, local)
    Traceback (most recent call last):
    ...
    models_runner.endpoints.EndpointError: no LLM endpoint named 'gone' (add it in the admin: LLM endpoints)
    """
    name = (settings or {}).get("endpoint") or ""
    if not name:
        return dict(settings or {})
    if endpoints is None:
        from models_runner.models import LLMEndpoint

        record = LLMEndpoint.objects.filter(name=name).first()
    else:
        record = endpoints.get(name)
    if record is None:
        raise EndpointError(f"no LLM endpoint named {name!r} (add it in the admin: LLM endpoints)")
    return {
        **settings,
        "base_url": record.base_url,
        "api_key_env": record.api_key_env,
        "model": settings.get("model") or record.model,
    }
