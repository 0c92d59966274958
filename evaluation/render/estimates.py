"""The tables of the estimates an automatic judge helps (report.json ``ppi``, SPEC 10, and ``active``,
SPEC 12) as the report page shows them (pure: report.json data in, formatted cells out)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from evaluation.render.numbers import gain, interval_text, metric_value, score, sort_key
from evaluation.science import metric_registry


def ppi_tables(data):
    """The prediction-powered estimates (SPEC 10, ``ppi`` rows): one table per metric.

    Hscore in [0, 1], Hcorrect in %, a row per system; empty without a judge.

    Parameters
    ----------
    data : dict
        report.json data (``ppi``).

    Returns
    -------
    list of dict
        ``metric``, ``title``, ``rows`` (formatted ``n``, ``estimate``, ``interval``,
        ``classical``, ``classical_interval``, ``sequence`` and ``classical_sequence`` (SPEC 16: the
        confidence sequences, "—" under 30 labels), ``lambda``, ``gain`` and sort keys).

    Examples
    --------
    >>> from evaluation.render.estimates import ppi_tables
    >>> row = {"system": "a", "metric": "hscore", "n_human": 20, "n_total": 100, "estimate": 0.61, "ci_low": 0.5,
    ...        "ci_high": 0.72, "classical": 0.6, "classical_ci_low": 0.45, "classical_ci_high": 0.75,
    ...        "lambda": 0.8, "gain": 1.5}
    >>> shown = ppi_tables({"ppi": [row]})[0]["rows"][0]
    >>> shown["n"], shown["estimate"], shown["interval"], shown["gain"], shown["sequence"]
    ('20 / 100', '0.610', '0.500 – 0.720', '1.50×', '—')
    """
    tables = []
    for metric in metric_registry.human_keys():
        rows = [r for r in data.get("ppi") or [] if r["metric"] == metric]
        if not rows:
            continue
        tables.append(
            {
                "metric": metric,
                "title": metric_registry.get(metric).title,
                "rows": [
                    {
                        "system": r["system"],
                        "n": f"{r['n_human']} / {r['n_total']}",
                        "n_sort": r["n_human"],
                        "estimate": _flagged(metric, r),
                        "estimate_sort": sort_key(r.get("estimate")),
                        "interval": fixed_interval(metric, r),
                        "classical": metric_value(metric, r.get("classical")),
                        "classical_sort": sort_key(r.get("classical")),
                        "classical_interval": interval_text(
                            metric, r.get("classical_ci_low"), r.get("classical_ci_high")
                        ),
                        "sequence": interval_text(metric, r.get("cs_low"), r.get("cs_high")),
                        "classical_sequence": interval_text(
                            metric, r.get("classical_cs_low"), r.get("classical_cs_high")
                        ),
                        "lambda": score(r.get("lambda"), 2),
                        "gain": gain(r.get("gain")),
                        "gain_sort": sort_key(r.get("gain")),
                    }
                    for r in rows
                ],
            }
        )
    return tables


def active_tables(data):
    """The active estimates (SPEC 12, ``active`` rows): one table per metric, and the design in words.

    Parameters
    ----------
    data : dict
        report.json data (``active``, ``active_design``).

    Returns
    -------
    dict or None
        ``design`` (``active_design``: ``kind``, ``reason``, ``progress``, the pilot, the residual
        model, the measured gains) and ``tables`` (one per human metric of the registry: ``metric``,
        ``title``, ``rows`` with formatted ``n``, ``estimate``, ``interval``, ``lambda``, ``beta``,
        ``gain`` and ``vs_uniform``, the measured gain against uniform PPI++); None without rows.

    Examples
    --------
    >>> from evaluation.render.estimates import active_tables
    >>> row = {"system": "a", "metric": "hscore", "n_labeled": 20, "n_sampled": 25, "n_total": 100,
    ...        "estimate": 0.61, "ci_low": 0.5, "ci_high": 0.72, "lambda": 0.8, "gain": 1.5}
    >>> shown = active_tables({"active": [row], "active_design": {"kind": "active", "progress": "20 of 25"}})
    >>> r = shown["tables"][0]["rows"][0]
    >>> r["n"], r["estimate"], r["interval"], shown["design"]["progress"]
    ('20 of 25 / 100', '0.610', '0.500 – 0.720', '20 of 25')
    """
    rows = data.get("active") or []
    if not rows:
        return None
    design = data.get("active_design") or {}
    measured = {(g["system"], g["metric"]): g.get("vs_uniform_ppi") for g in design.get("gains") or []}
    tables = []
    for metric in metric_registry.human_keys():
        mine = [r for r in rows if r["metric"] == metric]
        if mine:
            tables.append(
                {
                    "metric": metric,
                    "title": metric_registry.get(metric).title,
                    "rows": [
                        {
                            "system": r["system"],
                            "n": _("%(labeled)s of %(sampled)s / %(total)s")
                            % {"labeled": r["n_labeled"], "sampled": r["n_sampled"], "total": r["n_total"]},
                            "n_sort": r["n_labeled"],
                            "estimate": _flagged(metric, r),
                            "estimate_sort": sort_key(r.get("estimate")),
                            "interval": fixed_interval(metric, r),
                            "lambda": score(r.get("lambda"), 2),
                            "beta": metric_value(metric, r.get("beta")),
                            "gain": gain(r.get("gain")),
                            "gain_sort": sort_key(r.get("gain")),
                            "vs_uniform": gain(measured.get((r["system"], metric))),
                            "vs_uniform_sort": sort_key(measured.get((r["system"], metric))),
                        }
                        for r in mine
                    ],
                }
            )
    return {"design": design, "tables": tables}


def fixed_interval(metric, row):
    """A ``ppi`` or ``active`` row's 95% interval as text, or "too few labels" when the row has too few
    to give one (SPEC 16: never [x, x]).

    Parameters
    ----------
    metric : str
        The metric.
    row : dict
        ``ci_low``, ``ci_high``, optional ``too_few``.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.estimates import fixed_interval
    >>> fixed_interval("hscore", {"ci_low": 0.4, "ci_high": 0.6}), fixed_interval("hscore", {"too_few": True})
    ('0.400 – 0.600', 'too few labels')
    """
    if row.get("too_few"):
        return str(_("too few labels"))
    return interval_text(metric, row.get("ci_low"), row.get("ci_high"))


def _flagged(metric, row):
    """The estimate as text, marked when it was clipped to [0, 1] (SPEC 16)."""
    text = metric_value(metric, row.get("estimate"))
    return f"{text} ({_('clipped')})" if row.get("clipped") else text
