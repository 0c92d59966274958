"""Participants arriving at once, through real HTTP against gunicorn (2 worker processes x 8 threads,
as bin/run-demo runs it) on PostgreSQL: no fold ever gets more participants than its slots, every
slot is filled exactly once, the others are told the study is full, and one id sent from several
browsers at the same moment makes one participant. The slot grant locks the study's row
(annotation/studies.py); without that lock these arrivals overfill folds."""

import os
import secrets
import threading
from collections import Counter

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import Group

from annotation import studies
from annotation.models import Assignment, Participant
from bench.kit.crowd import (
    CSRF,
    REPO,
    arrive_over_http,
    build_study,
    start_gunicorn,
    stop_gunicorn,
)
from bench.kit.servers import free_port

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N_FOLDS, SLOTS, N_ARRIVALS = 3, 2, 48


@pytest.fixture
def live(tmp_path):
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1",
        "PYTHONPATH": str(REPO),
    }
    port = free_port()
    server = start_gunicorn(env, port)
    yield f"http://127.0.0.1:{port}"
    stop_gunicorn(server)


def at_once(n, work):
    """``work(i)`` in ``n`` threads released together; the results in order."""
    gate, results = threading.Barrier(n), [None] * n

    def run(i):
        gate.wait(30)
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def test_parallel_arrivals_never_overfill_a_fold(tmp_path, live):
    study = build_study(tmp_path, n_questions=6, k=N_FOLDS, slots_per_fold=SLOTS)
    results = at_once(N_ARRIVALS, lambda i: arrive_over_http(live, study.slug, f"pid{i:03d}"))
    outcomes = Counter(r["outcome"] for r in results)
    assert outcomes == {"slot": N_FOLDS * SLOTS, "full": N_ARRIVALS - N_FOLDS * SLOTS}, outcomes
    per_fold = Counter(Participant.objects.filter(study=study).values_list("fold_id", flat=True))
    assert per_fold == dict.fromkeys(studies.fold_ids(study), SLOTS)
    told = {r["pid"]: r["fold"] for r in results if r["outcome"] == "slot"}
    assert told == dict(Participant.objects.filter(study=study).values_list("external_id", "fold_id"))
    assert Assignment.objects.filter(fold__corpus=study.corpus).count() == N_FOLDS * SLOTS
    assert Group.objects.get(name="participant").user_set.count() == N_FOLDS * SLOTS


def test_one_id_from_several_browsers_at_once_makes_one_participant(tmp_path, live):
    study = build_study(tmp_path, n_questions=6, k=N_FOLDS, slots_per_fold=SLOTS)
    url = f"{live}/study/{study.slug}/?PROLIFIC_PID=same-person"

    def browser(_i):
        session = requests.Session()
        token = CSRF.search(session.get(url, timeout=60).text).group(1)
        return session.post(
            url,
            data={"consent": "yes", "csrfmiddlewaretoken": token},
            headers={"Referer": url},
            timeout=60,
            allow_redirects=False,
        )

    answers = at_once(8, browser)
    codes = Counter(r.status_code for r in answers)
    assert codes == {302: 1, 403: 7}, codes
    assert all("in use in another browser" in r.text for r in answers if r.status_code == 403)
    assert Participant.objects.filter(study=study).count() == 1
