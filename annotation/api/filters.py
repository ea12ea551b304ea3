"""Query-string filters of the list endpoints."""

import django_filters as filters
from django.db.models import Q

from ..enums import ConfidentialStatus, DatasetType, EntityType, IdentifierType, LayerStatus, Role
from ..models import AnnotationLayer, AuditEvent, CorpusMembership, Document, Entity, Mention
from ..selectors import inconsistency_condition


class MembershipFilter(filters.FilterSet):
    user = filters.CharFilter(field_name="user__username")
    role = filters.ChoiceFilter(choices=Role.choices)

    class Meta:
        model = CorpusMembership
        fields = ["corpus", "user", "role"]


class DocumentFilter(filters.FilterSet):
    dataset_type = filters.ChoiceFilter(choices=DatasetType.choices)
    search = filters.CharFilter(method="filter_search", label="doc_id or person to protect contains")

    class Meta:
        model = Document
        fields = ["corpus", "doc_id", "dataset_type"]

    def filter_search(self, queryset, name, value):
        return queryset.filter(Q(doc_id__icontains=value) | Q(person_to_protect__icontains=value))


class LayerFilter(filters.FilterSet):
    corpus = filters.NumberFilter(field_name="document__corpus")
    annotator = filters.CharFilter(field_name="annotator__username")
    status = filters.ChoiceFilter(choices=LayerStatus.choices)

    class Meta:
        model = AnnotationLayer
        fields = ["document", "corpus", "annotator", "status"]


class MentionFilter(filters.FilterSet):
    entity_type = filters.ChoiceFilter(choices=EntityType.choices)
    identifier_type = filters.ChoiceFilter(choices=IdentifierType.choices)
    confidential_status = filters.ChoiceFilter(choices=ConfidentialStatus.choices)
    document = filters.NumberFilter(field_name="layer__document")

    class Meta:
        model = Mention
        fields = ["layer", "entity", "document", "entity_type", "identifier_type", "confidential_status", "origin"]


class EntityFilter(filters.FilterSet):
    inconsistent = filters.BooleanFilter(method="filter_inconsistent")

    class Meta:
        model = Entity
        fields = ["layer", "inconsistent"]

    def filter_inconsistent(self, queryset, name, value):
        # The viewset's queryset carries the summary annotations the condition reads.
        condition = inconsistency_condition()
        return queryset.filter(condition) if value else queryset.exclude(condition)


class AuditEventFilter(filters.FilterSet):
    actor = filters.CharFilter(field_name="actor__username")
    action = filters.CharFilter(field_name="action", lookup_expr="startswith")
    since = filters.IsoDateTimeFilter(field_name="at", lookup_expr="gte")

    class Meta:
        model = AuditEvent
        fields = ["corpus", "document", "layer", "actor", "action", "since"]
