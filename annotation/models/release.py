"""A sanitized release of a corpus: which spans were released (the source), how they
were replaced (the strategy), each document's sanitized text and the decision taken for
each entity with its trail (candidates, the attacker's guesses, the reason).

Offsets are into the original text. The original text stays in ``Document``; a
decision's ``original`` (the first mention's text) is for the managers' view only and is
never exported."""

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from ..enums import EntityType, IdentifierType
from .corpus import Corpus
from .document import Document
from .job import Job, JobStatus, JobStep, StepStatus


class ReleaseSource(models.TextChoices):
    REVIEWED = "reviewed", "Reviewed layers first"
    ANNOTATOR = "annotator", "One annotator's layers"
    PREANNOTATION = "preannotation", "The newest pre-annotation"


class ReleaseStrategy(models.TextChoices):
    SUPPRESS = "suppress", "Suppression"
    STARS = "stars", "Stars (one * per character)"
    LABEL = "label", "Entity type label"
    PLACEHOLDER = "placeholder", "Numbered placeholders"
    RULES = "rules", "Rule generalization"
    INTACT = "intact", "Generalization guided by an inference attack (INTACT)"


class DecisionPath(models.TextChoices):
    """The engine's paths (sanitize_app.engine.release.types.PATHS)."""

    FIRST = "first", "First candidate"
    LATER = "later", "A later candidate"
    FALLBACK = "fallback", "Fallback (numbered label)"
    FIXED = "fixed", "Fixed by the strategy"
    ATTACK = "attack", "Added by attack-guided masking"


class Release(Job):
    """``total`` is the number of documents of the release, ``done`` those finished."""

    Source = ReleaseSource
    Strategy = ReleaseStrategy

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="releases")
    source = models.CharField(max_length=20, choices=Source.choices)
    annotator = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Whose layers were released (source 'annotator' only).",
    )
    strategy = models.CharField(max_length=20, choices=Strategy.choices)
    # Attack-guided masking: when set, terms that let the re-identification attacker
    # (trained on the corpus's background) put the protected person among its first k
    # guesses are masked or generalized too. Null: off.
    attack_guided_top_k = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Mask what keeps the protected person in the attacker's top k (empty: off).",
    )
    # What the engine used: LLM model or none, attacker, candidate sources, ic source,
    # embedder. Never an API key.
    settings = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # TPS, ic, embedder, ER_di, ER_qi, paths, seconds_per_document, skipped documents.
    metrics = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(source__in=ReleaseSource.values), name="release_source_valid"),
            models.CheckConstraint(
                condition=Q(strategy__in=ReleaseStrategy.values),
                name="release_strategy_valid",
            ),
            models.CheckConstraint(condition=Q(status__in=JobStatus.values), name="release_status_valid"),
            # An annotator's release names the annotator; the others name none.
            models.CheckConstraint(
                condition=Q(source=ReleaseSource.ANNOTATOR, annotator__isnull=False)
                | (~Q(source=ReleaseSource.ANNOTATOR) & Q(annotator__isnull=True)),
                name="release_annotator_iff_source_annotator",
            ),
        ]

    def __str__(self) -> str:
        return f"release {self.pk} of {self.corpus} ({self.strategy}, {self.source}, {self.status})"


class ReleaseDocument(JobStep):
    """One document of a release: sanitized once (a redelivered task does not redo it)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="documents")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    sanitized_text = models.TextField(blank=True)
    # [{start, end, replacement, entity_type, identifier_type, reason}], offsets into the original.
    spans = models.JSONField(default=list, blank=True)
    tps = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["release", "document__position", "document_id"]
        constraints = [
            models.UniqueConstraint(fields=["release", "document"], name="release_document_unique"),
            models.CheckConstraint(condition=Q(status__in=StepStatus.values), name="release_document_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} in release {self.release_id} ({self.status})"


class ReleaseDecision(models.Model):
    """How one entity of a document was replaced, and why."""

    Path = DecisionPath

    release_document = models.ForeignKey(ReleaseDocument, on_delete=models.CASCADE, related_name="decisions")
    entity_key = models.CharField(max_length=200)
    entity_type = models.CharField(max_length=10, choices=EntityType.choices)
    identifier_type = models.CharField(max_length=10, choices=IdentifierType.choices)
    original = models.TextField(help_text="The first mention's text: shown to managers, never exported.")
    replacement = models.TextField(blank=True)
    path = models.CharField(max_length=10, choices=Path.choices)
    reason = models.TextField(blank=True)
    candidate_source = models.CharField(max_length=40, blank=True)
    candidates = models.JSONField(default=list, blank=True)
    # [{candidate, guesses, matched, reason}]
    trials = models.JSONField(default=list, blank=True)
    # [[start, end], ...] into the original text
    mentions = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order of the entity in the document.")

    class Meta:
        ordering = ["release_document", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(path__in=DecisionPath.values), name="release_decision_path_valid"),
            models.CheckConstraint(
                condition=Q(entity_type__in=EntityType.values), name="release_decision_entity_type_valid"
            ),
            models.CheckConstraint(
                condition=Q(identifier_type__in=IdentifierType.values), name="release_decision_identifier_type_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entity_key}: {self.replacement!r} ({self.path})"
