"""An import of an uploaded corpus file, run by a Celery task."""

from django.conf import settings
from django.db import models

from .corpus import Corpus
from .job import Job


class ImportJob(Job):
    """``done`` counts the documents parsed; ``file`` is deleted once the import ends."""

    class Format(models.TextChoices):
        TAB = "tab", "TAB JSON corpus"

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="import_jobs")
    file = models.FileField(upload_to="imports/%Y/%m/", blank=True)
    original_name = models.CharField(max_length=300)
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.TAB)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    summary = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"import of {self.original_name} into {self.corpus} ({self.status})"
