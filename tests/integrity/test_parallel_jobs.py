"""Jobs of one corpus at the same moment on PostgreSQL, on two real Celery workers.

- two model runs (different systems) started together both succeed, and every prediction has its
  triplet (no ``UniqueViolation uniq_triplet_per_question``);
- two different predictions files imported together both succeed; the same file uploaded twice at
  once: one import succeeds, the other fails with the clear ``file:line`` error a sequential
  re-import gives (no raw ``IntegrityError``), and nothing of it is stored twice.
"""

import pytest

from annotation.importers import import_corpus
from annotation.models import Corpus, Prediction, Triplet
from annotation.tasks import import_file
from core.models import Job
from core.runner import create_job

from .conftest import wait_for, write_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def finished(*ids):
    jobs = list(Job.objects.filter(pk__in=ids))
    return jobs if all(j.status in Job.FINISHED for j in jobs) else None


def assert_every_prediction_linked(corpus):
    unlinked = Prediction.objects.filter(question__corpus=corpus, triplet__isnull=True)
    # every prediction has its triplet, but an empty answer (a model that gave none): it is never one
    assert not [a for a in unlinked.values_list("answer", flat=True) if a.strip()]
    # and no triplet twice for one normalised answer
    pairs = list(Triplet.objects.filter(question__corpus=corpus).values_list("question_id", "normalized_answer"))
    assert len(pairs) == len(set(pairs))


def test_two_model_runs_at_once_both_succeed(tmp_path, workers):
    from models_runner.inference import prepare_run
    from models_runner.tasks import run_inference

    n = 1500
    write_corpus(tmp_path / "c.jsonl", n)
    import_corpus(tmp_path / "c.jsonl", "par")
    corpus = Corpus.objects.get(name="par")
    workers.start()
    workers.start()
    runs = [prepare_run(corpus, f"lex-{i}", "baseline", batch_size=64, queue=workers.queue) for i in range(4)]
    for run in runs:
        run_inference.apply_async(args=[run.job_id], queue=workers.queue)
    jobs = wait_for(lambda: finished(*[r.job_id for r in runs]), 120, "the runs", interval=0.2)
    assert [j.status for j in jobs] == ["succeeded"] * 4, [j.error for j in jobs]
    for run in runs:
        assert Prediction.objects.filter(system=run.system).count() == n
    assert_every_prediction_linked(corpus)


def test_parallel_uploads_same_file_one_clear_error_and_different_files_both_succeed(tmp_path, workers):
    write_corpus(tmp_path / "c.jsonl", 1500, 6, tmp_path / "p.jsonl", seed=5)
    write_corpus(tmp_path / "c2.jsonl", 1500, 6, tmp_path / "p2.jsonl", seed=6)
    # the second file: the same questions, other system names
    (tmp_path / "p2b.jsonl").write_text((tmp_path / "p2.jsonl").read_text().replace('"sys0', '"other0'))
    import_corpus(tmp_path / "c.jsonl", "up")
    corpus = Corpus.objects.get(name="up")
    workers.start()
    workers.start()

    def job(path):
        return create_job(
            "import_predictions", {"kind": "predictions", "corpus": "up", "path": str(path), "file": path.name}
        )

    same = [job(tmp_path / "p.jsonl"), job(tmp_path / "p.jsonl")]
    other = job(tmp_path / "p2b.jsonl")
    for j in [*same, other]:
        import_file.apply_async(args=[j.pk], queue=workers.queue)
    jobs = {
        j.pk: j for j in wait_for(lambda: finished(*[j.pk for j in [*same, other]]), 120, "the imports", interval=0.2)
    }
    statuses = sorted(jobs[j.pk].status for j in same)
    assert statuses == ["failed", "succeeded"], [jobs[j.pk].error for j in same]
    loser = next(jobs[j.pk] for j in same if jobs[j.pk].status == "failed")
    assert loser.error.startswith("p.jsonl:") and "already has a prediction" in loser.error, loser.error
    assert "IntegrityError" not in loser.error and "Traceback" not in loser.error
    assert jobs[other.pk].status == "succeeded", jobs[other.pk].error
    assert Prediction.objects.filter(question__corpus=corpus).count() == 1500 + 2 * 6 * 1500
    assert_every_prediction_linked(corpus)
