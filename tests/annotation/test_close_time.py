"""``closed_at`` is written in the transaction that closes the study, under the lock admissions take
(issue 44): an arrival holding the lock when the close rule is met consented before ``closed_at``,
and none is admitted after it. Threads (each its own connection): PostgreSQL."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from annotation import studies
from annotation.models import Participant, Study
from bench.kit.crowd import build_study

pytestmark = pytest.mark.django_db(transaction=True)


def test_closed_at_is_when_the_study_really_closes(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("two transactions at once in threads: PostgreSQL (SQLite's in-memory test database locks)")
    study = build_study(tmp_path, n_questions=8, k=1, slots_per_fold=4, close_when="ranking")
    locked, released = threading.Event(), {}

    def arrival_holding_the_lock():
        with transaction.atomic():
            Study.objects.select_for_update().get(pk=study.pk)  # as an admission does (studies._locked)
            locked.set()
            time.sleep(0.6)  # the arrival's work while the close rule's check has already decided
            released["at"] = timezone.now()
        connection.close()

    arrival = threading.Thread(target=arrival_holding_the_lock)
    arrival.start()
    locked.wait(10)
    asked = timezone.now()
    assert studies.close(Study.objects.get(pk=study.pk), "ranking settled (test)")  # the background job's call
    assert studies.closed_by_itself(Study.objects.get(pk=study.pk))
    arrival.join()
    closed = Study.objects.get(pk=study.pk)
    assert not closed.open and closed.closed_reason == "ranking settled (test)"
    assert closed.closed_at >= released["at"] > asked  # not the moment the rule was asked
    with pytest.raises(studies.StudyClosed):
        studies.admit(closed, ("late", "", ""), token="late")
    assert not Participant.objects.filter(external_id="late").exists()
