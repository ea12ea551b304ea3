"""A corpus's team and bulk assignment, as actions of the corpus endpoint (managers of
the corpus only: 404 for non-members, 403 for members who are not managers). Every
change goes through ``services.team`` and ``services.assignment``."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from .. import permissions as policy
from ..models import Corpus
from ..services import assignment, team
from ..services.members import corpus_members
from .fields import checked_text
from .team_serializers import (
    AccountLinkSerializer,
    ActivateSerializer,
    AddMemberSerializer,
    AssignmentRequestSerializer,
    AssignmentResultSerializer,
    CreateAccountSerializer,
    MemberRowSerializer,
    RolesSerializer,
)

MANAGERS_ONLY = "Only a manager of this corpus may see or change its team and assignments."
USERNAME = r"[^/]+"


class TeamActionsMixin:
    """Mixed into ``CorpusViewSet`` (whose ``get_object`` scopes corpora to members)."""

    def _team_corpus(self) -> Corpus:
        corpus = self.get_object()
        if not policy.is_manager(self.request.user, corpus):
            raise PermissionDenied(MANAGERS_ONLY)
        return corpus

    def _member_row(self, corpus: Corpus, username: str) -> dict:
        row = next(row for row in team.members_overview(corpus) if row.user.username == username)
        return MemberRowSerializer(row).data

    def _with_link(self, user, path: str) -> dict:
        data = {"username": user.username, "is_active": user.is_active, "set_password_url": ""}
        data["set_password_url"] = self.request.build_absolute_uri(path)
        return AccountLinkSerializer(data).data

    @extend_schema(request=AddMemberSerializer, responses={200: MemberRowSerializer(many=True)})
    @action(detail=True, methods=["get", "post"], pagination_class=None, filter_backends=[])
    def members(self, request, pk=None):
        """The team with each member's roles, activity and workload (GET); add an
        existing account with roles (POST)."""
        corpus = self._team_corpus()
        if request.method == "POST":
            command = AddMemberSerializer(data=request.data)
            command.is_valid(raise_exception=True)
            user = command.validated_data["user"]
            team.add_member(corpus, user, command.validated_data["roles"], actor=request.user)
            return Response(self._member_row(corpus, user.username), status=status.HTTP_201_CREATED)
        return Response(MemberRowSerializer(team.members_overview(corpus), many=True).data)

    @extend_schema(request=RolesSerializer, responses={200: MemberRowSerializer})
    @action(detail=True, methods=["patch", "delete"], url_path=f"members/(?P<username>{USERNAME})")
    def member(self, request, pk=None, username=None):
        """Replace a member's roles (PATCH) or remove them from the corpus (DELETE): their
        layers stay; their open reviews and review pairs here end."""
        corpus = self._team_corpus()
        user = _member(corpus, username)
        if request.method == "DELETE":
            team.remove_member(corpus, user, actor=request.user)
            return Response(status=status.HTTP_204_NO_CONTENT)
        command = RolesSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        team.set_roles(corpus, user, command.validated_data["roles"], actor=request.user)
        return Response(self._member_row(corpus, user.username))

    @extend_schema(request=None, responses={200: AccountLinkSerializer})
    @action(detail=True, methods=["post"], url_path=f"members/(?P<username>{USERNAME})/activate")
    def activate_member(self, request, pk=None, username=None):
        """Activate a member's account; answers its one-time set-password link."""
        corpus = self._team_corpus()
        user = _member(corpus, username)
        ((activated, path),) = team.activate_accounts(corpus, [user], actor=request.user)
        return Response(self._with_link(activated, path))

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["post"], url_path=f"members/(?P<username>{USERNAME})/deactivate")
    def deactivate_member(self, request, pk=None, username=None):
        """Deactivate a member's account (every corpus: only for a manager of all of them)."""
        corpus = self._team_corpus()
        user = _member(corpus, username)
        team.deactivate_account(corpus, user, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=CreateAccountSerializer, responses={201: AccountLinkSerializer})
    @action(detail=True, methods=["post"])
    def accounts(self, request, pk=None):
        """Create an account, member of this corpus, with a one-time set-password link."""
        corpus = self._team_corpus()
        command = CreateAccountSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        user, path = team.create_account(corpus, actor=request.user, **command.validated_data)
        return Response(self._with_link(user, path), status=status.HTTP_201_CREATED)

    @extend_schema(request=ActivateSerializer, responses={200: AccountLinkSerializer(many=True)})
    @action(detail=True, methods=["post"], url_path="accounts/activate", pagination_class=None, filter_backends=[])
    def activate_accounts(self, request, pk=None):
        """Activate the named members' accounts, or every inactive member's; each with
        its one-time set-password link."""
        corpus = self._team_corpus()
        command = ActivateSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        users = command.validated_data.get("users")
        activated = team.activate_accounts(corpus, users, actor=request.user)
        return Response([self._with_link(user, path) for user, path in activated])

    @extend_schema(request=AssignmentRequestSerializer, responses={200: AssignmentResultSerializer})
    @action(detail=True, methods=["post"])
    def assignments(self, request, pk=None):
        """Assign documents to annotators with a strategy (balanced, round_robin,
        explicit). ``preview: true`` (the default) shows the pairs, the skipped pairs and
        the loads and changes nothing; ``preview: false`` creates the layers, all or none
        (201)."""
        corpus = self._team_corpus()
        command = AssignmentRequestSerializer(data=request.data)
        command.is_valid(raise_exception=True)
        data = command.validated_data
        pairs = [(pair["document"], pair["annotator"].pk) for pair in data.get("pairs", [])]
        preview = assignment.preview_assignment(
            corpus,
            data["documents"],
            [user.pk for user in data["annotators"]],
            strategy=data["strategy"],
            per_document=data["per_document"],
            pairs=pairs,
        )
        if data["preview"]:
            return Response(_result(preview, preview=True))
        layers = assignment.apply_assignment(corpus, preview, actor=request.user)
        body = _result(preview, preview=False)
        body["pairs"] = [_pair(layer.document, layer.annotator, layer=layer.pk) for layer in layers]
        body["skipped"] += [_pair(document, user, reason=reason) for document, user, reason in layers.skipped]
        # The loads as they now are (another assignment may have landed since the
        # preview), in the preview's order.
        names = list(preview.loads_before)
        ids = dict(get_user_model().objects.filter(username__in=names).values_list("username", "pk"))
        loads = assignment.open_loads(corpus, ids.values())
        body["loads_after"] = {name: loads.get(ids[name], 0) for name in names}
        return Response(body, status=status.HTTP_201_CREATED)


def _member(corpus: Corpus, username: str):
    """A member of ``corpus`` named in the path (404 for anybody else; 400 for a name
    that is not storable text)."""
    return get_object_or_404(corpus_members(corpus), username=checked_text(username, "username"))


def _pair(document, user, **extra) -> dict:
    return {"document": document.pk, "doc_id": document.doc_id, "annotator": user.username, **extra}


def _result(shown: assignment.AssignmentPreview, *, preview: bool) -> dict:
    return {
        "preview": preview,
        "pairs": [_pair(document, user) for document, user in shown.pairs],
        "skipped": [_pair(document, user, reason=reason) for document, user, reason in shown.skipped],
        "loads_before": shown.loads_before,
        "loads_after": shown.loads_after,
    }
