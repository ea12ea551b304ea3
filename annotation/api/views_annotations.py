"""Mentions and entities: every change goes through the domain services.

Write responses carry ``layer_version``, the version to send with the next change."""

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response

from .. import permissions as policy
from ..models import AnnotationLayer, Entity, Mention, MentionLink
from ..selectors import with_entity_summary
from ..services import coreference, decisions, mentions
from .annotation_serializers import (
    EntityDecisionSerializer,
    EntityMergeSerializer,
    EntitySerializer,
    LayerVersionSerializer,
    MentionCreateSerializer,
    MentionSerializer,
    MentionUpdateSerializer,
)
from .filters import EntityFilter, MentionFilter
from .permissions import CanEditLayer


def _editable_layer(user, layer_id: int) -> AnnotationLayer:
    layer, access = policy.layer_with_access(user, layer_id)
    if not access.visible:
        raise NotFound(f"Layer {layer_id} not found.")
    refusal = policy.write_refusal(user, layer, access)
    if refusal:
        raise PermissionDenied(refusal)
    return layer


def _layers_in_scope(request) -> QuerySet[AnnotationLayer]:
    """Reading needs the right to read annotations (a reviewer reads the masked document
    first); a write is looked up among the visible layers so that the refusal can say why
    (403 with the reason) instead of pretending the object does not exist."""
    if request.method in SAFE_METHODS:
        return policy.readable_layers(request.user)
    return policy.visible_layers(request.user)


def _version_of(layer_id: int) -> int:
    return AnnotationLayer.objects.values_list("version", flat=True).get(pk=layer_id)


class MentionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = MentionSerializer
    permission_classes = [CanEditLayer]
    filterset_class = MentionFilter
    ordering_fields = ["start_offset"]

    def get_queryset(self):
        links = Prefetch(
            "outgoing_links", queryset=MentionLink.objects.select_related("target").order_by("position", "id")
        )
        return (
            Mention.objects.filter(layer__in=_layers_in_scope(self.request))
            .select_related("entity", "layer")
            .prefetch_related(links)
            .order_by("layer", "start_offset", "end_offset", "position", "id")
        )

    def _respond(self, mention: Mention, code=status.HTTP_200_OK) -> Response:
        data = MentionSerializer(self.get_queryset().get(pk=mention.pk)).data
        return Response({**data, "layer_version": _version_of(mention.layer_id)}, status=code)

    @extend_schema(request=MentionCreateSerializer, responses={201: MentionSerializer})
    def create(self, request):
        """Add a span (whitespace at its edges is trimmed)."""
        command = MentionCreateSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        data = dict(command.validated_data)
        layer = _editable_layer(request.user, data.pop("layer"))
        mention = mentions.create_mention(
            layer, actor=request.user, expected_version=data.pop("layer_version"), **data
        )
        return self._respond(mention, status.HTTP_201_CREATED)

    @extend_schema(request=MentionUpdateSerializer, responses={200: MentionSerializer})
    def partial_update(self, request, pk=None):
        """Resize a span or change its type; edit_type follows automatically."""
        mention = self.get_object()
        command = MentionUpdateSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        data = dict(command.validated_data)
        version = data.pop("layer_version")
        mention = mentions.update_mention(mention, actor=request.user, expected_version=version, **data)
        return self._respond(mention)

    @extend_schema(request=LayerVersionSerializer, responses={204: None})
    def destroy(self, request, pk=None):
        mention = self.get_object()
        # DELETE bodies are not sent by every client: the version may come in the query.
        command = LayerVersionSerializer(data=request.data or request.query_params)
        command.is_valid(raise_exception=True)
        mentions.delete_mention(
            mention, actor=request.user, expected_version=command.validated_data["layer_version"]
        )
        return Response(
            status=status.HTTP_204_NO_CONTENT, headers={"X-Layer-Version": str(_version_of(mention.layer_id))}
        )

    @extend_schema(request=LayerVersionSerializer, responses={200: EntitySerializer})
    @action(detail=True, methods=["post"])
    def split(self, request, pk=None):
        """Take this mention out of its entity into a new entity."""
        mention = self.get_object()
        command = LayerVersionSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        entity = coreference.split_mention(
            mention, actor=request.user, expected_version=command.validated_data["layer_version"]
        )
        data = EntitySerializer(with_entity_summary(Entity.objects.filter(pk=entity.pk)).get()).data
        return Response({**data, "layer_version": _version_of(mention.layer_id)}, status=status.HTTP_201_CREATED)


class EntityViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Coreference clusters with their decision; ``inconsistent=true`` lists entities
    whose mentions disagree."""

    serializer_class = EntitySerializer
    permission_classes = [CanEditLayer]
    filterset_class = EntityFilter

    def get_queryset(self):
        visible = Entity.objects.filter(layer__in=_layers_in_scope(self.request)).select_related("layer")
        return with_entity_summary(visible).order_by("layer", "id")

    def _respond(self, entity: Entity, code=status.HTTP_200_OK) -> Response:
        data = EntitySerializer(self.get_queryset().get(pk=entity.pk)).data
        return Response({**data, "layer_version": _version_of(entity.layer_id)}, status=code)

    def _entity_to_decide(self, pk) -> Entity:
        """The entity with its layer, document and corpus, if the user may change it:
        the busiest write of the API, so its access is decided for the one layer
        (``permissions.layer_access``) rather than by scoping a queryset."""
        entity = None
        if str(pk).isascii() and str(pk).isdigit():  # "²".isdigit() is True too
            related = Entity.objects.select_related("layer__document__corpus", "layer__annotator")
            entity = related.filter(pk=int(pk)).first()
        access = policy.layer_access(self.request.user, entity.layer) if entity else policy.NO_ACCESS
        if not access.visible:
            raise NotFound(f"Entity {pk} not found.")
        refusal = policy.write_refusal(self.request.user, entity.layer, access)
        if refusal:
            raise PermissionDenied(refusal)
        return entity

    @extend_schema(request=EntityDecisionSerializer, responses={200: EntitySerializer})
    def partial_update(self, request, pk=None):
        """Set DIRECT / QUASI / NO_MASK and/or the confidential status on every mention."""
        entity = self._entity_to_decide(pk)
        command = EntityDecisionSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        data = dict(command.validated_data)
        version = data.pop("layer_version")
        decisions.set_entity_decision(entity, actor=request.user, expected_version=version, **data)
        # The permission was checked above; the summary is read for this entity alone, and
        # the version is the one the service left on the layer object.
        summary = with_entity_summary(Entity.objects.filter(pk=entity.pk)).get()
        return Response({**EntitySerializer(summary).data, "layer_version": entity.layer.version})

    @extend_schema(request=EntityMergeSerializer, responses={200: EntitySerializer})
    @action(detail=True, methods=["post"])
    def merge(self, request, pk=None):
        """Move every mention of ``source`` into this entity."""
        target = self.get_object()
        command = EntityMergeSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        source = self.get_queryset().filter(pk=command.validated_data["source"]).first()
        if source is None:
            raise NotFound(f"Entity {command.validated_data['source']} not found.")
        coreference.merge_entities(
            target, source, actor=request.user, expected_version=command.validated_data["layer_version"]
        )
        return self._respond(target)
