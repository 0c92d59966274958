# ruff: noqa: F811  (world: the permission matrix's fixture, imported)
"""Hostile numbers in every URL pattern and every parameter a view reads: never a 5xx.

Generated from the URL resolver, as the permission matrix is (``tests/core/test_permissions.py``,
whose ``world`` and URL helpers this reuses), so that a new URL or a new parameter cannot skip it:

- every integer in a URL pattern is ``<id:...>`` (``core.ids.IdConverter``), never Django's
  unbounded ``<int:...>``;
- each integer of each URL (the site's and the admin's) is replaced by each hostile value, sent
  with GET and POST as every role: no answer is a 5xx, and a value that is no id is a 404;
- each site URL gets, as the role that reaches it, every hostile value in every parameter name any
  view, form or serializer of the project reads (found in the source, not listed here), all at
  once in the query string, a form body and a JSON body; then, one at a time on top of a valid
  request (``VALID``), the names its own view module reads.

The suite runs on SQLite, and again on PostgreSQL in ``.ci/run``: both databases are covered.
"""

import inspect
import json
import pathlib
import re
from urllib.parse import quote, urlencode

import pytest
from django.urls import get_resolver, reverse
from django.urls.converters import IntConverter

from core.ids import IdConverter
from tests.core.test_permissions import (  # noqa: F401  (world is a fixture)
    MATRIX,
    ROLES,
    admin_url_patterns,
    parse_matrix,
    site_urls,
    url_kwargs,
    url_patterns,
    world,
)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HOSTILE = [str(2**63), str(10**25), "-1", "0", "1e3", "١٢", "²", "9" * 40]
JSON_HOSTILE = [2**63, 10**25, -1, 0, 1e3, 1e308, "١٢", str(10**25)]
SENTINEL = 918273645  # stands for the argument under attack while reversing
REPO = pathlib.Path(__file__).resolve().parents[2]
APPS = ("core", "annotation", "models_runner", "frames", "evaluation")
READS = re.compile(r"""(?:GET|POST|query_params|data|FILES)(?:\.get(?:list)?\(|\[)\s*["'](\w+)["']""")
FIELD = re.compile(r"""^\s+(\w+) = (?:forms|serializers)\.\w+Field\(""", re.MULTILINE)


def names_in(source):
    """Parameter names a piece of source reads from a request, or declares as a form/serializer field."""
    return set(READS.findall(source)) | set(FIELD.findall(source))


def all_parameter_names():
    from django.conf import settings
    from django.utils.module_loading import import_string

    paginator = import_string(settings.REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"])
    from evaluation.report.options import OPTIONS  # the report form's and API's fields are generated from these

    names = {paginator.limit_query_param, paginator.offset_query_param} | {option.name for option in OPTIONS}
    for app in APPS:
        for path in (REPO / app).rglob("*.py"):
            if "migrations" not in path.parts:
                names |= names_in(path.read_text(encoding="utf-8"))
    return sorted(names)


def int_arguments(pattern):
    return [name for name, conv in pattern.pattern.converters.items() if isinstance(conv, (IdConverter, IntConverter))]


def attacked_paths(name, kwargs, argument):
    """The path of URL ``name`` with ``argument`` replaced by each hostile value."""
    path = reverse(name, kwargs={**kwargs, argument: SENTINEL})
    assert path.count(str(SENTINEL)) == 1, path
    return [(value, path.replace(str(SENTINEL), quote(value))) for value in HOSTILE]


def reaching_role(name):
    """The first role that gets past the role check of URL ``name`` (annotator, researcher, admin)."""
    rows = parse_matrix(MATRIX)[name]
    for role in ("annotator", "researcher", "admin"):
        if {rows[role]["get"], rows[role]["post"]} - {"403", "L"}:
            return role
    return None


def login(client, world, role):
    client.logout()
    if role != "anonymous":
        client.force_login(world["users"][role])


def check(resp, what, failures):
    if resp.status_code >= 500:
        failures.append(f"{what}: {resp.status_code}")


def test_every_integer_of_a_url_is_a_bounded_id():
    unbounded = [
        f"{name}: {p.pattern}"
        for name, p in url_patterns(get_resolver())
        if any(isinstance(c, IntConverter) for c in p.pattern.converters.values())
    ]
    assert unbounded == [], "use <id:...> (core/ids.py), not <int:...>"


@pytest.mark.parametrize("role", ROLES)
def test_hostile_numbers_in_every_url(world, client, role):
    """Each integer of each URL, replaced by each hostile value: 404 for the site's URLs, never 5xx."""
    login(client, world, role)
    failures, tried = [], 0
    targets = [(n, p, url_kwargs(n, world)) for n, p in site_urls()]
    targets += [
        (n, p, dict.fromkeys(int_arguments(p), world["users"]["admin"].pk)) for _, n, p, _ in admin_url_patterns()
    ]
    for name, pattern, kwargs in targets:
        for argument in int_arguments(pattern):
            for value, path in attacked_paths(name, kwargs, argument):
                for method in ("get", "post"):
                    resp = getattr(client, method)(path)
                    tried += 1
                    check(resp, f"{method.upper()} {path} ({role})", failures)
                    if not name.startswith("admin:") and resp.status_code not in (404, 302, 403):
                        failures.append(f"{method.upper()} {path} ({role}): {resp.status_code}, not 404 for {value!r}")
                if name.endswith("logout"):
                    login(client, world, role)
    assert tried > 100
    assert not failures, "\n".join(failures)


# A valid request of the URLs whose parameters lie behind a first check (the item, the action).
def valid(name, world):
    return {
        "judge": {"item": world["item"], "value": "correct"},
        "flag-item": {"item": world["item"], "reason": "other", "comment": "x"},
        "frame-check-rate": {"item": world["frame_item"], "frame_rating": "full", "fe_rating": "full"},
        "attribute-check-rate": {
            "item": world["attribute_item"],
            "trigger_verdict": "other",
            "trigger_start": 0,
            "trigger_end": 4,
            "dist_class": "1",
        },
        "api-judge": {"item": world["item"], "label": "correct"},
        "fold-action": {"action": "build", "k": 2, "seed": 0, "overlap": 0, "policy": "by_question"},
        "reports": {"corpus": "tiny", "alpha": 5, "metric": "hscore", "n_boot": 0},
        "api-reports": {"corpus": "tiny", "alpha": 5, "n_boot": 0},
        "api-runs": {"corpus": "tiny", "system": "edge", "backend": "baseline"},
    }.get(name, {})


SKIP = {"logout"}  # it logs the client out: every later request would be a redirect to the login page


def send_all(client, path, names, value):
    """One GET, one form POST and one JSON POST with every name set to ``value``."""
    text = value if isinstance(value, str) else json.dumps(value)
    yield "GET", client.get(path + "?" + urlencode(dict.fromkeys(names, text)))
    yield "POST form", client.post(path, dict.fromkeys(names, text))
    yield "POST json", client.post(path, json.dumps(dict.fromkeys(names, value)), content_type="application/json")


def test_hostile_numbers_in_every_parameter(world, client, django_capture_on_commit_callbacks):
    """Every parameter name of the project, hostile, in every site URL: never a 5xx."""
    names = all_parameter_names()
    assert {"item", "before", "jump", "seconds", "seed", "n_boot", "limit", "offset"} <= set(names)
    failures = []
    for name, _ in site_urls():
        role = reaching_role(name)
        if role is None or name in SKIP:
            continue
        login(client, world, role)
        path = reverse(name, kwargs=url_kwargs(name, world))
        for value in JSON_HOSTILE:
            for how, resp in send_all(client, path, names, value):
                check(resp, f"{how} {path} all names = {value!r} ({role})", failures)
    assert not failures, "\n".join(failures)


def test_hostile_numbers_one_parameter_at_a_time(world, client):
    """The names each view's module reads, one at a time, hostile on top of a valid request."""
    failures, tried = [], 0
    for name, pattern in site_urls():
        role = reaching_role(name)
        if role is None or name in SKIP:
            continue
        login(client, world, role)
        path = reverse(name, kwargs=url_kwargs(name, world))
        module = inspect.getmodule(inspect.unwrap(getattr(pattern.callback, "view_class", pattern.callback)))
        base = valid(name, world)
        for param in sorted(names_in(inspect.getsource(module)) | set(base)):
            for value in (str(10**25), str(2**63), "1e3", "-1"):
                body = {**base, param: value}
                for how, resp in (
                    ("GET", client.get(path, body)),
                    ("POST form", client.post(path, body)),
                    ("POST json", client.post(path, json.dumps(body), content_type="application/json")),
                ):
                    tried += 1
                    check(resp, f"{how} {path} {param}={value} ({role})", failures)
    assert tried > 200
    assert not failures, "\n".join(failures)
