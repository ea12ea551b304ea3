"""Models of the TAB workflow, one concept per module."""

from .audit import AuditEvent
from .background import BackgroundDocument
from .corpus import Corpus, CorpusMembership
from .document import Document
from .imports import ImportJob
from .layer import AnnotationLayer, ReviewAssignment, ReviewPair
from .mention import Entity, Mention, MentionLink
from .preannotation import PreannotationRun, Prediction, RunDocument
from .reidentification import ReidentificationOutcome, ReidentificationRun
from .release import Release, ReleaseDecision, ReleaseDocument
from .review import MaskedReview
from .review_notes import ReviewComment, ReviewThread
from .training import TrainedModel

__all__ = [
    "AnnotationLayer",
    "AuditEvent",
    "BackgroundDocument",
    "Corpus",
    "CorpusMembership",
    "Document",
    "Entity",
    "ImportJob",
    "MaskedReview",
    "Mention",
    "MentionLink",
    "PreannotationRun",
    "Prediction",
    "ReidentificationOutcome",
    "ReidentificationRun",
    "Release",
    "ReleaseDecision",
    "ReleaseDocument",
    "ReviewAssignment",
    "ReviewComment",
    "ReviewPair",
    "ReviewThread",
    "RunDocument",
    "TrainedModel",
]
