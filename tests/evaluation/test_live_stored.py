"""Issue 46: the live page reads what the background job stored (the fixed 95% intervals as well as the
confidence sequences), for every metric, half-width, judge and human aggregate, and shows exactly what
it computed in the request before; it computes them itself only when nothing is stored yet."""

import pytest

from evaluation import judge_inputs, live_state
from evaluation.models import LiveState
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

ROWS = [
    ("q1", "Denver Broncos", "correct"),
    ("q1", "Carolina Panthers", "incorrect"),
    ("q2", "Warsaw", "correct"),
    ("q2", "Poland", "incorrect"),
    ("q3", "Santa Clara", "correct"),
    ("q3", "Santa Clara, California", "partial"),
]
QUERIES = [
    "half_width=0.1",
    "metric=hcorrect&half_width=5",
    "half_width=0.03&human_aggregate=majority",
    "half_width=0.2&stop_when=done&tie_margin=0.1",
]


def _labelled(corpus, tmp_path):
    from annotation.importers import import_labels
    from models_runner.judging import import_judge_labels

    judged = [{"question_id": q, "answer": a, "annotator": "judge-a", "label": v} for q, a, v in ROWS]
    import_judge_labels(write_jsonl(tmp_path / "j.jsonl", judged), corpus)
    labels = [{"question_id": q, "answer": a, "annotator": "ann", "label": v} for q, a, v in ROWS[:4]]
    labels += [{"question_id": "q1", "answer": "Denver Broncos", "annotator": "ann2", "label": "partial"}]
    import_labels(write_jsonl(tmp_path / "l.jsonl", labels), corpus)


def _fixed(api):
    """The page's fixed-interval part (the sequences are compared apart)."""
    return {k: v for k, v in api.items() if k not in ("sequence",)}


def test_the_page_reads_the_stored_fixed_intervals_and_shows_what_it_computed_before(
    tiny_corpus, client, make_user, tmp_path, monkeypatch
):
    _labelled(tiny_corpus, tmp_path)
    client.force_login(make_user("res", "researcher"))
    url = "/research/api/conclusions/?corpus=tiny&"
    computed = {q: client.get(url + q).json() for q in QUERIES}  # nothing stored: computed in the request
    assert all(computed[q]["rows"] for q in QUERIES) and computed[QUERIES[0]]["judge"] == "judge-a"
    assert LiveState.objects.get(corpus=tiny_corpus).aggregates == ["majority"]  # asked of the job
    live_state.refresh(tiny_corpus.pk)
    stored = LiveState.objects.get(corpus=tiny_corpus).results
    assert set(stored["judge-a"]["fixed"]) == {"mean", "majority"} and stored["judge-a"]["fixed"]["mean"]["rows"]

    def forbidden(*args, **kwargs):
        raise AssertionError("computed in the request")

    monkeypatch.setattr(live_state, "fixed_parts", forbidden)
    monkeypatch.setattr(judge_inputs, "snapshot", forbidden)
    read = {q: client.get(url + q).json() for q in QUERIES}
    for q in QUERIES:
        assert _fixed(read[q]) == _fixed(computed[q]), q
        assert read[q]["sequence"]["behind"] == 0 and computed[q]["sequence"]["pending"]
    panel = client.get("/research/conclusions/panel/?corpus=tiny&half_width=0.1").content.decode()
    assert 'data-system="sys-alpha"' in panel and "judge-a" in panel


def test_labels_that_arrive_later_leave_the_stored_intervals_shown_and_ask_the_job(
    tiny_corpus, client, make_user, tmp_path, monkeypatch
):
    from annotation.models import Label, Triplet

    _labelled(tiny_corpus, tmp_path)
    client.force_login(make_user("res", "researcher"))
    live_state.refresh(tiny_corpus.pk)
    url = "/research/api/conclusions/?corpus=tiny&half_width=0.1"
    before = client.get(url).json()
    triplet = Triplet.objects.filter(question__external_id="q3", answer="Santa Clara").get()
    Label.objects.create(triplet=triplet, annotator=make_user("late", "annotator"), value="correct")
    monkeypatch.setattr(live_state, "fixed_parts", lambda *a, **k: pytest.fail("computed in the request"))
    after = client.get(url).json()
    assert _fixed(after) == _fixed(before) and after["sequence"]["behind"] == 1
    assert LiveState.objects.get(corpus=tiny_corpus).pending  # the job is asked
    monkeypatch.undo()
    live_state.refresh(tiny_corpus.pk)
    fresh = client.get(url).json()
    assert fresh["n_human"] > before["n_human"] and fresh["sequence"]["behind"] == 0


def test_a_refused_dawid_skene_is_stored_as_refused(tiny_corpus, client, make_user, tmp_path):
    _labelled(tiny_corpus, tmp_path)
    client.force_login(make_user("res", "researcher"))
    url = "/research/api/conclusions/?corpus=tiny&human_aggregate=ds"
    first = client.get(url)
    live_state.refresh(tiny_corpus.pk)
    assert LiveState.objects.get(corpus=tiny_corpus).results["judge-a"]["fixed"]["ds"]["refused"]
    again = client.get(url)
    assert first.status_code == again.status_code == 400
    assert first.json() == again.json() and "Dawid-Skene" in str(again.json())
