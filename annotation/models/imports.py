"""An import of an uploaded corpus file, run by a Celery task."""

from django.conf import settings
from django.db import models

from .corpus import Corpus


class ImportJob(models.Model):
    class Format(models.TextChoices):
        TAB = "tab", "TAB JSON corpus"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="import_jobs")
    file = models.FileField(upload_to="imports/%Y/%m/")
    original_name = models.CharField(max_length=300)
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.TAB)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    task_id = models.CharField(max_length=64, blank=True, help_text="The Celery task that runs the import.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    documents_done = models.PositiveIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"import of {self.original_name} into {self.corpus} ({self.status})"
