"""The value of each label under each human metric: a lower-layer registry that the report's metric
registry (``evaluation.science.metric_registry``) fills, so that the active design (this app and
``models_runner``) reads the human metrics from their one home without importing the app above.

A human metric registered there brings its per-triplet scorer; the value of label v under it is the
scorer applied to a triplet with one label v (``evaluation.science.metric_registry.register``).
The evaluation app installs a loader at start-up (``EvaluationConfig.ready``) that imports its
registry the first time a value is asked for, so a management command that never loaded the report
still sees every human metric.

Pure, no database.

>>> register("toy", (1.0, 0.25, 0.0))
>>> values("toy")
(1.0, 0.25, 0.0)
>>> unregister("toy")
"""

from __future__ import annotations

from collections.abc import Callable

_VALUES: dict[str, tuple] = {}
_LOADER: list[Callable] = []


def register(key: str, label_values) -> None:
    """Record the values of (correct, partial, incorrect) under the human metric ``key``."""
    _VALUES[key] = tuple(float(v) for v in label_values)


def unregister(key: str) -> None:
    """Forget ``key`` (for tests that add a toy metric)."""
    _VALUES.pop(key, None)


def set_loader(loader: Callable) -> None:
    """``loader()`` fills the registry; called once, the first time it is read."""
    _LOADER[:] = [loader]


def _load():
    while _LOADER:
        _LOADER.pop()()


def keys() -> tuple:
    """The human metrics' keys, in the registry's order."""
    _load()
    return tuple(_VALUES)


def values(key: str) -> tuple:
    """The values of (correct, partial, incorrect) under ``key``; ``ValueError`` naming the known ones."""
    _load()
    if key not in _VALUES:
        raise ValueError(f"metric must be one of {', '.join(_VALUES) or '(none registered)'}, got {key!r}")
    return _VALUES[key]
