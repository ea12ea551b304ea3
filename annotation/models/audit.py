"""The audit trail: who changed what, when. Written only by the domain services."""

from django.conf import settings
from django.db import models

from .corpus import Corpus
from .document import Document
from .layer import AnnotationLayer


class AuditEvent(models.Model):
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    # Null for changes made by the system (a Celery task acting on nobody's behalf).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_events"
    )
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="audit_events")
    # Kept when the document or layer goes away: the trail outlives what it describes.
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    layer = models.ForeignKey(AnnotationLayer, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=50, db_index=True)
    target = models.CharField(max_length=300, blank=True, help_text="What was changed, e.g. a TAB mention id.")
    changes = models.JSONField(default=dict, blank=True, help_text="Values before and after the change.")
    # Set when the change was taken back by an undo (itself recorded as an "undo" event).
    undone = models.BooleanField(default=False)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["corpus", "-at"], name="audit_corpus_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor} {self.action} {self.target}"
