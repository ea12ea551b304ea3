"""Corpora, memberships, documents, imports and exports."""

from django.http.response import HttpResponseBase
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from .. import permissions as policy
from ..models import Corpus, CorpusMembership, ImportJob
from ..selectors import with_corpus_counts
from ..services import corpora as corpus_services
from ..services import team
from ..services.exports import ExportError, ExportFormat, ExportOptions, LayerScope, MaskSource, prepare_export
from ..tasks import submit_import_job
from .downloads import download_response
from .fields import text_param, text_params
from .filters import DocumentFilter, ImportJobFilter, MembershipFilter
from .permissions import IsCorpusManager
from .serializers import (
    CorpusSerializer,
    DocumentListSerializer,
    DocumentSerializer,
    ImportJobSerializer,
    ImportUploadSerializer,
    MembershipSerializer,
)
from .views_team import TeamActionsMixin


class CorpusViewSet(
    TeamActionsMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Corpora the user is a member of. Creating one needs the site permission
    ``annotation.add_corpus``; its creator becomes its manager."""

    serializer_class = CorpusSerializer
    permission_classes = [IsCorpusManager]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return with_corpus_counts(policy.visible_corpora(self.request.user)).order_by("name")

    def perform_create(self, serializer):
        if not policy.can_create_corpus(self.request.user):
            raise PermissionDenied("You may not create corpora.")
        serializer.instance = corpus_services.create_corpus(actor=self.request.user, **serializer.validated_data)
        serializer.instance.document_count = 0

    def perform_update(self, serializer):
        corpus_services.update_corpus(serializer.instance, actor=self.request.user, **serializer.validated_data)

    def _managed(self) -> Corpus:
        corpus = self.get_object()
        if not policy.is_manager(self.request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus may export or import it.")
        return corpus

    def _export(self, options: ExportOptions) -> HttpResponseBase:
        """A checked export (managers only), streamed when large; refused options answer
        400 naming the option."""
        corpus = self._managed()
        try:
            export = prepare_export(corpus, options)
        except ExportError as error:
            raise ValidationError({error.field: error.message}) from None
        return download_response(export)

    def _layer_scope(self) -> str:
        """``layers`` (finished, the default, or all); the older ``finished_only`` flag
        still says the same when given."""
        legacy = text_param(self.request, "finished_only")
        if legacy is not None and "layers" not in self.request.query_params:
            return LayerScope.FINISHED if legacy.lower() in ("1", "true", "yes", "on") else LayerScope.ALL
        return text_param(self.request, "layers", LayerScope.FINISHED)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "layers",
                str,
                enum=LayerScope.values,
                description="finished (default): confirmed, under-review or reviewed layers only; all: every layer.",
            ),
            OpenApiParameter(
                "annotators", str, many=True, description="Only these annotators' layers (default: everybody's)."
            ),
            OpenApiParameter("finished_only", bool, description="Older form of layers=finished (false: all)."),
        ],
        responses={200: {"type": "array", "items": {"type": "object"}}},
    )
    @action(detail=True, methods=["get"], url_path="export/tab")
    def export_tab(self, request, pk=None):
        """The corpus in the TAB JSON format (managers only), streamed."""
        names = [name for value in text_params(request, "annotators") for name in value.split(",") if name]
        return self._export(ExportOptions(ExportFormat.TAB, self._layer_scope(), tuple(names)))

    @extend_schema(
        parameters=[
            OpenApiParameter("annotator", str, description="Whose masked spans (when source=annotator)."),
            OpenApiParameter("source", str, enum=MaskSource.values, description="Default: annotator."),
            OpenApiParameter(
                "layers", str, enum=LayerScope.values, description="finished (default) or all the annotator's layers."
            ),
        ],
        responses={200: {"type": "object", "additionalProperties": {"type": "array"}}},
    )
    @action(detail=True, methods=["get"], url_path="export/masks")
    def export_masks(self, request, pk=None):
        """Masked spans of one annotator, or of the pre-annotation engine, in the
        official evaluation script's format."""
        source = text_param(request, "source", MaskSource.ANNOTATOR)
        annotator = text_param(request, "annotator")
        if source == MaskSource.ANNOTATOR and not annotator:
            raise ValidationError({"annotator": "Name the annotator whose masked spans to export."})
        annotators = (annotator,) if annotator else ()
        return self._export(ExportOptions(ExportFormat.MASKS, self._layer_scope(), annotators, source))

    @extend_schema(request={"multipart/form-data": ImportUploadSerializer}, responses={202: ImportJobSerializer})
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser])
    def imports(self, request, pk=None):
        """Upload a TAB JSON file; a Celery task imports it (all or nothing)."""
        corpus = self._managed()
        upload = ImportUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = submit_import_job(corpus, upload.validated_data["file"], actor=request.user)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class MembershipViewSet(
    mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Who works on which corpus in which role. Managers see and change their corpora's
    members; everybody sees their own memberships."""

    serializer_class = MembershipSerializer
    permission_classes = [IsCorpusManager]
    filterset_class = MembershipFilter

    queryset = CorpusMembership.objects.none()  # for the schema; requests use get_queryset

    def get_queryset(self):
        user = self.request.user
        if not user.is_authenticated:
            return CorpusMembership.objects.none()
        managed = policy.managed_corpora(user)
        return (
            (CorpusMembership.objects.filter(corpus__in=managed) | CorpusMembership.objects.filter(user=user))
            .select_related("user", "corpus")
            .distinct()
            .order_by("corpus", "role", "user__username")
        )

    def perform_create(self, serializer):
        corpus = serializer.validated_data["corpus"]
        if not policy.is_manager(self.request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus may add members.")
        data = serializer.validated_data
        serializer.instance = corpus_services.add_member(corpus, data["user"], data["role"], actor=self.request.user)

    def perform_destroy(self, instance):
        """Taking one role away follows the team rules (``team.remove_role``)."""
        team.remove_role(instance.corpus, instance.user, instance.role, actor=self.request.user)


class DocumentViewSet(viewsets.ReadOnlyModelViewSet):
    """Documents of managed corpora, and documents the user has a visible layer on."""

    filterset_class = DocumentFilter
    ordering_fields = ["doc_id", "position", "text_length"]

    def get_queryset(self):
        return policy.visible_documents(self.request.user).select_related("corpus").order_by("corpus", "position", "id")

    def get_serializer_class(self):
        return DocumentListSerializer if self.action == "list" else DocumentSerializer


class ImportJobViewSet(viewsets.ReadOnlyModelViewSet):
    """Imports of the corpora the user manages, with their progress and problems."""

    serializer_class = ImportJobSerializer
    filterset_class = ImportJobFilter

    def get_queryset(self):
        return ImportJob.objects.filter(corpus__in=policy.managed_corpora(self.request.user))
