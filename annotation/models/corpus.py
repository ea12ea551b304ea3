"""A corpus and who works on it, in which role."""

from django.conf import settings
from django.db import models

from ..enums import Role


class Corpus(models.Model):
    """A named collection of documents annotated under one version of the guidelines."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    guidelines_version = models.CharField(
        max_length=50,
        default="TAB 2022",
        help_text="Version of the annotation guidelines the layers of this corpus follow.",
    )

    class MaskStyle(models.TextChoices):
        STARS = "stars", "One * per character (as in TAB)"
        LABELS = "labels", "The entity type, e.g. [PERSON]"

    mask_style = models.CharField(
        max_length=10,
        choices=MaskStyle.choices,
        default=MaskStyle.STARS,
        help_text="How masked identifiers look in the masked review documents.",
    )
    # The background corpus (BackgroundDocument.collection) about the people this corpus
    # protects: the re-identification attacker is trained on it. Empty: no risk meter.
    background_collection = models.CharField(
        max_length=100,
        blank=True,
        help_text="Background collection the re-identification attacker learns from (empty: none).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "corpora"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(mask_style__in=["stars", "labels"]), name="corpus_mask_style_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class CorpusMembership(models.Model):
    """A user's role in one corpus. A user may hold several roles in the same corpus
    (annotators review each other in pairs)."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="corpus_memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["corpus", "user", "role"], name="membership_unique_role"),
            models.CheckConstraint(condition=models.Q(role__in=Role.values), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} of {self.corpus}"
