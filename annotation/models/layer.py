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
    """A reviewer paired on a layer (TAB Step 5), and where their review stands.

    The review is signed off by both sides: the reviewer, and the author who accepts the
    corrections. Each sign-off records the layer version it saw, so a change made
    afterwards (by either) asks for a new sign-off rather than slipping through."""

    class Reidentification(models.TextChoices):
        NO = "no", "No"
        MAYBE = "maybe", "Perhaps, with some effort"
        YES = "yes", "Yes"

    layer = models.ForeignKey(AnnotationLayer, on_delete=models.CASCADE, related_name="review_assignments")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_assignments")
    created_at = models.DateTimeField(auto_now_add=True)
    # The masked document is read first: "could I re-identify the person from this?"
    masked_read_at = models.DateTimeField(null=True, blank=True)
    reidentifiable = models.CharField(max_length=10, choices=Reidentification.choices, blank=True)
    reidentification_comment = models.TextField(blank=True)
    reviewer_confirmed_version = models.PositiveIntegerField(null=True, blank=True)
    author_confirmed_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["layer", "reviewer"], name="review_assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} reviews {self.layer}"


class ReviewPair(models.Model):
    """Two annotators of a corpus who review each other's confirmed layers.

    Stored with ``first.pk < second.pk`` so a pair is one row whichever way round it
    was made."""

    corpus = models.ForeignKey("annotation.Corpus", on_delete=models.CASCADE, related_name="review_pairs")
    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["corpus", "id"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "first", "second"], name="review_pair_unique"),
            models.CheckConstraint(condition=models.Q(first__lt=models.F("second")), name="review_pair_ordered"),
        ]

    def __str__(self) -> str:
        return f"{self.first} ⇄ {self.second} in {self.corpus}"

    def partner_of(self, user_id: int) -> int:
        return self.second_id if user_id == self.first_id else self.first_id
