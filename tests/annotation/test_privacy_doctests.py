"""The examples in the docstrings of the participants'-data rules (SPEC 18) run and give what they show."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["annotation.pseudonyms", "annotation.retention", "evaluation.archive.personal"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
