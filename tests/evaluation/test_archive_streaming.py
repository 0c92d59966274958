"""Study archives streamed (issue 46 point 2, issue 44 point 4): an import writes rows a batch at a
time and keeps the same rows, histories and resume points whatever the batch size; an honest archive
far larger than the memory its import may take imports within it (measured in a separate process,
its resident peak against its size before the import)."""

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile

import pytest

from annotation.models import Corpus
from evaluation.archive import format as archive
from evaluation.archive import insert, restore, unpack
from evaluation.archive import members as archive_members
from tests.conftest import REPO
from tests.evaluation.test_archive import _counts, _export, _histories, _resume_points, study  # noqa: F401

QUESTIONS = "rows/annotation.Question.jsonl"
MIB = 1024 * 1024


@pytest.mark.django_db
def test_an_import_in_batches_of_two_rows_restores_the_same_study(study, monkeypatch):  # noqa: F811
    """Every member spans several batches: the id maps carry over from batch to batch (labels of a
    triplet of an earlier batch, events of a label of an earlier batch)."""
    corpus, _ = study
    data, manifest = _export(corpus)
    assert manifest["members"]["rows/annotation.Triplet.jsonl"]["rows"] > 4
    histories, resume = _histories(corpus), _resume_points(corpus)
    corpus.delete()
    batches = []
    real = insert.insert_batch

    def counted(member, rows, maps, *, context):
        batches.append((member.label, len(rows)))
        return real(member, rows, maps, context=context)

    monkeypatch.setattr(unpack, "BATCH_ROWS", 2)
    monkeypatch.setattr(insert, "insert_batch", counted)
    summary = restore.import_study(io.BytesIO(data))
    assert max(n for _, n in batches) == 2
    assert sum(n for label, n in batches if label == "annotation.Triplet") == summary["rows"]["annotation.Triplet"]
    assert len([1 for label, _ in batches if label == "annotation.Label"]) > 1
    restored = Corpus.objects.get(name="tiny")
    assert _histories(restored) == histories and _resume_points(restored) == resume


@pytest.mark.django_db
def test_the_export_writes_members_equal_to_their_rows_encoded_whole(study, monkeypatch):  # noqa: F811
    """Written row by row in small pieces, each member is the JSON Lines of its rows, and the
    manifest's sizes and SHA-256 are those of what the zip holds."""
    corpus, _ = study
    monkeypatch.setattr(archive_members, "_WRITE_CHUNK", 64)
    data, manifest = _export(corpus)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name, entry in manifest["members"].items():
            blob = zf.read(name)
            assert (len(blob), hashlib.sha256(blob).hexdigest()) == (entry["bytes"], entry["sha256"]), name
            if name.endswith(".jsonl"):
                rows = archive.decode_rows(blob, name)
                assert archive.encode_rows(rows) == blob and len(rows) == entry["rows"], name


def big_archive(data, path, total):
    """The archive ``data`` with about ``total`` bytes more of honest questions (1 MiB contexts)."""
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        manifest = json.loads(src.read(archive.MANIFEST))
        lines = src.read(QUESTIONS).decode().splitlines()
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as dst:
            for name in src.namelist():
                if name not in (QUESTIONS, archive.MANIFEST):
                    dst.writestr(name, src.read(name))
            first = json.loads(lines[0])
            digest, size, rows = hashlib.sha256(), 0, len(lines)
            with dst.open(QUESTIONS, "w", force_zip64=True) as out:
                for k in range(-1, total // MIB):
                    row = {**first, "id": 10**6 + k, "external_id": f"big{k}", "position": 10**6 + k}
                    row["context"] = f"context {k} " + "x" * MIB
                    blob = ("\n".join(lines) + "\n").encode() if k < 0 else archive.encode_row(row).encode()
                    rows += k >= 0
                    out.write(blob)
                    digest.update(blob)
                    size += len(blob)
            manifest["members"][QUESTIONS] = {"rows": rows, "bytes": size, "sha256": digest.hexdigest()}
            dst.writestr(archive.MANIFEST, archive.encode_manifest(manifest))
    return rows


MEASURE = """
import os, sys, threading, time
import django; django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from annotation.models import Question
from evaluation.archive import restore

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) // 1024

idle, peak, done = rss(), [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.005)
sampler = threading.Thread(target=sample, daemon=True); sampler.start()
try:
    summary = restore.import_study(sys.argv[1], "big")
finally:
    done.set(); sampler.join()
print(idle, max(peak[0], rss()), summary["rows"]["annotation.Question"], Question.objects.count())
"""


@pytest.mark.slow
@pytest.mark.django_db
def test_an_honest_archive_larger_than_its_memory_imports_within_300_mib(study, tmp_path):  # noqa: F811
    """QAEVAL_BIG_ARCHIVE_MIB (default 768; issue 44 names 4096) of questions with 1 MiB contexts: the
    import's resident memory grows by less than 300 MiB (the whole archive was held in memory before)."""
    corpus, _ = study
    data, _ = _export(corpus)
    total = int(os.environ.get("QAEVAL_BIG_ARCHIVE_MIB", "768")) * MIB
    rows = big_archive(data, tmp_path / "big.zip", total)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}",
        "QAEVAL_VAR_DIR": str(tmp_path / "var"),
        "QAEVAL_MAX_ARCHIVE_BYTES": str(total + 64 * MIB),  # the default, 4 GiB, refuses a 4 GiB one
    }
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(tmp_path / "big.zip")], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    idle, peak, imported, stored = map(int, out.stdout.split()[-4:])
    print(f"{total // MIB} MiB archive: idle {idle} MiB, peak {peak} MiB (+{peak - idle} MiB)")
    assert imported == stored == rows
    assert peak - idle < 300, f"the import grew by {peak - idle} MiB"
