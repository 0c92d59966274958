"""``loads_checked`` skips the nesting walk when a line has few brackets (issue 27, point 11: the
import's validation pass spent a third of its time there); the limit itself is unchanged."""

import json

import pytest

from core.safe_json import MAX_DEPTH, HostileValue, loads_checked


def nested(depth):
    value = "x"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


@pytest.mark.parametrize("as_bytes", [False, True])
def test_the_limit_is_the_same_with_and_without_the_shortcut(as_bytes):
    def load(value):
        text = json.dumps({"a": value})
        return loads_checked(text.encode() if as_bytes else text)

    assert load(nested(MAX_DEPTH)) is not None  # the line's object + MAX_DEPTH levels: allowed
    with pytest.raises(HostileValue, match="nested deeper"):
        load(nested(MAX_DEPTH + 1))
    many = {"answer": "[{" * 500, "list": [[1], [2], {"a": [3]}] * 50}  # brackets in strings, wide not deep
    assert load(many)["a"]["answer"] == "[{" * 500
