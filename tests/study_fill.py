"""A study with something of everything (SPEC 14 round trips and upgrades): labels with history,
skips, gold, flags, an adjudication, frame predictions with frame checks, an inference run with its
exchanges, an LLM judge run with its labels, and a finished report.

Runs on the current database, in-process (pytest) or in a subprocess (``python -m tests.study_fill
CORPUS`` after ``django.setup()``); written against APIs that exist since commit e1ff553, so the
upgrade test can fill a database with the code of that commit.
"""

from __future__ import annotations

import json
import sys


def _labels(corpus):
    """Each annotator labels the first items of their fold, changes two and skips one."""
    from annotation.annotating import save_judgement
    from annotation.models import Assignment, FoldItem

    values = ("correct", "partial", "incorrect")
    for n, assignment in enumerate(Assignment.objects.filter(fold__corpus=corpus).order_by("pk")):
        items = list(FoldItem.objects.filter(fold=assignment.fold).order_by("position")[: 6 + n])
        user, fold = assignment.annotator, assignment.fold
        for i, item in enumerate(items):
            save_judgement(user, fold, item, value=values[(i + n) % 3], seconds=1.5 + i, submission_id=f"s{n}-{i}")
        save_judgement(user, fold, items[0], value="incorrect", seconds=2.25, submission_id=f"c{n}-0")
        save_judgement(user, fold, items[1], value="correct", seconds=0.75, submission_id=f"c{n}-1")
        save_judgement(user, fold, items[-1], skip=True, seconds=0.5, submission_id=f"k{n}")


def _quality(corpus):
    from django.contrib.auth import get_user_model

    from annotation.models import Adjudication, Flag, GoldItem, Label

    admin = get_user_model().objects.get(username="admin")
    labels = list(Label.objects.filter(fold__corpus=corpus, value__isnull=False).order_by("pk")[:4])
    GoldItem.objects.create(triplet=labels[0].triplet, expected="correct", note="checked by hand", created_by=admin)
    Adjudication.objects.create(triplet=labels[1].triplet, value="partial", adjudicator=admin)
    Flag.objects.create(
        triplet=labels[2].triplet, fold=labels[2].fold, annotator=labels[2].annotator, reason="other", comment="typo?"
    )


def _frames(corpus):
    """Frame predictions for three questions, a frame-check fold, checks with a change of mind."""
    from annotation.models import Assignment, Question
    from frames import jobs as frame_jobs
    from frames.checking import save_frame_check
    from frames.folds import create_frame_folds
    from frames.models import FrameAnnotation, FrameDef

    try:  # its home since the frames app was split; frames.jobs before
        from frames.lexicon_store import ensure_shipped_lexicon
    except ImportError:
        ensure_shipped_lexicon = frame_jobs.ensure_shipped_lexicon
    lexicon = ensure_shipped_lexicon()
    frame = FrameDef.objects.filter(lexicon=lexicon).order_by("name").first()
    for question in Question.objects.filter(corpus=corpus).order_by("position")[:3]:
        FrameAnnotation.objects.create(
            question=question,
            lexicon=lexicon,
            outcome=FrameAnnotation.DONE,
            frame=frame,
            frame_name=frame.name,
            trigger=question.question.split()[0],
            frame_elements={"Theme": question.question.split()[-1]},
            model="scripted",
        )
    fold = create_frame_folds(corpus, k=1, seed=0)[0]
    user = Assignment.objects.filter(fold__corpus=corpus).order_by("pk").first().annotator
    Assignment.objects.create(fold=fold, annotator=user)
    items = list(fold.items.order_by("position"))
    save_frame_check(user, fold, items[0], frame_rating="full", fe_rating="partial", seconds=3.0)
    save_frame_check(user, fold, items[0], frame_rating="partial", fe_rating="partial", seconds=1.0)
    save_frame_check(user, fold, items[1], frame_rating="full", fe_rating="full", seconds=2.0)


def _machines(corpus):
    """An inference run of a system with its exchanges, and an LLM judge run with its labels."""
    from annotation.models import Question, System, Triplet
    from core.models import Job
    from models_runner.models import InferenceRun, Judge, JudgeLabel, JudgeRun, LLMExchange

    system = System.objects.filter(predictions__question__corpus=corpus).exclude(name="reference").first()
    job = Job.objects.create(kind="inference", status=Job.SUCCEEDED, params={"corpus": corpus.name})
    run = InferenceRun.objects.create(job=job, system=system, corpus=corpus, backend="openai", questions_done=2)
    for question in Question.objects.filter(corpus=corpus).order_by("position")[:2]:
        LLMExchange.objects.create(
            run=run, question=question, purpose="answer", model="stub", messages=[{"role": "user"}], status="ok"
        )
    judge = Judge.objects.create(name="stub-judge", prompt="{context} {question} {answer}", parameters={"model": "m"})
    judge_job = Job.objects.create(kind="judge", status=Job.SUCCEEDED, params={"corpus": corpus.name})
    judge_run = JudgeRun.objects.create(job=judge_job, judge=judge, corpus=corpus, triplets_done=5)
    triplets = Triplet.objects.filter(question__corpus=corpus).order_by("pk")[:5]
    for n, triplet in enumerate(triplets):
        exchange = LLMExchange.objects.create(
            question=triplet.question, purpose="judge", model="m", reply="correct", status="ok"
        )
        value = ("correct", "incorrect", None)[n % 3]
        JudgeLabel.objects.create(judge=judge, triplet=triplet, value=value, run=judge_run, exchange=exchange)


def _crowd(corpus):
    """A crowd study (SPEC 13, where the code has it) with one participant who labeled two items."""
    from django.apps import apps
    from django.contrib.auth import get_user_model

    from annotation.annotating import save_judgement
    from annotation.models import Assignment, Fold

    if not apps.is_installed("annotation") or "study" not in {m._meta.model_name for m in apps.get_models()}:
        return
    study_model, participant_model = apps.get_model("annotation", "Study"), apps.get_model("annotation", "Participant")
    fold = Fold.objects.filter(corpus=corpus, kind="triplet").order_by("index").last()
    study = study_model.objects.create(
        slug=f"{corpus.name}-crowd", title="Crowd", consent="I agree.", corpus=corpus, completion_code="C0DE", open=True
    )
    study.folds.add(fold)
    user = get_user_model().objects.create_user(f"{corpus.name}-p1", is_active=True)
    participant_model.objects.create(study=study, external_id="PROLIFIC-1", user=user, fold=fold, status="active")
    Assignment.objects.create(fold=fold, annotator=user)
    for n, item in enumerate(fold.items.order_by("position")[:2]):
        save_judgement(user, fold, item, value="correct", seconds=4.0 + n, submission_id=f"p{n}")


def _design(corpus):
    """Active-design draws (SPEC 12, where the code has them): a chance and a draw per triplet."""
    from annotation.models import Triplet

    if not hasattr(Triplet, "design_pi"):
        return
    for n, triplet in enumerate(Triplet.objects.filter(question__corpus=corpus).order_by("pk")[:12]):
        Triplet.objects.filter(pk=triplet.pk).update(design_pi=0.25 + n / 100, design_sampled=n % 2 == 0)


def finished_report(corpus, **options):
    """Run the report job of ``corpus`` in this process; returns its Job (succeeded)."""
    from core.runner import create_job, run_job
    from evaluation.jobs import JOB_KIND, REPORT_OPTIONS, report_body

    params = {"corpus_id": corpus.pk, "corpus": corpus.name, **REPORT_OPTIONS, "n_boot": 50, "figures": False}
    params.update(options, systems=[], adjudicated=bool(options.get("adjudicated")))
    job = run_job(create_job(JOB_KIND, params, total=6).pk, report_body)
    assert job.status == job.SUCCEEDED, job.error
    return job


def fill(corpus_name, *, crowd=True):
    """Fill the study of ``corpus_name`` (folds assigned already, user ``admin`` present); without
    ``crowd``, no crowd study (whose slug is unique in a database: no second copy next to it)."""
    from annotation.models import Corpus

    corpus = Corpus.objects.get(name=corpus_name)
    _labels(corpus)
    _quality(corpus)
    _frames(corpus)
    _machines(corpus)
    if crowd:
        _crowd(corpus)
    _design(corpus)
    return finished_report(corpus, judge="stub-judge")


def _sorted(rows):
    return sorted((list(row) for row in rows), key=repr)


def _label_histories(corpus):
    from annotation.models import Label

    labels = Label.objects.filter(triplet__question__corpus=corpus).select_related("annotator", "triplet__question")
    return _sorted(
        [
            label.annotator.username,
            label.triplet.question.external_id,
            label.triplet.answer,
            label.value,
            label.skipped,
            label.seconds_spent,
            label.created_at.isoformat(),
            [
                [e.value, e.skipped, e.seconds, e.submission_id, e.created_at.isoformat()]
                for e in label.events.order_by("pk")
            ],
        ]
        for label in labels
    )


def _resume_points(corpus):
    from annotation.annotating import next_item
    from annotation.models import Assignment

    points = []
    for a in Assignment.objects.filter(fold__corpus=corpus, fold__kind="triplet").select_related("fold", "annotator"):
        item = next_item(a.fold, a.annotator)
        where = [item.position, item.triplet.question.external_id, item.triplet.answer] if item else None
        points.append([a.annotator.username, a.fold.index, where, a.done, a.cursor])
    return _sorted(points)


def comparable(report):
    """report.json without what may differ between databases: times and database ids."""
    if isinstance(report, dict):
        return {k: comparable(v) for k, v in report.items() if not k.endswith(("_at", "_id", "seconds"))}
    if isinstance(report, list):
        return [comparable(v) for v in report]
    return report


def _newer_features(corpus):
    """What the fill adds where the code has it: crowd participants, active-design draws."""
    from django.apps import apps

    from annotation.models import Triplet

    found = {}
    if "participant" in {m._meta.model_name for m in apps.get_models()}:
        participant = apps.get_model("annotation", "Participant")
        rows = participant.objects.filter(study__corpus=corpus).values_list(
            "study__slug", "external_id", "user__username", "fold__index", "status"
        )
        found["participants"] = _sorted(rows)
        study = apps.get_model("annotation", "Study")
        found["study_folds"] = _sorted(study.objects.filter(corpus=corpus).values_list("slug", "folds__index"))
    if hasattr(Triplet, "design_pi"):
        rows = Triplet.objects.filter(question__corpus=corpus, design_pi__isnull=False)
        found["design"] = _sorted(rows.values_list("answer", "design_pi", "design_sampled"))
    return found


def fingerprint(corpus_name):
    """What a restore must give back, free of ids: label histories, resume points, quality rows,
    frame checks, judge labels, the finished report's report.json and a report computed now."""
    from django.db.models import Q

    from annotation.models import Adjudication, Assignment, Corpus, Flag, FoldItem, GoldItem
    from core.models import Job
    from evaluation.files import load_json
    from frames.models import FrameCheckEvent
    from models_runner.models import JudgeLabel, LLMExchange

    corpus = Corpus.objects.get(name=corpus_name)
    q = "triplet__question__corpus"
    jobs = Job.objects.filter(Q(params__corpus=corpus_name) | Q(params__corpus_id=corpus.pk))
    finished = jobs.filter(kind="report", status="succeeded").order_by("pk")
    folds = FoldItem.objects.filter(fold__corpus=corpus).order_by("fold__kind", "fold__index", "position")
    return {
        "jobs": _sorted(jobs.values_list("kind", "status")),
        "assignments": _sorted(
            Assignment.objects.filter(fold__corpus=corpus).values_list(
                "fold__kind", "fold__index", "annotator__username"
            )
        ),
        "fold_items": [
            [kind, index, position, answer, question]
            for kind, index, position, answer, question in folds.values_list(
                "fold__kind", "fold__index", "position", "triplet__answer", "frame_annotation__question__external_id"
            )
        ],
        "labels": _label_histories(corpus),
        "resume": _resume_points(corpus),
        "gold": _sorted(GoldItem.objects.filter(**{q: corpus}).values_list("triplet__answer", "expected", "note")),
        "adjudications": _sorted(Adjudication.objects.filter(**{q: corpus}).values_list("triplet__answer", "value")),
        "flags": _sorted(Flag.objects.filter(**{q: corpus}).values_list("annotator__username", "reason", "comment")),
        "frame_checks": _sorted(
            FrameCheckEvent.objects.filter(frame_check__frame_annotation__question__corpus=corpus).values_list(
                "frame_check__annotator__username", "frame_rating", "fe_rating", "seconds"
            )
        ),
        "judge_labels": _sorted(
            JudgeLabel.objects.filter(**{q: corpus}).values_list("judge__name", "triplet__answer", "value")
        ),
        "exchanges": LLMExchange.objects.filter(run__corpus=corpus).count(),
        **_newer_features(corpus),
        "finished_report": comparable(load_json(finished.first())),
        "report_now": comparable(load_json(finished_report(corpus, judge="stub-judge"))),
    }


def main(argv):
    """``fill CORPUS DATA FINGERPRINT ARCHIVE``: migrate, load the demo, fill it, write its
    fingerprint and export it; ``restore CORPUS ARCHIVE FINGERPRINT ARCHIVE2``: migrate, import the
    archive, write its fingerprint and export it again."""
    import django

    django.setup()
    from django.core.management import call_command

    mode, corpus, source, out, archive = argv  # archive "-": no export (code older than export_study)
    call_command("migrate", verbosity=0)
    if mode == "fill":
        call_command("load_demo", data=source, corpus=corpus, annotators=3, password="pw-archive-1", verbosity=0)
        fill(corpus)
    elif mode == "restore":
        call_command("import_study", source, corpus=corpus, verbosity=0)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(fingerprint(corpus), f, sort_keys=True)
    if archive != "-":
        call_command("export_study", corpus=corpus, out=archive, full=True, verbosity=0)  # SPEC 18: panel ids too


if __name__ == "__main__":
    main(sys.argv[1:])
