import numpy as np
import pytest

from models_runner.spans import best_answer, best_span_in_feature

CONTEXT = "Denver Broncos beat Carolina"
#            [CLS] q  [SEP] Denver Broncos beat Carolina [SEP]
OFFSETS = [(0, 0), (0, 3), (0, 0), (0, 6), (7, 14), (15, 19), (20, 28), (0, 0)]
MASK = [False, False, False, True, True, True, True, False]


def feature(start, end, offsets=OFFSETS, mask=MASK):
    return {
        "start_logits": np.array(start, float),
        "end_logits": np.array(end, float),
        "offsets": offsets,
        "context_mask": mask,
    }


def test_best_span_uses_offsets_and_ignores_question_tokens():
    # The question token (index 1) has the highest logits, but it is not context.
    f = feature([0, 9, 0, 5, 1, 0, 0, 0], [0, 9, 0, 0, 6, 0, 0, 0])
    assert best_answer([f], CONTEXT) == "Denver Broncos"


def test_end_before_start_is_never_chosen():
    f = feature([0, 0, 0, 0, 0, 0, 8, 0], [0, 0, 0, 7, 0, 0, 1, 0])
    assert best_answer([f], CONTEXT) == "Carolina"


def test_max_answer_len_limits_the_span():
    start = [0, 0, 0, 5, 0, 0, 0, 0]
    end = [0, 0, 0, 0, 0, 0, 5, 0]
    assert best_answer([feature(start, end)], CONTEXT, max_answer_len=4) == "Denver Broncos beat Carolina"
    span = best_span_in_feature(start, end, OFFSETS, context_mask=MASK, max_answer_len=2)
    assert CONTEXT[span.start_char : span.end_char] in {"Denver Broncos", "Denver", "Carolina", "beat Carolina"}
    assert span.end_char - span.start_char <= len("beat Carolina")


def test_best_over_features_wins():
    low = feature([0, 0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0])
    high = feature([0, 0, 0, 0, 0, 0, 4, 0], [0, 0, 0, 0, 0, 0, 4, 0])
    assert best_answer([low, high], CONTEXT) == "Carolina"
    assert best_answer([high, low], CONTEXT) == "Carolina"


def test_no_context_token_gives_empty_answer():
    f = feature([1] * 8, [1] * 8, mask=[False] * 8)
    assert best_answer([f], CONTEXT) == ""
    with pytest.raises(ValueError):
        best_span_in_feature([1], [1], [(0, 1)], context_mask=[True], max_answer_len=0)
