"""Models of the TAB workflow, one concept per module."""

from .audit import AuditEvent
from .corpus import Corpus, CorpusMembership
from .document import Document
from .imports import ImportJob
from .layer import AnnotationLayer, ReviewAssignment
from .mention import Entity, Mention, MentionLink
from .review import MaskedReview

__all__ = [
    "AnnotationLayer",
    "AuditEvent",
    "Corpus",
    "CorpusMembership",
    "Document",
    "Entity",
    "ImportJob",
    "MaskedReview",
    "Mention",
    "MentionLink",
    "ReviewAssignment",
]
