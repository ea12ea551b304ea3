"""What My work tells an annotator before their queue: work newly given to them, layers
that came back from review with open notes, and documents whose pre-annotation the
engine refreshed while their layer was open.

"Newly" means the last ``RECENT`` days: the application keeps no per-user "last visit",
and a week covers a weekend away. The facts come from the audit trail and the review
notes; only layers the user may see (``visible_layers``) are listed."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q
from django.utils import timezone

from annotation import permissions as policy
from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, AuditEvent, ReviewThread

RECENT = timedelta(days=7)
LISTED = 20
OPEN = (LayerStatus.ASSIGNED, LayerStatus.IN_PROGRESS)
ENGINE_REFRESH = "preannotation.apply"  # by nobody (actor None) when a run refreshes open layers


@dataclass
class Refresh:
    layer: AnnotationLayer
    at: datetime
    added: int
    removed: int


def _own_layers(user):
    return policy.visible_layers(user).filter(annotator=user).select_related("document__corpus")


def newly_assigned(user) -> list[AnnotationLayer]:
    """The user's open layers assigned or handed over to them in the last week, newest
    first, each with ``given_at``."""
    own = _own_layers(user).filter(status__in=OPEN)
    events = (
        AuditEvent.objects.filter(layer__in=own.values("pk"), at__gte=timezone.now() - RECENT)
        .filter(Q(action="layer.assign", target=user.username) | Q(action="layer.handover", changes__to=user.username))
        .order_by("-at", "-id")
        .values_list("layer_id", "at")
    )
    given: dict[int, datetime] = {}
    for layer_id, at in events:
        given.setdefault(layer_id, at)
    ids = list(given)[:LISTED]
    layers = own.in_bulk(ids)
    for layer_id in ids:
        layers[layer_id].given_at = given[layer_id]
    return [layers[layer_id] for layer_id in ids]


def back_from_review(user) -> list[AnnotationLayer]:
    """The user's layers under review with notes still open, each with ``open_notes``."""
    return list(
        _own_layers(user)
        .filter(status=LayerStatus.UNDER_REVIEW)
        .annotate(open_notes=Count("review_threads", filter=Q(review_threads__status=ReviewThread.Status.OPEN)))
        .filter(open_notes__gt=0)
        .order_by("document__position")[:LISTED]
    )


def engine_refreshes(user) -> list[Refresh]:
    """The engine's refreshes of the user's open layers in the last week, newest first
    (the pre-annotation made at assignment is not news: it is the starting point)."""
    own = _own_layers(user).filter(status__in=OPEN)
    events = list(
        AuditEvent.objects.filter(
            layer__in=own.values("pk"), action=ENGINE_REFRESH, actor__isnull=True, at__gte=timezone.now() - RECENT
        ).order_by("-at", "-id")[:LISTED]
    )
    layers = own.in_bulk({event.layer_id for event in events})
    return [
        Refresh(
            layers[event.layer_id], event.at, int(event.changes.get("added", 0)), int(event.changes.get("removed", 0))
        )
        for event in events
    ]


def only_engine_changed(layer_id: int, seen: int, current: int) -> bool:
    """Every version of the layer after ``seen`` up to ``current`` was made by the
    engine refreshing its pre-annotation.

    An engine refresh is one change of the layer recording exactly one audit event (by
    nobody); any change by a person records at least one event of its own. So the last
    ``current - seen`` events of the layer are all engine refreshes exactly when nobody
    else changed it since."""
    changes = current - seen
    if changes <= 0:
        return False
    latest = list(
        AuditEvent.objects.filter(layer_id=layer_id).order_by("-id").values_list("actor_id", "action")[:changes]
    )
    return len(latest) == changes and all(actor is None and action == ENGINE_REFRESH for actor, action in latest)
