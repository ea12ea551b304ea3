"""Serializers of a corpus's team (members, accounts) and of bulk assignment."""

from rest_framework import serializers

from ..enums import Role
from ..services.assignment import STRATEGIES
from .fields import IdField, UsernameField


class MemberRowSerializer(serializers.Serializer):
    """One row of ``team.members_overview``."""

    username = serializers.CharField(source="user.username")
    first_name = serializers.CharField(source="user.first_name")
    last_name = serializers.CharField(source="user.last_name")
    email = serializers.CharField(source="user.email")
    roles = serializers.ListField(child=serializers.CharField())
    is_active = serializers.BooleanField()
    last_activity = serializers.DateTimeField(allow_null=True)
    assigned = serializers.IntegerField(help_text="Their layers not started yet.")
    in_progress = serializers.IntegerField()
    finished = serializers.IntegerField(help_text="Their layers confirmed, under review or reviewed.")
    in_review = serializers.IntegerField(help_text="Layers they review that are not reviewed yet.")
    withdrawn = serializers.IntegerField()


class RolesField(serializers.ListField):
    child = serializers.ChoiceField(choices=Role.choices)

    def __init__(self, **kwargs):
        super().__init__(allow_empty=False, **kwargs)


class AddMemberSerializer(serializers.Serializer):
    user = UsernameField()
    roles = RolesField()


class RolesSerializer(serializers.Serializer):
    roles = RolesField()


class CreateAccountSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    email = serializers.CharField(max_length=254, required=False, allow_blank=True, default="")
    roles = RolesField()


class AccountLinkSerializer(serializers.Serializer):
    """An account with its one-time set-password link (shown once: pass it on)."""

    username = serializers.CharField()
    is_active = serializers.BooleanField()
    set_password_url = serializers.CharField(help_text="Absolute one-time link at which the owner sets a password.")


class ActivateSerializer(serializers.Serializer):
    users = serializers.ListField(
        child=UsernameField(),
        required=False,
        help_text="Usernames to activate; every inactive member when left out.",
    )


class AssignmentPairSerializer(serializers.Serializer):
    document = IdField()
    annotator = UsernameField()


class AssignmentRequestSerializer(serializers.Serializer):
    strategy = serializers.ChoiceField(choices=STRATEGIES, default="balanced")
    documents = serializers.ListField(child=IdField(), required=False, default=list)
    annotators = serializers.ListField(
        child=UsernameField(),
        required=False,
        default=list,
    )
    per_document = serializers.IntegerField(default=1, help_text="Annotators per document (balanced).")
    pairs = AssignmentPairSerializer(many=True, required=False, help_text="For strategy explicit.")
    preview = serializers.BooleanField(default=True, help_text="true: show what would be done, change nothing.")


class PlannedPairSerializer(serializers.Serializer):
    document = serializers.IntegerField()
    doc_id = serializers.CharField()
    annotator = serializers.CharField()
    reason = serializers.CharField(required=False)
    layer = serializers.IntegerField(required=False)


class AssignmentResultSerializer(serializers.Serializer):
    preview = serializers.BooleanField()
    pairs = PlannedPairSerializer(many=True)
    skipped = PlannedPairSerializer(many=True)
    loads_before = serializers.DictField(child=serializers.IntegerField())
    loads_after = serializers.DictField(child=serializers.IntegerField())


class HandOverSerializer(serializers.Serializer):
    annotator = UsernameField()


class WithdrawResultSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["deleted", "withdrawn"])
    layer = serializers.IntegerField()
