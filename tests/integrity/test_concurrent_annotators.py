"""50 annotators at once on overlapping folds: every acknowledged judgement is stored exactly once.

Each annotator is a thread with its own test client (so its own session and its own database
connection) running the real htmx loop: GET the page, POST judge with the fragment's
submission_id, read the next item from the returned fragment. Folds are shared by two annotators
and carry the 10 % overlap copies, so the same triplets are judged by several people at once; some
posts are sent twice at the same moment from two threads (a double click racing itself).
"""

import random
import re
import threading
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from annotation.assignments import assign_all
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, FoldItem, Label, LabelEvent
from core.roles import ANNOTATOR, ensure_groups

from .conftest import write_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N_ANNOTATORS = 50
JUDGEMENTS_EACH = 6
ITEM = re.compile(r'name="item" value="(\d+)"')
SUB = re.compile(r'name="submission_id" value="(\w+)"')


def fields(html):
    item, sub = ITEM.search(html), SUB.search(html)
    return (int(item.group(1)), sub.group(1)) if item else (None, None)


@pytest.fixture
def shared_folds(tmp_path):
    import_corpus(write_corpus(tmp_path / "c.jsonl", 300, 3, tmp_path / "p.jsonl"), "load")
    corpus = Corpus.objects.get(name="load")
    import_predictions(tmp_path / "p.jsonl", corpus)
    folds = create_folds(corpus, k=N_ANNOTATORS // 2, seed=3, overlap=0.2)
    group = ensure_groups()[ANNOTATOR]
    users = []
    for i in range(N_ANNOTATORS):
        u = get_user_model().objects.create_user(f"load{i:02d}", password="x")
        u.groups.add(group)
        users.append(u)
    assign_all(corpus, users, per_fold=2)
    return corpus, folds, users


def post(client, fold_id, item, sub, value):
    return client.post(
        f"/annotate/{fold_id}/judge/",
        {"item": item, "submission_id": sub, "value": value, "seconds": "1"},
        HTTP_HX_REQUEST="true",
    )


def test_fifty_annotators_lose_nothing_and_never_see_a_triplet_twice(shared_folds):
    corpus, _folds, users = shared_folds
    fold_of = {u.pk: u.assignments.get().fold_id for u in users}
    assert len(set(fold_of.values())) == N_ANNOTATORS // 2  # two annotators on every fold
    # Items travel by handle, unique within a fold: (fold, handle) -> triplet.
    item_triplet = {
        (fold, handle): triplet
        for fold, handle, triplet in FoldItem.objects.filter(fold__corpus=corpus).values_list(
            "fold_id", "handle", "triplet_id"
        )
    }
    results = {u.pk: {"sent": {}, "shown": [], "errors": [], "doubles": 0} for u in users}
    start = threading.Barrier(N_ANNOTATORS)

    def second(both, out, twin, fold_id, item, sub, value):
        both.wait(10)
        out["r"] = post(twin, fold_id, item, sub, value)
        connection.close()

    def annotator(user, rng):
        r = results[user.pk]
        try:
            client = Client()
            client.force_login(user)
            fold_id = fold_of[user.pk]
            start.wait(30)
            page = client.get(f"/annotate/{fold_id}/")
            item, sub = fields(page.content.decode())
            for _ in range(JUDGEMENTS_EACH):
                r["shown"].append(item)
                value = rng.choice(["correct", "partial", "incorrect"])
                if rng.random() < 0.2:
                    # The same submission twice at the same moment (double click, retry racing the original).
                    twin = Client()
                    twin.cookies = client.cookies
                    both = threading.Barrier(2)
                    out = {}
                    t = threading.Thread(target=second, args=(both, out, twin, fold_id, item, sub, value))
                    t.start()
                    both.wait(10)
                    resp = post(client, fold_id, item, sub, value)
                    t.join(30)
                    assert out["r"].status_code == 200, out["r"].status_code
                    r["doubles"] += 1
                else:
                    resp = post(client, fold_id, item, sub, value)
                assert resp.status_code == 200, resp.status_code
                r["sent"][item] = value
                item, sub = fields(resp.content.decode())
                assert item is not None, "fold ran out"
        except BaseException as exc:
            r["errors"].append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=annotator, args=(u, random.Random(i))) for i, u in enumerate(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "an annotator thread hung"
    errors = {u.username: results[u.pk]["errors"] for u in users if results[u.pk]["errors"]}
    assert not errors

    acknowledged = sum(len(r["sent"]) for r in results.values())
    assert acknowledged == N_ANNOTATORS * JUDGEMENTS_EACH
    assert sum(r["doubles"] for r in results.values()) > 0
    # Every acknowledged judgement is stored exactly once, with the value sent, and one history event.
    assert Label.objects.count() == acknowledged
    assert LabelEvent.objects.count() == acknowledged
    for user in users:
        r = results[user.pk]
        fold = fold_of[user.pk]
        triplets = [item_triplet[(fold, int(i))] for i in r["shown"]]
        assert len(triplets) == len(set(triplets)), f"{user.username} was shown a triplet twice"
        stored = dict(Label.objects.filter(annotator=user).values_list("triplet_id", "value"))
        assert stored == {item_triplet[(fold, int(i))]: v for i, v in r["sent"].items()}
        assert Label.objects.filter(annotator=user).exclude(fold_id=fold_of[user.pk]).count() == 0
    # Two annotators on one fold judged the same triplets: labels per triplet add up to the annotators.
    per_triplet = Counter(Label.objects.values_list("triplet_id", flat=True))
    assert max(per_triplet.values()) >= 2
    assert sum(per_triplet.values()) == acknowledged
