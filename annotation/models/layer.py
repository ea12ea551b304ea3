"""One annotator's annotation of one document, and who reviews it."""

from django.conf import settings
from django.db import models

from ..enums import LayerStatus
from .document import Document


class AnnotationLayer(models.Model):
    """The annotations of one annotator on one document. Layers are never merged: text
    anonymisation admits several valid solutions."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="layers")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="layers")
    status = models.CharField(max_length=20, choices=LayerStatus.choices, default=LayerStatus.ASSIGNED)
    # Incremented by every change to the layer's annotations: the token of optimistic
    # concurrency (a client sends the version it saw; a stale edit is refused).
    version = models.PositiveIntegerField(default=0)
    # Serial numbers for TAB identifiers of mentions and entities created in the app.
    next_serial = models.PositiveIntegerField(default=1)
    # Order of the layer among the document's annotations in the imported file.
    position = models.PositiveIntegerField(default=0)
    tab_extra = models.JSONField(default=dict, blank=True)
    assigned_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["document", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["document", "annotator"], name="layer_one_per_annotator"),
            models.CheckConstraint(condition=models.Q(status__in=LayerStatus.values), name="layer_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.document.doc_id} / {self.annotator.username}"

    @property
    def quality_checked(self) -> bool:
        """TAB's ``quality_checked``: the layer went through the pair review."""
        return self.status == LayerStatus.REVIEWED


class ReviewAssignment(models.Model):
    """A reviewer paired on a layer (TAB Step 5)."""

    layer = models.ForeignKey(AnnotationLayer, on_delete=models.CASCADE, related_name="review_assignments")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_assignments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["layer", "reviewer"], name="review_assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} reviews {self.layer}"
