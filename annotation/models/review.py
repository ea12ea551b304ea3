"""The masked review rendering of a layer (TAB Step 5)."""

from django.db import models

from .layer import AnnotationLayer


class MaskedReview(models.Model):
    """The document as it would be released from this layer: direct and quasi
    identifiers masked, confidential attributes readable but marked.

    Rendered by a Celery task after confirmation; ``layer_version`` says which state of
    the layer it shows, so a stale rendering is recognised and redone."""

    layer = models.OneToOneField(AnnotationLayer, on_delete=models.CASCADE, related_name="masked_review")
    layer_version = models.PositiveIntegerField()
    # The corpus's mask style it was rendered with: changing the style re-renders.
    style = models.CharField(max_length=10, default="stars")
    masked_text = models.TextField()
    # [[start, end], ...] in masked_text: the masked (merged) intervals.
    masked_spans = models.JSONField(default=list, blank=True)
    # [[start, end, category], ...] in masked_text: confidential attributes to mark.
    confidential_spans = models.JSONField(default=list, blank=True)
    masked_mentions = models.PositiveIntegerField(default=0)
    rendered_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"masked review of {self.layer} (version {self.layer_version})"
