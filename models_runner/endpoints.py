"""LLM endpoints by name: the one function that turns a stored setting ``endpoint`` into the settings
of a chat client (``base_url``, ``model``, ``api_key_env``). Frame prediction, the LLM judges and the
OpenAI backend all read their endpoint through :func:`client_settings`.

Without ``endpoint`` the settings are used as given, and the environment stays the fallback: an
empty ``base_url`` is the OpenAI client's default (``OPENAI_BASE_URL``, else api.openai.com) and the
key is read from the variable named by ``api_key_env``.

Key variables: only names made for it hold an LLM server's key (``key_env_problem``): those listed in
``QAEVAL_LLM_KEY_ENVS`` (default ``OPENAI_API_KEY``) or starting with ``LLM_KEY_``, never one of the
platform's own secrets (``SECRET_KEY``, ``DATABASE_URL``...), whatever the list says. Otherwise an
admin could send any variable of the worker to a server of their choice. Checked by the forms and
the API (``client_settings``, the frame form, the endpoint record) and again at run time
(``models_runner.chat.ChatClient``).
"""

import re

from core.errors import UserFacingError

KEY_ENV_PREFIX = "LLM_KEY_"
# The platform's own secrets and addresses: never an LLM key variable, even when listed.
PLATFORM_VARIABLES = frozenset(
    {
        "SECRET_KEY",
        "DJANGO_SECRET_KEY",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "QAEVAL_LLM_KEY_ENVS",
        "PGPASSWORD",
        "REDIS_URL",
        "AWS_SECRET_ACCESS_KEY",
        "HF_TOKEN",
    }
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EndpointError(UserFacingError, ValueError):
    """An endpoint name that no LLM endpoint record has."""


class KeyVariableError(EndpointError):
    """A key variable that is not one made for an LLM key (``key_env_problem``)."""


def key_env_problem(name, allowed=("OPENAI_API_KEY",), prefix=KEY_ENV_PREFIX):
    """Why ``name`` may not hold an LLM server's key, or None when it may.

    ``allowed``: the names the deployment declares (``QAEVAL_LLM_KEY_ENVS``); any name starting with
    ``prefix`` is allowed too; the platform's own variables never are.

    >>> key_env_problem("OPENAI_API_KEY") is None, key_env_problem("LLM_KEY_LAB") is None
    (True, True)
    >>> print(key_env_problem("SECRET_KEY", allowed=("SECRET_KEY",)))
    SECRET_KEY is one of the platform's own variables, never an LLM key
    >>> key_env_problem("HOME")  # doctest: +ELLIPSIS
    'HOME is not a variable made for an LLM key: use OPENAI_API_KEY or a name starting with LLM_KEY_ ...'
    >>> key_env_problem("sk-123 secret")
    'the key variable must be a variable name (letters, digits and _), not the key itself'
    """
    name = str(name or "")
    if not _NAME.fullmatch(name):
        return "the key variable must be a variable name (letters, digits and _), not the key itself"
    if name.upper() in PLATFORM_VARIABLES:
        return f"{name} is one of the platform's own variables, never an LLM key"
    if name in allowed or (name.startswith(prefix) and len(name) > len(prefix)):
        return None
    listed = ", ".join(allowed) or "none"
    return (
        f"{name} is not a variable made for an LLM key: use {listed} or a name starting with {prefix} "
        "(or add it to QAEVAL_LLM_KEY_ENVS)"
    )


def check_key_env(name):
    """``name`` when it may hold an LLM key (the deployment's ``LLM_KEY_ENVS``), else ``KeyVariableError``."""
    from django.conf import settings

    problem = key_env_problem(name, tuple(settings.LLM_KEY_ENVS))
    if problem:
        raise KeyVariableError(problem)
    return name


def client_settings(settings, endpoints=None):
    """``settings`` with its ``endpoint`` (a name) resolved: the record's ``base_url`` and
    ``api_key_env`` replace the settings' own, its ``model`` is used when the settings name none.

    ``endpoints`` maps names to records (anything with ``base_url``, ``model``, ``api_key_env``);
    default: the ``LLMEndpoint`` table.

    >>> from types import SimpleNamespace as R
    >>> local = {"local": R(base_url="http://127.0.0.1:9/v1", model="m1", api_key_env="LLM_KEY_LOCAL")}
    >>> s = client_settings({"endpoint": "local", "model": "", "base_url": "", "temperature": 0}, local)
    >>> s["base_url"], s["model"], s["api_key_env"], s["temperature"]
    ('http://127.0.0.1:9/v1', 'm1', 'LLM_KEY_LOCAL', 0)
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
        if (settings or {}).get("api_key_env"):
            check_key_env(settings["api_key_env"])
        return dict(settings or {})
    if endpoints is None:
        from django.apps import apps

        # The record by its label: models_runner.models imports this module (its clean() checks the key
        # variable), so this module does not import it back.
        record = apps.get_model("models_runner", "LLMEndpoint").objects.filter(name=name).first()
    else:
        record = endpoints.get(name)
    if record is None:
        raise EndpointError(f"no LLM endpoint named {name!r} (add it in the admin: LLM endpoints)")
    return {
        **settings,
        "base_url": record.base_url,
        "api_key_env": check_key_env(record.api_key_env),
        "model": settings.get("model") or record.model,
    }
