"""The pair review over the API: a layer's review state, notes and their threads,
the masked reading, the sign-off, and the managers' review pairs. The rules are the
services' (``annotation.services.review``) and the policy's."""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from .. import permissions as policy
from ..models import AnnotationLayer, Entity, Mention, ReviewPair, ReviewThread
from ..services import review
from .review_serializers import (
    MaskedReadingSerializer,
    NoteCreateSerializer,
    NoteReplySerializer,
    NoteSettleSerializer,
    ReviewConfirmSerializer,
    ReviewPairSerializer,
    ReviewStateSerializer,
    ReviewThreadSerializer,
)


def _discussable(request, layer: AnnotationLayer) -> AnnotationLayer:
    if not policy.can_discuss(request.user, layer):
        raise PermissionDenied("Only the author and the reviewers of a layer in review discuss it.")
    return layer


class LayerReviewViewSet(viewsets.GenericViewSet):
    """``/api/layer-reviews/{id}/...``: the review of one layer the user can see.

    Each action names its command serializer (``serializer_class``) so that OPTIONS can
    describe it; the path id is looked up with DRF's ``get_object_or_404``, which answers
    404 to an id that is not a number."""

    serializer_class = ReviewStateSerializer
    queryset = AnnotationLayer.objects.none()  # for the schema's id type; requests use get_queryset

    def get_queryset(self):
        return policy.visible_layers(self.request.user).select_related("document__corpus", "annotator")

    def _layer(self, pk) -> AnnotationLayer:
        return get_object_or_404(self.get_queryset(), pk=pk)

    @extend_schema(responses={200: ReviewStateSerializer})
    def retrieve(self, request, pk=None):
        """Sign-offs, reviewers' masked reading and open notes."""
        return Response(ReviewStateSerializer(review.review_state(self._layer(pk))).data)

    @extend_schema(responses={200: ReviewThreadSerializer(many=True)})
    @action(
        detail=True, methods=["get"], serializer_class=NoteCreateSerializer, pagination_class=None, filter_backends=[]
    )
    def notes(self, request, pk=None):
        layer = self._layer(pk)
        threads = layer.review_threads.select_related("opened_by", "settled_by").prefetch_related("comments__author")
        return Response(ReviewThreadSerializer(threads, many=True).data)

    @extend_schema(request=NoteCreateSerializer, responses={201: ReviewThreadSerializer})
    @notes.mapping.post
    def add_note(self, request, pk=None):
        """Open a note on a mention or an entity of the layer."""
        layer = _discussable(request, self._layer(pk))
        command = NoteCreateSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        data = command.validated_data
        mention = get_object_or_404(Mention, pk=data["mention"], layer=layer) if "mention" in data else None
        entity = get_object_or_404(Entity, pk=data["entity"], layer=layer) if "entity" in data else None
        thread = review.open_thread(layer, actor=request.user, body=data["body"], mention=mention, entity=entity)
        return Response(ReviewThreadSerializer(thread).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=MaskedReadingSerializer, responses={200: ReviewStateSerializer})
    @action(detail=True, methods=["post"], url_path="masked-reading", serializer_class=MaskedReadingSerializer)
    def masked_reading(self, request, pk=None):
        """The reviewer's answer after reading the masked document; starts the review."""
        layer = self._layer(pk)
        command = MaskedReadingSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        review.record_masked_reading(
            review.assignment_of(layer, request.user), **command.validated_data, actor=request.user
        )
        layer.refresh_from_db()
        return Response(ReviewStateSerializer(review.review_state(layer)).data)

    @extend_schema(request=ReviewConfirmSerializer, responses={200: ReviewStateSerializer})
    @action(detail=True, methods=["post"], serializer_class=ReviewConfirmSerializer)
    def confirm(self, request, pk=None):
        """Sign the review off, as author or as reviewer, on the version you have seen."""
        layer = _discussable(request, self._layer(pk))
        command = ReviewConfirmSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        state = review.confirm_review(
            layer, actor=request.user, expected_version=command.validated_data["layer_version"]
        )
        return Response(ReviewStateSerializer(state).data)


class ReviewNoteViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """``/api/review-notes/{id}/``: one note, its replies and its outcome."""

    serializer_class = ReviewThreadSerializer

    def get_queryset(self):
        layers = policy.visible_layers(self.request.user)
        return ReviewThread.objects.filter(layer__in=layers).select_related("layer__document__corpus")

    @extend_schema(request=NoteReplySerializer, responses={200: ReviewThreadSerializer})
    @action(detail=True, methods=["post"])
    def reply(self, request, pk=None):
        thread = self.get_object()
        _discussable(request, thread.layer)
        command = NoteReplySerializer(data=request.data)
        command.is_valid(raise_exception=True)
        review.reply(thread, actor=request.user, body=command.validated_data["body"])
        return Response(self.get_serializer(self.get_queryset().get(pk=thread.pk)).data)

    @extend_schema(request=NoteSettleSerializer, responses={200: ReviewThreadSerializer})
    @action(detail=True, methods=["post"])
    def settle(self, request, pk=None):
        """Mark the note resolved or kept (or open it again)."""
        thread = self.get_object()
        _discussable(request, thread.layer)
        command = NoteSettleSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        review.settle(thread, command.validated_data["status"], actor=request.user, body=command.validated_data["body"])
        return Response(self.get_serializer(self.get_queryset().get(pk=thread.pk)).data)


class ReviewPairViewSet(
    mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Review pairs of the corpora the user manages."""

    serializer_class = ReviewPairSerializer

    def get_queryset(self):
        return ReviewPair.objects.filter(corpus__in=policy.managed_corpora(self.request.user)).select_related(
            "first", "second", "corpus"
        )

    def create(self, request):
        command = ReviewPairSerializer(data=request.data, context=self.get_serializer_context())
        command.is_valid(raise_exception=True)
        corpus = command.validated_data["corpus"]
        if not policy.is_manager(request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus may pair annotators.")
        pair = review.pair_annotators(
            corpus, command.validated_data["first"], command.validated_data["second"], actor=request.user
        )
        return Response(self.get_serializer(pair).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        review.unpair(instance, actor=self.request.user)
