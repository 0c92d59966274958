from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)
from tests.frames.french import french_nlp, piaf_small  # noqa: F401  (fixtures)
