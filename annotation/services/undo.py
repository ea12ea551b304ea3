"""Undo: take back the last annotation changes of a layer, one at a time.

Every change is in the audit trail with the values it replaced; undo applies the
inverse, marks the event ``undone`` and records an ``undo`` event. Undo walks back
through the changes made since the layer's last status change, and only the person who
made a change can take it back (a reviewer's correction is not undone by the author)."""

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser

from ..models import AnnotationLayer, AuditEvent, Entity, Mention, MentionLink
from .audit import record_event
from .errors import DomainError
from .layer_edit import layer_edit

UNDOABLE = (
    "mention.create",
    "mention.create_many",
    "mention.update",
    "mention.delete",
    "entity.decision",
    "entity.merge",
    "mention.split",
)


@dataclass
class Undone:
    """What an undo changed: the action taken back and the text ranges it touched."""

    action: str
    description: str
    ranges: list[tuple[int, int]] = field(default_factory=list)


def next_undo(layer: AnnotationLayer) -> AuditEvent | None:
    """The change an undo on ``layer`` would take back, if any."""
    last_status = (
        AuditEvent.objects.filter(layer=layer, action="layer.status")
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    events = AuditEvent.objects.filter(layer=layer, action__in=UNDOABLE, undone=False)
    if last_status is not None:
        events = events.filter(id__gt=last_status)
    return events.select_related("actor").order_by("-id").first()


def undo_last_change(layer: AnnotationLayer, *, actor: AbstractBaseUser, expected_version: int | None = None) -> Undone:
    with layer_edit(layer, actor=actor, expected_version=expected_version) as locked:
        event = next_undo(locked)
        if event is None:
            raise DomainError("There is nothing to undo since this layer was last assigned, confirmed or reopened.")
        if event.actor_id != actor.pk:
            who = event.actor.username if event.actor else "the system"
            raise DomainError(f"The last change was made by {who}; only they can undo it.")
        label = _label(locked, event)
        ranges = _HANDLERS[event.action](locked, event.changes)
        event.undone = True
        event.save(update_fields=["undone"])
        record_event(
            "undo", actor=actor, layer=locked, target=event.target, changes={"undid": event.pk, "action": event.action}
        )
    return Undone(action=event.action, description=_describe(event, label), ranges=ranges)


def _label(layer: AnnotationLayer, event: AuditEvent) -> str:
    """What the change was about, in the annotator's words (the text, not the TAB id)."""
    snapshot = event.changes.get("after") or event.changes.get("before")
    if isinstance(snapshot, dict) and "span_text" in snapshot:
        return f"“{snapshot['span_text']}”"
    mention = (
        Mention.objects.filter(layer=layer, tab_mention_id=event.target).first()
        or Mention.objects.filter(layer=layer, entity__tab_entity_id=event.target).order_by("start_offset").first()
    )
    return f"“{mention.span_text}”" if mention else event.target


def _describe(event: AuditEvent, label: str) -> str:
    what = {
        "mention.create": "adding",
        "mention.create_many": "adding the other occurrences of",
        "mention.update": "changing",
        "mention.delete": "deleting",
        "entity.decision": "the decision on",
        "entity.merge": "the merge into",
        "mention.split": "splitting",
    }[event.action]
    return f"Undid {what} {label}."


def _mention(layer: AnnotationLayer, tab_id: str) -> Mention:
    return Mention.objects.select_related("entity").get(layer=layer, tab_mention_id=tab_id)


def _entity(layer: AnnotationLayer, tab_id: str) -> Entity:
    # Re-created by an undo: a person's work, which pre-annotation must leave alone.
    entity, _ = Entity.objects.get_or_create(layer=layer, tab_entity_id=tab_id, defaults={"touched": True})
    return entity


def _restore_decisions(layer: AnnotationLayer, state: dict) -> list[tuple[int, int]]:
    ranges = []
    for tab_id, (identifier, confidential) in state.items():
        mention = Mention.objects.filter(layer=layer, tab_mention_id=tab_id)
        mention.update(identifier_type=identifier, confidential_status=confidential)
        ranges += list(mention.values_list("start_offset", "end_offset"))
    return ranges


def _drop_if_empty(entity: Entity) -> None:
    if not entity.mentions.exists():
        entity.delete()


def _undo_create(layer, changes) -> list[tuple[int, int]]:
    after = changes["after"]
    mention = _mention(layer, after["entity_mention_id"])
    entity = mention.entity
    mention.delete()
    _drop_if_empty(entity)
    ranges = [(after["start_offset"], after["end_offset"])]
    return ranges + _restore_decisions(layer, changes.get("entity_before", {}))


def _undo_create_many(layer, changes) -> list[tuple[int, int]]:
    Mention.objects.filter(layer=layer, tab_mention_id__in=[tab_id for tab_id, _, _ in changes["created"]]).delete()
    return [(start, end) for _, start, end in changes["created"]]


def _undo_update(layer, changes) -> list[tuple[int, int]]:
    before, after = changes["before"], changes["after"]
    Mention.objects.filter(layer=layer, tab_mention_id=before["entity_mention_id"]).update(
        start_offset=before["start_offset"],
        end_offset=before["end_offset"],
        span_text=before["span_text"],
        entity_type=before["entity_type"],
        edit_type=before["edit_type"],
    )
    return [(before["start_offset"], before["end_offset"]), (after["start_offset"], after["end_offset"])]


def _undo_delete(layer, changes) -> list[tuple[int, int]]:
    before = changes["before"]
    original = before["original"]
    mention = Mention.objects.create(
        layer=layer,
        entity=_entity(layer, before["entity_id"]),
        tab_mention_id=before["entity_mention_id"],
        start_offset=before["start_offset"],
        end_offset=before["end_offset"],
        span_text=before["span_text"],
        entity_type=before["entity_type"],
        identifier_type=before["identifier_type"],
        confidential_status=before["confidential_status"],
        edit_type=before["edit_type"],
        origin=before["origin"],
        original_start=original[0],
        original_end=original[1],
        original_entity_type=original[2],
        related_mentions_present=before["related_mentions_present"],
        position=before["position"],
        tab_extra=before["tab_extra"],
    )
    by_id = dict(Mention.objects.filter(layer=layer).values_list("tab_mention_id", "pk"))
    links = [
        MentionLink(source=mention, target_id=by_id[target], position=position)
        for position, target in enumerate(before["related_mentions"])
        if target in by_id
    ] + [
        MentionLink(source_id=by_id[source], target=mention, position=position)
        for source, position in before["related_from"]
        if source in by_id
    ]
    MentionLink.objects.bulk_create(links)
    return [(before["start_offset"], before["end_offset"])]


def _undo_decision(layer, changes) -> list[tuple[int, int]]:
    return _restore_decisions(layer, changes["before"])


def _undo_merge(layer, changes) -> list[tuple[int, int]]:
    source = _entity(layer, changes["merged"])
    Mention.objects.filter(layer=layer, tab_mention_id__in=changes["moved"]).update(entity=source)
    link = changes.get("link")
    if link:
        MentionLink.objects.filter(
            source__layer=layer, source__tab_mention_id=link["source"], target__tab_mention_id=link["target"]
        ).delete()
        Mention.objects.filter(layer=layer, tab_mention_id=link["source"]).update(
            related_mentions_present=link["flag_was"]
        )
    before = changes["before"]
    return _restore_decisions(layer, before["target"]) + _restore_decisions(layer, before["source"])


def _undo_split(layer, changes) -> list[tuple[int, int]]:
    mention = _mention(layer, changes["mention"])
    new_entity = mention.entity
    mention.entity = _entity(layer, changes["from_entity"])
    mention.save(update_fields=["entity"])
    _drop_if_empty(new_entity)
    by_id = dict(Mention.objects.filter(layer=layer).values_list("tab_mention_id", "pk"))
    MentionLink.objects.bulk_create(
        [
            MentionLink(source_id=by_id[source], target_id=by_id[target], position=position)
            for source, target, position in changes["removed_links"]
            if source in by_id and target in by_id
        ]
    )
    return list(Mention.objects.filter(entity=mention.entity).values_list("start_offset", "end_offset"))


_HANDLERS = {
    "mention.create": _undo_create,
    "mention.create_many": _undo_create_many,
    "mention.update": _undo_update,
    "mention.delete": _undo_delete,
    "entity.decision": _undo_decision,
    "entity.merge": _undo_merge,
    "mention.split": _undo_split,
}
