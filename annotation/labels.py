"""The label vocabularies and their numeric values (SPEC section 1 and 3). Pure: no Django, so that
``evaluation.science`` reads them (their words on pages: ``annotation.label_titles``)."""

CORRECT, PARTIAL, INCORRECT = "correct", "partial", "incorrect"
LABEL_VALUES = (CORRECT, PARTIAL, INCORRECT)
LABEL_SCORES = {CORRECT: 1.0, PARTIAL: 0.5, INCORRECT: 0.0}
# Ordinal rank for Krippendorff's alpha: incorrect < partial < correct.
LABEL_RANKS = {INCORRECT: 0, PARTIAL: 1, CORRECT: 2}
# Keyboard shortcuts of the annotator page.
LABEL_KEYS = {"1": CORRECT, "2": PARTIAL, "3": INCORRECT}

FULL, FRAME_PARTIAL, ERRONEOUS = "full", "partial", "erroneous"
FRAME_CHECK_VALUES = (FULL, FRAME_PARTIAL, ERRONEOUS)
FRAME_CHECK_RANKS = {ERRONEOUS: 0, FRAME_PARTIAL: 1, FULL: 2}
