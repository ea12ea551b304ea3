"""Annotation layers: assignment, status changes, reviewers."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from .. import permissions as policy
from ..selectors import with_layer_counts
from ..services import layers as layer_services
from ..services import reassignment
from .filters import LayerFilter
from .serializers import LayerAssignSerializer, LayerSerializer, LayerStatusSerializer, ReviewerSerializer
from .team_serializers import HandOverSerializer, WithdrawResultSerializer


class LayerViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Layers the user can see: their own, those they review, all of a managed corpus.
    A manager creates a layer to assign a document to an annotator."""

    serializer_class = LayerSerializer
    filterset_class = LayerFilter
    ordering_fields = ["updated_at", "assigned_at", "status"]

    def get_queryset(self):
        return with_layer_counts(policy.visible_layers(self.request.user)).order_by(
            "document__position", "position", "id"
        )

    @extend_schema(request=LayerAssignSerializer, responses={201: LayerSerializer})
    def create(self, request):
        """Assign a document to an annotator (managers only): an empty layer."""
        command = LayerAssignSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        document = get_object_or_404(policy.visible_documents(request.user), pk=command.validated_data["document"])
        if not policy.is_manager(request.user, document.corpus):
            raise PermissionDenied("Only a manager of this corpus may assign documents.")
        layer = layer_services.assign_layer(document, command.validated_data["annotator"], actor=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=layer.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LayerStatusSerializer, responses={200: LayerSerializer})
    @action(detail=True, methods=["post"])
    def status(self, request, pk=None):
        """Move the layer along the workflow (confirm, reopen, start or finish review)."""
        layer = self.get_object()
        command = LayerStatusSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        target = command.validated_data["status"]
        if not policy.can_change_status(request.user, layer, target):
            raise PermissionDenied(f"You may not move this layer from {layer.status} to {target}.")
        layer_services.change_layer_status(
            layer, target, actor=request.user, expected_version=command.validated_data["layer_version"]
        )
        return Response(self.get_serializer(self.get_queryset().get(pk=layer.pk)).data)

    @extend_schema(request=ReviewerSerializer, responses={201: LayerSerializer})
    @action(detail=True, methods=["post"])
    def reviewers(self, request, pk=None):
        """Pair a reviewer on this layer (managers only)."""
        layer = self._managed_layer("pair reviewers")
        command = ReviewerSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        layer_services.add_reviewer(layer, command.validated_data["reviewer"], actor=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=layer.pk)).data, status=status.HTTP_201_CREATED)

    def _managed_layer(self, doing: str):
        """The layer of the URL, for a manager of its corpus (404 if not visible, 403
        naming what only a manager may do otherwise)."""
        layer = self.get_object()
        if not policy.is_manager(self.request.user, layer.document.corpus):
            raise PermissionDenied(f"Only a manager of this corpus may {doing}.")
        return layer

    @extend_schema(request=None, responses={200: WithdrawResultSerializer})
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        """Take an open layer back (managers only): an unstarted one is deleted
        ("deleted"), a started one closed read-only ("withdrawn")."""
        layer = self._managed_layer("withdraw layers")
        result = reassignment.withdraw_layer(layer, actor=request.user)
        return Response(WithdrawResultSerializer({"result": result, "layer": layer.pk}).data)

    @extend_schema(request=HandOverSerializer, responses={200: LayerSerializer})
    @action(detail=True, methods=["post"], url_path="hand-over")
    def hand_over(self, request, pk=None):
        """Give an open layer, with its work and history, to another annotator (managers only)."""
        layer = self._managed_layer("hand over layers")
        command = HandOverSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        reassignment.hand_over_layer(layer, command.validated_data["annotator"], actor=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=layer.pk)).data)
