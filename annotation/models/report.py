"""A heavy report of a corpus computed by a worker, never in a request: the evaluation
of one masking source, the comparison of all sources, the inter-annotator agreement.

A report is keyed by what it was asked (``params``) and the state of the data it read
(``data_key``): a page shows the newest succeeded report whose key still matches, and
starts a new job when there is none."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from .corpus import Corpus
from .job import Job, JobStatus


class ReportKind(models.TextChoices):
    EVALUATION = "evaluation", "Evaluation of a masking source"
    COMPARISON = "comparison", "Comparison of all masking sources"
    AGREEMENT = "agreement", "Inter-annotator agreement"


class ReportJob(Job):
    Kind = ReportKind

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="report_jobs")
    kind = models.CharField(max_length=20, choices=ReportKind.choices)
    # What was asked (source, annotators, finished_only ...), as the page's query reads it.
    params = models.JSONField(default=dict, blank=True)
    # A digest of params and of the data the report reads (layer versions, runs): a
    # report whose key no longer matches is stale.
    data_key = models.CharField(max_length=64)
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["corpus", "kind", "data_key"], name="report_job_lookup")]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=ReportKind.values), name="report_job_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=JobStatus.values), name="report_job_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} report {self.pk} of {self.corpus} ({self.status})"
