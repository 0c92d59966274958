"""annotation.study_sql answers as the ORM reads and the rules of annotation.crowd do.

The entry page asks "any fold with room? anyone idle?" with two fixed statements; here their answers
are compared with ``studies._idle`` + ``crowd.idle_ids`` (the rule) and with ``crowd.choose_fold``
over counts from the ORM, on participants whose slot, consent and last label fall on every side of
the idle limit (also within the same second: SQLite compares the stored text)."""

from datetime import timedelta
from itertools import product

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Count
from django.utils import timezone

from annotation import crowd, studies, study_sql
from annotation.models import FoldItem, Label, Participant, Study
from bench.kit.crowd import build_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path):
    return build_study(tmp_path, n_questions=8, k=4, slots_per_fold=3, idle_minutes=30)


def _participant(study, i, fold_id, status):
    user = get_user_model().objects.create_user(f"u{i}", password=None)
    return Participant.objects.create(study=study, external_id=f"p{i}", user=user, fold_id=fold_id, status=status)


def test_folds_and_counts_match_the_orm(study):
    folds = studies.fold_ids(study)
    for i, status in enumerate(["consented", "active", "completed", "idle", "returned", "excluded", "active"]):
        _participant(study, i, folds[i % 2], status)
    ids, counts = study_sql.folds_and_counts(study)
    holding = Participant.objects.filter(study=study, status__in=crowd.HOLDING, fold__isnull=False)
    expected = dict(holding.values_list("fold").annotate(n=Count("id")).values_list("fold", "n"))
    assert ids == folds and counts == expected == {folds[0]: 3, folds[1]: 1}
    study.folds.set(folds[2:])  # chosen folds replace the corpus's
    assert study_sql.folds_and_counts(Study.objects.get(pk=study.pk)) == (folds[2:], {})


def test_any_idle_agrees_with_the_rule_on_every_side_of_the_limit(study):
    now = timezone.now().replace(microsecond=500000)
    limit = crowd.idle_limit(now, study.idle_minutes)
    moments = [None, limit - timedelta(minutes=5), limit, limit + timedelta(microseconds=1), now]
    fold = studies.fold_ids(study)[0]
    item = FoldItem.objects.filter(fold_id=fold).first()
    cases = 0
    for status, consented, slot, last in product(["active", "consented", "completed"], moments[1:], moments, moments):
        Participant.objects.filter(study=study).delete()
        p = _participant(study, cases, fold, status)
        Participant.objects.filter(pk=p.pk).update(consented_at=consented, slot_at=slot)
        if last is not None:
            Label.objects.create(triplet_id=item.triplet_id, annotator=p.user, value="correct")
            Label.objects.filter(annotator=p.user).update(updated_at=last)
        expected = bool(studies._idle(study, now)[1])
        assert study_sql.any_idle(study, limit) is expected, (status, consented, slot, last)
        cases += 1
    assert cases == 3 * 4 * 5 * 5
