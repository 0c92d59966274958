"""Hostile study archives (issue 33, points 5-7): numbers JSON does not have, values no column can
hold, deep nesting, and zip bombs. Every refusal is an ``ArchiveError`` naming the member, the row
and the field; nothing is written; memory stays bounded whatever the zip's headers claim.

The value cases run on SQLite here and on PostgreSQL (``services``); the memory cases measure the
peak of a separate import process (``resource``'s ``ru_maxrss``) against its idle size."""

import io
import json
import subprocess
import sys
import zipfile

import pytest

from evaluation.archive import format as archive
from evaluation.archive import restore
from evaluation.archive.format import ArchiveError
from tests.conftest import REPO
from tests.evaluation.test_archive import _counts, _export, _zip_with, study  # noqa: F401  (fixture)

LABELS = "rows/annotation.Label.jsonl"
JOBS = "rows/core.Job.jsonl"


def rewrite(data, member, edit):
    """The archive ``data`` with the first row of ``member`` rewritten as raw JSON text by ``edit(row)``
    (a str, so that NaN, huge numbers and any nesting can be written), its manifest entry updated."""
    new = {}

    def change(name, blob):
        if name == member:
            lines = blob.decode().splitlines()
            lines[0] = edit(json.loads(lines[0]))
            new["blob"] = ("\n".join(lines) + "\n").encode()
            return new["blob"]
        return blob

    first = _zip_with(data, change)

    def manifest(name, blob):
        if name != archive.MANIFEST:
            return blob
        m = json.loads(blob)
        m["members"][member] = archive.describe(new["blob"], m["members"][member]["rows"])
        return archive.encode_manifest(m)

    return _zip_with(first, manifest)


def with_value(column, text):
    """An ``edit`` that sets ``column`` to the raw JSON ``text``."""

    def edit(row):
        row[column] = "@@"
        return json.dumps(row).replace('"@@"', text)

    return edit


CASES = {
    "NaN": (LABELS, with_value("seconds_spent", "NaN"), "line 1: NaN is not a number an archive may hold"),
    "Infinity": (LABELS, with_value("seconds_spent", "Infinity"), "line 1: Infinity is not a number"),
    "-Infinity": (LABELS, with_value("seconds_spent", "-Infinity"), "line 1: -Infinity is not a number"),
    "1e999": (LABELS, with_value("seconds_spent", "1e999"), "field seconds_spent: not a finite number"),
    "huge id": (LABELS, with_value("triplet_id", "9" * 30), "field triplet_id: integer 9999"),
    "huge int": (JOBS, with_value("attempts", str(2**40)), "field attempts: integer 1099511627776 out of range"),
    "5000 digits": (LABELS, with_value("seconds_spent", "9" * 5000), "line 1: Exceeds the limit"),
    "string for int": (JOBS, with_value("progress_done", '"12"'), "field progress_done: expected an integer"),
    "list for text": (LABELS, with_value("value", "[1, 2]"), "field value: expected a string, got a list"),
    "bool for float": (LABELS, with_value("seconds_spent", "true"), "field seconds_spent: expected a number"),
    "bad time": (LABELS, with_value("updated_at", '"yesterday"'), "field updated_at:"),
    "NUL": (LABELS, with_value("source", '"a\\u0000b"'), "field source: holds a NUL character"),
    "too long": (LABELS, with_value("source", json.dumps("x" * 5000)), "field source: longer than"),
    "deep params": (JOBS, with_value("params", "[" * 200 + "]" * 200), "field params: nested more than 64"),
    "100000 deep": (JOBS, with_value("params", "[" * 100000 + "]" * 100000), "line 1: nested too deeply"),
    "null status": (JOBS, with_value("status", "null"), "field status: may not be null"),
    "no id": (JOBS, lambda row: json.dumps({k: v for k, v in row.items() if k != "id"}), "row 1, field id: missing"),
    "roles": ("users.jsonl", with_value("roles", "7"), "field roles: expected a list of strings"),
    "no name": ("users.jsonl", lambda row: json.dumps({"id": row["id"]}), "row 1, field username: missing"),
}


def check_refusals(study):  # noqa: F811
    corpus, _ = study
    data, _ = _export(corpus)
    before = _counts()
    for case, (member, edit, message) in CASES.items():
        with pytest.raises(ArchiveError) as caught:
            restore.import_study(io.BytesIO(rewrite(data, member, edit)), "fresh")
        text = str(caught.value)
        assert message in text, (case, text)
        assert text.startswith(f"archive member {member}"), (case, text)  # the member ...
        assert ", line 1:" in text or ", row 1" in text, (case, text)  # ... the row ...
        assert "line 1:" in text or "field " in text, (case, text)  # ... and the field
        assert _counts() == before, case


@pytest.mark.django_db
def test_values_no_column_can_hold_are_refused_naming_member_row_and_field(study):  # noqa: F811
    check_refusals(study)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_same_refusals_on_postgresql(study):  # noqa: F811
    check_refusals(study)


# --- memory: zip bombs, measured in a separate process ------------------------------------------------

INNER = 512 * 1024 * 1024  # bytes inside each bomb
MIB = 1024 * 1024

MEASURE = """
import os, sys, threading, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
import django; django.setup()
from evaluation.archive import restore
from evaluation.archive.format import ArchiveError

def rss():  # resident memory now, in MiB
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) // 1024

idle, peak, done = rss(), [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.005)
sampler = threading.Thread(target=sample); sampler.start()
try:
    restore.read_archive(sys.argv[1])
    outcome = "read"
except ArchiveError as exc:
    outcome = "refused: " + str(exc)
done.set(); sampler.join()
print(idle, max(peak[0], rss()))
print(outcome)
"""


def bomb(path, member, *, lie=False, newline=False):
    """A zip whose ``member`` inflates to ``INNER`` bytes of zeros (or of lines of zeros), listed
    honestly in its manifest; with ``lie`` its headers say the member holds 1,000 bytes."""
    import hashlib

    piece = (b"0" * (MIB - 1) + b"\n") if newline else b"\0" * MIB
    digest = hashlib.sha256()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open(member, "w", force_zip64=False) as out:
            for _ in range(INNER // MIB):
                out.write(piece)
                digest.update(piece)
        manifest = archive.build_manifest(
            {
                member: {"rows": None, "bytes": INNER, "sha256": digest.hexdigest()},
                archive.USERS: archive.describe(b"", 0),
            },
            corpus="bomb",
            schema={},
            exported_at="2026-01-01T00:00:00+00:00",
        )
        zf.writestr(archive.USERS, b"")
        zf.writestr(archive.MANIFEST, archive.encode_manifest(manifest))
    if lie:
        raw = bytearray(path.read_bytes())
        for signature, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):  # central, then local header
            at = raw.find(signature)
            while at >= 0:
                if raw[at + (46 if signature == b"PK\x01\x02" else 30) :].startswith(member.encode()):
                    raw[at + offset : at + offset + 4] = (1000).to_bytes(4, "little")
                at = raw.find(signature, at + 4)
        path.write_bytes(bytes(raw))
    assert path.stat().st_size < 4 * MIB  # a small file ...
    return path


def measure(path):
    out = subprocess.run([sys.executable, "-c", MEASURE, str(path)], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    sizes, outcome = out.stdout.strip().split("\n", 1)
    idle, peak = map(int, sizes.split())
    print(f"{path.name}: idle {idle} MiB, peak {peak} MiB (+{peak - idle} MiB): {outcome[:160]}")
    return peak - idle, outcome


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "member", "options", "expected"),
    [
        ("lying header", "files/report/1/report.json", {"lie": True}, "refused: archive member files/report/1/"),
        ("one endless line", LABELS, {}, "refused: archive member rows/annotation.Label.jsonl: a line longer"),
        ("honest big file", "files/report/1/report.json", {}, "read"),
    ],
)
def test_a_zip_bomb_never_inflates_in_memory(tmp_path, case, member, options, expected):
    grown, outcome = measure(bomb(tmp_path / "bomb.zip", member, **options))
    assert outcome.startswith(expected), outcome
    assert grown < 300, f"{case}: the import process grew by {grown} MiB"  # ... never inflated whole
