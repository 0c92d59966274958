"""Database models of the annotation app, one module per concept."""

from .corpus import Corpus, Prediction, Question, System
from .flags import Flag
from .labels import Label, LabelEvent
from .privacy import ConsentVersion, ErasureTombstone
from .quality import Adjudication, GoldItem
from .screening import ParticipantDecision
from .studies import Participant, Study
from .triplets import Assignment, Fold, FoldItem, Triplet

__all__ = [
    "Adjudication",
    "Assignment",
    "ConsentVersion",
    "Corpus",
    "ErasureTombstone",
    "Flag",
    "Fold",
    "FoldItem",
    "GoldItem",
    "Label",
    "LabelEvent",
    "Participant",
    "ParticipantDecision",
    "Prediction",
    "Question",
    "Study",
    "System",
    "Triplet",
]
