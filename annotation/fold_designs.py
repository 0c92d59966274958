"""Fold designs (SPEC 12): which triplets go into folds, registered by the app that knows the judge.

annotation builds folds from every triplet (the uniform design) unless a design is named. The
active design needs a judge's labels, which live in ``models_runner``; that app registers its
design from ``AppConfig.ready()`` so that ``build_folds --design active``, the Folds page and the
growth of folds with late triplets use it without annotation importing models_runner.

A design has ``plan(corpus, *, budget, judge, seed) -> Plan`` (pi and xi for every triplet of the
corpus, the phase of the drawn ones, and the ``meta`` the folds keep in ``params["design"]``),
``late(corpus, tids, meta) -> {tid: (pi, sampled, phase, p1)}`` (new triplets drawn by the same
rule) and, for a design in two phases, ``open_main(corpus, meta) -> (meta, {tid: (pi, sampled,
phase, p1)})``: the main draw once the pilot is labelled (``fold_store.open_main_if_ready``).

>>> with DESIGNS.override({"toy": Design(plan=len, late=len)}):
...     get("toy").open_main is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.errors import UserFacingError
from core.registry import Registry


class DesignError(UserFacingError, ValueError):
    """A design that cannot be built (no judge labels, a budget out of range, ...): the message says what to fix."""


@dataclass(frozen=True)
class Design:
    """One design: ``plan`` and ``late`` (see the module docstring); ``errors`` are its user errors."""

    plan: Callable
    late: Callable
    open_main: Callable | None = None
    errors: tuple = ()
    judges: Callable | None = None  # corpus -> names of the judges it can use, most labels first


@dataclass(frozen=True)
class Plan:
    """pi and xi per triplet id, the phase of the drawn ones, and what the folds record of the design."""

    pi: dict
    sampled: dict
    meta: dict = field(default_factory=dict)
    phase: dict = field(default_factory=dict)


#: design name -> Design (core.registry's shape); models_runner registers the active one by its path.
DESIGNS = Registry("fold designs")


def register(name: str, design: Design) -> None:
    DESIGNS.register(name, design)


def judge_names(corpus) -> list[str]:
    """The judges the active design can use on ``corpus`` (the Folds page's list); [] without one."""
    design = DESIGNS.get("active")
    return list(design.judges(corpus)) if design and design.judges else []


def get(name: str) -> Design:
    """The design called ``name``; a ``ValueError`` naming the known ones otherwise."""
    if name not in DESIGNS:
        raise ValueError(f"unknown fold design {name!r}; known: uniform, {', '.join(sorted(DESIGNS))}")
    return DESIGNS[name]
