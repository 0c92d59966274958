"""Pages of an upper app that a page of a lower app links to (annotation's home page: the research
reports), registered by the app that serves them, so that the lower page never writes an upper app's
address (bin/check-architecture reads the mounted URL prefixes in templates).

>>> with PAGES.override({"toy": lambda: "/toy/"}):
...     url("toy"), url("gone")
('/toy/', None)
"""

from __future__ import annotations

from core.registry import Registry

#: name -> ``address()``: the page's URL (its app reverses its own URL name).
PAGES = Registry("pages")


def url(name: str) -> str | None:
    """The address of the page registered as ``name``; None when its app is not installed."""
    address = PAGES.get(name)
    return address() if address else None
