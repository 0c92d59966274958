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

import math
import re
import string

from django.db import transaction

from annotation.models import Corpus, Triplet
from core.errors import UserFacingError
from core.runner import create_job
from models_runner.chat import SETTINGS_DEFAULTS, ChatClient, ChatError, store_exchange
from models_runner.endpoints import EndpointError, client_settings
from models_runner.models import Judge, JudgeLabel, JudgeRun
from stats.labels import CORRECT, INCORRECT, LABEL_VALUES, PARTIAL

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

# One label word; ``logprobs``: ask for the label token's log-probabilities (SPEC 12) -- "auto" asks
# and carries on without them when the server refuses, "on" asks and fails when refused, "off" never asks.
DEFAULTS = {**SETTINGS_DEFAULTS, "max_tokens": 10, "logprobs": "auto", "top_logprobs": 5}
LOGPROBS_MODES = ("auto", "on", "off")

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


LABEL_WORDS = ((INCORRECT, ("incorrect", "wrong", "not")), (PARTIAL, ("partial",)), (CORRECT, ("correct", "right")))


def _token_label(token: str) -> str | None:
    """The label a token begins (``"Cor"``, ``" correct"``, ``"**Partial"``, ``"wrong"``), or None."""
    word = re.sub(r"[^a-z]", "", (token or "").lower())
    if len(word) < 2:
        return None
    for label, words in LABEL_WORDS:
        if any(w.startswith(word) or word.startswith(w) for w in words):
            return label
    return None


def label_distribution(logprobs) -> dict | None:
    """q = (correct, partial, incorrect) from the log-probabilities of a judge's reply (SPEC 12).

    The label token is the first generated token that begins a label word; its alternatives
    (``top_logprobs``) that begin a label word add their probabilities to that label, others are
    dropped, and q is normalised. None when there are no log-probabilities or no label token (the
    label then counts one-hot).

    >>> lp = [{"token": "Cor", "logprob": -0.2, "top": [("Cor", -0.2), ("Part", -2.0), ("In", -3.0), ("The", -4.0)]}]
    >>> {k: round(v, 3) for k, v in label_distribution(lp).items()}
    {'correct': 0.816, 'partial': 0.135, 'incorrect': 0.05}
    """
    for token in logprobs or []:
        if _token_label(token["token"]) is None:
            continue
        mass = dict.fromkeys(LABEL_VALUES, 0.0)
        for alt, logprob in token.get("top") or [(token["token"], token["logprob"])]:
            label = _token_label(alt)
            if label is not None:
                mass[label] += math.exp(logprob)
        total = sum(mass.values())
        return {k: v / total for k, v in mass.items()} if total > 0 else None
    return None


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
    if p["logprobs"] not in LOGPROBS_MODES:
        raise JudgeError(f"logprobs must be one of {', '.join(LOGPROBS_MODES)}, got {p['logprobs']!r}")
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
        "top_logprobs",
    ):
        if not isinstance(p[key], (int, float)) or isinstance(p[key], bool) or p[key] < 0:
            raise JudgeError(f"judge parameter {key} must be a number >= 0, got {p[key]!r}")
    return p


class LabelAsker:
    """Asks one triplet's label, with the label token's log-probabilities while the server gives them.

    ``mode`` ``auto``: a server that refuses ``logprobs`` (HTTP 400 naming them) is asked again without, and
    never asked for them again in this run (``refused`` says so); ``on``: the refusal is the error;
    ``off``: never asked. ``ask`` returns (reply text, q or None)."""

    def __init__(self, client, parameters):
        self.client, self.mode = client, parameters["logprobs"]
        self.top = int(parameters["top_logprobs"])
        self.refused = False

    def ask(self, messages, question=None):
        if self.mode == "off" or self.refused:
            return self.client.complete(messages, purpose=PURPOSE, question=question).text, None
        try:
            reply = self.client.complete(
                messages, purpose=PURPOSE, question=question, logprobs=True, top_logprobs=self.top
            )
        except ChatError as exc:
            if self.mode != "auto" or exc.status != 400 or "logprob" not in str(exc).lower():
                raise
            self.refused = True
            return self.ask(messages, question)
        return reply.text, label_distribution(reply.logprobs)


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

    rows = match_label_rows(path, corpus, meta=True)
    names = sorted({row[1] for row in rows})
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
        tids = [row[0] for row in rows]
        JudgeLabel.objects.filter(judge=judge, triplet_id__in=tids).delete()
        JudgeLabel.objects.bulk_create(
            [
                JudgeLabel(judge=judge, triplet_id=tid, value=value, source="import", probs=probs)
                for (tid, _, value, _, _), probs in zip(rows, file_probs(path, rows))
            ],
            batch_size=2000,
        )
    return {"judge": name, "labels": len(rows), "with_probs": sum(r[3].get("probs") is not None for r in rows)}


def file_probs(path, rows) -> list:
    """The ``probs`` of each matched line (SPEC 12), checked: every bad one listed, nothing imported."""
    from annotation.interchange import BadLines
    from stats.design import check_probs

    out, bad = [], []
    for _, _, _, meta, line in rows:
        probs = meta.get("probs")
        if probs is None:
            out.append(None)
            continue
        try:
            if not isinstance(probs, dict):
                raise ValueError("probs must be an object {correct, partial, incorrect}")
            out.append(dict(zip(LABEL_VALUES, check_probs(probs).tolist())))
        except ValueError as exc:
            bad.append({"line": line, "reason": str(exc), "field": "probs"})
    if bad:
        raise BadLines(str(path), bad)
    return out


def judge_label_rows(judge, corpus=None):
    """The judge's labels in the labels format (SPEC 9; ``annotator`` = the judge), plus corpus and
    triplet id. Unparsed replies (no label) are left out."""
    qs = JudgeLabel.objects.filter(judge=judge, value__isnull=False)
    if corpus is not None:
        qs = qs.filter(triplet__question__corpus=corpus)
    values = qs.order_by("triplet__question__position", "triplet_id").values_list(
        "triplet__question__external_id",
        "triplet__answer",
        "value",
        "triplet__question__corpus__name",
        "triplet_id",
        "probs",
    )
    for qid, answer, value, corpus_name, tid, probs in values.iterator(chunk_size=2000):
        row = {
            "question_id": qid,
            "answer": answer,
            "annotator": judge.name,
            "label": value,
            "corpus": corpus_name,
            "triplet_id": tid,
        }
        if probs is not None:
            row["probs"] = probs
        yield row
