"""Mentions (annotated spans), entities (coreference clusters) and explicit links.

Decisions (identifier type, confidential status) are made per entity in the workspace
and propagated to its mentions, but they are *stored per mention*: the TAB format allows
the mentions of one entity to differ and an imported layer keeps them exactly.

Integrity that Django cannot express as a CHECK constraint lives in database triggers
(see migration 0002): offsets inside the document text, ``span_text`` equal to the text
at those offsets, a mention's entity in the mention's own layer, links inside one layer.
"""

from django.db import models
from django.db.models import Q

from ..enums import ConfidentialStatus, EditType, EntityType, IdentifierType, Origin
from .layer import AnnotationLayer


class Entity(models.Model):
    """A coreference cluster: the mentions of one layer that denote the same thing."""

    layer = models.ForeignKey(AnnotationLayer, on_delete=models.CASCADE, related_name="entities")
    tab_entity_id = models.CharField(max_length=200, help_text="The TAB entity_id.")
    # Set by every change a person makes to the entity (its mentions, decisions or
    # coreference): a new pre-annotation run never replaces such an entity.
    touched = models.BooleanField(default=False, db_default=False)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["layer", "tab_entity_id"], name="entity_id_unique_in_layer"),
            models.CheckConstraint(condition=~Q(tab_entity_id=""), name="entity_id_not_empty"),
        ]

    def __str__(self) -> str:
        return self.tab_entity_id


class Mention(models.Model):
    layer = models.ForeignKey(AnnotationLayer, on_delete=models.CASCADE, related_name="mentions")
    # RESTRICT: an entity cannot be deleted while it has mentions, except when its whole
    # layer is deleted (both go by cascade).
    entity = models.ForeignKey(Entity, on_delete=models.RESTRICT, related_name="mentions")
    tab_mention_id = models.CharField(max_length=200, help_text="The TAB entity_mention_id.")
    start_offset = models.PositiveIntegerField()
    end_offset = models.PositiveIntegerField()
    span_text = models.TextField()
    entity_type = models.CharField(max_length=10, choices=EntityType.choices)
    identifier_type = models.CharField(max_length=10, choices=IdentifierType.choices, null=True, blank=True)
    confidential_status = models.CharField(max_length=20, choices=ConfidentialStatus.choices, null=True, blank=True)
    edit_type = models.CharField(max_length=10, choices=EditType.choices, null=True, blank=True)
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.MANUAL)
    # The span and type the pre-annotation proposed, when known: edit_type is kept
    # relative to them (check while unchanged, correct once changed).
    original_start = models.PositiveIntegerField(null=True, blank=True)
    original_end = models.PositiveIntegerField(null=True, blank=True)
    original_entity_type = models.CharField(max_length=10, choices=EntityType.choices, null=True, blank=True)
    # TAB distinguishes an absent related_mentions key from an empty list.
    related_mentions_present = models.BooleanField(default=False)
    related = models.ManyToManyField(
        "self", through="MentionLink", symmetrical=False, related_name="related_from", blank=True
    )
    position = models.PositiveIntegerField(
        default=0, help_text="Order in the imported layer (ties of identical spans)."
    )
    tab_extra = models.JSONField(default=dict, blank=True)
    # The machine proposal this pre-annotated mention came from (its suggested decision
    # and reasons); kept apart from the human decision fields above.
    prediction = models.ForeignKey(
        "annotation.Prediction", null=True, blank=True, on_delete=models.SET_NULL, related_name="mentions"
    )

    class Meta:
        ordering = ["start_offset", "end_offset", "position", "id"]
        indexes = [models.Index(fields=["layer", "start_offset"], name="mention_layer_start")]
        constraints = [
            models.UniqueConstraint(fields=["layer", "tab_mention_id"], name="mention_id_unique_in_layer"),
            models.CheckConstraint(condition=Q(start_offset__gte=0), name="mention_start_not_negative"),
            models.CheckConstraint(
                condition=Q(start_offset__lt=models.F("end_offset")), name="mention_start_before_end"
            ),
            models.CheckConstraint(condition=~Q(tab_mention_id=""), name="mention_id_not_empty"),
            models.CheckConstraint(condition=Q(entity_type__in=EntityType.values), name="mention_entity_type_valid"),
            models.CheckConstraint(
                condition=Q(identifier_type__isnull=True) | Q(identifier_type__in=IdentifierType.values),
                name="mention_identifier_type_valid",
            ),
            models.CheckConstraint(
                condition=Q(confidential_status__isnull=True) | Q(confidential_status__in=ConfidentialStatus.values),
                name="mention_confidential_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(edit_type__isnull=True) | Q(edit_type__in=EditType.values), name="mention_edit_type_valid"
            ),
            models.CheckConstraint(condition=Q(origin__in=Origin.values), name="mention_origin_valid"),
            models.CheckConstraint(
                condition=Q(original_entity_type__isnull=True) | Q(original_entity_type__in=EntityType.values),
                name="mention_original_entity_type_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tab_mention_id} [{self.start_offset}:{self.end_offset}] {self.span_text!r}"

    @property
    def needs_masking(self) -> bool:
        return self.identifier_type in (IdentifierType.DIRECT, IdentifierType.QUASI)


class MentionLink(models.Model):
    """An explicit coreference link drawn in Step 4 (TAB ``related_mentions``), in order."""

    source = models.ForeignKey(Mention, on_delete=models.CASCADE, related_name="outgoing_links")
    target = models.ForeignKey(Mention, on_delete=models.CASCADE, related_name="incoming_links")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["source", "position"]
        constraints = [
            models.UniqueConstraint(fields=["source", "target"], name="mention_link_unique"),
            models.CheckConstraint(condition=~Q(source=models.F("target")), name="mention_link_not_self"),
        ]
