"""Every admin page in French for a French admin (issue 32, done when).

Generated from ``admin.site._registry``: each registered model's changelist, its add page (where the
admin may add) and the change page of one of its rows, in English and in French. The world of
``tests/core/test_permissions.py`` is completed with one row of every registered model it lacks
(``test_every_admin_model_has_a_row`` fails for a new model without one), so that no change page is
skipped. A text block of the English page found as it is in the French page fails, unless it is
data (``test_pages_in_french.world_data``: names, questions, answers) or a word French shares.
"""

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.core.test_permissions import world  # noqa: F401 - a fixture
from tests.i18n.test_pages_in_french import untranslated, world_data

pytestmark = pytest.mark.django_db

MODELS = sorted(admin.site._registry, key=lambda m: m._meta.label)
# Words Django's own admin leaves in English in French (its icons' alt texts), and words French
# writes the same (« Permissions », « Note »).
DJANGO_UNTRANSLATED = {"Search", "True", "False", "Unknown", "Permissions", "Note"}
# django-axes names its rows in English (its models' __str__) and its French catalogue keeps « User
# Agent » and « Status » as they are: its texts are checked by test_field_labels, not page by page.
THIRD_PARTY_ENGLISH = {"axes"}


@pytest.fixture(scope="module")
def full_world(world, django_db_blocker):  # noqa: F811 - world is the imported fixture
    """The world, with one row of each registered model it lacks."""
    with django_db_blocker.unblock():
        _add_missing_rows(world)
    return world


def _add_missing_rows(w):
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog
    from rest_framework.authtoken.models import Token

    from annotation.models import Adjudication, Flag, GoldItem, Label, Triplet
    from models_runner.models import Judge, JudgeLabel, JudgeRun, LLMEndpoint, LLMExchange

    admin_user = w["users"]["admin"]
    triplet = Triplet.objects.filter(question__corpus_id=w["corpus"]).first()
    Token.objects.get_or_create(user=admin_user)
    request = {
        "username": "x",
        "ip_address": "10.0.0.1",
        "user_agent": "ua",
        "http_accept": "*/*",
        "path_info": "/login/",
    }
    AccessAttempt.objects.create(**request, get_data="", post_data="", failures_since_start=1)
    AccessLog.objects.create(**request)
    AccessFailureLog.objects.create(**request)
    if not Label.objects.exists():
        Label.objects.create(triplet=triplet, annotator=w["users"]["annotator"], value="correct")
    if not Flag.objects.exists():
        Flag.objects.create(triplet=triplet, annotator=w["users"]["annotator"], reason="other")
    if not GoldItem.objects.exists():
        GoldItem.objects.create(triplet=triplet, expected="correct")
    if not Adjudication.objects.exists():
        Adjudication.objects.create(triplet=triplet, value="correct", adjudicator=admin_user)
    judge = Judge.objects.get(name="matrix-judge")
    exchange = LLMExchange.objects.create(model="m", messages=[], status=LLMExchange.OK, purpose="answer")
    from core.models import Job

    job = Job.objects.create(kind="judge", status=Job.SUCCEEDED)
    run = JudgeRun.objects.create(job=job, judge=judge, corpus_id=w["corpus"])
    JudgeLabel.objects.get_or_create(
        judge=judge, triplet=triplet, defaults={"value": "correct", "run": run, "exchange": exchange}
    )
    _add_frame_check(w)
    LLMEndpoint.objects.get_or_create(name="local", defaults={"model": "m", "base_url": "http://127.0.0.1:8001/v1"})


def _add_frame_check(w):
    from annotation.models import FoldItem
    from frames.models import FrameCheck

    item = FoldItem.objects.filter(fold_id=w["frame_fold"]).first()
    FrameCheck.objects.get_or_create(
        frame_annotation_id=item.frame_annotation_id,
        annotator=w["users"]["annotator"],
        defaults={"fold_id": w["frame_fold"], "frame_rating": "full", "fe_rating": "partial"},
    )


def test_every_admin_model_has_a_row(full_world):
    empty = [m._meta.label for m in MODELS if not m._default_manager.exists()]
    assert empty == [], "give these models a row in full_world, so that their change page is checked"


def row_data():
    """Every value the rows of the registered models hold, as the admin may show it (data, never
    translated: names, paths, keys, URLs, JSON): ``world_data`` and the rest."""
    import json

    values = set(world_data())
    for model in MODELS:
        for field in model._meta.concrete_fields:
            if field.get_internal_type() in (
                "CharField",
                "TextField",
                "SlugField",
                "URLField",
                "GenericIPAddressField",
            ):
                values |= {str(v) for v in model._default_manager.values_list(field.attname, flat=True) if v}
            elif field.get_internal_type() == "JSONField":
                for v in model._default_manager.values_list(field.attname, flat=True):
                    values.add(json.dumps(v, ensure_ascii=False, sort_keys=True))
                    if isinstance(v, dict):
                        values |= {str(x) for x in v.values() if isinstance(x, (str, int, float))}
    return sorted((v for v in values if v.strip()), key=len, reverse=True)


def admin_pages(model):
    """The changelist, the add page and the change page of the first row, of ``model``."""
    base = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    pages = [reverse(f"{base}_changelist"), reverse(f"{base}_add")]
    first = model._default_manager.order_by("pk").first()
    if first is not None:
        pages.append(reverse(f"{base}_change", args=[first.pk]))
    return pages


@pytest.mark.parametrize(
    "model", [m for m in MODELS if m._meta.app_label not in THIRD_PARTY_ENGLISH], ids=lambda m: m._meta.label
)
def test_every_admin_page_is_in_french(full_world, client, model):
    client.force_login(full_world["users"]["admin"])
    data = row_data()
    found, seen = {}, 0
    for path in admin_pages(model):
        left = untranslated(client, path, data)
        if left is None:  # a page the admin may not open (add on a read-only admin: 403)
            continue
        seen += 1
        left = [b for b in left if b not in DJANGO_UNTRANSLATED]
        if left:
            found[path] = left
    assert seen >= 2, f"{model._meta.label}: fewer than two of its admin pages answered"
    assert not found, f"English left on the French admin pages: {found}"
