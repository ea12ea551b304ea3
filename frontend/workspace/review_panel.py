"""The review panel of the workspace: sign-offs, notes, and the changes made by others
since the layer was confirmed."""

from django.http import HttpRequest

from annotation import permissions as policy
from annotation.enums import FINISHED_LAYER_STATUSES
from annotation.models import AnnotationLayer, Mention
from annotation.services import review as review_service

IN_REVIEW = FINISHED_LAYER_STATUSES


def review_panel_context(request: HttpRequest, layer: AnnotationLayer, error: str | None = None) -> dict | None:
    """What the panel shows, or None when the layer is not (or not yet) in review."""
    if layer.status not in IN_REVIEW or not layer.review_assignments.exists():
        return None
    state = review_service.review_state(layer)
    threads = list(layer.review_threads.select_related("opened_by", "settled_by").prefetch_related("comments__author"))
    user = request.user
    is_reviewer = any(a.reviewer_id == user.pk for a in state.assignments)
    return {
        "layer": layer,
        "state": state,
        "threads": threads,
        "corrections": describe_changes(layer, review_service.corrections_in_review(layer)),
        "can_discuss": policy.can_discuss(user, layer),
        "is_author": layer.annotator_id == user.pk,
        "is_reviewer": is_reviewer,
        "my_assignment": next((a for a in state.assignments if a.reviewer_id == user.pk), None),
        "entities": _entity_choices(layer),
        "error": error,
    }


def _entity_choices(layer: AnnotationLayer) -> list[tuple[int, str]]:
    first = {}
    for entity_id, text, entity_type in (
        Mention.objects.filter(layer=layer)
        .order_by("start_offset", "id")
        .values_list("entity_id", "span_text", "entity_type")
    ):
        first.setdefault(entity_id, f"{text} ({entity_type})")
    return sorted(first.items(), key=lambda item: item[1].casefold())


FIELDS = (
    ("span_text", "span"),
    ("entity_type", "type"),
    ("identifier_type", "decision"),
    ("confidential_status", "confidential"),
)
GENERIC = {
    "entity.merge": "merged entities into",
    "mention.split": "split",
    "mention.create_many": "annotated the other occurrences of",
    "preannotation.apply": "applied the pre-annotation to",
}


def describe_changes(layer: AnnotationLayer, events) -> list:
    """Give each audit event a ``summary`` in words (“changed “X”: type ORG → LOC”),
    so the author sees at a glance what the reviewer corrected."""
    names = _entity_names(layer, {e.target for e in events if e.action == "entity.decision"})
    for event in events:
        event.summary = _summary(event, names)
    return events


def _summary(event, names: dict[str, str]) -> str:
    changes = event.changes or {}
    before, after = changes.get("before") or {}, changes.get("after") or {}
    if event.action == "mention.create":
        decision = f", {after['identifier_type']}" if after.get("identifier_type") else ""
        return f"added “{after.get('span_text', event.target)}” as {after.get('entity_type', '?')}{decision}"
    if event.action == "mention.delete":
        return f"removed “{before.get('span_text', event.target)}” ({before.get('entity_type', '?')})"
    if event.action == "mention.update":
        diffs = [
            f"{label} {before.get(key) or '—'} → {after.get(key) or '—'}"
            for key, label in FIELDS
            if before.get(key) != after.get(key)
        ]
        return f"changed “{before.get('span_text', event.target)}”: {', '.join(diffs) or 'links'}"
    if event.action == "entity.decision":
        parts = [f"{key.replace('_', ' ')} {value}" for key, value in after.items() if value]
        return f"decided “{names.get(event.target, event.target)}”: {', '.join(parts)}"
    return f"{GENERIC.get(event.action, event.action)} {event.target}"


def _entity_names(layer: AnnotationLayer, tab_ids: set[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    rows = Mention.objects.filter(layer=layer, entity__tab_entity_id__in=tab_ids).order_by("start_offset")
    for tab_id, text in rows.values_list("entity__tab_entity_id", "span_text"):
        names.setdefault(tab_id, text)
    return names
