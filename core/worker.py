"""The worker's own reaper: a thread in every Celery worker that recovers jobs whose worker died.

Started when the worker is ready, stopped when it shuts down; nothing to add to the worker's command
line (``bin/run-demo`` and production start workers as before): the Celery app (``config.celery``)
connects ``start_reaper`` and ``stop_reaper`` to its workers' ``worker_ready`` and ``worker_shutdown``.
Every ``JOB_REAP_SECONDS`` it calls ``core.reaper.reap_stale_jobs``: resumable jobs are sent again,
the others marked failed; then ``resend_lost_jobs``: jobs whose task no worker took within
``JOB_RESEND_SECONDS`` are sent again. Several workers reaping at once is safe (each change is conditional on the
heartbeat the reaper saw).
"""

from __future__ import annotations

import logging
import os
import socket
import threading

from django.conf import settings
from django.db import close_old_connections, connections

log = logging.getLogger(__name__)
_stop = threading.Event()


def reap_forever(interval, name="", queues="", *, stop=_stop):
    """The reaper thread: every ``interval`` seconds, say this worker is alive and reap, until ``stop``."""
    from core.reaper import reap_stale_jobs, resend_lost_jobs, worker_seen

    try:
        while True:
            try:
                close_old_connections()
                worker_seen(name, queues)
                reap_stale_jobs()
                resend_lost_jobs()
            except Exception:  # database not migrated yet, or briefly unreachable: try again next round
                log.warning("job reaper round failed", exc_info=True)
            if stop.wait(interval):
                return
    finally:
        connections.close_all()


def start_reaper(sender=None, **kwargs):
    """``worker_ready``: start this worker's reaper thread (none when ``JOB_REAP_SECONDS`` <= 0)."""
    if settings.JOB_REAP_SECONDS <= 0:
        return
    name = f"{getattr(sender, 'hostname', '') or socket.gethostname()}:{os.getpid()}"
    try:
        queues = ",".join(sorted(sender.app.amqp.queues.consume_from))
    except Exception:
        queues = ""
    _stop.clear()
    threading.Thread(
        target=reap_forever, args=(settings.JOB_REAP_SECONDS, name, queues), daemon=True, name="job-reaper"
    ).start()
    log.info("job reaper: every %s s, jobs silent for %s s", settings.JOB_REAP_SECONDS, settings.JOB_STALE_SECONDS)


def stop_reaper(**kwargs):
    """``worker_shutdown``: the reaper thread ends after its current round."""
    _stop.set()
