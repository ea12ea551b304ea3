"""Pre-annotation runs: start one over a corpus (or some of its documents), follow it."""

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from .. import permissions as policy
from ..models import PreannotationRun
from ..services.preannotation import run_counts
from ..tasks import submit_preannotation
from .fields import VisibleCorpusField
from .filters import PreannotationRunFilter
from .serializers import deprecated_alias


@extend_schema_serializer(deprecate_fields=["documents_total"])
class PreannotationRunSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField(help_text="Documents done, failed and pending; percent finished.")
    documents_total = deprecated_alias("total")

    class Meta:
        model = PreannotationRun
        fields = [
            "id",
            "corpus",
            "status",
            "created_at",
            "finished_at",
            "model_version",
            "total",
            "documents_total",
            "engine",
            "progress",
        ]
        read_only_fields = fields

    def get_progress(self, run: PreannotationRun) -> dict:
        return run_counts(run)


class StartRunSerializer(serializers.Serializer):
    corpus = VisibleCorpusField()
    documents = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="doc_ids (default: every document of the corpus)."
    )


class PreannotationRunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Runs of the pre-annotation engine over the corpora the user manages. Creating one
    enqueues its Celery tasks and answers 202; the run's ``progress`` then moves."""

    serializer_class = PreannotationRunSerializer
    filterset_class = PreannotationRunFilter

    def get_queryset(self):
        return PreannotationRun.objects.filter(corpus__in=policy.managed_corpora(self.request.user))

    @extend_schema(request=StartRunSerializer, responses={202: PreannotationRunSerializer})
    def create(self, request, *args, **kwargs):
        start = StartRunSerializer(data=request.data, context=self.get_serializer_context())
        start.is_valid(raise_exception=True)
        corpus = start.validated_data["corpus"]
        if not policy.is_manager(request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus may pre-annotate it.")
        run = submit_preannotation(corpus, documents=start.validated_data.get("documents"), actor=request.user)
        return Response(PreannotationRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
