"""Serializers of mentions and entities (reading) and of the commands that change them."""

from rest_framework import serializers

from ..enums import ConfidentialStatus, EntityType, IdentifierType
from ..models import Entity, Mention
from .fields import IdField


class MentionSerializer(serializers.ModelSerializer):
    entity_mention_id = serializers.CharField(source="tab_mention_id", read_only=True)
    entity_id = serializers.CharField(source="entity.tab_entity_id", read_only=True)
    related_mentions = serializers.SerializerMethodField()

    class Meta:
        model = Mention
        fields = [
            "id",
            "layer",
            "entity",
            "entity_mention_id",
            "entity_id",
            "start_offset",
            "end_offset",
            "span_text",
            "entity_type",
            "identifier_type",
            "confidential_status",
            "edit_type",
            "origin",
            "related_mentions",
        ]
        read_only_fields = fields

    def get_related_mentions(self, mention: Mention) -> list[str] | None:
        if not mention.related_mentions_present:
            return None
        return [link.target.tab_mention_id for link in mention.outgoing_links.all()]


class LayerVersionField(serializers.IntegerField):
    """Required on every write: without it a change could overwrite one the client never
    saw ("last write wins"), which optimistic concurrency exists to prevent."""

    default_error_messages = {
        "required": "Send layer_version, the version of the layer you last saw: every change carries it "
        "(a stale version is refused with 409 and the current one).",
    }

    def __init__(self, **kwargs):
        super().__init__(
            required=True,
            min_value=0,
            help_text="The layer version the client last saw (required); a stale version is refused with 409.",
            **kwargs,
        )


class MentionCreateSerializer(serializers.Serializer):
    layer = IdField()
    start_offset = serializers.IntegerField(min_value=0)
    end_offset = serializers.IntegerField(min_value=1)
    entity_type = serializers.ChoiceField(choices=EntityType.choices)
    entity = IdField(
        required=False, help_text="Join this entity (default: the entity of an identical string, else a new one)."
    )
    identifier_type = serializers.ChoiceField(choices=IdentifierType.choices, required=False)
    confidential_status = serializers.ChoiceField(choices=ConfidentialStatus.choices, required=False)
    layer_version = LayerVersionField()


class MentionUpdateSerializer(serializers.Serializer):
    start_offset = serializers.IntegerField(min_value=0, required=False)
    end_offset = serializers.IntegerField(min_value=1, required=False)
    entity_type = serializers.ChoiceField(choices=EntityType.choices, required=False)
    layer_version = LayerVersionField()


class LayerVersionSerializer(serializers.Serializer):
    layer_version = LayerVersionField()


class EntitySerializer(serializers.ModelSerializer):
    entity_id = serializers.CharField(source="tab_entity_id", read_only=True)
    mention_count = serializers.IntegerField(read_only=True)
    identifier_type = serializers.SerializerMethodField()
    confidential_status = serializers.SerializerMethodField()
    entity_type = serializers.CharField(source="first_entity_type", read_only=True)
    inconsistent = serializers.SerializerMethodField(
        help_text="True when its mentions differ in entity type, identifier type or confidential status."
    )

    class Meta:
        model = Entity
        fields = [
            "id",
            "layer",
            "entity_id",
            "entity_type",
            "mention_count",
            "identifier_type",
            "confidential_status",
            "inconsistent",
        ]
        read_only_fields = fields

    def get_identifier_type(self, entity) -> str | None:
        """The entity's decision when its mentions agree, else null."""
        return entity.max_identifier_type if entity.identifier_type_count == 1 and not entity.undecided_count else None

    def get_confidential_status(self, entity) -> str | None:
        return entity.max_confidential_status if entity.confidential_status_count == 1 else None

    def get_inconsistent(self, entity) -> bool:
        undecided_mix = 0 < entity.undecided_count < entity.mention_count
        return (
            entity.identifier_type_count > 1
            or entity.entity_type_count > 1
            or entity.confidential_status_count > 1
            or undecided_mix
        )


class EntityDecisionSerializer(serializers.Serializer):
    identifier_type = serializers.ChoiceField(choices=IdentifierType.choices, required=False)
    confidential_status = serializers.ChoiceField(choices=ConfidentialStatus.choices, required=False)
    layer_version = LayerVersionField()


class EntityMergeSerializer(serializers.Serializer):
    source = IdField(help_text="The entity whose mentions move into this one (it is deleted).")
    layer_version = LayerVersionField()
