"""Why a change was refused as stale: when only the engine changed the layer since the
version the page showed, the annotator is told so (their work was not touched) rather
than that "someone else" changed it."""

from annotation.models import AuditEvent
from annotation.services.notifications import ENGINE_REFRESH


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
