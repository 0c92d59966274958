"""The live page's presentation (issue 45, point 5): bounds shown within the metric's range and counts
for the verdict (the English sentences it shows go through ``core``'s ``in_words`` filter)."""

from django import template

from evaluation.science import metric_registry

register = template.Library()


@register.filter
def within(value, metric):
    """A bound shown within the metric's range: [0, 1] for Hscore, [0, 100] for Hcorrect (an interval
    may reach past it; the page never shows a share above 1).

    >>> within(1.048, "hscore"), within(-0.02, "hscore"), within(0.5, "hscore"), within(None, "hscore")
    (1.0, 0.0, 0.5, None)
    """
    if value is None:
        return None
    try:
        scale = metric_registry.get(metric).scale
    except (KeyError, ValueError):
        scale = 1.0
    return min(max(float(value), 0.0), scale)


@register.filter
def n_where(rows, key):
    """How many of ``rows`` (dicts) have a true ``key``.

    >>> n_where([{"done": True}, {"done": False}, {}], "done")
    1
    """
    return sum(1 for r in rows or () if r.get(key))
