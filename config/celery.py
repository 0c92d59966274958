"""Celery application. Broker and result backend come from settings (env-driven).

Every worker runs a reaper thread (``core.worker``) that recovers the jobs whose worker died; its
tasks come from each installed app's ``tasks`` module (autodiscovery).
"""

import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

from core.worker import start_reaper, stop_reaper

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("qaeval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
worker_ready.connect(start_reaper)
worker_shutdown.connect(stop_reaper)
