"""Issue 45, point 8: the admin's job flows lead somewhere.

- *Judge a corpus* says what a judge run does (not the inference run's text);
- a run's page refreshes itself while its job runs and, once it succeeded, ends with the next step
  (a judge run: the live conclusions of its corpus; an inference run: the folds);
- the Folds page offers the web import when there is no corpus, and adds triplets in no fold yet to
  the folds with one button (no ``manage.py`` to type);
- the researcher's page links the design file of a corpus built with a design."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.fold_store import create_folds
from annotation.models import Corpus, FoldItem, Triplet
from models_runner.judging import prepare_judge_run
from models_runner.models import Judge

pytestmark = pytest.mark.django_db


def test_the_judge_start_page_speaks_of_judging(admin_client, tiny_corpus):
    judge = Judge.objects.create(name="j1", prompt="Is {answer} right for {question}? {context}")
    page = admin_client.get(reverse("admin:models_runner_judge_start", args=[judge.pk])).content.decode()
    assert 'id="judge-run-intro"' in page and "Model weights are read" not in page and "Start judging" in page
    french = admin_client.get(
        reverse("admin:models_runner_judge_start", args=[judge.pk]), HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()
    assert "Le juge étiquette chaque triplet" in french


def test_a_run_page_refreshes_while_running_then_shows_the_next_step(admin_client, tiny_corpus, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # checked when the run is prepared; nothing is sent
    judge = Judge.objects.create(
        name="j1", prompt="Is {answer} right for {question}? {context}", parameters={"model": "m"}
    )
    run = prepare_judge_run(tiny_corpus, judge)
    url = reverse("admin:models_runner_judgerun_change", args=[run.pk])
    page = admin_client.get(url).content.decode()
    assert '<meta http-equiv="refresh" content="3">' in page and 'id="run-next"' in page
    run.job.status = run.job.SUCCEEDED
    run.job.save()
    page = admin_client.get(url).content.decode()
    assert "http-equiv" not in page
    assert f'class="next-step" href="/research/conclusions/?corpus={tiny_corpus.name}"' in page
    assert "See the live conclusions with this judge" in page


def test_the_folds_page_imports_from_the_web_and_extends_folds_with_a_button(admin_client, tmp_path):
    page = admin_client.get(reverse("fold-assignments")).content.decode()
    assert 'id="import-corpus"' in page and "manage.py" not in page
    from tests.conftest import build_tiny_corpus

    corpus = build_tiny_corpus(tmp_path)
    create_folds(corpus, k=1, seed=0, overlap=0)
    FoldItem.objects.filter(fold__corpus=corpus).order_by("-position").first().delete()  # a triplet in no fold
    page = admin_client.get(reverse("fold-assignments") + f"?corpus={corpus.name}").content.decode()
    assert 'id="unfolded"' in page and 'value="extend"' in page and "manage.py" not in page
    admin_client.post(reverse("fold-action", args=[corpus.pk]), {"action": "extend"})
    in_folds = FoldItem.objects.filter(fold__corpus=corpus).values("triplet_id").distinct().count()
    assert in_folds == Triplet.objects.filter(question__corpus=corpus).count()


def test_the_researchers_page_links_the_design_file(client, make_user, tmp_path):
    from annotation.importers import import_corpus, import_predictions
    from models_runner.judging import import_judge_labels
    from tests.conftest import write_jsonl
    from tests.models_runner.test_active_design import judge_file

    questions = [{"id": f"q{i}", "context": f"c{i}", "question": f"Q{i}?", "answers": [f"a{i}"]} for i in range(60)]
    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", questions), "act")
    corpus = Corpus.objects.get(name="act")
    preds = [{"question_id": f"q{i}", "system": "sys", "answer": f"b{i}"} for i in range(60)]
    import_predictions(write_jsonl(tmp_path / "preds.jsonl", preds), corpus)
    import_judge_labels(judge_file(tmp_path), corpus)
    client.force_login(make_user("res", "researcher"))
    assert "design-download" not in client.get(reverse("reports")).content.decode()
    call_command("build_folds", corpus="act", k=2, seed=0, overlap=0, design="active", budget="20", judge="j")
    page = client.get(reverse("reports")).content.decode()
    assert 'class="design-download" href="/downloads/design/?corpus=act"' in page
