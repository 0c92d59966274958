"""A third kind of human check is one record (issue 31 point 3): a toy check ("is this question a
question?") declared as a ``frames.human_checks.CheckKind`` subclass over its own judgement and event
models (the ``HumanCheck`` / ``HumanCheckEvent`` bases) and its two templates, walked end to end: its
folds built from the fold page's registry, the annotator's pages (next item, a refused verdict, save,
skip, back, a resubmission, the finished fold), the progress the home page reads, the admin's count
and the rows of its report table."""

import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection, models
from django.urls import reverse
from django.utils.translation import ngettext_lazy

from annotation import fold_kinds
from annotation.fold_store import store_fold_plans
from annotation.models import Question
from frames import human_checks
from frames.forms import check_folds_form
from frames.models import HumanCheck, HumanCheckEvent, one_per_annotator
from tests.frames.fixtures import build_framed_corpus

TEMPLATES = Path(__file__).parent / "toy_templates"


def _toy_models():
    class ToyCheck(HumanCheck):
        question = models.ForeignKey("annotation.Question", on_delete=models.CASCADE, related_name="toy_checks")
        annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="toy_checks")
        toy_verdict = models.CharField(max_length=8, null=True, blank=True)

        class Meta:
            app_label = "frames"
            constraints = [one_per_annotator("question", "uniq_toy_check_per_annotator")]

    class ToyCheckEvent(HumanCheckEvent):
        toy_check = models.ForeignKey(ToyCheck, on_delete=models.CASCADE, related_name="events")
        toy_verdict = models.CharField(max_length=8, null=True, blank=True)

        class Meta:
            app_label = "frames"

    return ToyCheck, ToyCheckEvent


def _build_toy_folds(corpus, *, k=1, seed=0, overlap=0.0, sample=None, replace=False):
    ids = list(Question.objects.filter(corpus=corpus).order_by("position").values_list("id", flat=True))
    plans = human_checks.plan_folds(
        ids, what="toy", empty="no question", error=ValueError, k=k, seed=seed, overlap=overlap, sample=sample
    )
    return store_fold_plans(corpus, "toy", plans, name="toys", seed=seed, params={}, target="question")


@pytest.fixture
def toy(transactional_db, settings):
    ToyCheck, ToyCheckEvent = _toy_models()
    with connection.schema_editor() as editor:
        editor.create_model(ToyCheck)
        editor.create_model(ToyCheckEvent)

    class ToyChecks(human_checks.CheckKind):
        """The record: everything a third check says about itself."""

        name, item, related, model, event_model = "toy", "question", ("question",), ToyCheck, ToyCheckEvent
        build_form = check_folds_form(
            "toy", doc="Toy folds.", k_label="K", sample_help="", replace_help="", target="_build_toy_folds"
        )
        build, errors, label = staticmethod(_build_toy_folds), (ValueError,), "toy-check folds"
        readiness = staticmethod(lambda corpus: (Question.objects.filter(corpus=corpus).count(), None))
        words = fold_kinds.PageWords(
            title="Toy-check folds",
            intro="Is each question a question?",
            build="Build toy-check folds",
            ready=ngettext_lazy("%(n)s question to ask about.", "%(n)s questions to ask about.", "n"),
            assign="Assign every unassigned toy-check fold, round robin",
        )

        def read(self, post):
            return {"toy_verdict": post.get("toy_verdict")}

        def clean(self, item, answer):
            if answer["toy_verdict"] not in ("yes", "no"):
                raise ValueError("say yes or no")
            return answer

        def shown(self, item, check):
            return {"question": item.question}

        def rows(self, corpus):
            checks = ToyCheck.objects.filter(question__corpus=corpus).order_by("id")
            return list(checks.values_list("question__external_id", "annotator__username", "toy_verdict"))

    kind = human_checks.register(ToyChecks())
    engine = {**settings.TEMPLATES[0], "DIRS": [TEMPLATES, *settings.TEMPLATES[0]["DIRS"]]}
    settings.TEMPLATES = [engine, *settings.TEMPLATES[1:]]
    settings.ROOT_URLCONF = "tests.frames.toy_check_urls"
    yield kind
    human_checks.unregister("toy")
    sys.modules.pop("tests.frames.toy_check_urls", None)
    with connection.schema_editor() as editor:
        editor.delete_model(ToyCheckEvent)
        editor.delete_model(ToyCheck)
    for model in ("toycheck", "toycheckevent"):
        apps.all_models["frames"].pop(model, None)
    apps.clear_cache()


def _rate(client, fold, **data):
    return client.post(reverse("toy-check-rate", args=[fold.pk]), data, HTTP_HX_REQUEST="true")


def test_a_third_check_is_one_record_and_walks_like_the_others(toy, client, make_user):
    corpus = build_framed_corpus()
    admin = make_user("boss", "admin")
    client.force_login(admin)
    page = client.get(reverse("fold-assignments"), {"corpus": corpus.name}).content.decode()
    card = page[page.index('id="toy-folds"') :]  # the fold page's card of the kind, after frames' and attributes'
    assert page.index('id="frame-folds"') < page.index('id="attribute-folds"') < page.index('id="toy-folds"')
    assert "<h2>Toy-check folds</h2>" in card and '<p id="toy-ready">4 questions to ask about.</p>' in card
    assert 'name="action" value="build_toys"' in card and 'name="toy_k"' in card and "Build toy-check folds" in card
    assert "toy-check fold, round robin" not in page  # no toy folds yet: nothing to assign
    built = client.post(
        reverse("fold-action", args=[corpus.pk]),
        {"action": "build_toys", "toy_k": 1, "toy_seed": 0, "toy_overlap": 0},
        follow=True,
    )
    assert built.status_code == 200, [str(m) for m in built.context["messages"]]
    assert [str(m) for m in built.context["messages"]] == ["built 1 toy-check folds"]
    fold = corpus.folds.get(kind="toy")
    assert fold.items.count() == 4
    user = make_user("checker", "annotator")
    assert "Assign every unassigned toy-check fold, round robin" in built.content.decode()
    assigned = client.post(
        reverse("fold-action", args=[corpus.pk]), {"action": "assign_all", "kind": "toy"}, follow=True
    )
    assert [str(m) for m in assigned.context["messages"]] == ["assigned 1 fold round robin"]
    assert fold.assignments.get().annotator == user
    client.force_login(user)

    page = client.get(reverse("toy-check", args=[fold.pk])).content.decode()
    first = toy.next_item(fold, user)
    assert 'id="toy-guide"' in page and f'data-item="{first.handle}"' in page
    assert f">{first.question.question}</h2>" in page and 'id="toy-check-form"' in page
    refused = _rate(client, fold, item=first.handle, toy_verdict="maybe", submission_id="s1")
    assert refused.status_code == 400 and refused.content.decode() == "say yes or no"
    saved = _rate(client, fold, item=first.handle, toy_verdict="yes", submission_id="s1")
    second = toy.next_item(fold, user)
    assert saved.status_code == 200 and second != first and f'data-item="{second.handle}"' in saved.content.decode()
    assert _rate(client, fold, item=first.handle, toy_verdict="yes", submission_id="s1").status_code == 200
    assert _rate(client, fold, item=first.handle, toy_verdict="no", submission_id="s1").status_code == 409
    assert toy.model.objects.get().toy_verdict == "yes" and toy.event_model.objects.count() == 1

    _rate(client, fold, item=second.handle, action="skip", submission_id="s2")
    progress = fold_kinds.progress_of(fold, user)  # what the home page shows
    assert (progress.done, progress.skipped, progress.total) == (1, 1, 4)
    back = client.get(reverse("toy-check-previous", args=[fold.pk]), {"before": second.position})
    assert f'data-item="{first.handle}"' in back.content.decode()
    for n, item in enumerate(fold.items.order_by("position")):
        _rate(client, fold, item=item.handle, toy_verdict="no", submission_id=f"last-{n}")
    done = client.get(reverse("toy-check", args=[fold.pk])).content.decode()
    assert "Fold finished" in done and fold_kinds.get("toy").judged(fold, user) == 4
    assert sorted(toy.rows(corpus))[0] == ("f0", "checker", "no")
    # a fold of the toy kind is out of reach of the other kinds' pages, and theirs of the toy's
    assert client.get(reverse("frame-check", args=[fold.pk])).status_code == 404


def test_the_two_kinds_urls_are_their_records():
    from frames import urls
    from frames.attribute_checks import ATTRIBUTE_CHECK
    from frames.checking import FRAME_CHECK

    def shape(patterns):
        return sorted((str(p.pattern), p.name, p.callback, tuple(p.default_args.items())) for p in patterns)

    listed = [p for p in urls.urlpatterns if p.name != "api-attributes"]
    assert shape(listed) == shape(urls.check_urls(FRAME_CHECK) + urls.check_urls(ATTRIBUTE_CHECK))
