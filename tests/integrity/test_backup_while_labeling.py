"""``manage.py backup`` while 8 annotators label (8 real processes through the save path): the
restored copy holds every label acknowledged before the backup started (SPEC 14, issue 24)."""

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO, SQUAD_SMALL, require
from tests.models_runner.subprocess_db import subprocess_env

pytestmark = pytest.mark.slow

ANNOTATORS = 8

SETUP = """
import django; django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("load_demo", data={data!r}, corpus="demo", annotators={n}, password="pw-backup-1", verbosity=0)
"""

# One annotator: labels the items of their fold one after the other through the save path (then
# changes them, round after round) until the stop file exists, and writes "triplet<TAB>time" to its
# file once each label is saved (committed), i.e. acknowledged.
LABELER = """
import itertools, os, sys, time, django; django.setup()
from annotation.annotating import save_judgement
from annotation.models import Assignment, FoldItem
user, out, stop = sys.argv[1:4]
a = Assignment.objects.select_related("fold", "annotator").get(annotator__username=user)
items = list(FoldItem.objects.filter(fold=a.fold).order_by("position"))
with open(out, "w") as acks:
    for n, item in enumerate(itertools.cycle(items)):
        if os.path.exists(stop) or n > 20000:
            break
        save_judgement(a.annotator, a.fold, item, value=("correct", "partial", "incorrect")[n % 3], seconds=1.0)
        acks.write(f"{item.triplet_id}\\t{time.time()!r}\\n")
        acks.flush()
"""

READ_LABELS = """
import json, django; django.setup()
from annotation.models import Label
print(json.dumps(sorted([u, t] for u, t in Label.objects.values_list("annotator__username", "triplet_id"))))
"""


def _acks(path):
    if not path.exists():
        return []
    lines = [line.split("\t") for line in path.read_text().splitlines() if line.count("\t") == 1]
    return [(int(t), float(at)) for t, at in lines]


def test_backup_while_eight_annotators_label_keeps_every_acknowledged_label(tmp_path):
    require(SQUAD_SMALL.exists(), f"shared data not found at {SQUAD_SMALL}")
    env = subprocess_env(tmp_path)
    setup = SETUP.format(data=str(SQUAD_SMALL), n=ANNOTATORS)
    done = subprocess.run([sys.executable, "-c", setup], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    users = [f"annotator{i}" for i in range(1, ANNOTATORS + 1)]
    files = {user: tmp_path / f"{user}.acks" for user in users}
    stop = tmp_path / "stop"
    labelers = [
        subprocess.Popen([sys.executable, "-c", LABELER, user, str(files[user]), str(stop)], cwd=REPO, env=env)
        for user in users
    ]
    try:
        deadline = time.monotonic() + 120
        while min(len(_acks(f)) for f in files.values()) < 10:  # everybody is labeling
            assert time.monotonic() < deadline, "the annotators did not start labeling"
            assert all(p.poll() in (None, 0) for p in labelers), "an annotator process failed"
            time.sleep(0.2)
        started = time.time()
        backup = tmp_path / "backup.sqlite3"
        done = subprocess.run(
            [sys.executable, "manage.py", "backup", "--out", str(backup)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        still_labeling = sum(p.poll() is None for p in labelers)
    finally:
        stop.touch()
        for p in labelers:
            p.wait(timeout=300)
    assert all(p.returncode == 0 for p in labelers)
    assert still_labeling > 0, "every annotator had finished before the backup: nothing was tested"
    restored = subprocess_env(tmp_path / "restored")
    restored["DATABASE_URL"] = f"sqlite:///{backup}"
    check = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--check"], cwd=REPO, env=restored, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr  # a complete database, nothing to migrate
    read = subprocess.run([sys.executable, "-c", READ_LABELS], cwd=REPO, env=restored, capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    in_backup = {tuple(pair) for pair in json.loads(read.stdout)}
    before = {(user, t) for user in users for t, at in _acks(files[user]) if at < started}
    after = {(user, t) for user in users for t, at in _acks(files[user]) if at >= started}
    assert len(before) >= ANNOTATORS * 10
    assert before <= in_backup, f"labels acknowledged before the backup are missing: {sorted(before - in_backup)[:5]}"
    assert in_backup <= before | after  # nothing that was never labeled
    assert len(after) > 0, "nobody labeled during or after the backup: the copy was not taken while people worked"


# An export reads in one snapshot without holding writers back: while it is half-way, another
# connection saves a question of the corpus at once, and the archive is the study as of its start.
SNAPSHOT = """
import io, json, sys, threading, time, django; django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0)
from annotation.models import Corpus, Question
from evaluation.archive import collect
corpus = Corpus.objects.create(name="snap")
Question.objects.create(corpus=corpus, external_id="early", context="c", question="q?")
real, waited = collect._select, []

def write_late():
    Question.objects.create(corpus_id=corpus.pk, external_id="late", context="c", question="q?")
    connection.close()

def select(member, corpus, referenced):
    rows = real(member, corpus, referenced)
    if not waited:  # the snapshot is taken: the first read of the export is done
        started = time.monotonic()
        writer = threading.Thread(target=write_late)
        writer.start()
        writer.join(timeout=20)
        waited.append(time.monotonic() - started if not writer.is_alive() else None)
    return rows

collect._select = select
manifest = collect.export_study(corpus, io.BytesIO())
print(json.dumps({"wait": waited[0], "questions": manifest["members"]["rows/annotation.Question.jsonl"]["rows"],
                  "now": Question.objects.filter(corpus=corpus).count()}))
"""


def test_export_reads_one_snapshot_and_does_not_hold_writers_back(tmp_path):
    env = subprocess_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", SNAPSHOT], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["wait"] is not None and found["wait"] < 5, f"a writer waited for the export: {found}"
    assert (found["questions"], found["now"]) == (1, 2)  # the archive: the study as of the export's start
