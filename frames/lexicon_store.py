"""Database shell of the FrameNet lexicons (SPEC 8): store a parsed lexicon (``frames.framenet``),
find one by name (the shipped mini lexicon stored on first use), read it back as the pure dataclasses."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Max

from annotation.bulk import ORM_BATCH as BATCH
from core import languages
from frames.errors import FrameJobError
from frames.framenet import SHIPPED_LEXICON, SHIPPED_LEXICON_FR, Frame, FrameElement, LexicalUnit, Lexicon, load_lexicon
from frames.models import FrameAnnotation, FrameDef, FrameElementDef, FrameLexicon, LexicalUnitDef

SHIPPED_NAME = languages.default().lexicon  # the names are the languages' (``core.languages``)
SHIPPED_FR_NAME = languages.get("fr").lexicon  # the French demo's lexicon (load_demo --lang fr)
SHIPPED = {SHIPPED_NAME: SHIPPED_LEXICON, SHIPPED_FR_NAME: SHIPPED_LEXICON_FR}


@transaction.atomic
def store_lexicon(lexicon: Lexicon, name=None):
    """Save a parsed lexicon under ``name``; importing the same name again updates it in place.

    Frames are matched by name (so frame annotations keep pointing at them), frames no longer in
    the lexicon are removed, FEs and LUs are replaced. Returns ``(FrameLexicon, stats)``.
    """
    name = name or lexicon.name
    row, created = FrameLexicon.objects.get_or_create(name=name, defaults={"source_path": lexicon.source_path})
    existing = {f.name: f for f in FrameDef.objects.filter(lexicon=row)}
    new, changed = [], []
    for frame in lexicon.frames.values():
        current = existing.get(frame.name)
        if current is None:
            new.append(FrameDef(lexicon=row, name=frame.name, fn_id=frame.fn_id, definition=frame.definition))
        elif (current.fn_id, current.definition) != (frame.fn_id, frame.definition):
            current.fn_id, current.definition = frame.fn_id, frame.definition
            changed.append(current)
    removed = [f.pk for n, f in existing.items() if n not in lexicon.frames]
    FrameDef.objects.filter(pk__in=removed).delete()
    FrameDef.objects.bulk_create(new, batch_size=BATCH)
    FrameDef.objects.bulk_update(changed, ["fn_id", "definition"], batch_size=BATCH)
    ids = dict(FrameDef.objects.filter(lexicon=row).values_list("name", "id"))
    FrameElementDef.objects.filter(frame__lexicon=row).delete()
    LexicalUnitDef.objects.filter(frame__lexicon=row).delete()
    FrameElementDef.objects.bulk_create(
        [
            FrameElementDef(frame_id=ids[f.name], name=fe.name, core_type=fe.core_type, definition=fe.definition)
            for f in lexicon.frames.values()
            for fe in f.elements
        ],
        batch_size=BATCH,
    )
    LexicalUnitDef.objects.bulk_create(
        [
            LexicalUnitDef(frame_id=ids[f.name], name=lu.name, pos=lu.pos, fn_id=lu.fn_id)
            for f in lexicon.frames.values()
            for lu in f.lexical_units
        ],
        batch_size=BATCH,
    )
    stats = {
        "frames": len(lexicon.frames),
        "new_frames": len(new),
        "updated_frames": len(changed),
        "removed_frames": len(removed),
        "frame_elements": sum(len(f.elements) for f in lexicon.frames.values()),
        "lexical_units": lexicon.n_lexical_units,
        "created": created,
    }
    row.source_path = lexicon.source_path
    row.meta = {k: v for k, v in stats.items() if k != "created"}
    row.save(update_fields=["source_path", "meta"])
    return row, stats


def import_lexicon(path, name=None):
    """Parse a FrameNet directory and store it (``LexiconError`` names the bad file)."""
    return store_lexicon(load_lexicon(path, name=name), name=name)


def ensure_shipped_lexicon(name=SHIPPED_NAME):
    """A lexicon shipped with the project (``SHIPPED``), imported on first use."""
    row = FrameLexicon.objects.filter(name=name).first()
    return row or import_lexicon(SHIPPED[name], name=name)[0]


def default_lexicon(language):
    """The shipped lexicon of a corpus language (its record in ``core.languages``; any other language:
    the English one): ``framenet-fr-mini`` for French, else ``framenet-mini``.

    >>> default_lexicon("fr-CA"), default_lexicon("en")
    ('framenet-fr-mini', 'framenet-mini')
    """
    record = languages.get(language) or languages.default()
    return record.lexicon


def corpus_lexicon(corpus):
    """The lexicon to read ``corpus``'s frames with: the one most of its frame predictions were made
    with (ties: the latest used), else the shipped lexicon of its language (:func:`default_lexicon`)."""
    used = (
        FrameAnnotation.objects.filter(question__corpus=corpus)
        .values_list("lexicon__name")
        .annotate(n=Count("id"), last=Max("id"))
        .order_by("-n", "-last")
        .first()
    )
    return used[0] if used else default_lexicon(corpus.language)


def get_lexicon(name):
    row = FrameLexicon.objects.filter(name=name).first()
    if row is None:
        if name in SHIPPED:
            return ensure_shipped_lexicon(name)
        known = ", ".join(FrameLexicon.objects.values_list("name", flat=True)) or "none"
        raise FrameJobError(f"no frame lexicon named {name!r} (imported: {known}); run manage.py import_framenet first")
    return row


def lexicon_from_db(row):
    """The stored lexicon as the pure dataclasses (three queries)."""
    lexicon = Lexicon(name=row.name, source_path=row.source_path)
    by_id = {}
    for pk, name, fn_id, definition in (
        FrameDef.objects.filter(lexicon=row).order_by("name").values_list("id", "name", "fn_id", "definition")
    ):
        by_id[pk] = lexicon.frames[name] = Frame(name=name, fn_id=fn_id, definition=definition)
    for frame_id, name, core, definition in (
        FrameElementDef.objects.filter(frame__lexicon=row)
        .order_by("id")
        .values_list("frame_id", "name", "core_type", "definition")
    ):
        by_id[frame_id].elements.append(FrameElement(name=name, core_type=core, definition=definition))
    for frame_id, name, pos, fn_id in (
        LexicalUnitDef.objects.filter(frame__lexicon=row).order_by("id").values_list("frame_id", "name", "pos", "fn_id")
    ):
        by_id[frame_id].lexical_units.append(LexicalUnit(name=name, pos=pos, fn_id=fn_id))
    return lexicon
