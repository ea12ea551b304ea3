"""The model registry over the API (managers): list and follow trainings, start one,
promote a version. The rules are ``annotation.services.training``'s."""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from .. import permissions as policy
from ..models import TrainedModel
from ..services import training
from .fields import VisibleCorpusField
from .filters import TrainedModelFilter


class TrainedModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = TrainedModel
        fields = [
            "id",
            "corpus",
            "kind",
            "version",
            "status",
            "progress",
            "error",
            "metrics",
            "config",
            "train_documents",
            "heldout_documents",
            "duration_s",
            "is_active",
            "activated_at",
            "trigger",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class TrainCommandSerializer(serializers.Serializer):
    corpus = VisibleCorpusField()
    kind = serializers.ChoiceField(choices=TrainedModel.Kind.choices)


class TrainedModelViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Models trained from the corpora the user manages (``?corpus=ID&kind=...``)."""

    serializer_class = TrainedModelSerializer
    filterset_class = TrainedModelFilter

    def get_queryset(self):
        models = TrainedModel.objects.filter(corpus__in=policy.managed_corpora(self.request.user))
        return models.order_by("corpus", "kind", "-version")

    @extend_schema(request=TrainCommandSerializer, responses={202: TrainedModelSerializer})
    def create(self, request):
        """Queue a training (answered at once; follow it by its id)."""
        from ..tasks import submit_training

        command = TrainCommandSerializer(data=request.data, context=self.get_serializer_context())
        command.is_valid(raise_exception=True)
        corpus = command.validated_data["corpus"]
        if not policy.is_manager(request.user, corpus):
            raise PermissionDenied("Only a manager of this corpus trains its models.")
        model = submit_training(corpus, command.validated_data["kind"], actor=request.user)
        return Response(self.get_serializer(model).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={200: TrainedModelSerializer})
    @action(detail=True, methods=["post"])
    def promote(self, request, pk=None):
        """Use this version for pre-annotation."""
        model = training.promote(self.get_object(), actor=request.user)
        return Response(self.get_serializer(model).data)
