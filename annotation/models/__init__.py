"""Database models of the annotation app, one module per concept."""
from .corpus import Corpus, Prediction, Question, System
from .flags import Flag
from .frames import (
    FrameAnnotation,
    FrameCheck,
    FrameCheckEvent,
    FrameDef,
    FrameElementDef,
    FrameLexicon,
    LexicalUnitDef,
)
from .labels import Label, LabelEvent
from .quality import Adjudication, GoldItem
from .triplets import Assignment, Fold, FoldItem, Triplet

__all__ = [
    "Adjudication",
    "GoldItem",
    "Assignment",
    "Corpus",
    "Flag",
    "Fold",
    "FoldItem",
    "FrameAnnotation",
    "FrameCheck",
    "FrameCheckEvent",
    "FrameDef",
    "FrameElementDef",
    "FrameLexicon",
    "Label",
    "LabelEvent",
    "LexicalUnitDef",
    "Prediction",
    "Question",
    "System",
    "Triplet",
]
