"""Notes of the pair review: a disagreement attached to a mention or an entity, with a
small thread of comments, settled by the pair as resolved or kept."""

from django.conf import settings
from django.db import models

from .layer import AnnotationLayer
from .mention import Entity, Mention


class ReviewThread(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"  # the layer was changed (or the objection withdrawn)
        KEPT = "kept", "Kept as annotated"  # the pair agreed to keep the annotation

    layer = models.ForeignKey(AnnotationLayer, on_delete=models.CASCADE, related_name="review_threads")
    # SET_NULL: a note outlives the mention a correction deleted; ``anchor`` keeps its text.
    mention = models.ForeignKey(Mention, null=True, blank=True, on_delete=models.SET_NULL, related_name="threads")
    entity = models.ForeignKey(Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="threads")
    anchor = models.CharField(max_length=300, help_text="What the note is about, as shown when it was opened.")
    anchor_start = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    opened_at = models.DateTimeField(auto_now_add=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["layer", "status", "anchor_start", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(status__in=["open", "resolved", "kept"]), name="thread_status"),
        ]

    def __str__(self) -> str:
        return f"note on {self.anchor} ({self.status})"


class ReviewComment(models.Model):
    thread = models.ForeignKey(ReviewThread, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["thread", "created_at", "id"]
