"""The examples in the docstrings of ``evaluation/`` run, and give the output they show (those of the
statistics package ``stats/``: ``tests/stats/test_stats_package.py``).

Every public function of the pure modules (no database) carries a numpydoc docstring with
Parameters, Returns and Examples sections (as scikit-learn's metrics do); the database-bound
modules carry Parameters and Returns.
"""

import doctest
import importlib
import inspect

import pytest

PURE = (
    "science.metrics",
    "science.rover",
    "science.agreement",
    "science.factors",
    "render.paper",
    "render.figures",
    "render.outputs",
    "report.inputs",
    "science.ppi",
    "science.live_parts",
    "science.active",
    "science.anytime",
    "render.estimates",
    "render.page",
    "files",
    "report.pipeline",
    "report.config",
    "report.scoring",
    "report.context",
    "report.system_steps",
    "report.factor_steps",
    "report.tables",
    "report.sections",
    "science.human",
    "science.metric_registry",
    "render.choices",
    "archive.format",
    "archive.values",
    "science.crowd",
    "science.crowd_figures",
    "report.crowd_section",
)
DATABASE = (
    "judge_inputs",
    "database",
    "report_inputs",
    "live",
    "archive.collect",
    "archive.restore",
    "archive.insert",
    "sql",
    "archive.unpack",
    "crowd_figures",
)
# functions that read the database: a docstring without an example
NO_EXAMPLE = {"files": {"report_jobs", "file_names", "file_path", "load_json"}}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def public_functions(module):
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not hasattr(obj, "as_view"):  # a view's docstring is its API description
            for attr, member in vars(obj).items():
                if inspect.isfunction(member) and not attr.startswith("_"):
                    yield f"{name}.{attr}", member


def examples_run(dotted: str) -> None:
    """The examples of module ``dotted`` run (at least one) and give the output they show."""
    result = doctest.testmod(importlib.import_module(dotted), optionflags=FLAGS, report=True)
    assert result.attempted > 0, f"{dotted} has no example"
    assert result.failed == 0, f"{result.failed} example(s) of {dotted} failed (output above)"


def missing_sections(dotted: str, *, examples: bool = True, no_example=()) -> list:
    """``function: section`` for each numpydoc section a public function of module ``dotted`` lacks."""
    sections = ("Parameters\n", "Returns\n") + (("Examples\n",) if examples else ())
    missing = []
    for qualname, function in public_functions(importlib.import_module(dotted)):
        doc = inspect.getdoc(function) or ""
        if qualname in no_example:
            doc += "\nExamples\n"
        if not inspect.signature(function).parameters.keys() - {"self"}:
            doc += "\nParameters\n"
        if "\nYields\n" in doc or inspect.signature(function).return_annotation in (None, "None"):
            doc += "\nReturns\n"  # a generator, or a function that returns nothing (numpydoc: no section)
        missing += [f"{qualname}: {s.strip()}" for s in sections if s not in doc]
    return missing


@pytest.mark.parametrize("name", PURE)
def test_examples_run(name):
    examples_run(f"evaluation.{name}")


@pytest.mark.parametrize("name", PURE + DATABASE)
def test_public_functions_have_numpydoc_docstrings(name):
    missing = missing_sections(f"evaluation.{name}", examples=name in PURE, no_example=NO_EXAMPLE.get(name, ()))
    assert not missing, f"evaluation.{name}: " + ", ".join(missing)
