"""The active fold design's registration (its user error is ``annotation.fold_designs.DesignError``), kept apart from
``models_runner.active_design`` so that registering it at start-up (``AppConfig.ready``) loads
neither numpy nor pandas: the web workers and the worker import the design on its first use."""

from __future__ import annotations

from annotation.fold_designs import Design, DesignError, register


def _plan(corpus, **kwargs):
    from models_runner.active_design import plan

    return plan(corpus, **kwargs)


def _late(corpus, tids, meta):
    from models_runner.active_design import late

    return late(corpus, tids, meta)


def _open_main(corpus, meta):
    from models_runner.active_design import open_main

    return open_main(corpus, meta)


def _judges(corpus):
    from django.db.models import Count

    from models_runner.models import Judge

    rows = (
        Judge.objects.filter(labels__triplet__question__corpus=corpus, labels__value__isnull=False)
        .annotate(n=Count("labels"))
        .order_by("-n", "name")
    )
    return [j.name for j in rows]


def register_design():
    register("active", Design(plan=_plan, late=_late, open_main=_open_main, errors=(DesignError,), judges=_judges))
