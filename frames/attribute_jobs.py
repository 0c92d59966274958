"""Database shell of SPEC 15: derive a corpus's attributes as a background job.

The questions are read as SPEC 9 records, ``frames.derivation.derive_records`` does the work (spaCy
parse, pure rules), and the changed questions are written back in one transaction at the end: a
cancelled or crashed run writes nothing, and the reaper's resume runs it again from the start
(parsing is the whole cost, and it is repeatable). The adaptation corpus is another corpus of the
platform whose questions carry frames (predicted by the proxy or imported); ``sample`` draws that
many of its questions at random (seeded) before counting.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict, dataclass

from django.db import transaction

from annotation.bulk import ORM_BATCH
from annotation.models import Corpus, Question
from core.errors import UserFacingError
from core.runner import create_job, enqueue
from frames import attributes, derivation, parsing
from frames.errors import FrameJobError
from frames.lexicon_store import corpus_lexicon, get_lexicon, lexicon_from_db

JOB_KIND = "attributes"
RECORD_FIELDS = ("context", "answers", "frame", "lu", "language", *attributes.DERIVED_ATTRIBUTES, "meta")


class AttributeJobError(UserFacingError, ValueError):
    pass


@dataclass(frozen=True)
class DeriveOptions:
    """The options of a derivation, as a job's params hold them: the spaCy pipeline (default by the
    corpus language), the lexicon's name (default: the one the corpus's frames were predicted with,
    else the shipped one of its language, ``lexicon_store.corpus_lexicon``), the adaptation corpus's
    name, a sample size of it and its seed, and whether imported values are replaced."""

    parser: str | None = None
    lexicon: str | None = None
    adaptation: str | None = None
    sample: int | None = None
    seed: int = 0
    overwrite: bool = False


def adaptation_frequencies(name, *, sample=None, seed=0):
    """``(frequencies, description)`` of the frames of corpus ``name`` (all its questions, or ``sample``
    of them drawn with ``random.Random(seed)``). An adaptation corpus without any frame is an error."""
    corpus = Corpus.objects.filter(name=name).first()
    if corpus is None:
        raise AttributeJobError(f"no corpus named {name!r} for the adaptation corpus")
    frames = list(Question.objects.filter(corpus=corpus).order_by("position", "id").values_list("frame", flat=True))
    described = name
    if sample is not None and sample < len(frames):
        frames = random.Random(seed).sample(frames, int(sample))
        described = f"{name} (random sample of {sample} questions, seed {seed})"
    if not any(frames):
        raise AttributeJobError(
            f"adaptation corpus {name!r} has no question with a frame: predict its frames (or import them) first"
        )
    return attributes.frame_frequencies(frames), described


def _record(q):
    return {"id": q.external_id, **{f: getattr(q, f) for f in RECORD_FIELDS}}


def derive_corpus(corpus, options: DeriveOptions, *, progress=None):
    """Derive the SPEC 15 attributes of every question of ``corpus``; returns the summary."""
    progress = progress or derivation._noop
    lexicon_name = options.lexicon or corpus_lexicon(corpus)
    try:
        lexicon = derivation.lexicon_words(lexicon_from_db(get_lexicon(lexicon_name)))
    except FrameJobError as exc:
        raise AttributeJobError(str(exc)) from None
    frequencies, adaptation = None, None
    if options.adaptation:
        frequencies, adaptation = adaptation_frequencies(options.adaptation, sample=options.sample, seed=options.seed)
    questions = list(Question.objects.filter(corpus=corpus).order_by("position", "id"))
    language = Counter(q.language for q in questions).most_common(1)[0][0] if questions else corpus.language
    name = parsing.pipeline_name(language, options.parser)
    parse, described = derivation.spacy_parser(name)
    records, summary = derivation.derive_records(
        [_record(q) for q in questions],
        parse,
        lexicon=lexicon,
        options={
            "source": {**described, "adaptation": adaptation},
            "frequencies": frequencies,
            "overwrite": options.overwrite,
            "progress": progress,
        },
    )
    changed = []
    for q, record in zip(questions, records):
        fields = [f for f in (*attributes.DERIVED_ATTRIBUTES, "meta") if getattr(q, f) != record.get(f)]
        for f in fields:
            setattr(q, f, record.get(f))
        if fields:
            changed.append(q)
    with transaction.atomic():
        Question.objects.bulk_update(changed, [*attributes.DERIVED_ATTRIBUTES, "meta"], batch_size=ORM_BATCH)
    return {"corpus": corpus.name, "lexicon": lexicon_name, "questions_changed": len(changed), **summary}


def attribute_job_body(job, progress):
    """``run_job`` body (``frames.tasks.derive_attributes``): params as :func:`start_attribute_job` makes them."""
    params = dict(job.params or {})
    corpus = Corpus.objects.filter(name=params.pop("corpus", None)).first()
    if corpus is None:
        raise AttributeJobError(f"no corpus named {job.params.get('corpus')!r}")
    return derive_corpus(corpus, DeriveOptions(**params), progress=progress)


def start_attribute_job(corpus, *, user=None, **options):
    """Create the Job row and queue ``frames.tasks.derive_attributes`` once the current transaction
    commits. ``options``: :class:`DeriveOptions`; without a lexicon, the corpus's own
    (``lexicon_store.corpus_lexicon``), named in the params. Resumable (the reaper sends it again after a crash)."""
    params = {"corpus": corpus, **asdict(DeriveOptions(**options))}
    row = Corpus.objects.filter(name=corpus).first()
    if params["lexicon"] is None and row is not None:
        params["lexicon"] = corpus_lexicon(row)
    job = create_job(JOB_KIND, params=params, user=user, resumable=True)
    return enqueue(job, "frames.tasks.derive_attributes")
