"""Database shell over ``annotation.dedup``: the triplets of a corpus and the predictions linked to them."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils.translation import gettext_noop

from annotation import sql
from annotation.bulk import ORM_BATCH, now_value
from annotation.dedup import answer_key, build_triplets
from annotation.fold_store import extend_folds_if_any
from annotation.models import Prediction, System, Triplet

# Progress messages of its jobs, in English (pages translate them: core.job_kinds.message_text).
LINKING = gettext_noop("linking %(count)s predictions to triplets")
MESSAGES = (LINKING,)


def _noop(*args, **kwargs):
    pass


CORPUS_LOCK = 7301  # advisory lock namespace: (CORPUS_LOCK, corpus id)


def lock_corpus(corpus_id):
    """Serialise the writers of one corpus's predictions and triplets until the transaction ends.

    PostgreSQL: a transaction-level advisory lock, so two jobs (model runs, imports) never create the
    same triplet or prediction at once; the second sees the first's rows once it gets the lock. SQLite
    already serialises writers (one write transaction at a time, ``BEGIN IMMEDIATE``).
    """
    assert connection.in_atomic_block, "lock_corpus must run inside a transaction"
    sql.advisory_lock(CORPUS_LOCK, corpus_id)


@transaction.atomic
def triplets_for(corpus, rows):
    """Map ``(key, question_id, answer)`` rows to triplet ids, creating the triplets that are missing.

    Returns ``({key: triplet_id}, number_of_new_triplets)``. Rows should come reference first, so
    that the reference gives the displayed spelling when a group mixes variants.
    """
    lock_corpus(corpus.pk)
    question_ids = sorted({r[1] for r in rows})
    existing = _triplet_ids(corpus, question_ids)
    groups = build_triplets(rows, corpus.dedup_policy)
    new = [g for g in groups if (g.question_key, g.normalized) not in existing]
    if new:  # plain rows (executemany, COPY on PostgreSQL), then their ids read back by their unique key
        keys = [answer_key(g.normalized) for g in new]
        _refuse_collisions(new, keys, existing)
        now = now_value()
        sql.insert_rows(
            Triplet,
            ("question", "answer", "normalized_answer", "answer_key", "created_at"),
            [(g.question_key, g.answer, g.normalized, key, now) for g, key in zip(new, keys)],
        )
        existing = _triplet_ids(corpus, sorted({g.question_key for g in new}), existing)
    mapping = {}
    for group in groups:
        tid = existing[(group.question_key, group.normalized)]
        for key in group.prediction_keys:
            mapping[key] = tid
    return mapping, len(new)


class AnswerKeyCollision(ValueError):
    """Two different answers of one question with one SHA-256 key: never merged, never expected."""


def _refuse_collisions(new, keys, existing):
    """The texts compared where keys meet: a new answer whose key an existing triplet of its question
    (or another new answer) already holds is a SHA-256 collision, refused rather than merged."""
    held = {(qid, answer_key(norm)) for qid, norm in existing}
    for group, key in zip(new, keys):
        if (group.question_key, key) in held:
            raise AnswerKeyCollision(
                f"two different answers of question {group.question_key} share the key {key}: not merged"
            )
        held.add((group.question_key, key))


def _triplet_ids(corpus, question_ids, into=None):
    """``{(question id, normalized answer): triplet id}`` of the triplets of these questions of ``corpus``.

    A few questions: their triplets by id lists; many (an import): every triplet of the corpus in one
    query, kept for these questions (no list of tens of thousands of ids to build)."""
    ids = {} if into is None else into
    if len(question_ids) <= ORM_BATCH:
        rows = Triplet.objects.filter(question_id__in=question_ids).values_list(
            "id", "question_id", "normalized_answer"
        )
    else:
        wanted = set(question_ids)
        every = Triplet.objects.filter(question__corpus_id=corpus.pk)
        rows = (row for row in every.values_list("id", "question_id", "normalized_answer") if row[1] in wanted)
    for tid, qid, norm in rows:
        ids[(qid, norm)] = tid
    return ids


@transaction.atomic
def assign_triplets(corpus, progress=_noop, source="model run"):
    """Give every prediction of the corpus without a triplet its triplet, creating new ones.

    Incremental: existing triplets are reused, so predictions imported or generated later join the
    triplets (and labels) already there. An empty answer joins no triplet (``empty_answers`` counts
    them; they stay without a triplet and the report scores them by rule). Returns
    ``{"new_triplets", "linked_predictions", "empty_answers", "added_to_folds"}``.
    """
    lock_corpus(corpus.pk)
    pending = list(
        Prediction.objects.filter(question__corpus=corpus, triplet__isnull=True)
        .order_by("question__position", "id")
        .values_list("id", "question_id", "answer", "system__kind")
    )
    if not pending:
        return {"new_triplets": 0, "linked_predictions": 0, "empty_answers": 0}
    pending.sort(key=lambda p: p[3] != System.KIND_REFERENCE)
    mapping, n_new = triplets_for(corpus, [(pid, qid, answer) for pid, qid, answer, _ in pending])
    progress(message=LINKING % {"count": len(pending)})
    updates = [Prediction(id=pid, triplet_id=tid) for pid, tid in mapping.items()]
    Prediction.objects.bulk_update(updates, ["triplet"], batch_size=ORM_BATCH)
    return {
        "new_triplets": n_new,
        "linked_predictions": len(updates),
        "empty_answers": len(pending) - len(updates),
        "added_to_folds": extend_folds_if_any(corpus, source),
    }
