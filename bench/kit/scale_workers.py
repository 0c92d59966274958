"""``bench/scale_bench.py --workers N``: the bench's steps run by N real Celery workers (issue 46 point 4:
PostgreSQL and Redis, each step of the bench run that way once with two workers).

Each step is the task ``bench.scale_step`` (the step's body as ``scale_bench.timed_step`` runs it: the
same functions the app's jobs call), sent through the broker and taken by whichever worker is free;
the workers are ``celery -A config worker --concurrency 1 --max-tasks-per-child 1`` (a fresh process
per task, so that its peak memory is the step's own), started here with this module included
(``-I``). Steps that do not need each other are sent at once (a wave), so the two workers share them;
the restore into a fresh database gets its own workers (their ``DATABASE_URL``). Results come back as
files in the work folder (no result backend needed).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from celery import shared_task

REPO = Path(__file__).resolve().parents[2]
WAVES = (
    ("import",),
    ("folds", "labels"),
    ("report", "report ds", "report bootstrap2", "live", "export"),
    ("live page",),
)
TASK = "bench.scale_step"
WAVE_SECONDS = 3600


@shared_task(name=TASK)
def scale_step(name, work, scale):
    """One step in this worker process; its figures (and the worker's name) written to ``results/``."""
    from bench.scale_bench import timed_step

    try:
        got = timed_step(name, Path(work), scale)
    except Exception as error:  # the driver reports it and stops
        got = {"error": repr(error)[:2000]}
    got["worker"] = scale_step.request.hostname
    (Path(work) / "results" / f"{name}.json").write_text(json.dumps(got))


def _celery(env, *args, **kwargs):
    return subprocess.run([str(Path(sys.executable).parent / "celery"), "-A", "config", *args], env=env, cwd=REPO,
                          **kwargs)  # fmt: skip


def start_workers(env, n, log_dir, tag):
    """N workers on ``env``'s database and broker, each ready (its log says so) before this returns."""
    workers = []
    for i in range(n):
        log = open(log_dir / f"worker-{tag}-{i}.log", "w")  # noqa: SIM115 (closed with the worker)
        cmd = [str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "--concurrency", "1"]
        cmd += ["--max-tasks-per-child", "1", "-I", "bench.kit.scale_workers", "-n", f"scale{tag}{i}@%h"]
        cmd += ["--loglevel", "INFO", "-Q", "default"]
        workers.append((subprocess.Popen(cmd, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT), log))
    deadline = time.monotonic() + 120
    for i, (proc, _log) in enumerate(workers):
        path = log_dir / f"worker-{tag}-{i}.log"
        while " ready." not in path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_workers(workers)
                raise SystemExit(f"worker {i} did not start:\n{path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
    return workers


def stop_workers(workers):
    for proc, _log in workers:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc, log in workers:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def send_wave(names, work, scale, env):
    """Send the wave's steps at once; wait for each one's figures. {step: figures}."""
    results, started = Path(work) / "results", time.monotonic()
    for name in names:
        (results / f"{name}.json").unlink(missing_ok=True)
        args = json.dumps([name, str(work), scale])
        done = _celery(env, "call", TASK, "--args", args, "--queue", "default", capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"sending {name} failed:\n{done.stderr[-2000:]}")
    got = {}
    while len(got) < len(names):
        for name in names:
            path = results / f"{name}.json"
            if name not in got and path.exists():
                got[name] = json.loads(path.read_text())
                if "error" in got[name]:
                    raise SystemExit(f"step {name} at {scale}x failed in {got[name]['worker']}: {got[name]['error']}")
        if time.monotonic() - started > WAVE_SECONDS:
            raise SystemExit(f"wave {names} at {scale}x: no answer within {WAVE_SECONDS} s")
        time.sleep(0.5)
    got["wave " + ", ".join(names)] = {"wall_s": round(time.monotonic() - started, 1)}
    return got


def run_waves(work, scale, env, restore_env, args, *, show):
    """Every step of ``args.run`` through ``args.workers`` workers: {step: figures}."""
    from bench.scale_bench import step

    env = {**env, "CELERY_BROKER_URL": args.broker}
    restore_env = {**restore_env, "CELERY_BROKER_URL": args.broker}
    (Path(work) / "results").mkdir(exist_ok=True)
    _celery(env, "purge", "-f", "-Q", "default", capture_output=True)  # nothing left from an earlier run
    figures = {}
    workers = start_workers(env, args.workers, Path(work), "study")
    try:
        for wave in WAVES:
            names = [n for n in wave if n in args.run]
            if "labels" in names:
                step("prepare labels", work, scale, env)
            if names:
                figures.update(_shown(send_wave(names, work, scale, env), show))
    finally:
        stop_workers(workers)
    if "restore" in args.run:
        workers = start_workers(restore_env, args.workers, Path(work), "restore")
        try:
            figures.update(_shown(send_wave(["restore"], work, scale, restore_env), show))
        finally:
            stop_workers(workers)
    return {k: v for k, v in figures.items() if not k.startswith("wave ")} | {
        "waves": {k: v["wall_s"] for k, v in figures.items() if k.startswith("wave ")}
    }


def _shown(got, show):
    for name, figures in got.items():
        if name.startswith("wave "):
            print(f"    {name}: {figures['wall_s']} s of wall time", flush=True)
        else:
            show(name, figures)
    return got
