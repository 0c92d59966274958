"""The systems the French demo runs itself (``manage.py load_demo --lang fr``): no predictions file
ships with PIAF, so the platform answers the corpus with its own backends, as inference jobs run in
the calling process (``core.runner.run_job``, exactly what ``run_system --sync`` does).

- ``baseline``: the ``baseline`` backend (sliding-window lexical overlap, ``models_runner.lexical``;
  its stop list covers French function words). No weights, well under a second for 857 questions.
- ``tiny-bert-fr``: the ``extractive`` backend on a BERT-style model with **random weights** built on
  the fly (``models_runner.tiny_models.build_extractive``, word-level tokenizer trained on the
  corpus's own questions and contexts, seed 0) into ``<VAR_DIR>/demo-models/``; nothing is
  downloaded. Its spans are arbitrary: it is the demo's floor (a system annotators should find
  wrong almost always) and exercises the weights path (torch, offsets, spans) end to end.

A system that already has a prediction for every question of the corpus is not run again; one with
some is resumed (the inference job answers only what is missing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from annotation.models import Prediction, Question
from core.models import Job
from core.runner import run_job
from models_runner import jobs
from models_runner.inference import prepare_run


@dataclass(frozen=True)
class DemoSystem:
    name: str
    backend: str
    options: dict = field(default_factory=dict)
    tiny_model: bool = False  # build a random-weight model for this corpus first
    batch_size: int = 16


FRENCH_SYSTEMS = (
    DemoSystem("baseline", "baseline"),
    DemoSystem("tiny-bert-fr", "extractive", tiny_model=True),
)


class DemoRunError(RuntimeError):
    pass


def build_tiny_model(corpus, directory):
    """A random-weight extractive model whose vocabulary is the corpus's words (``tiny_models``)."""
    from models_runner import tiny_models

    directory = Path(directory)
    if (directory / "config.json").is_file():
        return directory
    rows = Question.objects.filter(corpus=corpus).values_list("question", "context")
    sentences = sorted({text for pair in rows for text in pair})
    return tiny_models.build_extractive(directory, size="tiny", sentences=sentences, seed=0)


def run_systems(corpus, var_dir, systems=FRENCH_SYSTEMS, *, say=print):
    """Run each of ``systems`` over ``corpus`` here and now; returns ``{name: job result}`` of the
    systems run (a complete system is skipped). Raises :class:`DemoRunError` when a run fails."""
    total = Question.objects.filter(corpus=corpus).count()
    results = {}
    for system in systems:
        have = Prediction.objects.filter(system__name=system.name, question__corpus=corpus).count()
        if have >= total:
            say(f"system {system.name}: {have} predictions already, not run again")
            continue
        options = dict(system.options)
        if system.tiny_model:
            options["model"] = str(build_tiny_model(corpus, Path(var_dir) / "demo-models" / f"{system.name}"))
        run = prepare_run(
            corpus, system.name, system.backend, options=options, batch_size=system.batch_size, device="cpu"
        )
        say(f"system {system.name}: running the {system.backend} backend on {total} questions (job {run.job_id})")
        job = run_job(run.job_id, jobs.run_body)
        if job is None or job.status != Job.SUCCEEDED:
            raise DemoRunError(
                f"system {system.name}: job {run.job_id} {getattr(job, 'status', 'not run')}: "
                f"{getattr(job, 'error', '')}"
            )
        results[system.name] = job.result
    return results
