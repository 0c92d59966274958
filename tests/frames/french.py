"""French material for the SPEC 15 tests: the lexicon of ``bench.kit.french`` (shared with the benchmarks), a
parser fixture and the PIAF sample."""

import pytest

from bench.kit.french import FRENCH_FRAMES, framed_by_first_candidate, french_lexicon, french_words  # noqa: F401
from tests.conftest import SHARED_DATA, require


@pytest.fixture(scope="session")
def french_nlp():
    from frames import parsing

    try:
        return parsing.load("fr_core_news_sm")
    except parsing.ParserError as exc:
        require(False, str(exc))


PIAF = SHARED_DATA / "piaf-v1.1"


@pytest.fixture
def piaf_small():
    path = PIAF / "small" / "corpus.jsonl"
    require(path.exists(), f"shared data not found at {path}")
    return path
