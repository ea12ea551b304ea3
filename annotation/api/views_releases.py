"""Sanitized releases: managers start one over a corpus, follow it, read its documents and
download it. Only managers of the release's corpus see a release at all; the check is
made on every request (a manager removed from the corpus loses access at once)."""

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from .. import permissions as policy
from ..models import Release, ReleaseDecision, ReleaseDocument
from ..services.release_exports import FORMATS, export_release
from ..services.release_guided import MAX_TOP_K
from ..services.releases import release_counts, with_counts
from ..tasks import submit_release
from .fields import VisibleCorpusField
from .filters import ScopedFilterSet
from .serializers import deprecated_alias


class IsReleaseManager(IsAuthenticated):
    """Reading or changing a release needs the manager role in its corpus now."""

    message = "Only a manager of this corpus may see its releases."

    def has_object_permission(self, request, view, obj) -> bool:
        release = obj if isinstance(obj, Release) else obj.release
        return policy.is_manager(request.user, release.corpus)


def managed_releases(user):
    return Release.objects.filter(corpus__in=policy.managed_corpora(user))


@extend_schema_serializer(deprecate_fields=["documents_total"])
class ReleaseSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    progress = serializers.SerializerMethodField(help_text="Documents done, failed and pending; percent finished.")
    documents_total = deprecated_alias("total")

    class Meta:
        model = Release
        fields = [
            "id",
            "corpus",
            "source",
            "annotator",
            "strategy",
            "attack_guided_top_k",
            "status",
            "created_by",
            "created_at",
            "finished_at",
            "total",
            "documents_total",
            "progress",
            "settings",
            "metrics",
            "error",
        ]
        read_only_fields = fields

    def get_progress(self, release: Release) -> dict:
        return release_counts(release)


class StartReleaseSerializer(serializers.Serializer):
    corpus = VisibleCorpusField()
    source = serializers.ChoiceField(choices=Release.Source.choices)
    annotator = serializers.CharField(
        required=False, allow_blank=True, max_length=150, help_text="Whose layers (source 'annotator' only)."
    )
    strategy = serializers.ChoiceField(choices=Release.Strategy.choices)
    attack_guided_top_k = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=MAX_TOP_K,
        help_text=(
            "Attack-guided masking: also mask what keeps the protected person among the re-identification "
            "attacker's first k guesses (null or absent: off). Needs the corpus's background collection."
        ),
    )


class ReleaseDocumentSerializer(serializers.ModelSerializer):
    doc_id = serializers.CharField(source="document.doc_id", read_only=True)

    class Meta:
        model = ReleaseDocument
        fields = ["id", "release", "doc_id", "status", "error", "seconds", "tps", "sanitized_text", "spans"]
        read_only_fields = fields


class ReleaseDecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReleaseDecision
        fields = [
            "entity_key",
            "entity_type",
            "identifier_type",
            "original",
            "replacement",
            "path",
            "reason",
            "candidate_source",
            "candidates",
            "trials",
            "mentions",
        ]
        read_only_fields = fields


class ReleaseDocumentDetailSerializer(ReleaseDocumentSerializer):
    decisions = ReleaseDecisionSerializer(many=True, read_only=True)

    class Meta(ReleaseDocumentSerializer.Meta):
        fields = [*ReleaseDocumentSerializer.Meta.fields, "decisions"]
        read_only_fields = fields


class ReleaseFilter(ScopedFilterSet):
    status = filters.ChoiceFilter(choices=Release.Status.choices)
    strategy = filters.ChoiceFilter(choices=Release.Strategy.choices)

    class Meta:
        model = Release
        fields = ["corpus", "status", "strategy"]


class ReleaseDocumentFilter(ScopedFilterSet):
    status = filters.ChoiceFilter(choices=ReleaseDocument.Status.choices)

    class Meta:
        model = ReleaseDocument
        fields = ["release", "status"]


class ReleaseViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Releases of the corpora the user manages. Creating one enqueues its Celery tasks
    and answers 202; its ``progress`` then moves and ``metrics`` appear when it ends."""

    serializer_class = ReleaseSerializer
    filterset_class = ReleaseFilter
    permission_classes = [IsReleaseManager]

    def get_queryset(self):
        releases = managed_releases(self.request.user).select_related("corpus", "annotator", "created_by")
        return with_counts(releases).order_by("-created_at", "-id")

    @extend_schema(request=StartReleaseSerializer, responses={202: ReleaseSerializer})
    def create(self, request, *args, **kwargs):
        start = StartReleaseSerializer(data=request.data, context=self.get_serializer_context())
        start.is_valid(raise_exception=True)
        corpus = start.validated_data["corpus"]
        if not policy.is_manager(request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus may release it.")
        release = submit_release(
            corpus,
            source=start.validated_data["source"],
            annotator=start.validated_data.get("annotator") or None,
            strategy=start.validated_data["strategy"],
            actor=request.user,
            attack_guided_top_k=start.validated_data.get("attack_guided_top_k"),
        )
        return Response(ReleaseSerializer(release).data, status=status.HTTP_202_ACCEPTED)

    def perform_content_negotiation(self, request, force=False):
        # ``?format=`` names the release file here, not one of DRF's renderers.
        return super().perform_content_negotiation(request, force=force or self.action == "download")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                str,
                enum=list(FORMATS),
                description=(
                    "json (default): [{doc_id, text, spans}] with the sanitized text; zip: one text per document "
                    "and a manifest; masks: the official masked-output file; tri: [{name, doc_id, "
                    "<strategy>_abstract}]."
                ),
            )
        ],
        responses={(200, "application/json"): OpenApiTypes.ANY, (200, "application/zip"): OpenApiTypes.BINARY},
    )
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        """The release as a file (a succeeded release only; never the original text)."""
        release = self.get_object()
        fmt = request.query_params.get("format", "json")
        filename, content_type, content = export_release(release, fmt)
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = content_disposition_header(True, filename)
        return response


class ReleaseDocumentViewSet(viewsets.ReadOnlyModelViewSet):
    """The documents of the releases the user manages (filter by ``release``): the
    sanitized text and its spans; one document also gives its decisions."""

    filterset_class = ReleaseDocumentFilter
    permission_classes = [IsReleaseManager]

    def get_queryset(self):
        documents = ReleaseDocument.objects.filter(release__in=managed_releases(self.request.user)).select_related(
            "document", "release__corpus"
        )
        if self.action == "retrieve":
            documents = documents.prefetch_related("decisions")
        return documents.order_by("release", "document__position", "document_id")

    def get_serializer_class(self):
        return ReleaseDocumentDetailSerializer if self.action == "retrieve" else ReleaseDocumentSerializer
