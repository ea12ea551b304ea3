"""The model registry over the API (managers): list and follow trainings, start one,
promote a version (with a written reason when it is not shown to be at least as good
as the model in use). The rules are ``annotation.services.training``'s and
``promotion_guard``'s."""

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from .. import permissions as policy
from ..models import TrainedModel
from ..services import promotion_guard, training
from .fields import VisibleCorpusField
from .filters import TrainedModelFilter


class _TrainedModelList(serializers.ListSerializer):
    def to_representation(self, data):
        # The models in use, read once for the whole list (each version asks).
        models = list(data.all() if hasattr(data, "all") else data)
        self.context["active_labels"] = promotion_guard.active_labels(models)
        return super().to_representation(models)


class TrainedModelSerializer(serializers.ModelSerializer):
    promoted_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who made it the model in use last (null: never, or the schedule or a command).",
    )
    promotion_needs_reason = serializers.SerializerMethodField(
        help_text="Why promoting this version needs a written reason (a drop of ER_di or ER_qi against the model "
        "in use on the same held-out documents, or no such comparison); empty when it needs none."
    )

    class Meta:
        model = TrainedModel
        list_serializer_class = _TrainedModelList
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
            "promoted_by",
            "promotion_reason",
            "promotion_needs_reason",
            "trigger",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_promotion_needs_reason(self, model: TrainedModel) -> str:
        return promotion_guard.needs_reason(model, self.context.get("active_labels"))


class TrainCommandSerializer(serializers.Serializer):
    corpus = VisibleCorpusField()
    kind = serializers.ChoiceField(choices=TrainedModel.Kind.choices)


class PromoteSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=5000,
        help_text="Required when the model is worse than the model in use on ER_di or ER_qi (or was not compared "
        "with it): why it should be used anyway. Stored with the model and in the audit log.",
    )


PROMOTION_REFUSED = OpenApiResponse(
    response=inline_serializer(
        "PromotionRefused",
        {
            "detail": serializers.CharField(required=False),
            "field": serializers.CharField(required=False),
        },
    ),
    description="Refused: the model is not trained, or it is worse than the model in use on ER_di or ER_qi "
    "(the detail names the metrics and both values) and no reason was given (field: reason).",
)


class TrainedModelViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Models trained from the corpora the user manages (``?corpus=ID&kind=...``)."""

    serializer_class = TrainedModelSerializer
    filterset_class = TrainedModelFilter

    def get_queryset(self):
        models = TrainedModel.objects.filter(corpus__in=policy.managed_corpora(self.request.user))
        return models.select_related("promoted_by").order_by("corpus", "kind", "-version")

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

    @extend_schema(request=PromoteSerializer, responses={200: TrainedModelSerializer, 400: PROMOTION_REFUSED})
    @action(detail=True, methods=["post"])
    def promote(self, request, pk=None):
        """Use this version for pre-annotation. A version worse than the model in use on
        ER_di or ER_qi (held-out documents) needs a written ``reason``."""
        model = self.get_object()
        command = PromoteSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        model = training.promote(model, actor=request.user, reason=command.validated_data.get("reason", ""))
        return Response(self.get_serializer(model).data)
