"""Machine pre-annotations, kept apart from human annotations: each run of the engine
over documents, and the spans it proposed with their decisions, risk, the trained
models' probability and reasons."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from ..enums import ConfidentialStatus, EntityType, IdentifierType
from .corpus import Corpus
from .document import Document
from .job import Job, JobStep


class PreannotationRun(Job):
    """``total`` is the number of documents of the run, ``done`` those finished."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="preannotation_runs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    model_version = models.CharField(
        max_length=100, default="rules", help_text="Which models produced the predictions."
    )
    # What the engine could use on this run: recognizer, indicators (available or why not).
    engine = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"pre-annotation run {self.pk} of {self.corpus} ({self.status}, {self.total} documents)"


class RunDocument(JobStep):
    """One document of a run: done once (a redelivered task does not count twice)."""

    run = models.ForeignKey(PreannotationRun, on_delete=models.CASCADE, related_name="run_documents")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    predictions = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "document"], name="run_document_unique")]


class Prediction(models.Model):
    """One proposed mention, with the decision proposed for its entity."""

    run = models.ForeignKey(PreannotationRun, on_delete=models.CASCADE, related_name="predictions")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="predictions")
    entity_key = models.PositiveIntegerField(help_text="Mentions with the same key form one proposed entity.")
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()
    span_text = models.TextField()
    entity_type = models.CharField(max_length=10, choices=EntityType.choices)
    identifier_type = models.CharField(max_length=10, choices=IdentifierType.choices)
    risk = models.FloatField(default=0.0)
    mask_probability = models.FloatField(
        null=True,
        blank=True,
        help_text="The trained models' P(mask) for the entity; empty when only rules judged it.",
    )
    information_content = models.FloatField(default=0.0)
    reasons = models.JSONField(default=list, blank=True)
    # The confidential status proposed for the entity (shown with the identifier
    # suggestion, taken by the same key), and why.
    confidential_status = models.CharField(
        max_length=20, choices=ConfidentialStatus.choices, default=ConfidentialStatus.NOT_CONFIDENTIAL
    )
    confidential_reason = models.CharField(max_length=300, blank=True)
    source = models.CharField(max_length=60, blank=True, help_text="Which part of the recognizer found the span.")

    class Meta:
        ordering = ["document", "start_offset", "end_offset"]
        indexes = [models.Index(fields=["document", "run"], name="prediction_document_run")]
        constraints = [
            models.CheckConstraint(
                condition=Q(start_offset__lt=models.F("end_offset")), name="prediction_start_before_end"
            ),
            models.CheckConstraint(condition=Q(entity_type__in=EntityType.values), name="prediction_entity_type_valid"),
            models.CheckConstraint(
                condition=Q(identifier_type__in=IdentifierType.values), name="prediction_identifier_type_valid"
            ),
            models.CheckConstraint(
                condition=Q(confidential_status__in=ConfidentialStatus.values),
                name="prediction_confidential_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.span_text} ({self.entity_type}, {self.identifier_type})"
