"""Models of the TAB workflow, one concept per module."""

from .audit import AuditEvent
from .background import BackgroundDocument
from .corpus import Corpus, CorpusMembership
from .document import Document
from .imports import ImportJob
from .job import FINISHED_JOB_STATUSES, JobStatus, StepStatus
from .layer import AnnotationLayer, ReviewAssignment, ReviewPair
from .mention import Entity, Mention, MentionLink
from .preannotation import PreannotationRun, Prediction, RunDocument
from .reidentification import ReidentificationOutcome, ReidentificationRun
from .release import Release, ReleaseDecision, ReleaseDocument
from .report import ReportJob, ReportKind
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
    "FINISHED_JOB_STATUSES",
    "ImportJob",
    "JobStatus",
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
    "ReportJob",
    "ReportKind",
    "ReviewAssignment",
    "ReviewComment",
    "ReviewPair",
    "ReviewThread",
    "RunDocument",
    "StepStatus",
    "TrainedModel",
]
