"""Automatic judges (SPEC 10): an LLM labels every triplet of a corpus, as a resumable job; judge-labels
files are imported; judge labels are exported apart from the human ones.

The LLM run mirrors an inference run (``models_runner.inference``): a ``Job`` (kind ``judge``,
resumable) with its ``JudgeRun`` row; the body asks, batch by batch, only for the triplets the judge
has no label for yet, and writes each batch with one bulk insert that ignores conflicts on the unique
(judge, triplet). A worker killed mid-run leaves its saved batches; the re-delivered task (or
``manage.py judge_corpus --resume JOB [--force]``) re-claims the job once its heartbeat is stale and
continues: no triplet ever gets two labels from one judge. Every request goes through
``models_runner.chat.ChatClient`` (rate limit, retries with backoff, one ``LLMExchange`` row per
exchange, purpose ``judge``); cancel and progress are the Job's.

Judge labels are ``JudgeLabel`` rows: never ``annotation.Label``, so they never count as human, are
never shown to annotators and never enter the agreement between annotators.
"""

from __future__ import annotations

import re
import string

from django.db import transaction

from annotation.labels import CORRECT, INCORRECT, PARTIAL
from annotation.models import Corpus, Triplet
from core.errors import UserFacingError
from core.runner import create_job
from models_runner.chat import SETTINGS_DEFAULTS, ChatClient, ChatError, store_exchange
from models_runner.endpoints import EndpointError, client_settings
from models_runner.models import Judge, JudgeLabel, JudgeRun

JOB_KIND = "judge"
PURPOSE = "judge"
NO_PASSAGE = "(no passage: judge with general knowledge)"
PROMPT_FIELDS = {"context", "question", "answer"}

# The default prompt of an LLM judge (an admin may give a judge another one, with the same fields).
DEFAULT_PROMPT = """You evaluate answers to reading-comprehension questions.

Passage:
{context}

Question: {question}

Proposed answer: {answer}

Judge the proposed answer against the passage and the question:
- correct: it answers the question (wording may differ);
- partial: it contains the right answer with too much or too little, or only part of it;
- incorrect: it does not answer the question.
Reply with one word: correct, partial or incorrect."""

DEFAULTS = {**SETTINGS_DEFAULTS, "max_tokens": 10}  # one label word

# First label word of a reply; "not correct" and "wrong" are incorrect, "partially correct" partial.
_LABEL_RE = re.compile(
    r"\b(incorrect|not\s+correct|wrong|partial(?:ly)?(?:[\s_-]+correct)?|correct|right)\b", re.IGNORECASE
)


class JudgeError(UserFacingError, ValueError):
    """A judge or a judge run that cannot be used: the message says what to fix."""


def parse_reply(text: str) -> str | None:
    """The label a judge's reply names (its first label word), or None when it names none.

    ``"Correct."``, ``"**Partially correct** — ..."``, ``'{"label": "incorrect"}'``, ``"The answer is
    not correct"`` and ``"wrong"`` are understood; ``"I cannot tell"`` is None."""
    match = _LABEL_RE.search(text or "")
    if match is None:
        return None
    word = re.sub(r"\s+", " ", match.group(1).lower())
    if word in ("incorrect", "not correct", "wrong"):
        return INCORRECT
    if word.startswith("partial"):
        return PARTIAL
    return CORRECT


def check_prompt(prompt: str) -> str:
    """The prompt if it only uses {context}, {question}, {answer} and names {question} and {answer}."""
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(prompt) if name is not None}
    except ValueError as exc:
        raise JudgeError(f"judge prompt: {exc} (write literal braces as {{{{ and }}}})") from None
    unknown = fields - PROMPT_FIELDS
    if unknown:
        raise JudgeError(
            f"judge prompt: unknown field(s) {', '.join(sorted(unknown))}; use {{context}}, {{question}} and {{answer}}"
        )
    if not {"question", "answer"} <= fields:
        raise JudgeError("judge prompt: it must contain {question} and {answer}")
    return prompt


def judge_messages(prompt: str, context: str, question: str, *, answer: str) -> list[dict]:
    return [
        {
            "role": "user",
            "content": prompt.format(context=(context or "").strip() or NO_PASSAGE, question=question, answer=answer),
        }
    ]


def judge_parameters(parameters: dict) -> dict:
    """The judge's parameters over the defaults, checked (a clear error for a bad one)."""
    unknown = set(parameters or {}) - set(DEFAULTS)
    if unknown:
        raise JudgeError(f"unknown judge parameter(s) {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
    try:
        p = client_settings({**DEFAULTS, **(parameters or {})})
    except EndpointError as exc:
        raise JudgeError(str(exc)) from None
    if not str(p["model"]).strip():
        raise JudgeError("an LLM judge needs the parameter model (the API's model name)")
    if p["on_error"] not in ("fail", "skip"):
        raise JudgeError("on_error must be 'fail' (the run stops) or 'skip' (the triplet stays unjudged)")
    for key in (
        "requests_per_minute",
        "max_retries",
        "backoff_base",
        "backoff_max",
        "timeout",
        "temperature",
        "max_tokens",
    ):
        if not isinstance(p[key], (int, float)) or isinstance(p[key], bool) or p[key] < 0:
            raise JudgeError(f"judge parameter {key} must be a number >= 0, got {p[key]!r}")
    return p


class ExchangeRecorder:
    """The ``store`` of a ChatClient that also keeps the last exchange row (for its JudgeLabel)."""

    last = None

    def __call__(self, **fields):
        self.last = store_exchange(**fields)
        return self.last


def make_client(parameters: dict, store=store_exchange, sleep=None) -> ChatClient:
    p = judge_parameters(parameters)
    extra = {"sleep": sleep} if sleep else {}
    try:
        return ChatClient.from_settings(p, store=store, **extra)
    except ChatError as exc:
        raise JudgeError(str(exc)) from None


# --- runs ------------------------------------------------------------------------------------


def prepare_judge_run(corpus, judge, batch_size=8, *, user=None) -> JudgeRun:
    """Check everything, then create the Job (resumable) and the JudgeRun."""
    if isinstance(corpus, str):
        corpus = Corpus.objects.filter(name=corpus).first() or _missing("corpus", corpus)
    if isinstance(judge, str):
        judge = Judge.objects.filter(name=judge).first() or _missing("judge", judge)
    if judge.kind != Judge.LLM:
        raise JudgeError(f"judge {judge.name!r} holds imported labels; an LLM run needs an LLM judge")
    prompt = check_prompt(judge.prompt or DEFAULT_PROMPT)
    make_client(judge.parameters)  # validates the parameters and the API key
    if int(batch_size) < 1:
        raise JudgeError("batch size must be >= 1")
    total = Triplet.objects.filter(question__corpus=corpus).count()
    if not total:
        raise JudgeError(f"corpus {corpus.name} has no triplets")
    job = create_job(
        JOB_KIND,
        {"corpus": corpus.name, "judge": judge.name, "batch_size": int(batch_size), "queue": "default"},
        user=user,
        total=total,
        resumable=True,
    )
    return JudgeRun.objects.create(
        job=job, judge=judge, corpus=corpus, prompt=prompt, batch_size=int(batch_size), triplets_total=total
    )


def _missing(what, name):
    raise JudgeError(f"no {what} named {name!r}")


# --- files -----------------------------------------------------------------------------------


def import_judge_labels(path, corpus, judge_name=None) -> dict:
    """Import a judge-labels file (SPEC 10: labels format, ``annotator`` names the judge) as the
    labels of a ``file`` judge, atomically; an existing label of that judge is replaced."""
    from annotation.importers import match_label_rows

    rows = match_label_rows(path, corpus)
    names = sorted({name for _, name, _ in rows})
    if judge_name:
        names = [judge_name]
    if len(names) != 1:
        raise JudgeError(f"{path}: a judge-labels file holds one judge; it names {', '.join(names) or 'none'}")
    name = names[0]
    existing = Judge.objects.filter(name=name).first()
    if existing is not None and existing.kind != Judge.FILE:
        raise JudgeError(f"judge {name!r} is an LLM judge; import the file under another name")
    with transaction.atomic():
        judge = existing or Judge.objects.create(name=name, kind=Judge.FILE, description=f"imported from {path}")
        tids = [tid for tid, _, _ in rows]
        JudgeLabel.objects.filter(judge=judge, triplet_id__in=tids).delete()
        JudgeLabel.objects.bulk_create(
            [JudgeLabel(judge=judge, triplet_id=tid, value=value, source="import") for tid, _, value in rows],
            batch_size=2000,
        )
    return {"judge": name, "labels": len(rows)}


def judge_label_rows(judge, corpus=None):
    """The judge's labels in the labels format (SPEC 9; ``annotator`` = the judge), plus corpus and
    triplet id. Unparsed replies (no label) are left out."""
    qs = JudgeLabel.objects.filter(judge=judge, value__isnull=False)
    if corpus is not None:
        qs = qs.filter(triplet__question__corpus=corpus)
    values = qs.order_by("triplet__question__position", "triplet_id").values_list(
        "triplet__question__external_id", "triplet__answer", "value", "triplet__question__corpus__name", "triplet_id"
    )
    for qid, answer, value, corpus_name, tid in values.iterator(chunk_size=2000):
        yield {
            "question_id": qid,
            "answer": answer,
            "annotator": judge.name,
            "label": value,
            "corpus": corpus_name,
            "triplet_id": tid,
        }
