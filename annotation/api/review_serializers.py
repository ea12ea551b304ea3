"""Serializers of the pair review (TAB Step 5)."""

from rest_framework import serializers

from ..models import ReviewAssignment, ReviewComment, ReviewPair, ReviewThread
from .annotation_serializers import LayerVersionField
from .fields import IdField, UsernameField, VisibleCorpusField


class ReviewCommentSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ReviewComment
        fields = ["id", "author", "body", "created_at"]


class ReviewThreadSerializer(serializers.ModelSerializer):
    opened_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    settled_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    comments = ReviewCommentSerializer(many=True, read_only=True)

    class Meta:
        model = ReviewThread
        fields = [
            "id",
            "layer",
            "mention",
            "entity",
            "anchor",
            "anchor_start",
            "status",
            "opened_by",
            "opened_at",
            "settled_by",
            "settled_at",
            "comments",
        ]


class ReviewAssignmentSerializer(serializers.ModelSerializer):
    reviewer = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ReviewAssignment
        fields = [
            "reviewer",
            "masked_read_at",
            "reidentifiable",
            "reidentification_comment",
            "reviewer_confirmed_version",
            "author_confirmed_version",
        ]


class ReviewStateSerializer(serializers.Serializer):
    layer = serializers.IntegerField(source="layer.pk")
    status = serializers.CharField(source="layer.status")
    layer_version = serializers.IntegerField(source="layer.version")
    quality_checked = serializers.BooleanField(source="done")
    open_notes = serializers.IntegerField()
    author_confirmed = serializers.BooleanField()
    reviewers_confirmed = serializers.ListField(child=serializers.CharField())
    reviewers_waiting = serializers.ListField(child=serializers.CharField())
    assignments = ReviewAssignmentSerializer(many=True)


class NoteCreateSerializer(serializers.Serializer):
    body = serializers.CharField(allow_blank=True, trim_whitespace=False)
    mention = IdField(required=False)
    entity = IdField(required=False)


class NoteReplySerializer(serializers.Serializer):
    body = serializers.CharField(allow_blank=True, trim_whitespace=False)


class NoteSettleSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReviewThread.Status.choices)
    body = serializers.CharField(required=False, allow_blank=True, default="")


class MaskedReadingSerializer(serializers.Serializer):
    reidentifiable = serializers.ChoiceField(choices=ReviewAssignment.Reidentification.choices)
    comment = serializers.CharField(required=False, allow_blank=True, default="")


class ReviewPairSerializer(serializers.ModelSerializer):
    corpus = VisibleCorpusField()
    first = UsernameField()
    second = UsernameField()

    class Meta:
        model = ReviewPair
        fields = ["id", "corpus", "first", "second", "created_at"]
        read_only_fields = ["created_at"]


class ReviewConfirmSerializer(serializers.Serializer):
    """A sign-off names the version it signs: the one the signer has seen."""

    layer_version = LayerVersionField()
