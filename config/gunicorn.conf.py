"""Gunicorn settings used by ``bin/run-demo`` (``gunicorn -c config/gunicorn.conf.py``).

``preload_app`` imports Django, every URL configuration and view (pandas, scipy, matplotlib for
the report pages) and compiles the annotator's templates once in the master process, before the
workers are forked: no request, not even the first one of a fresh worker, pays for an import, and
the workers share that memory. The master closes any database connection before forking, so no
worker inherits one (each thread opens and then keeps its own, see ``CONN_MAX_AGE``).

Options from the command line and ``GUNICORN_CMD_ARGS`` override these.
"""

import os

wsgi_app = "config.wsgi:application"
bind = f"127.0.0.1:{os.environ.get('PORT', '8000')}"
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
preload_app = True
accesslog = "-"
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
