"""The value of each label under each human metric: a lower-layer registry that the report's metric
registry (``evaluation.science.metric_registry``) fills, so that the active design's shell
(``models_runner.active_design``) reads the human metrics from their one home without importing the
app above, and hands their values to the pure design (``stats.design``).

A human metric registered there brings its per-triplet scorer; the value of label v under it is the
scorer applied to a triplet with one label v (``evaluation.science.metric_registry.register``).
The evaluation app names its registry's module at start-up (``EvaluationConfig.ready``:
``VALUES.fill_on_first_use``), imported the first time a value is asked for, so a management command
that never loaded the report still sees every human metric.

Pure, no database.

>>> register("toy", (1.0, 0.25, 0.0))
>>> values("toy")
(1.0, 0.25, 0.0)
>>> unregister("toy")
"""

from __future__ import annotations

from core.registry import Registry

#: human metric key -> the values of (correct, partial, incorrect) (core.registry's shape).
VALUES = Registry("human metric values")


def register(key: str, label_values) -> None:
    """Record the values of (correct, partial, incorrect) under the human metric ``key``."""
    VALUES.register(key, tuple(float(v) for v in label_values))


def unregister(key: str) -> None:
    """Forget ``key`` (for tests that add a toy metric)."""
    VALUES.unregister(key)


def keys() -> tuple:
    """The human metrics' keys, in the registry's order."""
    return tuple(VALUES)


def values(key: str) -> tuple:
    """The values of (correct, partial, incorrect) under ``key``; ``ValueError`` naming the known ones."""
    if key not in VALUES:
        raise ValueError(f"metric must be one of {', '.join(VALUES) or '(none registered)'}, got {key!r}")
    return VALUES[key]
