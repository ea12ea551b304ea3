"""The model registry: every model trained from a corpus's confirmed layers, with what it
was trained on, how long it took, how well it did on held-out documents, and whether
it is the one the pre-annotation uses."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from .corpus import Corpus
from .job import Job, JobStatus


class TrainedModel(Job):
    """``done`` of ``total`` (100) is the training's progress in per cent."""

    class Kind(models.TextChoices):
        RECOGNIZER = "recognizer", "Entity recognizer (spaCy NER)"
        MASKING = "masking", "Masking classifier"
        SEQUENCE = "sequence", "Sequence labeller (transformer)"

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="trained_models")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    version = models.PositiveIntegerField(help_text="1, 2, ... per corpus and kind.")
    total = models.PositiveIntegerField(default=100)
    # The trained model's directory (spaCy, transformers) or file, by name inside its
    # archive: every worker unpacks the archive into its own cache (services.model_store).
    path = models.CharField(max_length=500, blank=True)
    # The archive in the default storage (object storage when scaled out) and its SHA-256.
    archive = models.CharField(max_length=500, blank=True)
    checksum = models.CharField(max_length=64, blank=True)
    config = models.JSONField(default=dict, blank=True)
    # The data snapshot: [[layer id, layer version], ...] and the document split.
    training_layers = models.JSONField(default=list, blank=True)
    train_documents = models.JSONField(default=list, blank=True)
    heldout_documents = models.JSONField(default=list, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    is_active = models.BooleanField(default=False)
    activated_at = models.DateTimeField(null=True, blank=True)
    # Who made it the model in use last, and the written reason when that overrode a
    # drop against the model in use (or a missing comparison): see promotion_guard.
    promoted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    promotion_reason = models.TextField(blank=True)
    trigger = models.CharField(max_length=20, default="manual", help_text="manual, command or schedule")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["corpus", "kind", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "kind", "version"], name="trained_model_version_unique"),
            # Never two trainings of one kind at once, never two active models of one kind.
            models.UniqueConstraint(
                fields=["corpus", "kind"],
                condition=Q(status__in=[JobStatus.PENDING, JobStatus.RUNNING]),
                name="trained_model_one_training_per_kind",
            ),
            models.UniqueConstraint(
                fields=["corpus", "kind"], condition=Q(is_active=True), name="trained_model_one_active_per_kind"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["recognizer", "masking", "sequence"]), name="trained_model_kind_valid"
            ),
            models.CheckConstraint(condition=Q(status__in=JobStatus.values), name="trained_model_status_valid"),
            models.CheckConstraint(
                condition=Q(is_active=False) | Q(status="succeeded"), name="trained_model_active_is_trained"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.corpus} {self.kind} v{self.version}"

    @property
    def label(self) -> str:
        return f"{self.kind} v{self.version}"
