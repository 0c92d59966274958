"""The one shape of every registry of the platform: a lower app keeps the records an upper app registers.

A registry is an ordered map from a key to a record (a metric, a job kind, a language, a kind of
check, ...). The app that owns a kind of thing registers its records, usually from its
``AppConfig.ready()``; the lower app reads them without importing the upper one. Every registry has
the same four verbs:

- ``register(key, record)`` adds a record (again: replaced, in its place) and returns it;
  ``register_path(key, "package.module:NAME")`` adds one by its dotted path, imported on first use (so
  that start-up loads neither numpy nor pandas for a record whose module pulls them);
- ``get(key, default=None)`` one record, ``registry[key]`` one or ``KeyError``, ``key in registry``;
- ``all()`` every record by its key, in the order of registration;
- ``override(...)``, for tests: a context manager that adds (or, with ``only=True``, sets) records and
  puts the registry back as it was when the block ends.

``fill_on_first_use("package.module")`` names a module (or ``"package.module:function"``, called
with no argument) whose import fills the registry: it runs once, the first time the registry is read.

Pure standard library: importable without Django (``evaluation.science`` reads registries).

>>> toys = Registry("toys")
>>> toys.register("ball", 1)
1
>>> toys.register_path("root", "math:sqrt")
'math:sqrt'
>>> toys["root"](16.0), toys.get("kite"), "ball" in toys
(4.0, None, True)
>>> with toys.override({"kite": 3}, only=True):
...     sorted(toys.all())
['kite']
>>> list(toys.all())
['ball', 'root']
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager


class _Path(str):
    """A record not imported yet: the dotted path ``package.module:NAME`` of the object."""


def resolve(path: str):
    """The object a dotted path names: ``package.module:NAME`` (or ``package.module.NAME``).

    >>> resolve("math:pi") > 3, resolve("os.path.join") is __import__("os").path.join
    (True, True)
    """
    module, colon, name = path.partition(":")
    if not colon:
        module, _, name = path.rpartition(".")
    found = importlib.import_module(module)
    for part in name.split(".") if name else ():
        found = getattr(found, part)
    return found


class Registry:
    """An ordered map of records that other apps fill (see the module docstring)."""

    def __init__(self, name: str):
        self.name = name
        self._records: dict = {}
        self._fillers: list[str] = []

    def __repr__(self) -> str:
        return f"<Registry {self.name}: {', '.join(map(str, self._records)) or 'empty'}>"

    def register(self, key, record):
        """Add ``record`` under ``key`` (replacing the one there, in its place); returns ``record``."""
        self._records[key] = record
        return record

    def register_path(self, key, path: str):
        """Add the object at the dotted path ``path`` under ``key``, imported the first time it is read."""
        return self.register(key, _Path(path))

    def unregister(self, key) -> None:
        """Forget ``key`` (nothing happens if it is not there)."""
        self._records.pop(key, None)

    def fill_on_first_use(self, path: str) -> None:
        """Import ``path`` (a module, or call a ``module:function``) the first time the registry is read."""
        if path not in self._fillers:
            self._fillers.append(path)

    def _fill(self) -> None:
        while self._fillers:
            path = self._fillers.pop(0)
            found = resolve(path) if ":" in path else importlib.import_module(path)
            if ":" in path and callable(found):
                found()

    def _resolved(self, key):
        record = self._records[key]
        if isinstance(record, _Path):
            record = self._records[key] = resolve(record)
        return record

    def get(self, key, default=None):
        """The record of ``key``, or ``default``."""
        self._fill()
        return self._resolved(key) if key in self._records else default

    def __getitem__(self, key):
        self._fill()
        if key not in self._records:
            raise KeyError(key)
        return self._resolved(key)

    def __contains__(self, key) -> bool:
        self._fill()
        return key in self._records

    def __iter__(self) -> Iterator:
        self._fill()
        return iter(list(self._records))

    def __len__(self) -> int:
        self._fill()
        return len(self._records)

    def all(self) -> dict:
        """Every record by its key, in the order of registration (a copy)."""
        self._fill()
        return {key: self._resolved(key) for key in list(self._records)}

    @contextmanager
    def override(self, records: dict | None = None, *, only: bool = False):
        """For tests: add ``records`` (with ``only``: hold nothing else) for the block, then restore."""
        self._fill()
        saved = dict(self._records)
        if only:
            self._records.clear()
        self._records.update(records or {})
        try:
            yield self
        finally:
            self._records.clear()
            self._records.update(saved)
