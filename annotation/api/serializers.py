"""Serializers of corpora, members, documents, layers, audit events and import jobs."""

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from ..enums import LayerStatus, Role
from ..models import AnnotationLayer, AuditEvent, Corpus, CorpusMembership, Document, ImportJob
from .annotation_serializers import LayerVersionField
from .fields import IdField, UsernameField, VisibleCorpusField


class CorpusSerializer(serializers.ModelSerializer):
    document_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Corpus
        fields = ["id", "name", "description", "guidelines_version", "mask_style", "created_at", "document_count"]
        read_only_fields = ["created_at"]


class MembershipSerializer(serializers.ModelSerializer):
    corpus = VisibleCorpusField()
    user = UsernameField()
    role = serializers.ChoiceField(choices=Role.choices)

    class Meta:
        model = CorpusMembership
        fields = ["id", "corpus", "user", "role", "created_at"]
        read_only_fields = ["created_at"]


class DocumentListSerializer(serializers.ModelSerializer):
    corpus = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Document
        fields = ["id", "corpus", "doc_id", "person_to_protect", "dataset_type", "text_length", "created_at"]


class DocumentSerializer(DocumentListSerializer):
    class Meta(DocumentListSerializer.Meta):
        fields = DocumentListSerializer.Meta.fields + ["task", "meta", "text"]


class LayerSerializer(serializers.ModelSerializer):
    doc_id = serializers.CharField(source="document.doc_id", read_only=True)
    annotator = UsernameField()
    reviewers = serializers.SerializerMethodField()
    mention_count = serializers.IntegerField(read_only=True)
    quality_checked = serializers.BooleanField(read_only=True)

    class Meta:
        model = AnnotationLayer
        fields = [
            "id",
            "document",
            "doc_id",
            "annotator",
            "status",
            "version",
            "quality_checked",
            "mention_count",
            "reviewers",
            "assigned_at",
            "started_at",
            "confirmed_at",
            "reviewed_at",
            "updated_at",
        ]
        read_only_fields = [
            "status",
            "version",
            "assigned_at",
            "started_at",
            "confirmed_at",
            "reviewed_at",
            "updated_at",
        ]

    def get_reviewers(self, layer: AnnotationLayer) -> list[str]:
        return [assignment.reviewer.username for assignment in layer.review_assignments.all()]


class LayerAssignSerializer(serializers.Serializer):
    document = IdField()
    annotator = UsernameField()


class LayerStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=LayerStatus.choices)
    layer_version = LayerVersionField()


class ReviewerSerializer(serializers.Serializer):
    reviewer = UsernameField()


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    doc_id = serializers.CharField(source="document.doc_id", read_only=True, default=None, allow_null=True)

    class Meta:
        model = AuditEvent
        fields = ["id", "at", "actor", "corpus", "document", "doc_id", "layer", "action", "target", "changes"]


def deprecated_alias(new: str) -> serializers.IntegerField:
    """A count under the old name it had before the job fields were renamed
    (``documents_done`` -> ``done``, ``documents_total`` -> ``total``): read-only, the
    same value, marked deprecated in the schema (``deprecate_fields``)."""
    return serializers.IntegerField(
        source=new,
        read_only=True,
        help_text=f"Deprecated: the old name of `{new}`, kept read-only for existing clients; use `{new}`.",
    )


@extend_schema_serializer(deprecate_fields=["documents_done"])
class ImportJobSerializer(serializers.ModelSerializer):
    done = serializers.SerializerMethodField(help_text="Documents read so far (live while running).")
    documents_done = deprecated_alias("done")

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "corpus",
            "original_name",
            "format",
            "status",
            "created_at",
            "finished_at",
            "done",
            "documents_done",
            "summary",
            "error",
        ]

    def get_done(self, job: ImportJob) -> int:
        return job.done


class ImportUploadSerializer(serializers.Serializer):
    file = serializers.FileField()
