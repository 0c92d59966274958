"""Database models of the annotation app, one module per concept."""
from .corpus import Corpus, Prediction, Question, System
from .frames import (
    FrameAnnotation,
    FrameCheck,
    FrameCheckEvent,
    FrameDef,
    FrameElementDef,
    FrameLexicon,
    LexicalUnitDef,
)
from .jobs import Job, WorkerBeat
from .labels import Label, LabelEvent
from .triplets import Assignment, Fold, FoldItem, Triplet

__all__ = [
    "Assignment",
    "Corpus",
    "Fold",
    "FoldItem",
    "FrameAnnotation",
    "FrameCheck",
    "FrameCheckEvent",
    "FrameDef",
    "FrameElementDef",
    "FrameLexicon",
    "Job",
    "Label",
    "LabelEvent",
    "LexicalUnitDef",
    "Prediction",
    "Question",
    "System",
    "Triplet",
    "WorkerBeat",
]
