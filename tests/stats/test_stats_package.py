"""The statistics package ``stats/``: its examples run, its public functions carry numpydoc docstrings,
and the one level, z and normal interval are the ones every fixed interval of the report is read with."""

import math

import pytest
from scipy.stats import norm

from stats import intervals
from tests.evaluation.test_doctests import examples_run, missing_sections

MODULES = ("labels", "intervals", "design", "active", "ppi", "betting", "bootstrap", "significance")
WITH_EXAMPLES = MODULES[1:]  # labels holds constants only


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples_run(name):
    examples_run(f"stats.{name}")


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_public_functions_have_numpydoc_docstrings(name):
    missing = missing_sections(f"stats.{name}")
    assert not missing, f"stats.{name}: " + ", ".join(missing)


def test_one_level_one_z():
    """Z95 is the reports' 1.96: the two-sided normal quantile of LEVEL, rounded to two decimals."""
    assert intervals.LEVEL == 0.95
    assert intervals.Z95 == 1.96 == round(norm.ppf(1 - (1 - intervals.LEVEL) / 2), 2)
    low, high = intervals.normal(0.5, 0.0004)
    assert (low, high) == pytest.approx((0.5 - 1.96 * 0.02, 0.5 + 1.96 * 0.02), abs=1e-15)
    assert intervals.normal(None, 0.1) == intervals.normal(0.1, None) == (None, None)


def test_wilson_is_read_with_the_same_z():
    """The Wilson interval against its formula written out with 1.96, and its edges."""
    p, n, z = 0.8, 10, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert intervals.wilson(8, 10) == pytest.approx((centre - half, centre + half), abs=1e-15)
    assert intervals.wilson(0, 0) == (None, None)
    assert intervals.wilson(0, 5)[0] == 0.0 and intervals.wilson(5, 5)[1] == 1.0


def test_no_other_z_in_the_code():
    """One home: no production module but ``stats/intervals.py`` writes a 95% z (1.96 or 1.95996...) as a
    number (its docstrings and comments may say it)."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{node.lineno}"
        for app in ("stats", "core", "annotation", "models_runner", "frames", "evaluation", "config")
        for path in sorted((root / app).rglob("*.py"))
        if path.relative_to(root).as_posix() != "stats/intervals.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and round(node.value, 2) == 1.96
    ]
    assert not found, found
