"""The audit trail, read-only."""

from rest_framework import viewsets

from .. import permissions as policy
from .filters import AuditEventFilter
from .serializers import AuditEventSerializer


class AuditEventViewSet(viewsets.ReadOnlyModelViewSet):
    """Who changed what and when. Managers read their corpora's trail; annotators and
    reviewers the trail of the layers they can see."""

    serializer_class = AuditEventSerializer
    filterset_class = AuditEventFilter

    def get_queryset(self):
        return policy.visible_audit_events(self.request.user).select_related("actor", "document")
