"""A re-identification attack (TRI) on a set of protected documents: which documents
(a release of a corpus, or a column of a published frame), which background the
attacker learned from, which attacker, and what it found (TRIR, top-5 accuracy, the
rank of the true person per document and the terms that gave each one away)."""

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from .corpus import Corpus
from .document import Document
from .job import Job, JobStatus
from .release import Release


class ReidentificationSource(models.TextChoices):
    RELEASE = "release", "A release of a corpus"
    FILE = "file", "Documents from a file (a WikiActors column, a release file)"


class Attacker(models.TextChoices):
    TFIDF_SVC = "tfidf-svc", "TF-IDF + linear SVM"
    ENCODER_LR = "encoder-lr", "Frozen encoder + logistic regression"
    TRANSFORMER_FT = "transformer-ft", "Fine-tuned transformer"


class ReidentificationRun(Job):
    """``stage`` says what the run does ("pretreating the background", "training",
    "attacking"); ``done`` of ``total`` counts that stage's units."""

    Source = ReidentificationSource
    Attacker = Attacker

    corpus = models.ForeignKey(
        Corpus, null=True, blank=True, on_delete=models.CASCADE, related_name="reidentification_runs"
    )
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.CASCADE, related_name="reidentification_runs"
    )
    source = models.CharField(max_length=10, choices=Source.choices)
    # What was attacked, in words: "release 12 (intact)", "WikiActors_50_eval.json: manual_abstract".
    source_label = models.CharField(max_length=300, blank=True)
    background_collection = models.CharField(max_length=100)
    attacker = models.CharField(max_length=20, choices=Attacker.choices, default=Attacker.TFIDF_SVC)
    # What the attacker used (windows, C, model, seed ...): every figure names its attacker.
    settings = models.JSONField(default=dict, blank=True)
    # ReidentificationResult.summary(): TRIR, top5, n, attacker, people, random_baseline, seconds, skipped.
    results = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(source__in=ReidentificationSource.values), name="reidentification_source_valid"
            ),
            models.CheckConstraint(condition=Q(attacker__in=Attacker.values), name="reidentification_attacker_valid"),
            models.CheckConstraint(condition=Q(status__in=JobStatus.values), name="reidentification_status_valid"),
            # A release's attack names the release.
            models.CheckConstraint(
                condition=~Q(source=ReidentificationSource.RELEASE) | Q(release__isnull=False),
                name="reidentification_release_iff_source_release",
            ),
        ]

    def __str__(self) -> str:
        return f"re-identification {self.pk} of {self.source_label or self.source} ({self.attacker}, {self.status})"

    @property
    def under_way(self) -> bool:
        # A run whose worker was lost is sent again or failed by the job sweeper.
        return not self.finished


class ReidentificationOutcome(models.Model):
    """What the attacker made of one protected document."""

    run = models.ForeignKey(ReidentificationRun, on_delete=models.CASCADE, related_name="outcomes")
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    doc_id = models.CharField(max_length=200)
    person = models.CharField(max_length=300)
    rank = models.PositiveIntegerField(help_text="Rank of the true person among the attacker's guesses (1: named).")
    # [[person, score], ...] the attacker's best five
    guesses = models.JSONField(default=list, blank=True)
    # [{text, lemma, start, end, weight, original_start, original_end}]: start/end into the
    # attacked text; original_* into the document's original text (null inside a replacement).
    leaking_terms = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "doc_id"], name="reidentification_outcome_unique"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="reidentification_rank_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.doc_id}: rank {self.rank} in run {self.run_id}"

    @property
    def re_identified(self) -> bool:
        return self.rank == 1
