"""Gunicorn settings used by ``bin/run-demo`` (``gunicorn -c config/gunicorn.conf.py``).

``preload_app`` imports Django, every URL configuration and view (pandas, scipy, matplotlib for
the report pages) and compiles the annotator's templates once in the master process, before the
workers are forked: no request, not even the first one of a fresh worker, pays for an import, and
the workers share that memory. The master closes any database connection before forking, so no
worker inherits one (each thread opens and then keeps its own, see ``CONN_MAX_AGE``).

``keepalive`` is longer than any pause of a client between two requests on one connection (an
annotator reading, a load client between its login and its first page): with gunicorn's default of
2 s the server closed idle connections, and a client that sent its request just as the server
closed got "connection reset by peer" (seen once with 50 annotators; ``bench/server_memory.py``
checks a 5 s pause). gthread workers keep idle connections in their poller, which costs nothing.

After loading, the master moves every object into the garbage collector's permanent generation
(``gc.freeze``): the workers' collections then never write into the pages they share with the
master, which stay shared (lower PSS).

Options from the command line and ``GUNICORN_CMD_ARGS`` override these.
"""

import gc
import os

wsgi_app = "config.wsgi:application"
bind = f"127.0.0.1:{os.environ.get('PORT', '8000')}"
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "2"))
# 8 threads per worker: a burst of arrivals at a crowd study waits on commits and on the study's row
# lock; with 4, requests queued behind them (bench/crowd_load.py, 300 arrivals in 5 s on PostgreSQL,
# load 6-7: entry / consent p99 1.04 / 1.23 s with 4 threads, 0.81 / 1.01 and 0.44 / 0.77 s with 8).
threads = int(os.environ.get("WEB_THREADS", "8"))
preload_app = True
keepalive = 75  # seconds (nginx's default); see above
backlog = 2048
accesslog = "-"
# SPEC 18: the path without its query string (%(U)s, not the request line %(r)s: a study's entry link
# carries panel ids), no user agent, no referer: address, time, method, path, status, size, duration
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'
loglevel = "warning"

# Templates every annotator request renders.
WARM_TEMPLATES = ("annotation/annotate.html", "annotation/_item.html", "annotation/home.html")


def when_ready(server):
    """In the master, after the app is loaded and before any worker exists: import and compile."""
    from django.db import connections
    from django.template.loader import get_template
    from django.urls import get_resolver

    resolver = get_resolver()
    _ = resolver.url_patterns  # imports every urls module and view module
    _ = resolver.reverse_dict  # and builds the reverse map {% url %} uses
    for name in WARM_TEMPLATES:
        get_template(name)
    connections.close_all()
    gc.collect()
    gc.freeze()
