"""Screening that respects a panel's rules (SPEC 17): clear gold only, the qualification block with its
paid screen-out page, the two-misses stop rule, the three decisions (recorded, in the payment CSV and
the API), and the per-participant figures."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from annotation import gold as gold_module
from annotation import screening, studies
from annotation.models import FoldItem, GoldItem, Label, ParticipantDecision, Triplet
from annotation.quality_data import mark_gold
from bench.kit.crowd import build_study
from tests.annotation.test_studies import always, arrive, judge_next, participant

pytestmark = pytest.mark.django_db


def _study_with_mixed_gold(tmp_path, **settings):
    """Gold: 2 reference answers expecting correct and 2 system answers ('lake') expecting incorrect."""
    study = build_study(tmp_path, n_questions=10, k=2, gold=2, **settings)
    wrong = Triplet.objects.filter(question__corpus=study.corpus, answer__startswith="lake").order_by("pk")[:2]
    GoldItem.objects.bulk_create([GoldItem(triplet=t, expected="incorrect") for t in wrong])
    gold_module.interleave_gold(study.corpus)
    screening.place_qualification(study)
    return study


def _truthful(gold):
    return gold.expected if gold is not None else "correct"


def test_gold_refuses_partial_everywhere_with_the_reason(tmp_path, admin_client, make_user):
    study = build_study(tmp_path, n_questions=4, k=1)
    triplet = Triplet.objects.filter(question__corpus=study.corpus).first()
    with pytest.raises(ValueError, match="clear case"):
        mark_gold(triplet, expected="partial", user=None)
    assert not GoldItem.objects.filter(triplet=triplet).exists()
    # the admin's gold form says why, and saves nothing
    page = admin_client.post(
        reverse("admin:annotation_golditem_add"), {"triplet": triplet.pk, "expected": "partial", "note": ""}
    )
    assert page.status_code == 200 and "never Partially correct" in page.content.decode()
    assert not GoldItem.objects.filter(triplet=triplet).exists()
    # the adjudication page: "also make it gold" with partial is refused before anything is saved
    resp = admin_client.post(
        reverse("adjudicate", args=[study.corpus.pk]),
        {"triplet": triplet.pk, "value": "partial", "gold": "1"},
        follow=True,
    )
    assert "never Partially correct" in resp.content.decode()
    assert not GoldItem.objects.filter(triplet=triplet).exists()
    # in French too
    admin_client.cookies["django_language"] = "fr"
    page = admin_client.post(
        reverse("admin:annotation_golditem_add"),
        {"triplet": triplet.pk, "expected": "partial", "note": ""},
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert "jamais Partiellement correct" in page.content.decode()


def test_qualification_block_comes_first_and_mixes_expected_labels(tmp_path):
    study = _study_with_mixed_gold(tmp_path, qualification_items=2, min_gold_accuracy=0.7)
    expected = dict(GoldItem.objects.values_list("triplet_id", "expected"))
    for fold_id in studies.fold_ids(study):
        first = list(FoldItem.objects.filter(fold_id=fold_id).order_by("position").values_list("triplet_id", flat=True))
        assert {expected.get(first[0]), expected.get(first[1])} == {"correct", "incorrect"}
    assert screening.place_qualification(study) == 0  # placed once: nothing moves again


def test_a_clicker_is_screened_out_at_the_start_with_a_paid_code(tmp_path):
    study = _study_with_mixed_gold(
        tmp_path, qualification_items=2, min_gold_accuracy=0.7, screenout_code="SCR-77"
    )  # fmt: skip
    client = Client()
    arrive(client, "clicker")
    p = participant("clicker")
    answers = [judge_next(client, p.fold_id, always("partial")) for _ in range(2)]
    assert answers[-1]["HX-Redirect"] == "/study/pilot/"  # the ids stay in the signed cookie (SPEC 18)
    assert participant("clicker").status == "screened_out"
    assert Label.objects.filter(annotator=p.user).count() == 2  # stopped at the block, not mid-fold
    page = client.get(answers[-1]["HX-Redirect"]).content.decode()
    assert "SCR-77" in page and "cc=SCR-77" in page and "not a rejection" in page
    decided = {d.kind: d for d in participant("clicker").decisions.all()}
    assert decided["excluded"].value == "yes" and decided["panel"].value == "screen-out"
    assert "stopped" not in decided  # screened out is not stopped in the fold
    assert decided["panel"].evidence == {"gold_items": 2, "gold_misses": 2, "qualification_items": 2}
    assert p.user_id in studies.excluded_user_ids(study.corpus)  # the report leaves their labels out
    assert arrive(Client(), "next").status_code == 302 and participant("next").fold_id == p.fold_id  # slot back


def test_one_miss_never_stops_an_honest_participant(tmp_path):
    _study_with_mixed_gold(tmp_path, qualification_items=2, min_gold_accuracy=0.7)
    client = Client()
    arrive(client, "honest")
    p = participant("honest")
    missed = []

    def once_wrong(gold):
        if gold is not None and not missed:
            missed.append(gold.triplet_id)
            return "partial"
        return _truthful(gold)

    for _ in range(40):
        resp = judge_next(client, p.fold_id, once_wrong)
        if resp is None or "HX-Redirect" in resp:
            break
    assert missed and participant("honest").status == "completed"


def test_panel_decisions_reject_only_for_attention_checks_and_the_payment_csv(tmp_path, make_user):
    study = _study_with_mixed_gold(tmp_path, qualification_items=2, min_gold_accuracy=0.7)
    client = Client()
    arrive(client, "w1")
    for _ in range(40):
        resp = judge_next(client, participant("w1").fold_id, _truthful)
        if resp is None or "HX-Redirect" in resp:
            break
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    refused = admin.post(
        "/studies/pilot/", {"action": "panel", "participant": "w1", "decision": "reject", "reason": "slow"}, follow=True
    )
    assert "only for failed attention checks" in refused.content.decode()
    assert not ParticipantDecision.objects.filter(value="reject").exists()
    admin.post("/studies/pilot/", {"action": "panel", "participant": "w1", "decision": "approve", "reason": "fine"})
    rows = list(csv.DictReader(io.StringIO(b"".join(admin.get("/studies/pilot/participants.csv")).decode())))
    row = rows[0]
    assert (row["panel_decision"], row["panel_reason"], row["excluded"], row["stopped"]) == (
        "approve",
        "fine",
        "no",
        "no",
    )
    assert (
        row["gold_accuracy_low"] and float(row["gold_accuracy_low"]) <= 1.0 <= float(row["gold_accuracy_high"]) + 1e-9
    )
    assert float(row["median_seconds"]) == 30.0 and row["flag"] == "False"
    api = admin.get("/api/studies/pilot/participants/").json()[0]
    assert api["panel_decision"] == "approve" and api["share_correct"] > 0 and api["median_seconds"] == 30.0
    page = admin.get("/studies/pilot/").content.decode()
    assert 'id="participant-figures"' in page and "fine" not in page.split('id="participant-figures"')[0][-50:]
    assert study.participants.count() == 1


def test_api_refuses_a_qualification_block_longer_than_the_gold(tmp_path, make_user):
    study = build_study(tmp_path, n_questions=4, k=1, gold=1)
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    resp = admin.post(
        "/api/studies/",
        {
            "slug": "q2",
            "title": "t",
            "consent": "c",
            "corpus": study.corpus.name,
            "completion_code": "X",
            "qualification_items": 3,
        },
        content_type="application/json",
    )
    assert resp.status_code == 400 and "needs 3 gold items" in resp.json()["qualification_items"][0]
