"""Query-string filters of the list endpoints.

A filter never tells whether an object exists outside the user's reach: a filter on
a related object takes its id as a plain number and narrows the (already scoped)
queryset, so an id of another user's object and an id that exists nowhere both answer
200 with an empty page. django-filter's default for a foreign key, a choice of the
whole table, would answer 400 "not one of the available choices" for the unknown id
only. ``ScopedFilterSet`` turns every foreign-key filter into ``IdFilter``."""

import django_filters as filters
from django import forms
from django.db import models
from django.db.models import Q

from ..enums import ConfidentialStatus, DatasetType, EntityType, IdentifierType, LayerStatus, Role
from ..models import (
    AnnotationLayer,
    AuditEvent,
    CorpusMembership,
    Document,
    Entity,
    ImportJob,
    Mention,
    PreannotationRun,
    TrainedModel,
)
from ..selectors import inconsistency_condition
from .fields import MAX_ID


class IdFilter(filters.NumberFilter):
    """An object's id as a whole number (``NumberFilter`` would take "1.5" for 1) that
    the database can compare."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class ScopedFilterSet(filters.FilterSet):
    """Foreign keys filter by id, never by a choice among every row of the table."""

    FILTER_DEFAULTS = {
        **filters.FilterSet.FILTER_DEFAULTS,
        models.ForeignKey: {"filter_class": IdFilter},
        models.OneToOneField: {"filter_class": IdFilter},
    }


class MembershipFilter(ScopedFilterSet):
    user = filters.CharFilter(field_name="user__username")
    role = filters.ChoiceFilter(choices=Role.choices)

    class Meta:
        model = CorpusMembership
        fields = ["corpus", "user", "role"]


class DocumentFilter(ScopedFilterSet):
    dataset_type = filters.ChoiceFilter(choices=DatasetType.choices)
    search = filters.CharFilter(method="filter_search", label="doc_id or person to protect contains")

    class Meta:
        model = Document
        fields = ["corpus", "doc_id", "dataset_type"]

    def filter_search(self, queryset, name, value):
        return queryset.filter(Q(doc_id__icontains=value) | Q(person_to_protect__icontains=value))


class LayerFilter(ScopedFilterSet):
    corpus = IdFilter(field_name="document__corpus")
    annotator = filters.CharFilter(field_name="annotator__username")
    status = filters.ChoiceFilter(choices=LayerStatus.choices)

    class Meta:
        model = AnnotationLayer
        fields = ["document", "corpus", "annotator", "status"]


class MentionFilter(ScopedFilterSet):
    entity_type = filters.ChoiceFilter(choices=EntityType.choices)
    identifier_type = filters.ChoiceFilter(choices=IdentifierType.choices)
    confidential_status = filters.ChoiceFilter(choices=ConfidentialStatus.choices)
    document = IdFilter(field_name="layer__document")

    class Meta:
        model = Mention
        fields = ["layer", "entity", "document", "entity_type", "identifier_type", "confidential_status", "origin"]


class EntityFilter(ScopedFilterSet):
    inconsistent = filters.BooleanFilter(method="filter_inconsistent")

    class Meta:
        model = Entity
        fields = ["layer", "inconsistent"]

    def filter_inconsistent(self, queryset, name, value):
        # The viewset's queryset carries the summary annotations the condition reads.
        condition = inconsistency_condition()
        return queryset.filter(condition) if value else queryset.exclude(condition)


class AuditEventFilter(ScopedFilterSet):
    actor = filters.CharFilter(field_name="actor__username")
    action = filters.CharFilter(field_name="action", lookup_expr="startswith")
    since = filters.IsoDateTimeFilter(field_name="at", lookup_expr="gte")

    class Meta:
        model = AuditEvent
        fields = ["corpus", "document", "layer", "actor", "action", "since"]


class ImportJobFilter(ScopedFilterSet):
    class Meta:
        model = ImportJob
        fields = ["corpus", "status"]


class PreannotationRunFilter(ScopedFilterSet):
    class Meta:
        model = PreannotationRun
        fields = ["corpus", "status"]


class TrainedModelFilter(ScopedFilterSet):
    class Meta:
        model = TrainedModel
        fields = ["corpus", "kind"]
