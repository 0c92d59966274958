"""The label vocabularies and their numeric values (SPEC section 1 and 3): the one home of what a label
is worth, read by every room (the statistics here, the apps above). Pure: no Django, no app (their
words on pages: ``annotation.label_titles``; a human metric's value of each label:
``annotation.human_metrics``)."""

CORRECT, PARTIAL, INCORRECT = "correct", "partial", "incorrect"
LABEL_VALUES = (CORRECT, PARTIAL, INCORRECT)
LABEL_SCORES = {CORRECT: 1.0, PARTIAL: 0.5, INCORRECT: 0.0}
# Ordinal rank for Krippendorff's alpha: incorrect < partial < correct.
LABEL_RANKS = {INCORRECT: 0, PARTIAL: 1, CORRECT: 2}

FULL, FRAME_PARTIAL, ERRONEOUS = "full", "partial", "erroneous"
FRAME_CHECK_VALUES = (FULL, FRAME_PARTIAL, ERRONEOUS)
FRAME_CHECK_RANKS = {ERRONEOUS: 0, FRAME_PARTIAL: 1, FULL: 2}
