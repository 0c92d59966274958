from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)
