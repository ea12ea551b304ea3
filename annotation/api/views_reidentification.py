"""Re-identification runs (TRI) of releases: managers start one on a release of their
corpus (202; a worker fits the attacker and attacks), follow its stage and progress, and
read its results and per-document outcomes. Only managers of the run's corpus see a run;
the check is made on every request (a manager removed from the corpus loses access at
once)."""

from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from .. import permissions as policy
from ..models import ReidentificationOutcome, ReidentificationRun, Release
from ..tasks import submit_release_attack
from .filters import ScopedFilterSet


class IsRunManager(IsAuthenticated):
    """Reading a run needs the manager role in its corpus now."""

    message = "Only a manager of this corpus may see its re-identification runs."

    def has_object_permission(self, request, view, obj) -> bool:
        return obj.corpus is not None and policy.is_manager(request.user, obj.corpus)


def managed_runs(user):
    return ReidentificationRun.objects.filter(corpus__in=policy.managed_corpora(user))


@extend_schema_field(OpenApiTypes.INT)
class ManagedReleaseField(serializers.PrimaryKeyRelatedField):
    """A release of a corpus the user manages; any other is refused like one that does
    not exist."""

    def get_queryset(self):
        request = self.context.get("request")
        if request is None:
            return Release.objects.none()
        return Release.objects.filter(corpus__in=policy.managed_corpora(request.user)).select_related("corpus")


class ReidentificationOutcomeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReidentificationOutcome
        fields = ["doc_id", "document", "person", "rank", "guesses", "leaking_terms"]
        read_only_fields = fields


class ReidentificationRunSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = ReidentificationRun
        fields = [
            "id",
            "corpus",
            "release",
            "source",
            "source_label",
            "background_collection",
            "attacker",
            "settings",
            "status",
            "stage",
            "done",
            "total",
            "results",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class ReidentificationRunDetailSerializer(ReidentificationRunSerializer):
    outcomes = ReidentificationOutcomeSerializer(many=True, read_only=True)

    class Meta(ReidentificationRunSerializer.Meta):
        fields = [*ReidentificationRunSerializer.Meta.fields, "outcomes"]
        read_only_fields = fields


class StartReidentificationSerializer(serializers.Serializer):
    release = ManagedReleaseField(help_text="A succeeded release of a corpus you manage.")
    attacker = serializers.ChoiceField(
        choices=ReidentificationRun.Attacker.choices, required=False, help_text="Default: the configured attacker."
    )


class ReidentificationRunFilter(ScopedFilterSet):
    status = filters.ChoiceFilter(choices=ReidentificationRun.Status.choices)
    attacker = filters.ChoiceFilter(choices=ReidentificationRun.Attacker.choices)

    class Meta:
        model = ReidentificationRun
        fields = ["corpus", "release", "status", "attacker"]


class ReidentificationRunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Re-identification runs of the corpora the user manages, newest first. Creating one
    on a release enqueues its job and answers 202; its ``stage``, ``done`` and ``total``
    then move and ``results`` (TRIR, top5, n, attacker, people, random_baseline ...)
    appear when it ends. One run also gives its outcomes, a document each."""

    filterset_class = ReidentificationRunFilter
    permission_classes = [IsRunManager]

    def get_queryset(self):
        runs = managed_runs(self.request.user).select_related("corpus", "created_by")
        if self.action == "retrieve":
            runs = runs.prefetch_related("outcomes")
        return runs.order_by("-created_at", "-id")

    def get_serializer_class(self):
        return ReidentificationRunDetailSerializer if self.action == "retrieve" else ReidentificationRunSerializer

    @extend_schema(request=StartReidentificationSerializer, responses={202: ReidentificationRunSerializer})
    def create(self, request, *args, **kwargs):
        start = StartReidentificationSerializer(data=request.data, context=self.get_serializer_context())
        start.is_valid(raise_exception=True)
        run = submit_release_attack(
            start.validated_data["release"], attacker=start.validated_data.get("attacker", ""), actor=request.user
        )
        return Response(ReidentificationRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
