"""Schemathesis against the project's own OpenAPI schema (drf-spectacular, ``/api/schema/``).

Every operation gets generated requests (valid and invalid bodies, paths and query strings), sent
through the WSGI app as an admin and as an annotator (HTTP basic auth; DRF accepts it besides the
session). No response may be a server error. Bounded: a few examples per operation.
"""

import base64

import pytest
import schemathesis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

EXAMPLES = 12
PASSWORD = "pw-for-tests-1"


def basic(username):
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{PASSWORD}".encode()).decode()}


@pytest.fixture
def api(tiny_corpus, make_user):
    make_user("boss", "admin")
    ann = make_user("ann", "annotator")
    folds = create_folds(tiny_corpus, k=2, seed=1, overlap=0)
    assign_fold(folds[0], ann)
    # As Django's test client does: the test's transaction must survive each request's end
    # (on PostgreSQL, close_old_connections would close the connection inside the test transaction).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        # the schema is for logged-in users only
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler(), headers=basic("boss"))
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def operations(schema):
    return [result.ok() for result in schema.get_all_operations()]


def fuzz(op, headers, statuses):
    """Send EXAMPLES generated requests to one operation; record each status code under its label."""

    @given(case=op.as_strategy())
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def one(case):
        response = case.call(headers=headers)
        statuses.setdefault(op.label, set()).add(response.status_code)
        case.validate_response(response, checks=[not_a_server_error], headers=headers)

    one()


@pytest.mark.parametrize("username", ["boss", "ann"])
def test_no_operation_answers_a_server_error(api, username):
    ops = operations(api)
    assert len(ops) >= 10, [o.label for o in ops]
    headers = basic(username)
    statuses = {}
    for op in ops:
        fuzz(op, headers, statuses)
    # The requests really reached the views: some answered 2xx, and role checks answered 403.
    assert any(code < 300 for codes in statuses.values() for code in codes), statuses
    if username == "ann":
        assert 403 in statuses["GET /api/labels/"]
    else:
        assert 403 in statuses["GET /api/my/folds/"]
