"""How ``study-before-43.zip`` was made: a small study archive (SPEC 14) written by the code of commit
7506bd2 (main before issue 43 point 6 moved the judgement fields of ``Label`` / ``LabelEvent`` and of
the human checks into one abstract pair, ``annotation.judgements``). It holds labels with their
history (a change of mind, a skip), frame checks and attribute checks with their events, so that
``tests/evaluation/test_archive_before.py`` can see an archive made before that change still import.

Run once, on a scratch SQLite database (the committed zip is what the test reads; running this again
with later code makes an archive of that code, not of 7506bd2)::

    DEBUG=1 DATABASE_URL=sqlite:////tmp/before43.sqlite3 .venv/bin/python tests/data/make_study_before_43.py OUT.zip
"""

import json
import sys
import tempfile
from pathlib import Path

CORPUS = [
    {"id": f"q{n}", "context": context, "question": question, "answers": [answer]}
    for n, (context, question, answer) in enumerate(
        [
            ("Denver Broncos won Super Bowl 50 in 2016.", "Who won?", "Denver"),
            ("Warsaw is the capital of Poland.", "Capital of Poland?", "Warsaw"),
            ("The game was in Santa Clara.", "Where was the game?", "Santa Clara"),
        ],
        start=1,
    )
]
PREDICTIONS = [
    {"question_id": q, "system": s, "answer": a}
    for q, answers in {"q1": ("Denver", "Carolina"), "q2": ("Warsaw", "Poland"), "q3": ("Santa Clara", "")}.items()
    for s, a in zip(("sys-alpha", "sys-beta"), answers, strict=True)
]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _corpus(folder):
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus

    import_corpus(_write(folder / "corpus.jsonl", CORPUS), "before43")
    corpus = Corpus.objects.get(name="before43")
    import_predictions(_write(folder / "predictions.jsonl", PREDICTIONS), corpus)
    return corpus


def _labels(corpus, user):
    from annotation.annotating import save_judgement
    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds

    fold = create_folds(corpus, k=1, seed=0, overlap=0.0)[0]
    assign_fold(fold, user)
    items = list(fold.items.order_by("position"))
    for n, (item, value) in enumerate(zip(items, ("correct", "partial", "incorrect"), strict=False)):
        save_judgement(user, fold, item, value=value, seconds=1.5 + n, submission_id=f"s{n}")
    save_judgement(user, fold, items[0], value="incorrect", seconds=2.25, submission_id="change")
    save_judgement(user, fold, items[3], skip=True, seconds=0.5, submission_id="skip")


def _frame_checks(corpus, user):
    from annotation.models import Assignment
    from frames.checking import save_frame_check
    from frames.folds import create_frame_folds
    from frames.models import FrameAnnotation, FrameDef, FrameLexicon

    lexicon = FrameLexicon.objects.create(name="before43-lexicon")
    frame = FrameDef.objects.create(lexicon=lexicon, name="Winning", definition="Someone wins.")
    for question in corpus.questions.order_by("position")[:2]:
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
    fold = create_frame_folds(corpus, lexicon=lexicon, k=1, seed=0)[0]
    Assignment.objects.create(fold=fold, annotator=user)
    first, second = fold.items.order_by("position")
    save_frame_check(user, fold, first, frame_rating="full", fe_rating="partial", seconds=3.0, submission_id="f1")
    save_frame_check(user, fold, first, frame_rating="partial", fe_rating="partial", seconds=1.0, submission_id="f2")
    save_frame_check(user, fold, second, skip=True, seconds=0.5, submission_id="f3")


def _attribute_checks(corpus, user):
    from annotation.models import Assignment
    from frames.attribute_checks import create_attribute_folds, save_attribute_check

    for q in corpus.questions.order_by("position"):
        t = q.context.index(" ") + 1
        trigger = {"start": t, "end": q.context.index(" ", t), "lemma": "x", "via": "own_lu"}
        answer = {"start": 0, "end": t - 1, "found_by": "offset"}
        q.meta = {**q.meta, "derivation": {"answer": answer, "trigger": trigger}}
        q.dist = 1
        q.save(update_fields=["meta", "dist"])
    fold = create_attribute_folds(corpus, k=1, seed=0)[0]
    Assignment.objects.create(fold=fold, annotator=user)
    first, second, _third = fold.items.order_by("position")
    answer = {"verdict": "correct", "start": None, "end": None, "dist": "1"}
    save_attribute_check(user, fold, first, answer=answer, seconds=4.0, submission_id="a1")
    other = {"verdict": "other", "start": 0, "end": 3, "dist": "2+"}
    save_attribute_check(user, fold, second, answer=other, seconds=5.0, submission_id="a2")


def main(out):
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from core.roles import ensure_groups
    from evaluation.archive.store import export_study

    call_command("migrate", verbosity=0)
    groups = ensure_groups()
    user = get_user_model().objects.create_user("ann-before", password="pw-before-43")
    user.groups.add(groups["annotator"])
    with tempfile.TemporaryDirectory() as folder:
        corpus = _corpus(Path(folder))
    _labels(corpus, user)
    _frame_checks(corpus, user)
    _attribute_checks(corpus, user)
    with open(out, "wb") as f:
        export_study(corpus, f)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main(sys.argv[1])
